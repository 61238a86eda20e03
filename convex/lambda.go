package convex

import (
	"fmt"
	"math"
)

// LambdaProblem is WADN's task-relation problem over T sources:
//
//	minimize   Σ_t λ_t·A_t + C1·sqrt(Σ_t λ_t²/Beta_t) + C0·Σ_t λ_t·W_t
//	subject to λ >= 0, Σ_t λ_t = 1.
//
// A_t is source t's alpha-weighted classification loss, W_t its estimated
// conditional distance and Beta_t its share of the source samples.
type LambdaProblem struct {
	A    []float64 // per-source loss, length T
	W    []float64 // per-source conditional distance, length T
	Beta []float64 // per-source sample share, length T, each > 0
	C0   float64   // weight of the distance term
	C1   float64   // weight of the norm term, >= 0
}

// Validate reports the first reason the problem is not well posed: empty or
// mismatched vectors, a non-finite entry, Beta_t <= 0, or C1 < 0.
func (q *LambdaProblem) Validate() error {
	t := len(q.A)
	if t == 0 {
		return fmt.Errorf("convex: lambda: a is empty")
	}
	if err := checkSize("lambda", "a", t); err != nil {
		return err
	}
	if len(q.W) != t {
		return fmt.Errorf("convex: lambda: w has %d entries, want %d (the length of a)", len(q.W), t)
	}
	if len(q.Beta) != t {
		return fmt.Errorf("convex: lambda: beta has %d entries, want %d (the length of a)", len(q.Beta), t)
	}
	if err := checkFinite("lambda", "a", q.A); err != nil {
		return err
	}
	if err := checkFinite("lambda", "w", q.W); err != nil {
		return err
	}
	if err := checkFinite("lambda", "beta", q.Beta); err != nil {
		return err
	}
	for i, b := range q.Beta {
		if !(b > 0) {
			return fmt.Errorf("convex: lambda: beta[%d] = %v, want > 0", i, b)
		}
		if math.IsInf(1/b, 0) {
			return fmt.Errorf("convex: lambda: beta[%d] = %v is too small (1/beta overflows)", i, b)
		}
	}
	if !isFinite(q.C0) {
		return fmt.Errorf("convex: lambda: C0 is %v", q.C0)
	}
	if !isFinite(q.C1) || q.C1 < 0 {
		return fmt.Errorf("convex: lambda: C1 = %v, want a finite value >= 0", q.C1)
	}
	for i := range q.A {
		if !isFinite(q.A[i] + float64(q.C0*q.W[i])) {
			return fmt.Errorf("convex: lambda: a[%d] + C0*w[%d] overflows", i, i)
		}
	}
	return nil
}

// Value returns the objective of q at lambda (any length-T vector).
func (q *LambdaProblem) Value(lambda []float64) float64 {
	lin, sq := 0.0, 0.0
	for i, l := range lambda {
		lin += float64(l * (q.A[i] + float64(q.C0*q.W[i])))
		sq += l * l / q.Beta[i]
	}
	return lin + float64(q.C1*math.Sqrt(sq))
}

// lambdaObj is the LambdaProblem objective c·x + c1·sqrt(Σ x_i²·ib_i).
type lambdaObj struct {
	c, ib []float64
	c1    float64
}

func (o *lambdaObj) norm(x []float64) float64 {
	s := 0.0
	for i, v := range x {
		s += float64(v * v * o.ib[i])
	}
	return math.Sqrt(s)
}

func (o *lambdaObj) grad(x, g []float64) (float64, bool) {
	r := o.norm(x)
	if !(r > 0) || !isFinite(r) {
		return 0, false
	}
	f := o.c1 * r
	for i, v := range x {
		f += float64(o.c[i] * v)
		g[i] = o.c[i] + o.c1*v*o.ib[i]/r
	}
	return f, isFinite(f)
}

// hess is c1·(diag(ib)/r − u·uᵀ/r³) with u = x∘ib, r = sqrt(Σ x_i²·ib_i).
func (o *lambdaObj) hess(x, h []float64) {
	n := len(x)
	if o.c1 == 0 {
		clear(h)
		return
	}
	r := o.norm(x)
	r3 := r * r * r
	for i := range n {
		ui := x[i] * o.ib[i]
		row := h[i*n : i*n+i+1]
		for j := range row[:i] {
			row[j] = -o.c1 * ui * x[j] * o.ib[j] / r3
		}
		row[i] = o.c1 * (o.ib[i]/r - ui*ui/r3)
	}
}

// SolveLambda solves q by the interior-point method. It returns an error
// for an ill-posed q (see Validate) and, together with the last iterate,
// an error wrapping ErrNotOptimal when the tolerance is not reached.
func SolveLambda(q LambdaProblem, s *Settings) (*Result, error) {
	tol, maxIter, err := s.resolve()
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	n := len(q.A)
	ar := getArena()
	defer putArena(ar)
	obj := &lambdaObj{c: ar.floats(n), ib: ar.floats(n), c1: q.C1}
	a := ar.floats(n)
	for i := range n {
		obj.c[i] = q.A[i] + float64(q.C0*q.W[i])
		obj.ib[i] = 1 / q.Beta[i]
		a[i] = 1
	}
	cr := newIPM(ar, obj, a, 1, tol, maxIter).run()
	res := &Result{
		X:          append([]float64(nil), cr.x...),
		Iterations: cr.iterations,
		Status:     cr.status,
		KKT:        cr.kkt,
		Multiplier: cr.y,
		Dual:       append([]float64(nil), cr.z...),
	}
	res.Objective = q.Value(res.X)
	return finish(res, "lambda")
}

// finish checks that a result is free of NaN and Inf and turns a
// non-optimal status into an error.
func finish(res *Result, name string) (*Result, error) {
	ok := isFinite(res.Objective) && isFinite(res.Multiplier) &&
		isFinite(res.KKT.max()) && allFinite(res.X) && allFinite(res.Dual)
	if !ok {
		return nil, fmt.Errorf("convex: %s: the solve produced non-finite values (the data are too badly scaled)", name)
	}
	if res.Status != Optimal {
		return res, fmt.Errorf("%w: %s: status %v after %d iterations (largest scaled KKT residual %.3g)",
			ErrNotOptimal, name, res.Status, res.Iterations, res.KKT.max())
	}
	return res, nil
}

func allFinite(v []float64) bool {
	for _, e := range v {
		if !isFinite(e) {
			return false
		}
	}
	return true
}

// checkFinite reports the first NaN or Inf entry of v, named name[i], for
// the problem prob.
func checkFinite(prob, name string, v []float64) error {
	for i, e := range v {
		if math.IsNaN(e) {
			return fmt.Errorf("convex: %s: %s[%d] is NaN", prob, name, i)
		}
		if math.IsInf(e, 0) {
			return fmt.Errorf("convex: %s: %s[%d] is %v", prob, name, i, e)
		}
	}
	return nil
}
