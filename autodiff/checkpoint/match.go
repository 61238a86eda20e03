package checkpoint

import (
	"fmt"
	"slices"
	"strings"
)

// Match checks that f's model tensors are exactly the expected ones: the same
// set of names, each with the same shape and, where the expected tensor has
// data (a non-nil F32 or F64), the same element type. The order does not
// matter. The error, which wraps ErrMismatch, names the file and lists every
// difference.
func (f *File) Match(expected []Tensor) error {
	have := make(map[string]*Tensor, len(f.Tensors))
	for i := range f.Tensors {
		have[f.Tensors[i].Name] = &f.Tensors[i]
	}
	var probs []string
	want := make(map[string]bool, len(expected))
	for i := range expected {
		e := &expected[i]
		want[e.Name] = true
		t, ok := have[e.Name]
		switch {
		case !ok:
			probs = append(probs, fmt.Sprintf("missing tensor %q", e.Name))
		case !slices.Equal(t.Shape, e.Shape):
			probs = append(probs, fmt.Sprintf("tensor %q has shape %v, want %v", e.Name, t.Shape, e.Shape))
		case (e.F32 != nil || e.F64 != nil) && t.DType() != e.DType():
			probs = append(probs, fmt.Sprintf("tensor %q is %s, want %s", e.Name, t.DType(), e.DType()))
		}
	}
	for i := range f.Tensors {
		if !want[f.Tensors[i].Name] {
			probs = append(probs, fmt.Sprintf("unexpected tensor %q", f.Tensors[i].Name))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	name := f.name
	if name == "" {
		name = "(unnamed)"
	}
	return &Error{File: name, Offset: -1, Err: ErrMismatch, Detail: strings.Join(probs, "; ")}
}
