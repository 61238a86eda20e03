package audit

import (
	"fmt"
	"math/rand/v2"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/gradcheck"
)

// GradTol is the largest finite-difference error (gradcheck's metric) that a
// gradient check passes with.
const GradTol = 1e-6

// Tensor is the float64 tensor the gradient checks run on.
type Tensor = autodiff.Tensor[float64]

// Operator is one entry of the operator registry: a function of tensors
// built from one operator of package autodiff (with fixed non-tensor
// arguments), and a generator of the point at which its gradients are
// checked.
type Operator struct {
	Name   string   // unique, e.g. "MatMul/NT"
	Covers []string // the exported functions of package autodiff it checks
	Inputs func(r *rand.Rand) []*Tensor
	F      gradcheck.Func

	// NoSecond, when set, says why the second-order check does not apply.
	NoSecond string
	// NA, when set, says why no gradient check applies at all.
	NA string
}

// OperatorChecks returns two checks per operator: "grad1", the first-order
// gradients of F against central differences, and "grad2", the double
// backward of tanh(F) (so that the gradient flowing into the operator depends
// on the inputs and every path of its createGraph backward is exercised)
// against central differences of its first-order gradients.
func OperatorChecks(ops []Operator) []Check {
	var out []Check
	for _, op := range ops {
		first := Check{Op: op.Name, Kind: "grad1", Tol: GradTol, NA: op.NA}
		second := Check{Op: op.Name, Kind: "grad2", Tol: GradTol, NA: op.NA, Notes: "of tanh(f)"}
		if op.NoSecond != "" && op.NA == "" {
			second.NA = op.NoSecond
		}
		if op.NA == "" {
			op := op
			first.Run = func(seed uint64) (float64, string, error) {
				return gradRun(gradcheck.First, op.F, op.Inputs, seed)
			}
			tanhF := func(xs []*Tensor) *Tensor { return autodiff.Tanh(op.F(xs)) }
			second.Run = func(seed uint64) (float64, string, error) {
				return gradRun(gradcheck.Second, tanhF, op.Inputs, seed)
			}
		}
		out = append(out, first, second)
	}
	return out
}

func gradRun(check func(gradcheck.Func, []*Tensor, *gradcheck.Options) (gradcheck.Result, error),
	f gradcheck.Func, inputs func(*rand.Rand) []*Tensor, seed uint64) (float64, string, error) {
	xs := inputs(rand.New(rand.NewPCG(seed, 1)))
	res, err := check(f, xs, &gradcheck.Options{Seed: seed | 1})
	if err != nil {
		return res.MaxErr, "", err
	}
	if res.Checked == 0 {
		return 0, "", fmt.Errorf("no element compared")
	}
	return res.MaxErr, fmt.Sprintf("worst at input %d element %d of %d compared: analytic %.10g, numeric %.10g",
		res.Input, res.Index, res.Checked, res.Analytic, res.Numeric), nil
}

// gen draws one element of an input.
type gen func(r *rand.Rand) float64

func uniform(r *rand.Rand) float64  { return 2*r.Float64() - 1 }
func positive(r *rand.Rand) float64 { return 0.5 + 1.5*r.Float64() }

// away draws from ±[0.2, 1), away from the kinks of Abs and ReLU at 0.
func away(r *rand.Rand) float64 {
	v := 0.2 + 0.8*r.Float64()
	if r.IntN(2) == 0 {
		return -v
	}
	return v
}

// inputs returns a generator of tensors of the given shapes drawn by g.
func inputs(g gen, shapes ...[]int) func(*rand.Rand) []*Tensor {
	return func(r *rand.Rand) []*Tensor {
		xs := make([]*Tensor, len(shapes))
		for i, s := range shapes {
			n := 1
			for _, d := range s {
				n *= d
			}
			v := make([]float64, n)
			for k := range v {
				v[k] = g(r)
			}
			xs[i] = autodiff.New(v, s...)
		}
		return xs
	}
}

