package wadn

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/nets"
)

// benchSparse returns n rows of 5000-d counts with about 75 non-zeros each,
// the density of the Amazon reviews.
func benchSparse(name string, n int, seed uint64) data.Subset {
	rng := rand.New(rand.NewPCG(seed, 3))
	c := &data.CSR{Rows: n, Cols: 5000, RowPtr: []int{0}}
	y := make([]int, n)
	for i := range n {
		y[i] = rng.IntN(2)
		col := 0
		for col < 5000 {
			col += 1 + rng.IntN(130)
			if col < 5000 {
				c.ColIdx = append(c.ColIdx, int32(col))
				c.Val = append(c.Val, float32(1+rng.IntN(3)))
			}
		}
		c.RowPtr = append(c.RowPtr, len(c.ColIdx))
	}
	return data.Subset{Domain: name, From: "train", Split: data.Split{Sparse: c, Y: y, NumClasses: 2}}
}

var benchImpl = flag.String("bench.impl", "", "the kernels of the step benchmarks (default: this machine's fastest)")

// benchStep times WADN's training step with the defaults of ds on task,
// under the kernels -bench.impl names, on as many threads as -test.cpu
// gives the run (GOMAXPROCS), which it reports.
func benchStep(b *testing.B, task *data.Task, ds *dataset.Dataset, net nets.Network, batch int) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	if *benchImpl != "" {
		prev, err := kernel.SetImpl(*benchImpl)
		if err != nil {
			b.Fatal(err)
		}
		defer kernel.SetImpl(prev)
	}
	r, err := NewBenchRun(task, ds, net, batch)
	if err != nil {
		b.Fatal(err)
	}
	for range 2 { // warm the buffer pools
		if err := r.Step(1, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := r.Step(1, i%r.Steps); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

func amazonBenchTask() *data.Task {
	return &data.Task{Dataset: "amazon", Target: "t", NumClasses: 2,
		Sources:     []data.Subset{benchSparse("a", 1500, 1), benchSparse("b", 1500, 2), benchSparse("c", 1500, 3)},
		TargetTrain: benchSparse("t", 2000, 4), TargetTest: benchSparse("t", 100, 5)}
}

// BenchmarkAmazonStep times one WADN training step of the Amazon network
// (default layout, 5.6 M parameters): 3 sources and the target, 20 reviews
// each.
func BenchmarkAmazonStep(b *testing.B) {
	net := nets.DefaultAmazon()
	benchStep(b, amazonBenchTask(), dataset.Amazon, &net, 0)
}

// BenchmarkAmazonStepReference is BenchmarkAmazonStep in the reference
// numerics mode (package numerics).
func BenchmarkAmazonStepReference(b *testing.B) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	BenchmarkAmazonStep(b)
}

// BenchmarkAmazonStepPaperLayout times the same step with the layout of the
// paper's text and of the PyTorch reference timing: extractor 5000 -> 1000,
// classifier and three critics MLPs 1000 -> 500 -> 100 (7.2 M parameters).
func BenchmarkAmazonStepPaperLayout(b *testing.B) {
	net := nets.DefaultAmazon()
	net.Depth = 1
	benchStep(b, amazonBenchTask(), dataset.Amazon, &net, 0)
}

// BenchmarkDigitsStep times one WADN training step of the Digits network:
// 3 sources and the target, 128 images each (the paper's batch, and that of
// scripts/torch_digits.py).
func BenchmarkDigitsStep(b *testing.B) {
	benchStep(b, DigitsBenchTask(), dataset.Digits, nets.Digits{}, 128)
}

// BenchmarkDigitsStepDefault times the step at the default schedule's
// batch of 20 images per domain.
func BenchmarkDigitsStepDefault(b *testing.B) {
	benchStep(b, DigitsBenchTask(), dataset.Digits, nets.Digits{}, 0)
}

// BenchmarkDigitsStepReference is BenchmarkDigitsStep in the reference
// numerics mode (package numerics): the convolutions run direct.
func BenchmarkDigitsStepReference(b *testing.B) {
	defer numerics.Set(numerics.Set(numerics.Reference))
	BenchmarkDigitsStep(b)
}
