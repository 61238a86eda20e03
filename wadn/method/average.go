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
// (kernel.Blend32):
// s = float32(r*s) + float32((1-r)*p), each product rounded to float32
// before the sum, so that no platform fuses it (the same bits everywhere).
//
// Parameters of at least 2*averageSplit values are shared out over the
// kernels' threads in contiguous ranges; the update is element-wise, so the
// split does not change the result.
func (a *average) update(n int) {
	r := float32(a.rate(n))
	q := 1 - r
	for i, p := range a.params {
		s, d := a.shadow[i].Tensor.Data(), p.Tensor.Data()
		parts := max(1, min(kernel.Threads(), len(d)/averageSplit))
		kernel.Parallel(parts, func(j int) {
			lo, hi := len(d)*j/parts, len(d)*(j+1)/parts
			kernel.Blend32(s[lo:hi], d[lo:hi], r, q)
		})
	}
}

// averageSplit is the least number of values of a parameter whose average
// update each thread takes a part of: at about a nanosecond a value, 64 Ki
// of them take far longer than handing a part to a worker.
const averageSplit = 1 << 16

// swap exchanges the parameters' values with their averages.
func (a *average) swap() {
	for i, p := range a.params {
		d, s := p.Tensor.Data(), a.shadow[i].Tensor.Data()
		for j := range d {
			d[j], s[j] = s[j], d[j]
		}
	}
}
