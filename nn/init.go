package nn

import (
	"math"
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// NewRand returns a deterministic generator for initialisation and dropout.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// KaimingUniform fills w with PyTorch's default weight initialisation of
// Linear and Conv2d: kaiming_uniform_ with a = sqrt(5), that is
// U(-b, b) with b = gain*sqrt(3/fanIn), gain = sqrt(2/(1+a^2)), which is
// b = 1/sqrt(fanIn).
func KaimingUniform[T kernel.Float](w []T, fanIn int, rng *rand.Rand) {
	a := math.Sqrt(5)
	gain := math.Sqrt(2 / (1 + float64(a*a)))
	bound := gain * math.Sqrt(3/float64(fanIn))
	Uniform(w, bound, rng)
}

// BiasUniform fills b with PyTorch's default bias initialisation:
// U(-1/sqrt(fanIn), 1/sqrt(fanIn)).
func BiasUniform[T kernel.Float](b []T, fanIn int, rng *rand.Rand) {
	Uniform(b, 1/math.Sqrt(float64(fanIn)), rng)
}

// Uniform fills x with values drawn from U(-bound, bound).
func Uniform[T kernel.Float](x []T, bound float64, rng *rand.Rand) {
	for i := range x {
		x[i] = T((2*rng.Float64() - 1) * bound)
	}
}
