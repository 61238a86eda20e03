package convex

import (
	"fmt"
	"math"

	"github.com/wadn-go/wadn/internal/numerics"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Names of the AlphaProblem objectives.
const (
	// NLL is the negative log-likelihood −Σ_y p_y·log((C·α)_y), WADN's
	// objective.
	NLL = "nll"
	// LSQ is the least-squares misfit ‖C·α − p‖².
	LSQ = "lsq"
)

// AlphaProblem is WADN's label-ratio problem for one source with K classes:
//
//	minimize   −Σ_y P_y·log(Σ_k C[y][k]·α_k) + C2·‖α‖₁      (Objective "nll")
//	       or  ‖C·α − P‖² + C2·‖α‖₁                         (Objective "lsq")
//	subject to α >= 0,  Σ_k α_k·S_k = 1.
//
// C[y][k] is the source's joint confusion matrix (the share of source
// samples predicted y whose true label is k), P the predicted target label
// distribution and S_k the source label distribution, by default the column
// sums of C. On the feasible set ‖α‖₁ = Σ_k α_k, so the penalty is linear.
//
// Terms with P_y = 0 drop out of the log-likelihood. A class k whose column
// of C is zero and whose S_k is zero appears nowhere in the problem; with
// C2 = 0 its α_k is not determined, is returned as 0 and is listed in
// Result.Unidentified (with C2 > 0 the penalty makes 0 the unique optimum).
type AlphaProblem struct {
	C         [][]float64 // Y rows of K entries, all >= 0
	P         []float64   // length Y, all >= 0
	C2        float64     // L1 weight, >= 0
	S         []float64   // optional, length K, all >= 0; nil means the column sums of C
	Objective string      // NLL (also when empty) or LSQ
}

// Validate reports the first reason the problem is not well posed: empty or
// ragged C, mismatched lengths, NaN, Inf or negative entries, C all zero,
// an unknown objective, a weight S_k = 0 on a non-zero column (α_k would be
// unbounded), and for NLL a P with no positive entry or a row y with
// P_y > 0 whose C row is zero (its log term is −log 0 for every α).
func (q *AlphaProblem) Validate() error {
	if len(q.C) == 0 {
		return fmt.Errorf("convex: alpha: C is empty")
	}
	k := len(q.C[0])
	if k == 0 {
		return fmt.Errorf("convex: alpha: C[0] is empty")
	}
	if err := checkSize("alpha", "C[0] (the classes)", k); err != nil {
		return err
	}
	if err := checkSize("alpha", "C (the rows)", len(q.C)); err != nil {
		return err
	}
	colZero := make([]bool, k)
	for j := range colZero {
		colZero[j] = true
	}
	allZero := true
	for y, row := range q.C {
		if len(row) != k {
			return fmt.Errorf("convex: alpha: C[%d] has %d entries, want %d (the length of C[0])", y, len(row), k)
		}
		for j, v := range row {
			switch {
			case math.IsNaN(v):
				return fmt.Errorf("convex: alpha: C[%d][%d] is NaN", y, j)
			case math.IsInf(v, 0):
				return fmt.Errorf("convex: alpha: C[%d][%d] is %v", y, j, v)
			case v < 0:
				return fmt.Errorf("convex: alpha: C[%d][%d] = %v, want >= 0", y, j, v)
			case v > 0:
				colZero[j] = false
				allZero = false
			}
		}
	}
	if allZero {
		return fmt.Errorf("convex: alpha: C is all zero (%d×%d): no class is identified", len(q.C), k)
	}
	if len(q.P) != len(q.C) {
		return fmt.Errorf("convex: alpha: p has %d entries, want %d (the number of rows of C)", len(q.P), len(q.C))
	}
	if err := checkFinite("alpha", "p", q.P); err != nil {
		return err
	}
	for y, v := range q.P {
		if v < 0 {
			return fmt.Errorf("convex: alpha: p[%d] = %v, want >= 0", y, v)
		}
	}
	if !isFinite(q.C2) || q.C2 < 0 {
		return fmt.Errorf("convex: alpha: C2 = %v, want a finite value >= 0", q.C2)
	}
	switch q.Objective {
	case "", NLL, LSQ:
	default:
		return fmt.Errorf("convex: alpha: objective %q, want %q or %q", q.Objective, NLL, LSQ)
	}
	if q.S != nil {
		if len(q.S) != k {
			return fmt.Errorf("convex: alpha: s has %d entries, want %d (the number of columns of C)", len(q.S), k)
		}
		if err := checkFinite("alpha", "s", q.S); err != nil {
			return err
		}
		for j, v := range q.S {
			if v < 0 {
				return fmt.Errorf("convex: alpha: s[%d] = %v, want >= 0", j, v)
			}
			if v == 0 && !colZero[j] {
				return fmt.Errorf("convex: alpha: s[%d] = 0 but column %d of C is not zero: alpha[%d] is unbounded", j, j, j)
			}
		}
	} else {
		for j := range k {
			s := 0.0
			for y := range q.C {
				s += q.C[y][j]
			}
			if math.IsInf(s, 0) {
				return fmt.Errorf("convex: alpha: the sum of column %d of C overflows", j)
			}
		}
	}
	if q.Objective == LSQ {
		return nil
	}
	anyP := false
	for y, v := range q.P {
		if v == 0 {
			continue
		}
		anyP = true
		zero := true
		for _, c := range q.C[y] {
			if c > 0 {
				zero = false
				break
			}
		}
		if zero {
			return fmt.Errorf("convex: alpha: p[%d] = %v > 0 but row %d of C is zero: -log(0) for every alpha", y, v, y)
		}
	}
	if !anyP {
		return fmt.Errorf("convex: alpha: p has no positive entry: the log-likelihood is empty")
	}
	return nil
}

// weights returns S, or the column sums of C when S is nil.
func (q *AlphaProblem) weights() []float64 {
	if q.S != nil {
		return q.S
	}
	s := make([]float64, len(q.C[0]))
	for _, row := range q.C {
		for j, v := range row {
			s[j] += v
		}
	}
	return s
}

// Value returns the objective of q at alpha (length K), +Inf for the
// log-likelihood where some (C·α)_y with P_y > 0 is not positive.
func (q *AlphaProblem) Value(alpha []float64) float64 {
	f := 0.0
	for _, a := range alpha {
		f += float64(q.C2 * math.Abs(a))
	}
	for y, row := range q.C {
		c := 0.0
		for j, v := range row {
			c += float64(v * alpha[j])
		}
		if q.Objective == LSQ {
			d := c - q.P[y]
			f += float64(d * d)
			continue
		}
		if q.P[y] == 0 {
			continue
		}
		if !(c > 0) {
			return math.Inf(1)
		}
		f -= float64(q.P[y] * numerics.Log(c))
	}
	return f
}

// SolveAlpha solves q by the interior-point method. It returns an error
// for an ill-posed q (see Validate) and, together with the last iterate,
// an error wrapping ErrNotOptimal when the tolerance is not reached.
func SolveAlpha(q AlphaProblem, s *Settings) (*Result, error) {
	tol, maxIter, err := s.resolve()
	if err != nil {
		return nil, err
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	k := len(q.C[0])
	w := q.weights()

	// Columns kept in the solve: all but those absent from both the
	// objective and the constraint.
	var cols, unid []int
	for j := range k {
		zero := true
		for _, row := range q.C {
			if row[j] != 0 {
				zero = false
				break
			}
		}
		if zero && w[j] == 0 {
			if q.C2 == 0 {
				unid = append(unid, j)
			}
			continue
		}
		cols = append(cols, j)
	}
	// Rows kept: for the log-likelihood only those with p_y > 0.
	var rows []int
	for y := range q.C {
		if q.Objective == LSQ || q.P[y] > 0 {
			rows = append(rows, y)
		}
	}
	// The solve runs in β_k = s_k·α_k, which puts β on the simplex and
	// gives the columns of P = C·diag(1/s) unit sums (for the default s):
	// every scale is then about one whatever the size of C's entries.
	n, m := len(cols), len(rows)
	ar := getArena()
	defer putArena(ar)
	cr := blas64.General{Rows: m, Cols: n, Stride: n, Data: ar.floats(m * n)}
	p := ar.floats(m)
	for i, y := range rows {
		p[i] = q.P[y]
		for jj, j := range cols {
			v := q.C[y][j] / w[j]
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("convex: alpha: C[%d][%d]/s[%d] overflows: s[%d] = %v is too small", y, j, j, j, w[j])
			}
			cr.Data[i*n+jj] = v
		}
	}
	a := ar.floats(n)
	lin := ar.floats(n)
	for jj, j := range cols {
		a[jj] = 1
		lin[jj] = q.C2 / w[j]
		if math.IsInf(lin[jj], 0) {
			return nil, fmt.Errorf("convex: alpha: C2/s[%d] overflows: s[%d] = %v is too small", j, j, w[j])
		}
	}
	var obj objective
	if q.Objective == LSQ {
		obj = newLSQ(ar, cr, p, lin)
	} else {
		obj = newNLL(ar, cr, p, lin)
	}
	core := newIPM(ar, obj, a, 1, tol, maxIter).run()
	res := &Result{
		X:            make([]float64, k),
		Dual:         make([]float64, k),
		Iterations:   core.iterations,
		Status:       core.status,
		KKT:          core.kkt,
		Multiplier:   core.y,
		Unidentified: unid,
	}
	for jj, j := range cols {
		res.X[j] = core.x[jj] / w[j]
		res.Dual[j] = core.z[jj] * w[j]
	}
	res.Objective = q.Value(res.X)
	return finish(res, "alpha")
}

// nllObj is −Σ_y p_y·log((C·x)_y) + Σ_k lin_k·x_k with every p_y > 0.
type nllObj struct {
	c    blas64.General // m×n
	ct   []float64      // Cᵀ, n×m row-major
	bt   []float64      // Cᵀ·diag(sqrt(p)/q), n×m
	p    []float64
	lin  []float64
	q, r []float64 // C·x and scratch, length m
}

func newNLL(ar *arena, c blas64.General, p, lin []float64) *nllObj {
	m, n := c.Rows, c.Cols
	o := &nllObj{c: c, p: p, lin: lin, ct: ar.floats(n * m), bt: ar.floats(n * m),
		q: ar.floats(m), r: ar.floats(m)}
	for y := range m {
		for k := range n {
			o.ct[k*m+y] = c.Data[y*c.Stride+k]
		}
	}
	return o
}

func vec(v []float64) blas64.Vector { return blas64.Vector{N: len(v), Inc: 1, Data: v} }

// gemv sets y = alpha*op(c)*x + beta*y, op(c) = c or, when trans, its
// transpose (y is not read when beta is zero). In the default numerics mode
// it is blas64.Gemv; in the reference mode it is
//
//	for i: s := 0.0; for j in order: s += float64(op(c)[i][j]*x[j])
//	       y[i] = float64(alpha*s) + float64(beta*y[i])
//
// with the same bits on every platform (gonum's Gemv runs assembly on some
// architectures and fused Go on others).
func gemv(trans bool, alpha float64, c blas64.General, x []float64, beta float64, y []float64) {
	if !numerics.IsReference() {
		t := blas.NoTrans
		if trans {
			t = blas.Trans
		}
		blas64.Gemv(t, alpha, c, vec(x), beta, vec(y))
		return
	}
	rows, cols := c.Rows, c.Cols
	if trans {
		rows, cols = cols, rows
	}
	x, y = x[:cols], y[:rows]
	for i := range y {
		var s float64
		for j, v := range x {
			var e float64
			if trans {
				e = c.Data[j*c.Stride+i]
			} else {
				e = c.Data[i*c.Stride+j]
			}
			s += float64(e * v)
		}
		if beta == 0 {
			y[i] = float64(alpha * s)
		} else {
			y[i] = float64(alpha*s) + float64(beta*y[i])
		}
	}
}

func (o *nllObj) value(x []float64) (float64, bool) {
	gemv(false, 1, o.c, x, 0, o.q)
	f := 0.0
	for i, q := range o.q {
		if !(q > 0) {
			return 0, false
		}
		f -= float64(o.p[i] * numerics.Log(q))
	}
	for k, v := range x {
		f += float64(o.lin[k] * v)
	}
	return f, isFinite(f)
}

func (o *nllObj) grad(x, g []float64) (float64, bool) {
	f, ok := o.value(x)
	if !ok {
		return 0, false
	}
	for i, q := range o.q {
		o.r[i] = -o.p[i] / q
	}
	gemv(true, 1, o.c, o.r, 0, g)
	for i := range g {
		g[i] += o.lin[i]
	}
	return f, true
}

// hess is Cᵀ·diag(p/q²)·C, formed as B·Bᵀ with B = Cᵀ·diag(sqrt(p)/q).
func (o *nllObj) hess(x, h []float64) {
	m, n := o.c.Rows, o.c.Cols
	gemv(false, 1, o.c, x, 0, o.q)
	for y, q := range o.q {
		o.r[y] = math.Sqrt(o.p[y]) / q
	}
	for k := range n {
		src, dst := o.ct[k*m:k*m+m], o.bt[k*m:k*m+m]
		for y, v := range src {
			dst[y] = v * o.r[y]
		}
	}
	gram(h, o.bt, n, m)
}

// lsqObj is ‖C·x − p‖² + Σ_k lin_k·x_k; its Hessian 2CᵀC is formed once.
type lsqObj struct {
	c   blas64.General
	p   []float64
	lin []float64
	r   []float64
	h2  []float64
}

func newLSQ(ar *arena, c blas64.General, p, lin []float64) *lsqObj {
	n := c.Cols
	m := c.Rows
	o := &lsqObj{c: c, p: p, lin: lin, r: ar.floats(m), h2: ar.floats(n * n)}
	// 2CᵀC = B·Bᵀ with B = sqrt(2)·Cᵀ.
	b := ar.floats(n * m)
	for y := range m {
		for k := range n {
			b[k*m+y] = math.Sqrt2 * c.Data[y*c.Stride+k]
		}
	}
	gram(o.h2, b, n, m)
	return o
}

func (o *lsqObj) value(x []float64) (float64, bool) {
	copy(o.r, o.p)
	gemv(false, 1, o.c, x, -1, o.r)
	f := 0.0
	for _, d := range o.r {
		f += float64(d * d)
	}
	for k, v := range x {
		f += float64(o.lin[k] * v)
	}
	return f, isFinite(f)
}

func (o *lsqObj) grad(x, g []float64) (float64, bool) {
	f, ok := o.value(x)
	if !ok {
		return 0, false
	}
	gemv(true, 2, o.c, o.r, 0, g)
	for i := range g {
		g[i] += o.lin[i]
	}
	return f, true
}

func (o *lsqObj) hess(x, h []float64) { copy(h, o.h2) }
