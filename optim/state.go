package optim

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// State is a snapshot of an optimiser's state, independent of its element
// type, for saving and restoring a run.
//
// Step counts the successful calls of Step. Params holds one entry per
// parameter the optimiser has seen, sorted by name.
type State struct {
	Step   int
	Params []ParamState
}

// ParamState is the state of one parameter: how many updates it has received
// (the step count Adam's bias correction uses, and the test SGD uses to start
// its momentum buffer) and its named buffers, each as long as the parameter.
type ParamState struct {
	Name  string
	Step  int
	Slots []Slot
}

// Slot is one named state buffer of a parameter, such as Adam's "exp_avg". It
// holds float32 data in F32 or float64 data in F64; the other is nil.
type Slot struct {
	Name string
	F32  []float32
	F64  []float64
}

// Len returns the number of elements in the slot.
func (s Slot) Len() int {
	if s.F64 != nil {
		return len(s.F64)
	}
	return len(s.F32)
}

// stepTensor is the tensor-name suffix under which Tensors stores a
// parameter's step count.
const stepTensor = "step"

// Tensors returns the state as checkpoint tensors: for each parameter p, a
// scalar float64 tensor "p/step" holding its step count and one tensor
// "p/slot" of shape [n] for each slot. The slot data is shared, not copied.
// The optimiser's own step count goes in checkpoint.File.OptimStep.
func (s State) Tensors() []checkpoint.Tensor {
	var ts []checkpoint.Tensor
	for _, p := range s.Params {
		ts = append(ts, checkpoint.Tensor{
			Name:  p.Name + "/" + stepTensor,
			Shape: []int{},
			F64:   []float64{float64(p.Step)},
		})
		for _, sl := range p.Slots {
			ts = append(ts, checkpoint.Tensor{
				Name:  p.Name + "/" + sl.Name,
				Shape: []int{sl.Len()},
				F32:   sl.F32,
				F64:   sl.F64,
			})
		}
	}
	return ts
}

// StateFromTensors rebuilds a State from the tensors written by
// State.Tensors and the optimiser step count stored beside them. Tensors of
// one parameter may come in any order. The data is shared, not copied.
func StateFromTensors(step int, ts []checkpoint.Tensor) (State, error) {
	if step < 0 {
		return State{}, fmt.Errorf("optim: state step %d is negative: %w", step, ErrState)
	}
	s := State{Step: step}
	index := make(map[string]int)
	hasStep := make(map[string]bool)
	for _, t := range ts {
		cut := strings.LastIndexByte(t.Name, '/')
		if cut <= 0 || cut == len(t.Name)-1 {
			return State{}, fmt.Errorf("optim: state tensor %q: want a name of the form parameter/slot: %w", t.Name, ErrState)
		}
		pname, slot := t.Name[:cut], t.Name[cut+1:]
		i, ok := index[pname]
		if !ok {
			i = len(s.Params)
			index[pname] = i
			s.Params = append(s.Params, ParamState{Name: pname})
		}
		p := &s.Params[i]
		if slot == stepTensor {
			if hasStep[pname] {
				return State{}, fmt.Errorf("optim: state tensor %q appears twice: %w", t.Name, ErrDuplicate)
			}
			hasStep[pname] = true
			if len(t.Shape) != 0 || len(t.F64) != 1 || t.F32 != nil {
				return State{}, fmt.Errorf("optim: state tensor %q: want a float64 scalar: %w", t.Name, ErrState)
			}
			v := t.F64[0]
			if !(v >= 0 && v <= 1<<53) || v != math.Trunc(v) {
				return State{}, fmt.Errorf("optim: state tensor %q: step %v is not a count: %w", t.Name, v, ErrState)
			}
			p.Step = int(v)
			continue
		}
		n := len(t.F32)
		if t.F64 != nil {
			n = len(t.F64)
		}
		if len(t.Shape) != 1 || t.Shape[0] != n || (t.F32 != nil && t.F64 != nil) {
			return State{}, fmt.Errorf("optim: state tensor %q: want one vector of float32 or float64 data, have shape %v: %w", t.Name, t.Shape, ErrState)
		}
		for _, sl := range p.Slots {
			if sl.Name == slot {
				return State{}, fmt.Errorf("optim: state tensor %q appears twice: %w", t.Name, ErrDuplicate)
			}
		}
		p.Slots = append(p.Slots, Slot{Name: slot, F32: t.F32, F64: t.F64})
	}
	for _, p := range s.Params {
		if !hasStep[p.Name] {
			return State{}, fmt.Errorf("optim: state of parameter %q has no %q tensor: %w", p.Name, p.Name+"/"+stepTensor, ErrState)
		}
	}
	slices.SortFunc(s.Params, func(a, b ParamState) int { return strings.Compare(a.Name, b.Name) })
	return s, nil
}

