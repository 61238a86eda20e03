package autodiff

import (
	"errors"
	"fmt"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// BackwardFunc is the backward function of an operator node. Given g, the
// gradient of the loss with respect to the node's output, it returns the
// gradient with respect to each input (same order and shapes as the inputs;
// nil for an input that needs none). With createGraph the gradients must be
// built from differentiable operators; without it they may be computed by raw
// kernels into tensors made by empty. See the package documentation.
type BackwardFunc[T kernel.Float] func(g *Tensor[T], createGraph bool) []*Tensor[T]

// node is the graph record of an operator output.
type node[T kernel.Float] struct {
	name     string
	inputs   []*Tensor[T]
	backward BackwardFunc[T] // nil when no input requires grad
	need     []bool          // which inputs the current reverse pass wants
	aux      []*Tensor[T]    // temporaries the backward function uses
	// rows, when set, gives the gradient of input 1 for the output
	// gradient g as a product over rows, xᵀy (see rowProduct). The
	// backward function computes the same values for input 1 when its
	// need is set, and never returns g itself.
	rows func(g *Tensor[T]) rowProduct[T]
}

// rowProduct is a gradient of the form xᵀy, the sum over the rows of x
// (k x m) and y (k x n), both row-major: the gradient of the weights of a
// product over a batch of rows.
type rowProduct[T kernel.Float] struct{ x, y *Tensor[T] }

// newOp records out as the output of operator name applied to inputs, with
// backward function bw, and returns out. out must be a fresh node-less tensor
// (from empty, or a view). The inputs are always recorded, so that Release
// can find every buffer of a graph; bw is kept only when some input requires
// grad, and then out requires grad too.
func newOp[T kernel.Float](name string, out *Tensor[T], inputs []*Tensor[T], bw BackwardFunc[T]) *Tensor[T] {
	n := &node[T]{name: name, inputs: inputs}
	for _, in := range inputs {
		if in.requiresGrad {
			out.requiresGrad = true
			break
		}
	}
	if out.requiresGrad {
		n.backward = bw
	}
	out.node = n
	kernel.AddFlops(len(out.data)) // one operation per value, in the count of element-wise work
	trace(name, out)
	return out
}

// constant records t (node-less, fresh) as an operator output with no inputs,
// so that Release recycles it with the graph that uses it.
func constant[T kernel.Float](t *Tensor[T]) *Tensor[T] {
	return newOp("Const", t, nil, nil)
}

// retain ties temporaries that out's backward function uses, but that are not
// inputs of out, to out's node, so that Release recycles them with the graph.
func (t *Tensor[T]) retain(aux ...*Tensor[T]) {
	t.node.aux = append(t.node.aux, aux...)
}

// wantGrad reports whether the reverse pass under way wants the gradient of
// input i of t's node. Outside a reverse pass it reports whether that input
// requires grad.
func (t *Tensor[T]) wantGrad(i int) bool {
	n := t.node
	if n.need != nil {
		return n.need[i]
	}
	return n.inputs[i].requiresGrad
}

// Backward computes the gradient of the scalar t with respect to every
// parameter (leaf that requires grad) it depends on, and adds it into that
// parameter's Grad. It panics when t has more than one element. The graph is
// kept: call Release on t when the step is over.
func (t *Tensor[T]) Backward() {
	if len(t.data) != 1 {
		panic(&ShapeError{Op: "Backward", Shapes: [][]int{t.shape}, Msg: "output must hold exactly one element"})
	}
	if !t.requiresGrad {
		return
	}
	e := engine[T]{leaves: true, sumRows: !numerics.IsReference()}
	if _, err := e.run([]*Tensor[T]{t}, nil, nil, false); err != nil {
		panic(err)
	}
}

// Gradients returns d(sum_i <ys[i], seeds[i]>)/dxs[j] for every j, like
// torch.autograd.grad. seeds nil (or a nil entry) means ones of ys[i]'s
// shape. When createGraph is set the returned gradients are graph nodes that
// can be differentiated again, and Release of a tensor computed from them
// recycles the graphs of the ys whose seeds were nil too (those seeds hold
// them); otherwise they are leaves in pooled buffers owned by the caller
// (Release recycles them). A tensor of xs that the ys do not depend on gets
// a gradient of zeros. Leaves' Grad fields are not touched. Every tensor of
// xs must require grad.
func Gradients[T kernel.Float](ys, seeds, xs []*Tensor[T], createGraph bool) ([]*Tensor[T], error) {
	if len(ys) == 0 {
		return nil, errors.New("autodiff: Gradients: no outputs")
	}
	if seeds != nil && len(seeds) != len(ys) {
		return nil, fmt.Errorf("autodiff: Gradients: %d seeds for %d outputs", len(seeds), len(ys))
	}
	for i, y := range ys {
		if y == nil {
			return nil, fmt.Errorf("autodiff: Gradients: output %d is nil", i)
		}
		if seeds != nil && seeds[i] != nil && !sameShape(seeds[i].shape, y.shape) {
			return nil, &ShapeError{Op: "Gradients", Shapes: [][]int{y.shape, seeds[i].shape},
				Msg: fmt.Sprintf("seed %d must have the shape of output %d", i, i)}
		}
	}
	for j, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("autodiff: Gradients: input %d is nil", j)
		}
		if !x.requiresGrad {
			return nil, fmt.Errorf("autodiff: Gradients: input %d (shape %v) does not require grad", j, x.shape)
		}
	}
	e := engine[T]{targets: make(map[*Tensor[T]]bool, len(xs))}
	for _, x := range xs {
		e.targets[x] = true
	}
	return e.run(ys, seeds, xs, createGraph)
}

