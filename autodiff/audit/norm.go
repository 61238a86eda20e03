package audit

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff"
)

// Checks of autodiff.Norm, the Euclidean norm with PyTorch's subgradient at
// an all-zero row. Away from zero it is checked like every operator; at a
// zero row the central differences of the first derivative still apply (the
// norm is even there), and the second derivative, which finite differences
// cannot reach at the kink, is compared with the closed form
// H·v = (v − x·(x·v)/n²)/n on rows with n = ‖x‖ > 0 and 0 on the zero row,
// which is what torch.autograd computes for torch.linalg.vector_norm.

// normOperators are the registry entries of Norm.
func normOperators() []Operator {
	return []Operator{
		{Name: "Norm", Covers: []string{"Norm"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Norm[float64])},
		{Name: "Norm/vector", Covers: []string{"Norm"}, Inputs: inputs(uniform, sh(5)), F: unary(autodiff.Norm[float64])},
		{Name: "Norm/zero-row", Covers: []string{"Norm"}, Inputs: zeroRowInputs, F: unary(autodiff.Norm[float64]),
			NoSecond: "not twice differentiable at the zero row; see Norm/zero-row grad2 = torch"},
	}
}

// zeroRowInputs draws a 3×4 input whose middle row is all zero.
func zeroRowInputs(r *rand.Rand) []*Tensor {
	x := inputs(uniform, sh(3, 4))(r)[0]
	clear(x.Data()[4:8])
	return []*Tensor{x}
}

// normChecks are the checks of Norm that the operator registry cannot
// express: its second derivative at an all-zero row.
func normChecks() []Check {
	return []Check{{
		Op: "Norm/zero-row", Kind: "grad2 = torch", Tol: 1e-12,
		Notes: "Hessian-vector product against the closed form, 0 on the zero row",
		Run:   normHessian(autodiff.Norm[float64]),
	}}
}

// normHessian returns the check of the second derivative of norm, a
// function with Norm's contract, at an input with a zero row.
func normHessian(norm func(*Tensor) *Tensor) func(uint64) (float64, string, error) {
	return func(seed uint64) (float64, string, error) { return normHessianRun(norm, seed) }
}

func normHessianRun(norm func(*Tensor) *Tensor, seed uint64) (float64, string, error) {
	r := rand.New(rand.NewPCG(seed, 2))
	const rows, cols = 3, 4
	x := zeroRowInputs(r)[0].SetRequiresGrad(true)
	w := make([]float64, rows)
	v := make([]float64, rows*cols)
	for i := range w {
		w[i] = uniform(r)
	}
	for i := range v {
		v[i] = uniform(r)
	}
	f := autodiff.SumAll(autodiff.Mul(norm(x), autodiff.New(w, rows)))
	g, err := autodiff.Gradients([]*Tensor{f}, nil, []*Tensor{x}, true)
	if err != nil {
		return 0, "", err
	}
	s := autodiff.SumAll(autodiff.Mul(g[0], autodiff.New(v, rows, cols)))
	hv, err := autodiff.Gradients([]*Tensor{s}, nil, []*Tensor{x}, false)
	if err != nil {
		return 0, "", err
	}
	got, xd := hv[0].Data(), x.Data()
	worst, where := 0.0, 0
	for i := range rows {
		row, vr := xd[i*cols:(i+1)*cols], v[i*cols:(i+1)*cols]
		n, xv := 0.0, 0.0
		for k := range row {
			n += row[k] * row[k]
			xv += row[k] * vr[k]
		}
		n = math.Sqrt(n)
		for k := range row {
			want := 0.0
			if n > 0 {
				want = w[i] * (vr[k] - row[k]*xv/(n*n)) / n
			}
			a := got[i*cols+k]
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return math.Inf(1), "", fmt.Errorf("H·v is %v at element %d", a, i*cols+k)
			}
			if e := math.Abs(a-want) / max(1, math.Abs(a), math.Abs(want)); e > worst {
				worst, where = e, i*cols+k
			}
		}
	}
	return worst, fmt.Sprintf("worst at element %d of %d (the zero row is elements 4-7)", where, rows*cols), nil
}