// distinctInputs returns a generator of tensors whose values are at least
// 0.05 apart in random order: every maximum is clear of ties by far more than
// the finite-difference step.
func distinctInputs(shapes ...[]int) func(*rand.Rand) []*Tensor {
	return func(r *rand.Rand) []*Tensor {
		xs := make([]*Tensor, len(shapes))
		for i, s := range shapes {
			n := 1
			for _, d := range s {
				n *= d
			}
			v := make([]float64, n)
			for k, p := range r.Perm(n) {
				v[k] = 0.05*float64(p) - 0.025*float64(n) + 0.01*r.Float64()
			}
			xs[i] = autodiff.New(v, s...)
		}
		return xs
	}
}

func sh(d ...int) []int { return d }

func unary(f func(*Tensor) *Tensor) gradcheck.Func {
	return func(xs []*Tensor) *Tensor { return f(xs[0]) }
}

func binary(f func(a, b *Tensor) *Tensor) gradcheck.Func {
	return func(xs []*Tensor) *Tensor { return f(xs[0], xs[1]) }
}

// must unwraps the result of an operator that reports bad arguments as an
// error; gradcheck turns the panic into a failed check.
func must(t *Tensor, err error) *Tensor {
	if err != nil {
		panic(err)
	}
	return t
}

// testCSR is a fixed 4 x 6 sparse matrix with an empty row and a repeated
// column.
var testCSR = &autodiff.CSR{
	Rows: 4, Cols: 6,
	RowPtr: []int{0, 3, 3, 5, 8},
	ColIdx: []int32{0, 4, 5, 2, 2, 1, 3, 5},
	Val:    []float32{0.5, -1.25, 2, 0.75, -0.5, 1.5, -2, 0.25},
}

