package wadn

import (
	"math/rand/v2"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// benchImages returns a split of n random 3x32x32 images of 10 classes,
// drawn from seed: the input of the Digits network for timings that need
// no data set.
func benchImages(name string, n int, seed uint64) data.Subset {
	rng := rand.New(rand.NewPCG(seed, 3))
	pix := make([]uint8, n*3*32*32)
	for i := range pix {
		pix[i] = uint8(rng.IntN(256))
	}
	y := make([]int, n)
	for i := range y {
		y[i] = rng.IntN(10)
	}
	return data.Subset{Domain: name, From: "train",
		Split: data.Split{Dense: &data.Dense{N: n, Shape: []int{3, 32, 32}, Pix: pix, Scale: 1}, Y: y, NumClasses: 10}}
}

// DigitsBenchTask returns a Digits task of random images: three sources and
// the target of 256 training images each, 16 test images.
func DigitsBenchTask() *data.Task {
	return &data.Task{Dataset: "digits", Target: "t", NumClasses: 10,
		Sources:     []data.Subset{benchImages("a", 256, 1), benchImages("b", 256, 2), benchImages("c", 256, 3)},
		TargetTrain: benchImages("t", 256, 4), TargetTest: benchImages("t", 16, 5)}
}

// NewBenchRun returns a WADN run (seed 1) of unsupervised adaptation on
// task with net and the default settings and schedule of ds, batch images
// (or rows) of every domain a step (ds's default batch when batch is 0),
// ready for its steps (method.Run.Step).
func NewBenchRun(task *data.Task, ds *dataset.Dataset, net nets.Network, batch int) (*method.Run, error) {
	tr := method.DefaultTrain(ds)
	if batch > 0 {
		tr.Batch = batch
	}
	return method.NewRun(method.Config{Method: Method, Settings: Method.Settings(ds, data.UDA), Task: task, Scenario: data.UDA, Net: net, Train: tr}, 1)
}
