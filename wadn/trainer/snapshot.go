package trainer

import (
	"fmt"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
)

// OptimParams returns the optimiser's view of ps, appended to dst[:0]: each
// parameter's name, value buffer and gradient buffer. Parameters that have no
// gradient yet (no loss reached them) are left out, as torch leaves out a
// parameter whose grad is None.
func OptimParams[T kernel.Float](ps []nn.Param[T], dst []optim.Param[T]) []optim.Param[T] {
	dst = dst[:0]
	for _, p := range ps {
		g := p.Tensor.Grad()
		if g == nil {
			continue
		}
		dst = append(dst, optim.Param[T]{Name: p.Name, Value: p.Tensor.Data(), Grad: g.Data()})
	}
	return dst
}

// Snapshot is what a checkpoint holds of a training run: the model's
// parameters and state buffers, the optimiser state and caller metadata.
type Snapshot[T kernel.Float] struct {
	Params  []nn.Param[T]      // learnt parameters
	Buffers []nn.Param[T]      // state that is not learnt (BatchNorm running statistics)
	Optim   optim.Optimizer[T] // its state is saved and restored; nil saves none and ignores the file's
	Meta    []byte             // caller-defined, typically JSON
}

// Save writes s to path atomically (see checkpoint.Save).
func (s *Snapshot[T]) Save(path string) error {
	all := append(append([]nn.Param[T](nil), s.Params...), s.Buffers...)
	if err := nn.CheckNames(all); err != nil {
		return fmt.Errorf("save %s: %w", path, err)
	}
	f := &checkpoint.File{Meta: s.Meta}
	for _, p := range all {
		f.Tensors = append(f.Tensors, toCheckpoint(p))
	}
	if s.Optim != nil {
		st := s.Optim.State()
		f.Optim = st.Tensors()
		f.OptimStep = st.Step
	}
	return checkpoint.Save(path, f)
}

// Load reads path and copies its tensors into s's parameters and buffers,
// which must match them by name, shape and element type, and its optimiser
// state into s.Optim. It sets s.Meta to the file's metadata. Nothing of s is
// changed when the file does not match.
func (s *Snapshot[T]) Load(path string) error {
	f, err := checkpoint.Load(path)
	if err != nil {
		return err
	}
	all := append(append([]nn.Param[T](nil), s.Params...), s.Buffers...)
	want := make([]checkpoint.Tensor, len(all))
	for i, p := range all {
		want[i] = toCheckpoint(p)
	}
	if err := f.Match(want); err != nil {
		return err
	}
	var st optim.State
	if s.Optim != nil {
		st, err = optim.StateFromTensors(f.OptimStep, f.Optim)
		if err != nil {
			return fmt.Errorf("%s: optimiser state: %w", path, err)
		}
	}
	byName := make(map[string]*checkpoint.Tensor, len(f.Tensors))
	for i := range f.Tensors {
		byName[f.Tensors[i].Name] = &f.Tensors[i]
	}
	for _, p := range all {
		t := byName[p.Name]
		dst := p.Tensor.Data()
		switch d := any(dst).(type) {
		case []float32:
			copy(d, t.F32)
		case []float64:
			copy(d, t.F64)
		}
	}
	if s.Optim != nil {
		if err := s.Optim.SetState(st); err != nil {
			return fmt.Errorf("%s: optimiser state: %w", path, err)
		}
	}
	s.Meta = f.Meta
	return nil
}

func toCheckpoint[T kernel.Float](p nn.Param[T]) checkpoint.Tensor {
	t := checkpoint.Tensor{Name: p.Name, Shape: append([]int(nil), p.Tensor.Shape()...)}
	switch d := any(p.Tensor.Data()).(type) {
	case []float32:
		t.F32 = d
	case []float64:
		t.F64 = d
	}
	return t
}
