package method

import (
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/nets"
)

// average keeps an exponential moving average of the model's parameters
// (the extractor's and the classifier's; not a method's critics or heads).
type average struct {
	decay  float64
	params []nn.Param[float32] // the model's parameters
	shadow []nn.Param[float32] // their averages, named nets.AveragePrefix + name

	// chunks are post's pieces of the parameters: {parameter, lo, hi}.
	chunks [][3]int
	// pending is the update post handed to the team, until settle.
	pending *kernel.Deferred
}

// newAverage starts the average of params at their current values.
func newAverage(decay float64, params []nn.Param[float32]) *average {
	a := &average{decay: decay, params: params}
	for _, p := range params {
		d := append([]float32(nil), p.Tensor.Data()...)
		a.shadow = append(a.shadow, nn.Param[float32]{Name: nets.AveragePrefix + p.Name, Tensor: autodiff.New(d, p.Tensor.Shape()...)})
	}
	return a
}

// rate is the weight of the past at the update that follows n earlier
// ones: min(decay, (n+1)/(n+2)). Until 1/(1-decay) steps have passed the
// average is so the plain mean of the weights met so far, the initial ones
// included, which then fade as 1/(steps+1); after, it is the exponential
// average.
func (a *average) rate(n int) float64 {
	return min(a.decay, float64(n+1)/float64(n+2))
}

// update folds the parameters into their averages after n earlier updates
// (kernel.Blend32), on the calling goroutine:
// s = float32(r*s) + float32((1-r)*p), each product rounded to float32
// before the sum, so that no platform fuses it (the same bits everywhere).
// On more than one thread, post shares the same blend out in chunks.
func (a *average) update(n int) {
	r := float32(a.rate(n))
	q := 1 - r
	for i, p := range a.params {
		kernel.Blend32(a.shadow[i].Tensor.Data(), p.Tensor.Data(), r, q)
	}
}

// post starts update(n) as work for the kernels' idle workers
// (kernel.Defer), in chunks of averageChunk values, when the kernels run on
// more than one thread, and runs update(n) at once otherwise. Until settle,
// the parameters must not change and the averages must not be read. The
// update is element-wise, so who takes which chunk does not change the
// result: post and update give the same bits.
func (a *average) post(n int) {
	a.settle()
	if kernel.Threads() < 2 {
		a.update(n)
		return
	}
	if a.chunks == nil {
		for i, p := range a.params {
			for lo, m := 0, p.Tensor.Len(); lo < m; lo += averageChunk {
				a.chunks = append(a.chunks, [3]int{i, lo, min(m, lo+averageChunk)})
			}
		}
	}
	r := float32(a.rate(n))
	q := 1 - r
	a.pending = kernel.Defer(len(a.chunks), func(c int) {
		k := a.chunks[c]
		s, d := a.shadow[k[0]].Tensor.Data(), a.params[k[0]].Tensor.Data()
		kernel.Blend32(s[k[1]:k[2]], d[k[1]:k[2]], r, q)
	})
}

// settle finishes the update post started, if any.
func (a *average) settle() {
	a.pending.Wait()
	a.pending = nil
}

// averageChunk is the number of values of a chunk of post's work: at about
// a quarter of a nanosecond a value, 8 Ki of them take two microseconds or
// so, as long as a worker that takes one may keep a parallel region
// waiting.
const averageChunk = 1 << 13

// swap exchanges the parameters' values with their averages, once the
// update post started is done.
func (a *average) swap() {
	a.settle()
	for i, p := range a.params {
		d, s := p.Tensor.Data(), a.shadow[i].Tensor.Data()
		for j := range d {
			d[j], s[j] = s[j], d[j]
		}
	}
}
