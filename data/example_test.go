package data_test

import (
	"fmt"

	"github.com/wadn-go/wadn/data"
)

// Draw the source-shifted Amazon task with target "books" from the copy of
// the data embedded in the binary, and walk one epoch of mini-batches.
func ExampleProtocol_BuildFor() {
	domains, err := data.LoadAmazon("") // "" = the embedded copy
	if err != nil {
		fmt.Println(err)
		return
	}
	task, err := data.AmazonProtocol(data.UDA).BuildFor(domains, "books", 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range task.Sources {
		fmt.Printf("source %-11s %d reviews, classes %v\n", s.Domain, s.Len(), s.Histogram())
	}
	fmt.Printf("target %s: %d unlabelled training reviews, %d test reviews\n",
		task.Target, task.TargetTrain.Len(), task.TargetTest.Len())

	samplers := task.Samplers(data.WithReplacement, 1)
	var batch data.CSR
	steps := task.EpochSteps(20)
	for step := 0; step < steps; step++ {
		for i, s := range samplers[:len(task.Sources)] {
			task.Sources[i].Sparse.GatherRows(s.Next(20), &batch)
		}
	}
	fmt.Printf("%d steps per epoch, last batch %d x %d\n", steps, batch.Rows, batch.Cols)
	// Output:
	// source dvd         1501 reviews, classes [498 1003]
	// source electronics 1491 reviews, classes [509 982]
	// source kitchen     1498 reviews, classes [501 997]
	// target books: 2000 unlabelled training reviews, 4465 test reviews
	// 75 steps per epoch, last batch 20 x 5000
}
