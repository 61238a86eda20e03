package nn

import (
	"fmt"
	"math"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// BatchNorm1d normalises each feature of [n, Features] input over the batch,
// as torch.nn.BatchNorm1d: in training it uses the batch mean and (biased)
// variance and updates the running statistics with the unbiased variance; in
// evaluation it uses the running statistics.
type BatchNorm1d[T kernel.Float] struct {
	Features    int
	Eps         float64
	Momentum    float64
	Weight      *autodiff.Tensor[T] // gamma, [Features], initialised to 1
	Bias        *autodiff.Tensor[T] // beta, [Features], initialised to 0
	RunningMean *autodiff.Tensor[T] // [Features]
	RunningVar  *autodiff.Tensor[T] // [Features]
	train       bool
}

// NewBatchNorm1d returns a BatchNorm1d layer with PyTorch's defaults (eps
// 1e-5, momentum 0.1), in training mode.
func NewBatchNorm1d[T kernel.Float](features int) *BatchNorm1d[T] {
	if features <= 0 {
		panic(fmt.Sprintf("nn: NewBatchNorm1d(%d): size must be positive", features))
	}
	return &BatchNorm1d[T]{
		Features: features, Eps: 1e-5, Momentum: 0.1,
		Weight:      autodiff.Full[T](1, features).SetRequiresGrad(true),
		Bias:        autodiff.Zeros[T](features).SetRequiresGrad(true),
		RunningMean: autodiff.Zeros[T](features),
		RunningVar:  autodiff.Full[T](1, features),
		train:       true,
	}
}

// Forward normalises x of shape [n, Features]. Training needs n > 1.
func (b *BatchNorm1d[T]) Forward(x *autodiff.Tensor[T]) *autodiff.Tensor[T] {
	sh := x.Shape()
	if len(sh) != 2 || sh[1] != b.Features {
		panic(fmt.Sprintf("nn: BatchNorm1d(%d) applied to shape %v", b.Features, sh))
	}
	var y *autodiff.Tensor[T]
	if b.train {
		n := sh[0]
		if n < 2 {
			panic("nn: BatchNorm1d in training needs more than one sample per batch")
		}
		mean := autodiff.Mean(x, true, 0)
		xc := autodiff.Sub(x, mean)
		v := autodiff.Mean(autodiff.Square(xc), true, 0)
		y = autodiff.Div(xc, autodiff.Sqrt(autodiff.AddScalar(v, T(b.Eps))))
		m, vd := mean.Data(), v.Data()
		rm, rv := b.RunningMean.Data(), b.RunningVar.Data()
		mom := T(b.Momentum)
		unbias := T(float64(n) / float64(n-1))
		for j := range rm {
			rm[j] = T((1-mom)*rm[j]) + T(mom*m[j])
			rv[j] = T((1-mom)*rv[j]) + T(mom*vd[j]*unbias)
		}
	} else {
		inv := make([]T, b.Features)
		for j, v := range b.RunningVar.Data() {
			inv[j] = T(1 / math.Sqrt(float64(v)+b.Eps))
		}
		y = autodiff.Mul(autodiff.Sub(x, b.RunningMean), autodiff.New(inv, b.Features))
	}
	return autodiff.Add(autodiff.Mul(y, b.Weight), b.Bias)
}

// Params returns "weight" and "bias".
func (b *BatchNorm1d[T]) Params() []Param[T] {
	return []Param[T]{{"weight", b.Weight}, {"bias", b.Bias}}
}

// Buffers returns "running_mean" and "running_var".
func (b *BatchNorm1d[T]) Buffers() []Param[T] {
	return []Param[T]{{"running_mean", b.RunningMean}, {"running_var", b.RunningVar}}
}

// SetTrain switches between batch statistics (true) and running statistics.
func (b *BatchNorm1d[T]) SetTrain(train bool) { b.train = train }