// entry is the state of one parameter inside an optimiser.
type entry[T kernel.Float] struct {
	name  string
	n     int    // parameter length
	step  int    // updates received
	seen  uint64 // the registry call that last saw this entry
	slots [][]T  // one buffer of length n per slot name
}

// registry keeps per-parameter state by name and checks each Step's
// parameters against it.
type registry[T kernel.Float] struct {
	algo      string
	slotNames []string
	byName    map[string]*entry[T]
	order     []*entry[T] // entries of the last Step, by position: a cache
	calls     uint64
	step      int
	scan      finiteScan[T]
}

// finiteScan checks a gradient for non-finite values, splitting long ones
// between goroutines like the updates.
type finiteScan[T kernel.Float] struct {
	x   []T
	bad atomic.Bool
}

// check reports whether every element of x is finite and, if not, the index
// of the first that is not.
func (s *finiteScan[T]) check(x []T) (int, bool) {
	s.x = x
	s.bad.Store(false)
	forRange(s, 0, len(x))
	s.x = nil
	if s.bad.Load() {
		return firstNonFinite(x)
	}
	return 0, true
}

func (s *finiteScan[T]) updateRange(_, lo, hi int) {
	if _, ok := firstNonFinite(s.x[lo:hi]); !ok {
		s.bad.Store(true)
	}
}

func newRegistry[T kernel.Float](algo string, slotNames ...string) registry[T] {
	return registry[T]{algo: algo, slotNames: slotNames, byName: make(map[string]*entry[T])}
}

// prepare validates params and returns their entries, creating entries for
// names not seen before. It changes no state when it returns an error. In
// steady state (the same names as the last call) it does not allocate.
func (r *registry[T]) prepare(params []Param[T]) ([]*entry[T], error) {
	r.calls++
	if cap(r.order) < len(params) {
		r.order = append(r.order[:cap(r.order)], make([]*entry[T], len(params)-cap(r.order))...)
	}
	ents := r.order[:len(params)]
	var fresh []int
	for i := range params {
		p := &params[i]
		if len(p.Grad) != len(p.Value) {
			return nil, fmt.Errorf("optim: %s: parameter %q: gradient length %d, value length %d: %w",
				r.algo, p.Name, len(p.Grad), len(p.Value), ErrLength)
		}
		e := ents[i]
		if e == nil || e.name != p.Name {
			e = r.byName[p.Name]
			ents[i] = e
		}
		if e == nil {
			fresh = append(fresh, i)
			continue
		}
		if e.n >= 0 && e.n != len(p.Value) {
			return nil, fmt.Errorf("optim: %s: parameter %q: length %d, its state has length %d: %w",
				r.algo, p.Name, len(p.Value), e.n, ErrLength)
		}
		if e.seen == r.calls {
			return nil, fmt.Errorf("optim: %s: parameter %q given twice: %w", r.algo, p.Name, ErrDuplicate)
		}
		e.seen = r.calls
	}
	if len(fresh) > 1 {
		names := make(map[string]bool, len(fresh))
		for _, i := range fresh {
			if names[params[i].Name] {
				return nil, fmt.Errorf("optim: %s: parameter %q given twice: %w", r.algo, params[i].Name, ErrDuplicate)
			}
			names[params[i].Name] = true
		}
	}
	for i := range params {
		if j, ok := r.scan.check(params[i].Grad); !ok {
			return nil, fmt.Errorf("optim: %s: parameter %q: gradient element %d is %v; no parameter was updated: %w",
				r.algo, params[i].Name, j, params[i].Grad[j], ErrNonFinite)
		}
	}
	for i, e := range ents {
		if e != nil && e.n < 0 {
			e.n = len(params[i].Value)
		}
	}
	for _, i := range fresh {
		p := &params[i]
		e := &entry[T]{name: p.Name, n: len(p.Value), seen: r.calls, slots: make([][]T, len(r.slotNames))}
		for k := range e.slots {
			e.slots[k] = make([]T, e.n)
		}
		r.byName[p.Name] = e
		ents[i] = e
	}
	return ents, nil
}

