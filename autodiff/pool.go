package autodiff

import (
	"reflect"
	"sync"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// pool keeps released buffers by exact length. A training step allocates the
// same sizes in the same order every time, so exact-length free lists give a
// steady step all its buffers back without copying or growing anything, and
// the pages those buffers live in stay mapped (a first touch of a fresh page
// costs about as much as a 3 GB/s copy on the target machines).
type pool[T kernel.Float] struct {
	mu     sync.Mutex
	free   map[int][][]T
	bytes  int // bytes currently held in free lists
	misses int // buffers alloc made for want of a free one (PoolMisses)

	// marks are cleared maps of order's, kept so that a pass reuses one
	// grown by an earlier pass rather than growing a new one.
	marks []map[*Tensor[T]]uint8
}

var (
	pool32 = &pool[float32]{free: map[int][][]float32{}}
	pool64 = &pool[float64]{free: map[int][][]float64{}}
	pools  sync.Map // reflect.Type -> *pool[T] for named float types
)

// minPooled is the smallest length worth pooling: below it the garbage
// collector's small-object allocator is cheaper than the lock.
const minPooled = 16

func poolFor[T kernel.Float]() *pool[T] {
	var z T
	switch any(z).(type) {
	case float32:
		return any(pool32).(*pool[T])
	case float64:
		return any(pool64).(*pool[T])
	}
	key := reflect.TypeFor[T]()
	if p, ok := pools.Load(key); ok {
		return p.(*pool[T])
	}
	p, _ := pools.LoadOrStore(key, &pool[T]{free: map[int][][]T{}})
	return p.(*pool[T])
}

// alloc returns a buffer of length n whose contents are unspecified (a
// recycled buffer keeps its old values). The caller must overwrite it.
func alloc[T kernel.Float](n int) []T {
	if n < minPooled {
		return make([]T, n)
	}
	p := poolFor[T]()
	p.mu.Lock()
	if l := p.free[n]; len(l) > 0 {
		b := l[len(l)-1]
		l[len(l)-1] = nil
		p.free[n] = l[:len(l)-1]
		p.bytes -= n * sizeOf[T]()
		p.mu.Unlock()
		return b
	}
	p.misses++
	p.mu.Unlock()
	return make([]T, n)
}

// allocZeroed is alloc with the buffer cleared.
func allocZeroed[T kernel.Float](n int) []T {
	b := alloc[T](n)
	clear(b)
	return b
}

// release gives b back to the pool. b must not be used afterwards.
func release[T kernel.Float](b []T) {
	n := len(b)
	if n < minPooled {
		return
	}
	b = b[:n:n]
	p := poolFor[T]()
	p.mu.Lock()
	p.free[n] = append(p.free[n], b)
	p.bytes += n * sizeOf[T]()
	p.mu.Unlock()
}

func sizeOf[T kernel.Float]() int {
	var z T
	switch any(z).(type) {
	case float32:
		return 4
	case float64:
		return 8
	}
	return int(reflect.TypeFor[T]().Size())
}

// PoolBytes returns the number of bytes held by released buffers of element
// type T waiting to be reused.
func PoolBytes[T kernel.Float]() int {
	p := poolFor[T]()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bytes
}

// PoolMisses returns the number of pooled buffers of element type T made
// so far because no released buffer of the length was free. Once every
// size a training step uses has been released once, a step whose graphs
// are all released adds none: a step that keeps adding some leaves
// buffers to the garbage collector, and takes fresh memory for them at
// every step.
func PoolMisses[T kernel.Float]() int {
	p := poolFor[T]()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.misses
}

// TrimPool drops every released buffer of element type T, and the maps kept
// for the backward passes' walks over the graph, leaving them to the garbage
// collector. Use it after a phase whose sizes will not recur (for
// example evaluation with a different batch size).
func TrimPool[T kernel.Float]() {
	p := poolFor[T]()
	p.mu.Lock()
	clear(p.free)
	p.bytes = 0
	p.marks = nil
	p.mu.Unlock()
}

// maxPooledMarks is the most entries a map of order's may have held and be
// kept for reuse, and maxMarkMaps the most maps kept: passes run one after
// the other need one, passes run at the same time one each.
const (
	maxPooledMarks = 1 << 16
	maxMarkMaps    = 8
)

// takeMarks returns an empty map for order, one kept by putMarks if any.
func takeMarks[T kernel.Float]() map[*Tensor[T]]uint8 {
	p := poolFor[T]()
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.marks)
	if n == 0 {
		return map[*Tensor[T]]uint8{}
	}
	m := p.marks[n-1]
	p.marks[n-1] = nil
	p.marks = p.marks[:n-1]
	return m
}

// putMarks clears m, which the caller must not use afterwards, and keeps it
// for takeMarks unless it held more than maxPooledMarks entries or
// maxMarkMaps maps are kept already.
func putMarks[T kernel.Float](m map[*Tensor[T]]uint8) {
	if len(m) > maxPooledMarks {
		return
	}
	clear(m)
	p := poolFor[T]()
	p.mu.Lock()
	if len(p.marks) < maxMarkMaps {
		p.marks = append(p.marks, m)
	}
	p.mu.Unlock()
}

// empty returns a node-less tensor of the given shape in a pooled buffer with
// unspecified contents.
func empty[T kernel.Float](shape ...int) *Tensor[T] {
	return newTensor(alloc[T](shapeSize(shape)), cloneInts(shape), true)
}

// emptyZeroed is empty with the buffer cleared.
func emptyZeroed[T kernel.Float](shape ...int) *Tensor[T] {
	return newTensor(allocZeroed[T](shapeSize(shape)), cloneInts(shape), true)
}

// free recycles t's own buffer if t owns a pooled one, and marks t released.
func (t *Tensor[T]) free() {
	if t.pooled {
		release(t.data)
	}
	t.pooled = false
	t.data = nil
}

// Release recycles the buffers of t and of every tensor reachable from t
// through operator inputs that an operator produced (with the temporaries
// their backward functions saved, and their gradients if any were kept).
// Leaves and their gradients are left alone. Released tensors must not be used
// again: their Data is nil. See the package documentation for the rules.
func (t *Tensor[T]) Release() {
	releaseGraph(t, 0)
}

// releaseGraph frees t and every operator output reachable from t that was
// created after sequence number after (0: all).
func releaseGraph[T kernel.Float](t *Tensor[T], after uint64) {
	if t == nil || t.seq <= after {
		return
	}
	if t.node == nil {
		t.free()
		return
	}
	seen := map[*Tensor[T]]bool{}
	stack := []*Tensor[T]{t}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] || x.seq <= after {
			continue
		}
		seen[x] = true
		if x.node == nil {
			// A leaf: the caller's, unless it is t itself or a temporary
			// made during the backward call being cleaned up.
			if x == t || after > 0 {
				x.free()
			}
			continue
		}
		n := x.node
		x.free()
		if x.grad != nil && x.grad != x {
			x.grad.free()
			x.grad = nil
		}
		for _, a := range n.aux {
			switch {
			case a.seq <= after:
				// Made before the backward call being cleaned up (a
				// temporary shared with a forward node): not ours.
			case a.node == nil:
				a.free()
			case !seen[a]:
				stack = append(stack, a)
			}
		}
		for _, in := range n.inputs {
			if in != nil && !seen[in] {
				stack = append(stack, in)
			}
		}
		// Drop the links so that the graph can be collected and a second
		// Release is a no-op. The node is x's alone (newOp makes one per
		// output), so it is cleared in place.
		*n = node[T]{name: n.name}
	}
}
