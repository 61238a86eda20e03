package supervised

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// tinyDigits returns a small random domain of 3x32x32 images whose class is
// written into the image as a bright block, so training can learn it.
func tinyDigits(n int, seed uint64) data.Split {
	rng := rand.New(rand.NewPCG(seed, 1))
	const dim = 3 * 32 * 32
	pix := make([]uint8, n*dim)
	y := make([]int, n)
	for i := range y {
		y[i] = rng.IntN(10)
		img := pix[i*dim : (i+1)*dim]
		for k := range img {
			img[k] = uint8(rng.IntN(64))
		}
		for r := 0; r < 6; r++ {
			for c := 0; c < 3; c++ {
				img[(3*y[i]+r)*32+c+1] = 255
			}
		}
	}
	return data.Split{Dense: &data.Dense{N: n, Shape: []int{3, 32, 32}, Pix: pix, Scale: 1.0 / 255}, Y: y, NumClasses: 10}
}

func TestResumeIsExact(t *testing.T) {
	dom := data.Domain{Dataset: "digits", Name: "tiny", Train: tinyDigits(40, 1), Test: tinyDigits(20, 2)}
	s := method.Train{Epochs: 2, Batch: 16, Settings: optim.Settings{LR: 1}, EvalBatch: 20}
	net := nets.Digits{}
	res, err := Train(context.Background(), dom, net, s, method.Options{Seed: 3, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	full := res.History
	if len(full) != 2 {
		t.Fatalf("%d epoch results, want 2", len(full))
	}
	fullDir := t.TempDir()
	if _, err := Train(context.Background(), dom, net, s, method.Options{Seed: 3, Dir: fullDir}); err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir()
	// Mid-way through the second epoch (3 steps per epoch: 40 rows in
	// batches of 16, the last one shorter).
	if _, err := Train(context.Background(), dom, net, s, method.Options{Seed: 3, Dir: cut, StopAfter: 4}); !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	res, err = Train(context.Background(), dom, net, s, method.Options{Seed: 3, Dir: cut, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	resumed := res.History
	if len(resumed) != 2 || resumed[1].Loss != full[1].Loss || resumed[1].Accuracy != full[1].Accuracy {
		t.Errorf("resumed history %+v differs from %+v", resumed, full)
	}
	a, err := checkpoint.Load(filepath.Join(fullDir, trainer.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	b, err := checkpoint.Load(filepath.Join(cut, trainer.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Tensors) != len(b.Tensors) || len(a.Tensors) == 0 {
		t.Fatalf("checkpoints hold %d and %d tensors", len(a.Tensors), len(b.Tensors))
	}
	for i := range a.Tensors {
		for j, v := range a.Tensors[i].F32 {
			if b.Tensors[i].F32[j] != v {
				t.Fatalf("tensor %s element %d: resumed %v, uninterrupted %v", a.Tensors[i].Name, j, b.Tensors[i].F32[j], v)
			}
		}
	}
	log, err := os.ReadFile(filepath.Join(cut, trainer.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(log), "\n"); lines != 2 {
		t.Errorf("epoch log has %d lines, want 2", lines)
	}
	// Another seed's run does not resume from this checkpoint.
	if _, err := Train(context.Background(), dom, net, s, method.Options{Seed: 4, Dir: cut, Resume: true}); err == nil || !strings.Contains(err.Error(), "seed 3") {
		t.Errorf("resuming seed 3's checkpoint as seed 4: %v", err)
	}
}

func TestRejectsBadInput(t *testing.T) {
	ok := tinyDigits(4, 1)
	flat := data.Split{Dense: &data.Dense{N: 1, Shape: []int{10}, X: make([]float32, 10)}, Y: []int{0}, NumClasses: 10}
	s := Defaults()
	noEpochs := s
	noEpochs.Epochs = 0
	momentum := s
	momentum.Momentum = 0.9 // an SGD setting, Adadelta chosen
	for _, c := range []struct {
		name string
		dom  data.Domain
		s    method.Train
		opt  method.Options
		want string
	}{
		{"not images", data.Domain{Name: "flat", Train: flat, Test: ok}, s, method.Options{}, "flat: the digits network reads 3x32x32 images"},
		{"empty test", data.Domain{Train: ok, Test: data.Split{Dense: ok.Dense.SelectRows(nil), NumClasses: 10}}, s, method.Options{}, "test split is empty"},
		{"no epochs", data.Domain{Train: ok, Test: ok}, noEpochs, method.Options{}, "epochs = 0"},
		{"another optimizer's setting", data.Domain{Train: ok, Test: ok}, momentum, method.Options{}, "momentum"},
		{"resume without dir", data.Domain{Train: ok, Test: ok}, s, method.Options{Resume: true}, ""},
	} {
		_, err := Train(context.Background(), c.dom, nets.Digits{}, c.s, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