// firstNonFinite reports whether every element of x is finite and, if not,
// the index of the first that is not. It is
//
//	for i, v := range x { if math.IsInf(v, 0) || math.IsNaN(v) { return i, false } }; return 0, true
//
// computed as four running sums of v-v, which stay zero exactly when every v
// is finite (Inf-Inf and anything involving NaN give NaN).
func firstNonFinite[T kernel.Float](x []T) (int, bool) {
	if isFloat32[T]() && allFiniteAsm(f32s(x)) {
		return 0, true
	}
	var s0, s1, s2, s3 T
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := x[i : i+4 : i+4]
		s0 += v[0] - v[0]
		s1 += v[1] - v[1]
		s2 += v[2] - v[2]
		s3 += v[3] - v[3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] - x[i]
	}
	if s0+s1+s2+s3 == 0 {
		return 0, true
	}
	for i, v := range x {
		if v-v != 0 {
			return i, false
		}
	}
	return 0, true // unreachable: the sums are zero when every v-v is
}

// f32s views a slice of a 4-byte float type as []float32; callers check
// isFloat32 first.
func f32s[T kernel.Float](x []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
}

// isFloat32 reports whether T is a 4-byte float.
func isFloat32[T kernel.Float]() bool {
	var z T
	return unsafe.Sizeof(z) == 4
}

// state returns a deep copy of the registry as a State.
func (r *registry[T]) state() State {
	s := State{Step: r.step, Params: make([]ParamState, 0, len(r.byName))}
	f32 := isFloat32[T]()
	for _, e := range r.byName {
		p := ParamState{Name: e.name, Step: e.step}
		if len(e.slots) > 0 {
			p.Slots = make([]Slot, len(e.slots))
		}
		for k, buf := range e.slots {
			sl := Slot{Name: r.slotNames[k]}
			if f32 {
				sl.F32 = make([]float32, len(buf))
				for i, v := range buf {
					sl.F32[i] = float32(v)
				}
			} else {
				sl.F64 = make([]float64, len(buf))
				for i, v := range buf {
					sl.F64[i] = float64(v)
				}
			}
			p.Slots[k] = sl
		}
		s.Params = append(s.Params, p)
	}
	slices.SortFunc(s.Params, func(a, b ParamState) int { return strings.Compare(a.Name, b.Name) })
	return s
}

// setState replaces the registry's state with a copy of s after checking
// that s has exactly this optimiser's slots. Slot data of either precision is
// accepted and converted to T.
func (r *registry[T]) setState(s State) error {
	if s.Step < 0 {
		return fmt.Errorf("optim: %s: state step %d is negative: %w", r.algo, s.Step, ErrState)
	}
	m := make(map[string]*entry[T], len(s.Params))
	for _, p := range s.Params {
		if p.Name == "" {
			return fmt.Errorf("optim: %s: state has a parameter with an empty name: %w", r.algo, ErrState)
		}
		if _, dup := m[p.Name]; dup {
			return fmt.Errorf("optim: %s: state parameter %q appears twice: %w", r.algo, p.Name, ErrDuplicate)
		}
		if p.Step < 0 {
			return fmt.Errorf("optim: %s: state of parameter %q: step %d is negative: %w", r.algo, p.Name, p.Step, ErrState)
		}
		e := &entry[T]{name: p.Name, n: -1, step: p.Step, slots: make([][]T, len(r.slotNames))}
		for _, sl := range p.Slots {
			k := slices.Index(r.slotNames, sl.Name)
			if k < 0 {
				return fmt.Errorf("optim: %s: state of parameter %q has slot %q; want slots %q: %w",
					r.algo, p.Name, sl.Name, r.slotNames, ErrState)
			}
			if e.slots[k] != nil {
				return fmt.Errorf("optim: %s: state of parameter %q: slot %q appears twice: %w", r.algo, p.Name, sl.Name, ErrDuplicate)
			}
			if sl.F32 != nil && sl.F64 != nil {
				return fmt.Errorf("optim: %s: state of parameter %q: slot %q holds both float32 and float64 data: %w",
					r.algo, p.Name, sl.Name, ErrState)
			}
			if e.n >= 0 && sl.Len() != e.n {
				return fmt.Errorf("optim: %s: state of parameter %q: slot %q has length %d, another slot %d: %w",
					r.algo, p.Name, sl.Name, sl.Len(), e.n, ErrLength)
			}
			e.n = sl.Len()
			buf := make([]T, e.n)
			if sl.F64 != nil {
				for i, v := range sl.F64 {
					buf[i] = T(v)
				}
			} else {
				for i, v := range sl.F32 {
					buf[i] = T(v)
				}
			}
			e.slots[k] = buf
		}
		for k, buf := range e.slots {
			if buf == nil {
				return fmt.Errorf("optim: %s: state of parameter %q lacks slot %q: %w", r.algo, p.Name, r.slotNames[k], ErrState)
			}
		}
		// An optimiser without slots (SGD without momentum) leaves e.n at -1
		// and learns the length from the parameter at the next Step.
		m[p.Name] = e
	}
	r.byName = m
	clear(r.order)
	r.step = s.Step
	return nil
}
