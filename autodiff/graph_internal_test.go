package autodiff

import "testing"

// scaleBy is a test operator out = x * s for a saved tensor s that both the
// forward node and the node its backward builds retain, as pooling
// operators share their index buffers.
func scaleBy(x, s *Tensor[float64]) *Tensor[float64] {
	out := empty[float64](x.shape...)
	ewMul(out.data, x.data, s.data)
	ret := newOp("scaleBy", out, []*Tensor[float64]{x}, func(g *Tensor[float64], _ bool) []*Tensor[float64] {
		return []*Tensor[float64]{scaleBy(g, s)}
	})
	ret.retain(s)
	return ret
}

// TestFastPathKeepsSharedTemporaries: cleaning up after a backward call must
// not recycle a saved tensor made before the call, even when a node built
// during the call retains it too; Release of the whole graph then does.
func TestFastPathKeepsSharedTemporaries(t *testing.T) {
	x := filled(1.5, []int{4, 8})
	x.pooled = false
	x.SetRequiresGrad(true)
	s := filled(2.0, []int{4, 8})
	loss := SumAll(scaleBy(x, s))
	for pass := 0; pass < 3; pass++ {
		loss.Backward()
		if s.data == nil {
			t.Fatalf("pass %d: the saved tensor was released by the backward pass", pass)
		}
		if got, want := x.Grad().data[0], 2.0*float64(pass+1); got != want {
			t.Fatalf("pass %d: gradient %v, want %v", pass, got, want)
		}
	}
	loss.Release()
	if s.data != nil {
		t.Error("Release did not recycle the saved tensor")
	}
	if x.data == nil || x.grad.data == nil {
		t.Error("Release touched the leaf")
	}
}

// blocked is a test operator out = x whose backward returns no gradient for
// x, so that the pass never meets the node that made x.
func blocked(x *Tensor[float64]) *Tensor[float64] {
	out := empty[float64](x.shape...)
	copy(out.data, x.data)
	return newOp("blocked", out, []*Tensor[float64]{x}, func(*Tensor[float64], bool) []*Tensor[float64] {
		return []*Tensor[float64]{nil}
	})
}

// TestHeldRowsNeverMet: a weight read by two products, one of which the
// pass never meets (its gradient stops at blocked), still gets the other
// product, bit for bit MatMul's, once the pass is over.
func TestHeldRowsNeverMet(t *testing.T) {
	w := New([]float64{0.5, -1.25, 2, 0.75, 1.5, -0.5}, 2, 3).SetRequiresGrad(true)
	x1 := New([]float64{1, 2, 3, -1, 0.5, 4, 2, -2, 1}, 3, 3)
	x2 := New([]float64{0.25, 1, -3}, 1, 3)
	y1 := MatMul(x1, w, false, true)
	loss := Add(SumAll(Tanh(y1)), SumAll(blocked(MatMul(x2, w, false, true))))
	loss.Backward()
	if w.Grad() == nil {
		t.Fatal("the weight got no gradient: the held product was dropped")
	}
	gs, err := Gradients([]*Tensor[float64]{SumAll(Tanh(MatMul(x1, w, false, true)))}, nil, []*Tensor[float64]{w}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range gs[0].data {
		if got := w.Grad().data[i]; got != want {
			t.Fatalf("value %d: %v, want %v", i, got, want)
		}
	}
}

// BenchmarkOrder times a backward pass's walk over a graph of 600
// operators (a chain of products and sums) from its output.
func BenchmarkOrder(b *testing.B) {
	w := New(make([]float32, 16*16), 16, 16).SetRequiresGrad(true)
	h := New(make([]float32, 4*16), 4, 16)
	for range 300 {
		h = Add(MatMul(h, w, false, false), h)
	}
	y := SumAll(h)
	e := &engine[float32]{leaves: true}
	for b.Loop() {
		_, marked := e.order([]*Tensor[float32]{y})
		for _, t := range marked {
			t.node.need = nil
		}
	}
}
