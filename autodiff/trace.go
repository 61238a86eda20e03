package autodiff

import (
	"crypto/sha256"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// tracer is where SetTrace sends the trace, nil when tracing is off.
var tracer atomic.Pointer[traceState]

type traceState struct {
	mu sync.Mutex
	w  io.Writer
	n  int
}

// SetTrace makes every operator write one line to w when it records its
// output, and every reverse pass one line per gradient a backward function
// returns: a running number, the operator's name, the shape and the first
// 16 hex digits of the SHA-256 of the values' bits. Two runs that should
// agree can then be compared line by line (diff) to find the first operator
// whose result differs. SetTrace(nil) stops tracing. Tracing is for
// debugging one computation at a time: lines of concurrent graphs
// interleave.
func SetTrace(w io.Writer) {
	if w == nil {
		tracer.Store(nil)
		return
	}
	tracer.Store(&traceState{w: w})
}

// trace writes the line of t under what when tracing is on.
func trace[T kernel.Float](what string, t *Tensor[T]) {
	tr := tracer.Load()
	if tr == nil || t == nil {
		return
	}
	var h [sha256.Size]byte
	if len(t.data) > 0 {
		b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.data))), len(t.data)*int(unsafe.Sizeof(t.data[0])))
		h = sha256.Sum256(b)
	}
	tr.mu.Lock()
	tr.n++
	fmt.Fprintf(tr.w, "op %d %s %v %x\n", tr.n, what, t.shape, h[:8])
	tr.mu.Unlock()
}
