package autodiff_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
)

func TestFromSliceErrors(t *testing.T) {
	cases := []struct {
		data  []float64
		shape []int
		ok    bool
	}{
		{[]float64{1, 2, 3, 4, 5, 6}, []int{2, 3}, true},
		{[]float64{1}, nil, true},
		{[]float64{}, []int{0, 3}, true},
		{[]float64{1, 2, 3}, []int{2, 2}, false},
		{[]float64{1, 2}, nil, false},
		{[]float64{}, []int{-1, 0}, false},
	}
	for _, c := range cases {
		x, err := autodiff.FromSlice(c.data, c.shape...)
		if c.ok != (err == nil) {
			t.Errorf("FromSlice(%d values, %v): error %v", len(c.data), c.shape, err)
			continue
		}
		if err != nil && !errors.Is(err, autodiff.ErrShape) {
			t.Errorf("FromSlice(%d values, %v): %v does not wrap ErrShape", len(c.data), c.shape, err)
		}
		if err == nil && x.Len() != len(c.data) {
			t.Errorf("FromSlice(%d values, %v): Len %d", len(c.data), c.shape, x.Len())
		}
	}
}

// TestShapeErrors: operators given shapes that do not fit panic with a
// *ShapeError naming the operator and the shapes.
func TestShapeErrors(t *testing.T) {
	m23 := autodiff.Zeros[float64](2, 3)
	m34 := autodiff.Zeros[float64](3, 4)
	v4 := autodiff.Zeros[float64](4)
	cases := []struct {
		op string
		f  func()
	}{
		{"Add", func() { autodiff.Add(m23, v4) }},
		{"Mul", func() { autodiff.Mul(m23, m34) }},
		{"MatMul", func() { autodiff.MatMul(m23, m23, false, false) }},
		{"MatMul", func() { autodiff.MatMul(m23, v4, false, false) }},
		{"Reshape", func() { autodiff.Reshape(m23, 4, 2) }},
		{"Reshape", func() { autodiff.Reshape(m23, -1, 4) }},
		{"Slice", func() { autodiff.Slice(m23, 1, 2, 4) }},
		{"Slice", func() { autodiff.Slice(m23, 2, 0, 1) }},
		{"Concat", func() { autodiff.Concat(0, m23, m34) }},
		{"Where", func() { autodiff.Where([]bool{true}, m23, m23) }},
		{"SumTo", func() { autodiff.SumTo(m23, 2) }},
		{"BroadcastTo", func() { autodiff.BroadcastTo(m23, 3, 3) }},
		{"Permute", func() { autodiff.Permute(m23, 0, 0) }},
		{"Sum", func() { autodiff.Sum(m23, false, 2) }},
		{"Max", func() { autodiff.Max(m23, false, 0, 0) }},
		{"Transpose", func() { autodiff.Transpose(v4) }},
		{"Backward", func() { m23.Backward() }},
	}
	for _, c := range cases {
		func() {
			defer func() {
				r := recover()
				err, ok := r.(error)
				var se *autodiff.ShapeError
				if !ok || !errors.As(err, &se) {
					t.Errorf("%s: recovered %v, want a *ShapeError", c.op, r)
					return
				}
				if se.Op != c.op || !strings.Contains(err.Error(), c.op) || !errors.Is(err, autodiff.ErrShape) {
					t.Errorf("%s: error %q (op %q)", c.op, err, se.Op)
				}
			}()
			c.f()
		}()
	}
}