// engine runs one reverse pass.
type engine[T kernel.Float] struct {
	leaves  bool                // accumulate into the Grad of parameters
	targets map[*Tensor[T]]bool // or return the gradients of these
	pending map[*Tensor[T]]*Tensor[T]

	// sumRows: a parameter that gets two or more gradients of the form
	// xᵀy in the pass (node.rows) gets them as one product over all their
	// rows stacked, in the order the pass meets them, taken when the last
	// arrives (see sumRowProducts). Its sums are then a product's, not
	// those of separate products added, so the last bits differ; the
	// reference numerics keep the separate products.
	sumRows bool
	rowSums map[*Tensor[T]]*rowSum[T]
}

// rowSum is what the pass holds of a parameter's products over rows.
type rowSum[T kernel.Float] struct {
	left int             // products the pass has yet to meet
	ps   []rowProduct[T] // those it has met, in order
	gs   []*Tensor[T]    // the pending gradients they read
}

// countRows finds, among the nodes of topo, the parameters that get two or
// more products over rows, for holdRows.
func (e *engine[T]) countRows(topo []*Tensor[T]) {
	if !e.sumRows {
		return
	}
	count := map[*Tensor[T]]int{}
	for _, t := range topo {
		if n := t.node; n.rows != nil && n.need[1] && e.isTarget(n.inputs[1]) {
			count[n.inputs[1]]++
		}
	}
	for w, c := range count {
		if c >= 2 {
			if e.rowSums == nil {
				e.rowSums = map[*Tensor[T]]*rowSum[T]{}
			}
			e.rowSums[w] = &rowSum[T]{left: c}
		}
	}
}

// holdRows takes the gradient of input 1 of t's node, for the pending
// gradient g, when it is the product over rows of a parameter that
// countRows found, and clears its need. It returns that parameter, or nil
// when it took nothing; g must then live until sumHeldRows.
func (e *engine[T]) holdRows(t, g *Tensor[T]) *Tensor[T] {
	n := t.node
	if e.rowSums == nil || n.rows == nil || !n.need[1] {
		return nil
	}
	w := n.inputs[1]
	r := e.rowSums[w]
	if r == nil {
		return nil
	}
	n.need[1] = false
	r.ps = append(r.ps, n.rows(g))
	r.gs = append(r.gs, g)
	r.left--
	return w
}

// sumHeldRows adds the sum of w's held products into its pending gradient
// once the pass has met the last of them.
func (e *engine[T]) sumHeldRows(w *Tensor[T]) {
	if r := e.rowSums[w]; r != nil && r.left == 0 {
		e.addRows(w, r)
	}
}

// addRows adds the sum of r's products into w's pending gradient and frees
// the gradients they read.
func (e *engine[T]) addRows(w *Tensor[T], r *rowSum[T]) {
	c := sumRowProducts(r.ps)
	kernel.AddFlops(len(c.data))
	trace("MatMul backward", c)
	e.accumulate(w, c, false, nil)
	for _, g := range r.gs {
		g.free()
	}
	delete(e.rowSums, w)
}

