package autodiff

import (
	"math"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// Norm returns the Euclidean norm sqrt(sum x**2) of x along its last axis,
// as torch.linalg.vector_norm(x, dim=-1) and torch.norm(x, dim=-1) do; the
// result drops the last axis. Nothing is added under the root, unlike
// RowNorm(x, eps).
//
// At an all-zero row the norm is not differentiable; Norm takes PyTorch's
// subgradient there: the gradient is 0, not NaN, and so is every higher
// derivative. This is the form to audit a gradient penalty against PyTorch
// with; WADN's penalty keeps the authors' RowNorm(x, 1e-10).
//
// Backward: dL/dx = x * g/n on rows with n = ||x|| > 0, and 0 on all-zero
// rows, built from differentiable operators with n and the row masks as
// constants of the division, so that it can be differentiated again.
func Norm[T kernel.Float](x *Tensor[T]) *Tensor[T] {
	if len(x.shape) == 0 {
		shapePanic("Norm", "tensor must have at least one dimension", x.shape)
	}
	d := x.shape[len(x.shape)-1]
	outShape := append([]int(nil), x.shape[:len(x.shape)-1]...)
	out := empty[T](outShape...)
	for r := range out.data {
		out.data[r] = T(rowNorm(x.data[r*d : (r+1)*d]))
	}
	var ret *Tensor[T]
	ret = newOp("Norm", out, []*Tensor[T]{x}, func(g *Tensor[T], _ bool) []*Tensor[T] {
		// nonzero is 1 on rows with n > 0; zero is its complement, added
		// to n so that the division stays finite on all-zero rows, where
		// nonzero then cancels the quotient (and its derivatives).
		nonzero := maskConst(ret, func(v T) T {
			if v > 0 {
				return 1
			}
			return 0
		})
		zero := maskConst(ret, func(v T) T {
			if v > 0 {
				return 0
			}
			return 1
		})
		ratio := Div(Mul(g, nonzero), Add(ret, zero))
		return []*Tensor[T]{Mul(x, Reshape(ratio, append(append([]int(nil), outShape...), 1)...))}
	})
	return ret
}

// rowNorm returns the Euclidean norm of v, scaled by its largest magnitude
// so that no square overflows or underflows.
func rowNorm[T kernel.Float](v []T) float64 {
	scale := 0.0
	for _, e := range v {
		scale = max(scale, math.Abs(float64(e)))
	}
	if !(scale > 0 && scale < math.Inf(1)) {
		return scale // 0, +Inf, or NaN from a NaN entry
	}
	s := 0.0
	for _, e := range v {
		q := float64(e) / scale
		s += float64(q * q)
	}
	return scale * math.Sqrt(s)
}