// TestLabelErrors: bad labels and indices are errors, not panics.
func TestLabelErrors(t *testing.T) {
	x := autodiff.Zeros[float32](3, 4)
	cases := []struct {
		name string
		f    func() error
	}{
		{"Pick/range", func() error { _, err := autodiff.Pick(x, []int{0, 4, 1}); return err }},
		{"Pick/count", func() error { _, err := autodiff.Pick(x, []int{0, 1}); return err }},
		{"Gather/range", func() error { _, err := autodiff.Gather(x, []int{3}); return err }},
		{"Gather/negative", func() error { _, err := autodiff.Gather(x, []int{-1}); return err }},
		{"OneHot/range", func() error { _, err := autodiff.OneHot[float32]([]int{0, 5}, 5); return err }},
		{"OneHot/classes", func() error { _, err := autodiff.OneHot[float32]([]int{0}, 0); return err }},
		{"CrossEntropy/label", func() error {
			_, err := autodiff.CrossEntropy(x, []int{0, 1, -1}, nil, autodiff.ReduceMean)
			return err
		}},
		{"CrossEntropy/weights", func() error {
			_, err := autodiff.CrossEntropy(x, []int{0, 1, 2}, []float32{1}, autodiff.ReduceMean)
			return err
		}},
		{"CrossEntropy/reduction", func() error {
			_, err := autodiff.CrossEntropy(x, []int{0, 1, 2}, nil, autodiff.Reduction(7))
			return err
		}},
	}
	for _, c := range cases {
		if err := c.f(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestGradientsErrors(t *testing.T) {
	x := autodiff.New([]float64{1, 2}, 2).SetRequiresGrad(true)
	c := autodiff.New([]float64{1, 2}, 2)
	y := autodiff.Mul(x, x)
	cases := []struct {
		name      string
		ys, seeds []*T64
		xs        []*T64
	}{
		{"no outputs", nil, nil, []*T64{x}},
		{"seed count", []*T64{y}, []*T64{c, c}, []*T64{x}},
		{"seed shape", []*T64{y}, []*T64{autodiff.Scalar(1.0)}, []*T64{x}},
		{"input without grad", []*T64{y}, nil, []*T64{c}},
		{"nil input", []*T64{y}, nil, []*T64{nil}},
	}
	for _, tc := range cases {
		if _, err := autodiff.Gradients(tc.ys, tc.seeds, tc.xs, false); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// TestGradientsSemantics: seeds, unreachable inputs, intermediate tensors,
// repeated use of a tensor, and accumulation by Backward.
func TestGradientsSemantics(t *testing.T) {
	x := autodiff.New([]float64{1, 2, 3}, 3).SetRequiresGrad(true)
	w := autodiff.New([]float64{0.5}, 1).SetRequiresGrad(true)
	h := autodiff.Mul(x, x) // x^2
	y := autodiff.Mul(h, x) // x^3
	z := autodiff.Add(y, h) // x^3 + x^2
	seed := autodiff.New([]float64{1, 10, 100}, 3)
	gs, err := autodiff.Gradients([]*T64{z}, []*T64{seed}, []*T64{x, h, w}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, xv := range x.Data() {
		s := seed.Data()[i]
		if want := s * (3*xv*xv + 2*xv); math.Abs(gs[0].Data()[i]-want) > 1e-12 {
			t.Errorf("dz/dx[%d] = %v, want %v", i, gs[0].Data()[i], want)
		}
		if want := s * (xv + 1); math.Abs(gs[1].Data()[i]-want) > 1e-12 {
			t.Errorf("dz/dh[%d] = %v, want %v", i, gs[1].Data()[i], want)
		}
	}
	if gs[2].Data()[0] != 0 || !sameInts(gs[2].Shape(), w.Shape()) {
		t.Errorf("unreachable input: gradient %v, want zeros of shape %v", gs[2], w.Shape())
	}
	if x.Grad() != nil {
		t.Error("Gradients wrote into Grad")
	}
	// Backward accumulates, ZeroGrad clears.
	loss := autodiff.SumAll(z)
	loss.Backward()
	loss.Backward()
	for i, xv := range x.Data() {
		if want := 2 * (3*xv*xv + 2*xv); x.Grad().Data()[i] != want {
			t.Errorf("after two Backward: grad[%d] = %v, want %v", i, x.Grad().Data()[i], want)
		}
	}
	x.ZeroGrad()
	for i, v := range x.Grad().Data() {
		if v != 0 {
			t.Errorf("after ZeroGrad: grad[%d] = %v", i, v)
		}
	}
	// After ZeroGrad the next Backward stores the gradient, not a sum.
	x.ZeroGrad()
	loss.Backward()
	for i, xv := range x.Data() {
		if want := 3*xv*xv + 2*xv; x.Grad().Data()[i] != want {
			t.Errorf("ZeroGrad then Backward: grad[%d] = %v, want %v", i, x.Grad().Data()[i], want)
		}
	}
	// Detach cuts the graph.
	d := autodiff.SumAll(autodiff.Mul(x.Detach(), x))
	g, err := autodiff.Gradients([]*T64{d}, nil, []*T64{x}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, xv := range x.Data() {
		if g[0].Data()[i] != xv {
			t.Errorf("through Detach: grad[%d] = %v, want %v", i, g[0].Data()[i], xv)
		}
	}
}

func sameInts(a, b []int) bool { return equalInts(a, b) }

// TestRelease: Release recycles the intermediate buffers of a graph, leaves
// the leaves and their gradients alone, and the next step gets the recycled
// buffers back.
func TestRelease(t *testing.T) {
	x := autodiff.Full(0.5, 8, 16).SetRequiresGrad(true)
	build := func() (*T64, *T64) {
		h := autodiff.Tanh(autodiff.MulScalar(x, 3))
		return h, autodiff.SumAll(autodiff.Square(h))
	}
	h, loss := build()
	loss.Backward()
	grad := append([]float64(nil), x.Grad().Data()...)
	before := autodiff.PoolBytes[float64]()
	loss.Release()
	if h.Data() != nil || loss.Data() != nil {
		t.Error("released tensors still hold data")
	}
	if x.Data() == nil || x.Grad() == nil || x.Grad().Data()[0] != grad[0] {
		t.Error("Release touched a leaf or its gradient")
	}
	if got := autodiff.PoolBytes[float64]() - before; got < 2*8*16*8 {
		t.Errorf("pool grew by %d bytes, want at least two 8x16 buffers", got)
	}
	loss.Release() // a second Release is harmless
	// The next step takes its buffers from the pool instead of allocating.
	held := autodiff.PoolBytes[float64]()
	misses := autodiff.PoolMisses[float64]()
	h2, loss2 := build()
	if got := autodiff.PoolBytes[float64](); got > held-2*8*16*8 {
		t.Errorf("pool went from %d to %d bytes: the new step did not reuse its buffers", held, got)
	}
	if got := autodiff.PoolMisses[float64]() - misses; got != 0 {
		t.Errorf("the new step made %d buffers, want none", got)
	}
	if h2.Data()[0] != math.Tanh(1.5) {
		t.Errorf("recomputed activation %v, want %v", h2.Data()[0], math.Tanh(1.5))
	}
	loss2.Release()
	autodiff.TrimPool[float64]()
	if autodiff.PoolBytes[float64]() != 0 {
		t.Error("TrimPool left buffers")
	}
	// With the pool empty, the step makes its buffers again.
	misses = autodiff.PoolMisses[float64]()
	_, loss3 := build()
	if got := autodiff.PoolMisses[float64]() - misses; got < 2 {
		t.Errorf("a step after TrimPool made %d buffers, want at least two", got)
	}
	loss3.Release()
}

// TestNumericalEdges documents what happens at the edges: IEEE results where
// the mathematics says so, finite results where a stable form exists.
func TestNumericalEdges(t *testing.T) {
	x := autodiff.New([]float64{0, 1}, 2).SetRequiresGrad(true)
	if v := autodiff.Log(x).Data()[0]; !math.IsInf(v, -1) {
		t.Errorf("Log(0) = %v, want -Inf", v)
	}
	if v := autodiff.Div(autodiff.Scalar(1.0), x).Data()[0]; !math.IsInf(v, 1) {
		t.Errorf("1/0 = %v, want +Inf", v)
	}
	big := autodiff.New([]float64{1000, -1000, 0, 999}, 2, 2).SetRequiresGrad(true)
	ce, err := autodiff.CrossEntropy(big, []int{1, 0}, nil, autodiff.ReduceMean)
	if err != nil {
		t.Fatal(err)
	}
	if ce.HasNaN() || math.Abs(ce.Item()-(2000+999)/2.0) > 1e-9 {
		t.Errorf("CrossEntropy of large logits = %v, want %v", ce.Item(), (2000+999)/2.0)
	}
	g, err := autodiff.Gradients([]*T64{ce}, nil, []*T64{big}, true)
	if err != nil || g[0].HasNaN() {
		t.Errorf("CrossEntropy gradient of large logits: %v %v", g, err)
	}
	if ls := autodiff.LogSoftmax(big); ls.HasNaN() {
		t.Errorf("LogSoftmax of large logits: %v", ls)
	}
	if s := autodiff.Softmax(big); s.HasNaN() {
		t.Errorf("Softmax of large logits: %v", s)
	}
	zero := autodiff.Zeros[float64](2, 3).SetRequiresGrad(true)
	n := autodiff.SumAll(autodiff.RowNorm(zero, 1e-10))
	gz, err := autodiff.Gradients([]*T64{n}, nil, []*T64{zero}, true)
	if err != nil || gz[0].HasNaN() {
		t.Errorf("RowNorm gradient at zero: %v %v", gz, err)
	}
	s := autodiff.SumAll(autodiff.Mul(gz[0], gz[0]))
	g2, err := autodiff.Gradients([]*T64{s}, nil, []*T64{zero}, false)
	if err != nil || g2[0].HasNaN() {
		t.Errorf("RowNorm second derivative at zero: %v %v", g2, err)
	}
	if v := autodiff.ReLU(autodiff.New([]float32{float32(math.NaN())}, 1)).Data()[0]; v == v {
		t.Errorf("ReLU(NaN) = %v, want NaN", v)
	}
	if v := autodiff.MaxAll(autodiff.New([]float64{1, math.NaN(), 3}, 3)).Item(); v == v {
		t.Errorf("Max with a NaN = %v, want NaN", v)
	}
}

func TestBroadcastShapes(t *testing.T) {
	cases := []struct {
		a, b, want []int
		ok         bool
	}{
		{[]int{2, 3}, []int{3}, []int{2, 3}, true},
		{[]int{2, 1}, []int{1, 3}, []int{2, 3}, true},
		{[]int{}, []int{4, 5}, []int{4, 5}, true},
		{[]int{5, 1, 3}, []int{4, 1}, []int{5, 4, 3}, true},
		{[]int{2, 3}, []int{2}, nil, false},
		{[]int{0, 3}, []int{1, 3}, []int{0, 3}, true},
	}
	for _, c := range cases {
		got, err := autodiff.BroadcastShapes(c.a, c.b)
		if c.ok != (err == nil) || (c.ok && !equalInts(got, c.want)) {
			t.Errorf("BroadcastShapes(%v, %v) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
}

// TestMaxTies: the gradient of Max is split evenly between tied maxima.
func TestMaxTies(t *testing.T) {
	x := autodiff.New([]float64{1, 3, 3, 2, 5, 0}, 2, 3).SetRequiresGrad(true)
	cases := []struct {
		name string
		y    *T64
		want []float64
	}{
		{"all", autodiff.MaxAll(x), []float64{0, 0, 0, 0, 1, 0}},
		{"rows", autodiff.SumAll(autodiff.Max(x, false, 1)), []float64{0, 0.5, 0.5, 0, 1, 0}},
		{"columns", autodiff.SumAll(autodiff.Max(x, true, 0)), []float64{0, 0, 1, 1, 1, 0}},
	}
	for _, c := range cases {
		g, err := autodiff.Gradients([]*T64{c.y}, nil, []*T64{x}, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range g[0].Data() {
			if v != c.want[i] {
				t.Errorf("%s: gradient %v, want %v", c.name, g[0].Data(), c.want)
				break
			}
		}
	}
}

// TestReleaseGradientGraph: Release of a loss computed from the gradients
// of Gradients with createGraph (a gradient penalty) recycles the graph of
// the differentiated output too, which the gradients' formulas read only
// in part, and a step after the first two makes no buffer.
func TestReleaseGradientGraph(t *testing.T) {
	x := autodiff.Full(0.5, 8, 16).SetRequiresGrad(true)
	w := autodiff.Full(0.25, 16, 16).SetRequiresGrad(true)
	step := func() (*T64, *T64) {
		h := autodiff.Tanh(autodiff.MatMul(x, w, false, false))
		out := autodiff.MulScalar(h, 3) // read by no gradient formula
		g, err := autodiff.Gradients([]*T64{autodiff.SumAll(out)}, nil, []*T64{x}, true)
		if err != nil {
			t.Fatal(err)
		}
		loss := autodiff.MeanAll(autodiff.Square(g[0]))
		loss.Backward()
		return out, loss
	}
	out, loss := step()
	loss.Release()
	if out.Data() != nil {
		t.Error("the differentiated output outlived the release of the loss")
	}
	if x.Data() == nil || w.Data() == nil {
		t.Error("Release touched a leaf")
	}
	// The second step's buffers: the first step's, less those its
	// Backward kept as x's and w's gradients.
	_, loss = step()
	loss.Release()
	misses := autodiff.PoolMisses[float64]()
	_, loss = step()
	loss.Release()
	if got := autodiff.PoolMisses[float64]() - misses; got != 0 {
		t.Errorf("the third step made %d buffers, want none", got)
	}
}
