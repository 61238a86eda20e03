package trainer

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// snapshotGolden is a checkpoint of goldenSnapshot's content, written when
// the format was fixed. Checkpoints already on disk must keep loading, so
// the file is never regenerated: a change that makes TestSnapshotFormat fail
// changes the format.
const snapshotGolden = "testdata/snapshot-v1.wadn"

// goldenState is the Adam state of goldenSnapshot: two parameters with
// different step counts, set directly (no arithmetic that could differ
// between platforms).
func goldenState() optim.State {
	return optim.State{Step: 3, Params: []optim.ParamState{
		{Name: "layer/b", Step: 2, Slots: []optim.Slot{
			{Name: "exp_avg", F32: []float32{0.5, -0.25, 0.125}},
			{Name: "exp_avg_sq", F32: []float32{0.0625, 1, 2}},
		}},
		{Name: "layer/w", Step: 3, Slots: []optim.Slot{
			{Name: "exp_avg", F32: []float32{1, -1, 0.5, -0.5, 3, -3}},
			{Name: "exp_avg_sq", F32: []float32{4, 5, 6, 7, 8, 9}},
		}},
	}}
}

// goldenSnapshot returns parameters, a buffer, an Adam optimiser and
// metadata of fixed values; with zero true, the tensors hold zeros and the
// optimiser has no state, ready to be loaded into.
func goldenSnapshot(t *testing.T, zero bool) *Snapshot[float32] {
	t.Helper()
	w := []float32{1.5, -2, 0.25, 3, -0.125, 7}
	b := []float32{0.1, 0.2, 0.3}
	mean := []float32{-1, 0, 1}
	opt, err := optim.NewAdam[float32](optim.AdamConfig{LR: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	s := &Snapshot[float32]{Optim: opt}
	if zero {
		w, b, mean = make([]float32, len(w)), make([]float32, len(b)), make([]float32, len(mean))
	} else {
		if err := opt.SetState(goldenState()); err != nil {
			t.Fatal(err)
		}
		s.Meta = []byte(`{"epoch":2,"step":1}`)
	}
	s.Params = []nn.Param[float32]{
		{Name: "layer/w", Tensor: autodiff.New(w, 2, 3)},
		{Name: "layer/b", Tensor: autodiff.New(b, 3)},
	}
	s.Buffers = []nn.Param[float32]{{Name: "bn/running_mean", Tensor: autodiff.New(mean, 3)}}
	return s
}

// TestSnapshotFormat checks that a snapshot is written byte for byte as
// checkpoints were when the format was fixed, and that such a checkpoint
// loads into the parameters, buffers, optimiser and metadata it was saved
// from.
func TestSnapshotFormat(t *testing.T) {
	want, err := os.ReadFile(snapshotGolden)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), CheckpointFile)
	if err := goldenSnapshot(t, false).Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("the checkpoint written (%d bytes) differs from %s (%d bytes) from byte %d: the format changed, and checkpoints on disk would no longer load",
			len(got), snapshotGolden, len(want), i)
	}

	s := goldenSnapshot(t, true)
	if err := s.Load(snapshotGolden); err != nil {
		t.Fatal(err)
	}
	ref := goldenSnapshot(t, false)
	wantTs := append(append([]nn.Param[float32](nil), ref.Params...), ref.Buffers...)
	for i, p := range append(append([]nn.Param[float32](nil), s.Params...), s.Buffers...) {
		if diff := cmp.Diff(wantTs[i].Tensor.Data(), p.Tensor.Data()); diff != "" {
			t.Errorf("%s loaded (-want +got):\n%s", p.Name, diff)
		}
	}
	if diff := cmp.Diff(goldenState(), s.Optim.State()); diff != "" {
		t.Errorf("optimiser state loaded (-want +got):\n%s", diff)
	}
	if string(s.Meta) != string(ref.Meta) {
		t.Errorf("metadata loaded %q, want %q", s.Meta, ref.Meta)
	}
}