// Operators returns the operator registry: every differentiating operator of
// package autodiff, some in several variants (broadcasting, transposes,
// strides, modes). TestRegistryCoversPackage keeps it complete.
func Operators() []Operator {
	ops := []Operator{
		{Name: "Add/broadcast", Covers: []string{"Add"}, Inputs: inputs(uniform, sh(3, 4), sh(4)), F: binary(autodiff.Add[float64])},
		{Name: "Add/outer", Covers: []string{"Add"}, Inputs: inputs(uniform, sh(3, 1), sh(1, 4)), F: binary(autodiff.Add[float64])},
		{Name: "Sub/broadcast", Covers: []string{"Sub"}, Inputs: inputs(uniform, sh(2, 3, 4), sh(3, 1)), F: binary(autodiff.Sub[float64])},
		{Name: "Mul/broadcast", Covers: []string{"Mul"}, Inputs: inputs(uniform, sh(3, 4), sh(3, 1)), F: binary(autodiff.Mul[float64])},
		{Name: "Div/broadcast", Covers: []string{"Div"}, Inputs: inputs(positive, sh(3, 4), sh(4)), F: binary(autodiff.Div[float64])},
		{Name: "Pow", Covers: []string{"Pow"}, Inputs: inputs(positive, sh(3, 4), sh(4)), F: binary(autodiff.Pow[float64])},
		{Name: "Neg", Covers: []string{"Neg"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Neg[float64])},
		{Name: "AddScalar", Covers: []string{"AddScalar"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.AddScalar(x, 0.7) })},
		{Name: "MulScalar", Covers: []string{"MulScalar"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.MulScalar(x, -1.3) })},
		{Name: "PowScalar/3", Covers: []string{"PowScalar"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.PowScalar(x, 3) })},
		{Name: "PowScalar/-1.5", Covers: []string{"PowScalar"}, Inputs: inputs(positive, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.PowScalar(x, -1.5) })},
		{Name: "Square", Covers: []string{"Square"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Square[float64])},
		{Name: "Exp", Covers: []string{"Exp"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Exp[float64])},
		{Name: "Log", Covers: []string{"Log"}, Inputs: inputs(positive, sh(3, 4)), F: unary(autodiff.Log[float64])},
		{Name: "Sqrt", Covers: []string{"Sqrt"}, Inputs: inputs(positive, sh(3, 4)), F: unary(autodiff.Sqrt[float64])},
		{Name: "Abs", Covers: []string{"Abs"}, Inputs: inputs(away, sh(3, 4)), F: unary(autodiff.Abs[float64])},
		{Name: "ReLU", Covers: []string{"ReLU"}, Inputs: inputs(away, sh(3, 4)), F: unary(autodiff.ReLU[float64])},
		{Name: "LeakyReLU", Covers: []string{"LeakyReLU"}, Inputs: inputs(away, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.LeakyReLU(x, 0.2) })},
		{Name: "Sigmoid", Covers: []string{"Sigmoid"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Sigmoid[float64])},
		{Name: "Tanh", Covers: []string{"Tanh"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Tanh[float64])},
		{Name: "Softmax", Covers: []string{"Softmax"}, Inputs: inputs(uniform, sh(3, 5)), F: unary(autodiff.Softmax[float64])},
		{Name: "LogSoftmax", Covers: []string{"LogSoftmax"}, Inputs: inputs(uniform, sh(2, 3, 4)), F: unary(autodiff.LogSoftmax[float64])},
		{Name: "RowNorm", Covers: []string{"RowNorm"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.RowNorm(x, 1e-10) })},
		{Name: "MatMul/NN", Covers: []string{"MatMul"}, Inputs: inputs(uniform, sh(3, 4), sh(4, 5)), F: matmul(false, false)},
		{Name: "MatMul/TN", Covers: []string{"MatMul"}, Inputs: inputs(uniform, sh(4, 3), sh(4, 5)), F: matmul(true, false)},
		{Name: "MatMul/NT", Covers: []string{"MatMul"}, Inputs: inputs(uniform, sh(3, 4), sh(5, 4)), F: matmul(false, true)},
		{Name: "MatMul/TT", Covers: []string{"MatMul"}, Inputs: inputs(uniform, sh(4, 3), sh(5, 4)), F: matmul(true, true)},
		{Name: "Sum/axes", Covers: []string{"Sum"}, Inputs: inputs(uniform, sh(2, 3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Sum(x, false, 0, 2) })},
		{Name: "Sum/keep", Covers: []string{"Sum"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Sum(x, true, -1) })},
		{Name: "SumAll", Covers: []string{"SumAll"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.SumAll[float64])},
		{Name: "Mean/axis", Covers: []string{"Mean"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Mean(x, true, 0) })},
		{Name: "MeanAll", Covers: []string{"MeanAll"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.MeanAll[float64])},
		{Name: "Max/axis", Covers: []string{"Max"}, Inputs: distinctInputs(sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Max(x, false, 1) })},
		{Name: "MaxAll", Covers: []string{"MaxAll"}, Inputs: distinctInputs(sh(3, 4)), F: unary(autodiff.MaxAll[float64])},
		{Name: "Reshape", Covers: []string{"Reshape"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Reshape(x, 2, -1, 3) })},
		{Name: "Flatten", Covers: []string{"Flatten"}, Inputs: inputs(uniform, sh(2, 3, 2)), F: unary(autodiff.Flatten[float64])},
		{Name: "Transpose", Covers: []string{"Transpose"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Transpose[float64])},
		{Name: "Permute", Covers: []string{"Permute"}, Inputs: inputs(uniform, sh(2, 3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Permute(x, 2, 0, 1) })},
		{Name: "Slice", Covers: []string{"Slice"}, Inputs: inputs(uniform, sh(3, 5)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.Slice(x, 1, 1, 4) })},
		{Name: "Concat", Covers: []string{"Concat"}, Inputs: inputs(uniform, sh(2, 3), sh(1, 3), sh(3, 3)),
			F: func(xs []*Tensor) *Tensor { return autodiff.Concat(0, xs...) }},
		{Name: "BroadcastTo", Covers: []string{"BroadcastTo"}, Inputs: inputs(uniform, sh(3, 1)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.BroadcastTo(x, 2, 3, 4) })},
		{Name: "SumTo", Covers: []string{"SumTo"}, Inputs: inputs(uniform, sh(2, 3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.SumTo(x, 3, 1) })},
		{Name: "Identity", Covers: []string{"Identity"}, Inputs: inputs(uniform, sh(3, 4)), F: unary(autodiff.Identity[float64])},
		{Name: "Gather", Covers: []string{"Gather"}, Inputs: inputs(uniform, sh(4, 3)),
			F: unary(func(x *Tensor) *Tensor { return must(autodiff.Gather(x, []int{2, 0, 2, 3})) })},
		{Name: "Pick", Covers: []string{"Pick"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return must(autodiff.Pick(x, []int{1, 3, 0})) })},
		{Name: "Where", Covers: []string{"Where"}, Inputs: inputs(uniform, sh(2, 3), sh(3)),
			F: binary(func(a, b *Tensor) *Tensor {
				return autodiff.Where([]bool{true, false, true, false, false, true}, a, b)
			})},
		{Name: "WhereMask", Covers: []string{"WhereMask"}, Inputs: inputs(uniform, sh(2, 3), sh(3)),
			F: binary(func(a, b *Tensor) *Tensor {
				mask := autodiff.New([]float64{0, 1, 1, 0, 2, 0}, 2, 3)
				return autodiff.WhereMask(mask, a, b)
			})},
		{Name: "CrossEntropy/mean", Covers: []string{"CrossEntropy"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor {
				return must(autodiff.CrossEntropy(x, []int{0, 3, 1}, nil, autodiff.ReduceMean))
			})},
		{Name: "CrossEntropy/weighted-none", Covers: []string{"CrossEntropy"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor {
				return must(autodiff.CrossEntropy(x, []int{2, 2, 0}, []float64{0.5, 2, 1.25}, autodiff.ReduceNone))
			})},
		// With scale -1 the reversal layer's gradient is exactly the
		// derivative of its forward value (the identity), so any other
		// backward shows up as an error.
		{Name: "GradReverse/-1", Covers: []string{"GradReverse"}, Inputs: inputs(uniform, sh(3, 4)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.GradReverse(x, -1) })},
		{Name: "Conv2d/stride1-pad0", Covers: []string{"Conv2d"}, Inputs: inputs(uniform, sh(2, 2, 5, 4), sh(3, 2, 3, 3)),
			F: func(xs []*Tensor) *Tensor { return autodiff.Conv2d(xs[0], xs[1], nil, 1, 0) }},
		{Name: "Conv2d/stride2-pad1-bias", Covers: []string{"Conv2d"}, Inputs: inputs(uniform, sh(2, 3, 5, 6), sh(2, 3, 3, 2), sh(2)),
			F: func(xs []*Tensor) *Tensor { return autodiff.Conv2d(xs[0], xs[1], xs[2], 2, 1) }},
		{Name: "MaxPool2d/2x2", Covers: []string{"MaxPool2d"}, Inputs: distinctInputs(sh(2, 2, 4, 6)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.MaxPool2d(x, 2, 2, false) })},
		{Name: "MaxPool2d/3s2-ceil", Covers: []string{"MaxPool2d"}, Inputs: distinctInputs(sh(1, 2, 7, 6)),
			F: unary(func(x *Tensor) *Tensor { return autodiff.MaxPool2d(x, 3, 2, true) })},
		{Name: "Conv2dMaxPool/2x2-relu-bias", Covers: []string{"Conv2dMaxPool"}, Inputs: inputs(uniform, sh(2, 2, 6, 7), sh(3, 2, 3, 3), sh(3)),
			F: func(xs []*Tensor) *Tensor { return autodiff.Conv2dMaxPool(xs[0], xs[1], xs[2], 1, 0, 2, 2, true, true) }},
		{Name: "Conv2dMaxPool/3s2-pad1", Covers: []string{"Conv2dMaxPool"}, Inputs: inputs(uniform, sh(1, 2, 6, 5), sh(2, 2, 3, 3)),
			F: func(xs []*Tensor) *Tensor { return autodiff.Conv2dMaxPool(xs[0], xs[1], nil, 1, 1, 3, 2, false, false) }},
		{Name: "SparseMatMul", Covers: []string{"SparseMatMul"}, Inputs: inputs(uniform, sh(6, 5)),
			F: unary(func(w *Tensor) *Tensor { return autodiff.SparseMatMul(testCSR, w) })},
		{Name: "Dropout/0.3", Covers: []string{"Dropout"}, Inputs: inputs(uniform, sh(4, 5)),
			F: unary(func(x *Tensor) *Tensor {
				// The same seed at every call: the same mask.
				return autodiff.Dropout(x, 0.3, true, rand.New(rand.NewPCG(7, 7)))
			})},
		{Name: "Convert", Covers: []string{"Convert"},
			NA: "returns a leaf of another element type: no gradient flows through it"},
	}
	return append(ops, normOperators()...)
}

func matmul(ta, tb bool) gradcheck.Func {
	return func(xs []*Tensor) *Tensor { return autodiff.MatMul(xs[0], xs[1], ta, tb) }
}