// addHeldRows adds the products still held, of nodes the pass skipped
// for want of a gradient, in the order of their parameters' first ones.
func (e *engine[T]) addHeldRows(topo []*Tensor[T]) {
	for k := len(topo) - 1; k >= 0 && len(e.rowSums) > 0; k-- {
		if n := topo[k].node; n.rows != nil {
			if r := e.rowSums[n.inputs[1]]; r != nil && len(r.ps) > 0 {
				e.addRows(n.inputs[1], r)
			}
		}
	}
	e.rowSums = nil
}

// sumRowProducts returns the sum of xᵀy over ps as one kernel.Gemm over
// their rows stacked in order: for one product, exactly MatMul's result.
// Every x has the same columns, and so has every y.
func sumRowProducts[T kernel.Float](ps []rowProduct[T]) *Tensor[T] {
	m, n := ps[0].x.shape[1], ps[0].y.shape[1]
	out := empty[T](m, n)
	if m == 0 || n == 0 {
		return out
	}
	k := 0
	for _, p := range ps {
		k += p.x.shape[0]
	}
	switch {
	case k == 0:
		clear(out.data)
	case len(ps) == 1:
		kernel.Gemm(true, false, m, n, k, 1, ps[0].x.data, m, ps[0].y.data, n, 0, out.data, n)
	default:
		xs, ys := make([]*Tensor[T], len(ps)), make([]*Tensor[T], len(ps))
		for i, p := range ps {
			xs[i], ys[i] = p.x, p.y
		}
		x, y := alloc[T](k*m), alloc[T](k*n)
		stackRows(x, xs, k, m)
		stackRows(y, ys, k, n)
		kernel.Gemm(true, false, m, n, k, 1, x, m, y, n, 0, out.data, n)
		release(x)
		release(y)
	}
	return out
}

func (e *engine[T]) isTarget(t *Tensor[T]) bool {
	if e.leaves {
		return t.node == nil && t.requiresGrad
	}
	return e.targets[t]
}

// What order records of a tensor: markMet once the walk has reached it,
// markRelevant once it has left it and found that gradient flows from it to
// a target.
const (
	markMet uint8 = 1 << iota
	markRelevant
)

// order returns the operator outputs through which gradient flows from ys to
// the targets, in topological order (inputs before outputs), and sets the
// need mask of every node it visits (marked), which run clears at the end.
func (e *engine[T]) order(ys []*Tensor[T]) (topo, marked []*Tensor[T]) {
	type frame struct {
		t *Tensor[T]
		i int
	}
	marks := takeMarks[T]()
	defer putMarks(marks)
	var stack []frame
	for _, y := range ys {
		if marks[y] != 0 {
			continue
		}
		marks[y] = markMet
		stack = append(stack, frame{y, 0})
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			t := f.t
			if t.node != nil && t.requiresGrad && f.i < len(t.node.inputs) {
				in := t.node.inputs[f.i]
				f.i++
				if marks[in] == 0 {
					marks[in] = markMet
					stack = append(stack, frame{in, 0})
				}
				continue
			}
			stack = stack[:len(stack)-1]
			r := e.isTarget(t)
			if t.node != nil && t.requiresGrad && t.node.backward != nil {
				need := t.node.need[:0]
				any := false
				for _, in := range t.node.inputs {
					w := marks[in]&markRelevant != 0
					need = append(need, w)
					any = any || w
				}
				t.node.need = need
				marked = append(marked, t)
				if any {
					r = true
					topo = append(topo, t)
				}
			}
			if r {
				marks[t] |= markRelevant
			}
		}
	}
	return topo, marked
}

