package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// compareFile is a small checkpoint with float32 and float64 tensors,
// optimiser state and a run's metadata with timings.
func compareFile() *checkpoint.File {
	return &checkpoint.File{
		Meta: []byte(`{"epoch":2,"history":[{"epoch":1,"loss":0.5,"seconds":1.25},{"epoch":2,"loss":0.25,"seconds":3e-1}]}`),
		Tensors: []checkpoint.Tensor{
			{Name: "extractor.w", Shape: []int{2, 2}, F32: []float32{1, -2, 0, 4}},
			{Name: "extractor.b", Shape: []int{2}, F64: []float64{0.5, math.NaN()}},
		},
		Optim:     []checkpoint.Tensor{{Name: "sq.0", Shape: []int{2, 2}, F32: []float32{0.1, 0.2, 0.3, 0.4}}},
		OptimStep: 7,
	}
}

// TestCompare checks that compare finds two files identical when they
// differ in timings alone, and otherwise names what differs and exits 1,
// down to a zero's sign.
func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(f *checkpoint.File)
		want   string // "" when identical
	}{
		{"same", func(*checkpoint.File) {}, ""},
		{"timings alone", func(f *checkpoint.File) {
			f.Meta = []byte(strings.Replace(string(f.Meta), "1.25", "99.5", 1))
		}, ""},
		{"a zero's sign", func(f *checkpoint.File) { f.Tensors[0].F32[2] = float32(math.Copysign(0, -1)) }, "tensor extractor.w: element 2 differs"},
		{"a float64 value", func(f *checkpoint.File) { f.Tensors[1].F64[0] = math.Nextafter(0.5, 1) }, "tensor extractor.b: element 0 differs"},
		{"a shape", func(f *checkpoint.File) { f.Tensors[0].Shape = []int{4, 1} }, "tensor extractor.w: float32 [2 2] against float32 [4 1]"},
		{"another order", func(f *checkpoint.File) { f.Tensors[0], f.Tensors[1] = f.Tensors[1], f.Tensors[0] }, ""},
		{"a tensor fewer", func(f *checkpoint.File) { f.Tensors = f.Tensors[:1] }, "tensor extractor.b: only in the first file"},
		{"a name", func(f *checkpoint.File) { f.Tensors[1].Name = "extractor.c" }, "tensor extractor.b: only in the first file\ntensor extractor.c: only in the second file"},
		{"a tensor more", func(f *checkpoint.File) {
			f.Tensors = append(f.Tensors, checkpoint.Tensor{Name: "critic0.w", Shape: []int{1}, F32: []float32{1}})
		}, "tensor critic0.w: only in the second file"},
		{"the optimiser's state", func(f *checkpoint.File) { f.Optim[0].F32[3] = 0.5 }, "optimiser tensor sq.0: element 3 differs"},
		{"the optimiser's step", func(f *checkpoint.File) { f.OptimStep = 8 }, "optimiser step: 7 against 8"},
		{"the metadata", func(f *checkpoint.File) {
			f.Meta = []byte(strings.Replace(string(f.Meta), `"loss":0.25`, `"loss":0.26`, 1))
		}, "metadata: differs beyond its timings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.wadn"), filepath.Join(dir, "b.wadn")
			other := compareFile()
			tc.change(other)
			if err := checkpoint.Save(a, compareFile()); err != nil {
				t.Fatal(err)
			}
			if err := checkpoint.Save(b, other); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runArgs(t, "", "compare", a, b)
			if tc.want == "" {
				if code != 0 || !strings.Contains(out, "are identical: 2 tensors and 1 optimiser tensors (10 values)") {
					t.Errorf("exit %d, stdout %q, stderr %q; want identical", code, out, errOut)
				}
				return
			}
			if code != 1 || !strings.Contains(out, tc.want) || !strings.Contains(out, "differ (") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestCompareArguments checks that compare reads a run directory's
// checkpoint, and refuses a wrong argument count and a missing file.
func TestCompareArguments(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "a.wadn")
	for _, p := range []string{file, filepath.Join(run, trainer.CheckpointFile)} {
		if err := checkpoint.Save(p, compareFile()); err != nil {
			t.Fatal(err)
		}
	}
	if code, out, errOut := runArgs(t, "", "compare", run, file); code != 0 || !strings.Contains(out, "identical") {
		t.Errorf("a run directory against its checkpoint's copy: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := runArgs(t, "", "compare", file); code != 2 || !strings.Contains(errOut, "want two PATHs") {
		t.Errorf("one argument: exit %d, stderr %q; want 2 and a usage message", code, errOut)
	}
	missing := filepath.Join(dir, "missing.wadn")
	if code, _, errOut := runArgs(t, "", "compare", file, missing); code != 1 || !strings.Contains(errOut, "missing.wadn") {
		t.Errorf("a missing file: exit %d, stderr %q; want 1 naming it", code, errOut)
	}
}

// TestCompareAfterRoundTrip: a model exported and imported again compares
// identical to itself, though the safetensors file lists its tensors in
// another order.
func TestCompareAfterRoundTrip(t *testing.T) {
	dir := t.TempDir()
	n := newTestNetwork("amazon3", 1)
	ckpt := n.saveCheckpoint(t, dir)
	model := filepath.Join(dir, "model.wadn")
	f, err := checkpoint.Load(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	f.Optim, f.OptimStep = nil, 0 // a finished run's weights
	if err := checkpoint.Save(model, f); err != nil {
		t.Fatal(err)
	}
	st, back := filepath.Join(dir, "model.safetensors"), filepath.Join(dir, "back.wadn")
	for _, args := range [][]string{{"export", model, "--out", st}, {"import", st, "--out", back}} {
		if code, _, errOut := runArgs(t, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errOut)
		}
	}
	if code, out, _ := runArgs(t, "", "compare", model, back); code != 0 || !strings.Contains(out, "identical") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}
