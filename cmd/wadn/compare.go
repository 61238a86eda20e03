package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

func init() {
	register(&command{
		name:    "compare",
		summary: "compare two checkpoints or model files bit for bit: every tensor, the optimiser's state, and the metadata with its timings left out; exit 1 when they differ",
		usage:   "PATH PATH",
		run:     runCompare,
	})
}

// timings matches the "seconds" fields of a run's metadata, the one part
// of two runs' checkpoints that legitimately differs.
var timings = regexp.MustCompile(`,"seconds":[-+0-9.eE]+`)

func runCompare(ctx context.Context, e *env, args []string) error {
	c := commands["compare"]
	fs := newFlagSet(c, e)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fmt.Fprintf(e.stderr, "wadn compare: want two PATHs (run directories or checkpoint files), got %d arguments\n", len(pos))
		return errUsage
	}
	var files [2]*checkpoint.File
	for i, p := range pos {
		ckpt, err := checkpointPath(p)
		if err != nil {
			return err
		}
		if files[i], err = checkpoint.Load(ckpt); err != nil {
			return err
		}
		pos[i] = ckpt
	}
	a, b := files[0], files[1]
	diffs := compareTensors(e, "tensor", a.Tensors, b.Tensors) + compareTensors(e, "optimiser tensor", a.Optim, b.Optim)
	if a.OptimStep != b.OptimStep {
		fmt.Fprintf(e.stdout, "optimiser step: %d against %d\n", a.OptimStep, b.OptimStep)
		diffs++
	}
	ma, mb := timings.ReplaceAll(a.Meta, nil), timings.ReplaceAll(b.Meta, nil)
	if !bytes.Equal(ma, mb) {
		fmt.Fprintf(e.stdout, "metadata: differs beyond its timings (%d and %d bytes without them)\n", len(ma), len(mb))
		diffs++
	}
	values := 0
	for _, ts := range [][]checkpoint.Tensor{a.Tensors, a.Optim} {
		for _, t := range ts {
			values += t.Len()
		}
	}
	if diffs > 0 {
		fmt.Fprintf(e.stdout, "%s and %s differ (%d differences)\n", pos[0], pos[1], diffs)
		return &exitError{1}
	}
	fmt.Fprintf(e.stdout, "%s and %s are identical: %d tensors and %d optimiser tensors (%d values) bit for bit, metadata (%d bytes) apart from timings\n",
		pos[0], pos[1], len(a.Tensors), len(a.Optim), values, len(ma))
	return nil
}

// compareTensors reports, one line each, the tensors of a and b, matched
// by name (their order is no difference: an export and import may list
// them otherwise), that one side lacks or that differ in shape, element
// type or any value's bits (the first such element), and returns their
// number. A name twice in one file is a difference too.
func compareTensors(e *env, what string, a, b []checkpoint.Tensor) int {
	diffs := 0
	index := func(ts []checkpoint.Tensor, side string) map[string]*checkpoint.Tensor {
		m := make(map[string]*checkpoint.Tensor, len(ts))
		for i := range ts {
			if _, dup := m[ts[i].Name]; dup {
				fmt.Fprintf(e.stdout, "%s %s: named twice in the %s file\n", what, ts[i].Name, side)
				diffs++
			}
			m[ts[i].Name] = &ts[i]
		}
		return m
	}
	inA, inB := index(a, "first"), index(b, "second")
	for i := range a {
		x := &a[i]
		y, ok := inB[x.Name]
		switch {
		case !ok:
			fmt.Fprintf(e.stdout, "%s %s: only in the first file\n", what, x.Name)
		case !slices.Equal(x.Shape, y.Shape) || x.DType() != y.DType() || x.Len() != y.Len():
			fmt.Fprintf(e.stdout, "%s %s: %s %v against %s %v\n", what, x.Name, x.DType(), x.Shape, y.DType(), y.Shape)
		default:
			j := firstDifference(x, y)
			if j < 0 {
				continue
			}
			fmt.Fprintf(e.stdout, "%s %s: element %d differs: %v against %v\n", what, x.Name, j, value(x, j), value(y, j))
		}
		diffs++
	}
	for i := range b {
		if _, ok := inA[b[i].Name]; !ok {
			fmt.Fprintf(e.stdout, "%s %s: only in the second file\n", what, b[i].Name)
			diffs++
		}
	}
	return diffs
}

// firstDifference returns the first element whose bits differ between x and
// y, of one element type and length, or -1.
func firstDifference(x, y *checkpoint.Tensor) int {
	if x.F64 != nil {
		for j, v := range x.F64 {
			if math.Float64bits(v) != math.Float64bits(y.F64[j]) {
				return j
			}
		}
		return -1
	}
	for j, v := range x.F32 {
		if math.Float32bits(v) != math.Float32bits(y.F32[j]) {
			return j
		}
	}
	return -1
}

func value(t *checkpoint.Tensor, j int) any {
	if t.F64 != nil {
		return t.F64[j]
	}
	return t.F32[j]
}