func (e *engine[T]) run(ys, seeds, xs []*Tensor[T], createGraph bool) ([]*Tensor[T], error) {
	topo, marked := e.order(ys)
	defer func() {
		for _, t := range marked {
			t.node.need = nil
		}
	}()
	e.pending = make(map[*Tensor[T]]*Tensor[T], len(topo)+len(xs))
	e.countRows(topo)
	for i, y := range ys {
		var s *Tensor[T]
		if seeds != nil {
			s = seeds[i]
		}
		var g *Tensor[T]
		switch {
		case createGraph && s != nil:
			g = s
		case createGraph:
			// The seed's node holds y: the gradients reach y's graph
			// only where their formulas read it, and Release of what is
			// computed from them must recycle all of it.
			g = constant(filled(T(1), y.shape))
			g.retain(y)
		case s != nil:
			g = empty[T](y.shape...)
			copy(g.data, s.data)
		default:
			g = filled(T(1), y.shape)
		}
		e.accumulate(y, g, createGraph, nil)
	}
	for k := len(topo) - 1; k >= 0; k-- {
		t := topo[k]
		g := e.pending[t]
		if g == nil {
			continue
		}
		n := t.node
		held := e.holdRows(t, g)
		seq0 := seqCounter.Load()
		grads := n.backward(g, createGraph)
		if tracer.Load() != nil {
			for _, gi := range grads {
				trace(n.name+" backward", gi)
			}
		}
		if !createGraph { // (with createGraph newOp counted them)
			for _, gi := range grads {
				if gi != nil {
					kernel.AddFlops(len(gi.data))
				}
			}
		}
		if len(grads) != len(n.inputs) {
			panic(fmt.Sprintf("autodiff: backward of %s returned %d gradients for %d inputs", n.name, len(grads), len(n.inputs)))
		}
		owner := g // the pending buffer of t, which the fast path may hand on
		if e.isTarget(t) || createGraph || held != nil {
			owner = nil
		}
		for i, gi := range grads {
			if gi == nil || !n.need[i] {
				continue
			}
			in := n.inputs[i]
			if !sameShape(gi.shape, in.shape) {
				panic(&ShapeError{Op: n.name + " backward", Shapes: [][]int{in.shape, gi.shape},
					Msg: fmt.Sprintf("gradient of input %d has the wrong shape", i)})
			}
			if createGraph {
				e.accumulate(in, gi, true, nil)
				continue
			}
			if gi == owner {
				if e.accumulate(in, gi, false, nil) {
					owner = nil
				}
				continue
			}
			e.accumulate(in, gi, false, func(gi *Tensor[T]) bool { return gi.seq > seq0 })
		}
		if !createGraph {
			for _, gi := range grads {
				if gi != nil && gi != g {
					releaseGraph(gi, seq0)
				}
			}
			if owner != nil {
				owner.free()
			}
			if !e.isTarget(t) {
				delete(e.pending, t)
			}
		}
		if held != nil {
			e.sumHeldRows(held)
		}
	}
	if e.leaves {
		e.addHeldRows(topo)
		for x, g := range e.pending {
			if !e.isTarget(x) {
				continue
			}
			switch {
			case x.grad == nil:
				if !g.pooled || g.node != nil {
					g = g.Clone()
				}
				g.pooled = false // a parameter's gradient lives as long as the parameter
				x.grad = g
			case x.gradStale && g.pooled && g.node == nil:
				// The old gradient counts as zero: take the new buffer
				// and recycle the old one instead of adding.
				old := x.grad.data
				x.grad.data = g.data
				g.pooled = false
				g.data = nil
				x.gradStale = false
				release(old)
			default:
				ewAxpy(1, g.data, x.Grad().data)
				g.free()
			}
		}
		return nil, nil
	}
	out := make([]*Tensor[T], len(xs))
	for j, x := range xs {
		g := e.pending[x]
		switch {
		case g != nil:
			out[j] = g
		case createGraph:
			out[j] = constant(emptyZeroed[T](x.shape...))
		default:
			out[j] = emptyZeroed[T](x.shape...)
		}
	}
	return out, nil
}

// accumulate adds g into the pending gradient of x. On the fast path the
// pending gradients are pooled node-less tensors owned by the engine: g
// itself becomes the pending gradient when it is such a tensor and mine(g)
// says the engine may take it (mine nil: always), and otherwise it is copied
// or added in place. With createGraph the sum is a differentiable Add.
// It reports whether it took g's buffer.
func (e *engine[T]) accumulate(x, g *Tensor[T], createGraph bool, mine func(*Tensor[T]) bool) bool {
	p := e.pending[x]
	if createGraph {
		if p == nil {
			e.pending[x] = g
		} else {
			e.pending[x] = Add(p, g)
		}
		return false
	}
	if p != nil {
		ewAdd(p.data, p.data, g.data)
		return false
	}
	if g.pooled && (mine == nil || mine(g)) {
		// Take the buffer of a temporary made for this pass; g itself (and,
		// for an operator output, the rest of its graph) is released by the
		// caller, which now frees nothing of the buffer.
		e.pending[x] = newTensor(g.data, g.shape, true)
		g.pooled = false
		return true
	}
	c := empty[T](x.shape...)
	copy(c.data, g.data)
	e.pending[x] = c
	return false
}

// filled returns a node-less pooled tensor of the given shape holding v.
func filled[T kernel.Float](v T, shape []int) *Tensor[T] {
	t := empty[T](shape...)
	for i := range t.data {
		t.data[i] = v
	}
	return t
}
