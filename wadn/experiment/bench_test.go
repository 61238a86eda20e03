package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// benchRunEpochs is the length of the runs BenchmarkDigitsRun times: 2 by
// default, 50 (the defaults' schedule) for a whole run.
var benchRunEpochs = flag.Int("bench.epochs", 2, "BenchmarkDigitsRun: the epochs of each run timed (50: a whole run at the defaults)")

var benchImpl = flag.String("bench.impl", "", "BenchmarkDigitsRun: the kernels to run (default: this machine's fastest)")

// BenchmarkDigitsRun times whole WADN Digits runs at the defaults (target
// usps, unsupervised adaptation, batches of 20 images per domain, seed 0)
// cut to -bench.epochs epochs (2; 50 for the whole run): every step, the
// evaluations and the solves at the end of each epoch and the checkpoints,
// each run in a fresh directory; the data are loaded before the clock
// starts. It reports the wall time per epoch (s/epoch) and the part of it
// the steps took (the epoch log's seconds, step-s/epoch), and the threads,
// as many as -test.cpu gives the run (GOMAXPROCS). It needs the data
// directory (WADN_DATA). -bench.impl selects other kernels the machine has
// (avx2 on an AVX-512 machine).
func BenchmarkDigitsRun(b *testing.B) {
	defer kernel.SetThreads(kernel.SetThreads(0)) // GOMAXPROCS, as -test.cpu sets it for this run
	if *benchImpl != "" {
		prev, err := kernel.SetImpl(*benchImpl)
		if err != nil {
			b.Fatal(err)
		}
		defer kernel.SetImpl(prev)
	}
	dir, ok := datadir.Find()
	if !ok {
		b.Skipf("no data directory (set %s)", datadir.Env)
	}
	s, err := NewSpec(dataset.Digits, data.UDA, "wadn")
	if err != nil {
		b.Fatal(err)
	}
	s.Target = "usps"
	if err := s.Set("epochs", strconv.Itoa(*benchRunEpochs)); err != nil {
		b.Fatal(err)
	}
	rn := &Runner{DataDir: dir}
	if _, err := rn.Domains(s); err != nil {
		b.Fatal(err)
	}
	var steps float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rn.Out = filepath.Join(b.TempDir(), "runs")
		out, err := rn.RunOne(context.Background(), s)
		if err != nil {
			b.Fatal(err)
		}
		steps += stepSeconds(b, filepath.Join(out.Dir, trainer.LogFile))
	}
	epochs := float64(b.N * *benchRunEpochs)
	b.ReportMetric(b.Elapsed().Seconds()/epochs, "s/epoch")
	b.ReportMetric(steps/epochs, "step-s/epoch")
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(float64(kernel.Threads()), "threads")
}

// stepSeconds returns the sum of the seconds of the epoch log at path.
func stepSeconds(b *testing.B, path string) float64 {
	raw, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	var sum float64
	dec := json.NewDecoder(bytes.NewReader(raw))
	for dec.More() {
		var line struct{ Seconds float64 }
		if err := dec.Decode(&line); err != nil {
			b.Fatal(err)
		}
		sum += line.Seconds
	}
	return sum
}
