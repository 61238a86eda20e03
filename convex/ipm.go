package convex

// The interior-point core.
//
// Both WADN problems have the form
//
//	minimize f(x)  subject to  aᵀx = b,  x >= 0                        (P)
//
// with f convex and twice differentiable where it is finite, a > 0 and
// b > 0 (lambda: a = 1, b = 1; alpha, solved in β = s∘α: a = 1, b = 1; the
// core allows any positive a). Its KKT conditions are
//
//	∇f(x) − a·y − z = 0      stationarity (y free, z the bound multipliers)
//	aᵀx − b          = 0      primal feasibility
//	x_i z_i          = 0      complementarity, with x >= 0 and z >= 0.
//
// Newton system. A primal-dual interior-point method keeps x > 0 and z > 0
// and applies Newton's method to the perturbed system in which x_i z_i = 0
// is replaced by x_i z_i = τ. Eliminating dz = −(r_c + Z·dx)/x leaves
//
//	(H + X⁻¹Z)·dx − a·dy = −r_d − X⁻¹r_c
//	aᵀdx                 = −r_p
//
// with H = ∇²f(x), r_d and r_p the stationarity and primal residuals and
// r_c = x∘z − τ. Adding ρ·a·(aᵀdx + r_p) = 0 to the first row changes
// nothing but makes M = H + X⁻¹Z + ρ·a·aᵀ well conditioned where H is flat
// along a direction that leaves the constraint (the norm of the lambda
// problem is flat along x itself). M is symmetric positive definite: one
// Cholesky factorisation per iteration gives v = M⁻¹a, and because there is
// one equality row its Schur complement aᵀv is a scalar, so each direction
// costs two triangular solves.
//
// Centring. τ follows Mehrotra's predictor-corrector rule: an affine step
// (τ = 0) measures how far the mean complementarity μ = xᵀz/n can fall,
// τ = σμ with σ = (μ_aff/μ)³, and the corrector adds the second-order term
// dx_aff∘dz_aff to r_c, re-using the factorisation. τ never drops below a
// tenth of the tolerance, which keeps the subproblem well posed.
//
// Globalisation. f is not quadratic, so the Newton model is only local.
// The primal step is cut to stay a fraction (0.995, nearing 1 as the gap
// closes) of the way to the boundary and then backtracked until the barrier
// function f(x) − τ·Σ log x_i decreases by the Armijo rule; the plain Newton
// direction (no corrector) is a descent direction for it, since its slope
// is −dxᵀ(M − ρ·a·aᵀ)·dx when aᵀdx = 0. z takes its own fraction-to-boundary
// step and is then kept within a factor 1e10 of τ/x. If both directions
// fail (rounding near the optimum), a step that reduces the residual norm
// ‖r_d‖² + r_p² + ‖x∘z − τ‖² is taken instead.
//
// Start. x_i = b/(n·a_i) satisfies the equality; y is chosen so that
// z = ∇f(x) − a·y is positive and within a factor two across entries, so
// the start is dual feasible and centred.
//
// Polishing. Interior iterates reach the boundary only in the limit, so
// once the residuals fall below sqrt(tol) (and again after each further
// hundredfold fall), an active-set crossover is tried. Entries with
// x_i·a_i/b < z_i·b/(a_i·(1+|f|)) are guessed to be zero at the optimum and
// fixed there; Newton's method for the equality-constrained problem on the
// remaining face converges in one step for a quadratic f and in a few
// otherwise. Entries that turn non-positive are moved to the fixed set and
// fixed entries whose multiplier z_i = ∂_i f − a_i·y is negative are freed,
// for a few rounds. The polished point is accepted only if its own KKT
// residuals (with z_i = 0 on the free entries) meet the tolerance. It has
// exact zeros and no complementarity error, so its accuracy is limited by
// the conditioning of the problem rather than by how far the barrier was
// driven.
//
// The method stops with Optimal when all the KKT residuals described in KKT
// are below the tolerance, or reports IterationLimit or Stalled with the
// last iterate (after a final polishing attempt).

import (
	"math"

	"github.com/wadn-go/wadn/internal/numerics"
)

// objective is a convex function on the open positive orthant (a subset of
// it, for the log-likelihood) with its derivatives.
type objective interface {
	// grad stores ∇f(x) in g and returns f(x), and false when x is outside
	// the domain of f.
	grad(x, g []float64) (float64, bool)
	// hess stores the lower triangle of ∇²f(x) in h, row-major with
	// stride len(x). x is in the domain.
	hess(x, h []float64)
}

// ipm holds the state and the buffers of one interior-point solve.
type ipm struct {
	obj     objective
	a       []float64
	b       float64
	n       int
	tol     float64
	maxIter int

	x, z []float64
	y, f float64
	g    []float64

	rd, rc     []float64
	h, m       []float64 // Hessian and Newton matrix or its factor (lower triangles)
	v, u       []float64
	dxa, dza   []float64
	dx, dz     []float64
	xt, zt, gt []float64
	rdt        []float64
	fixed      []bool // polish: entries held at zero
	free       []int  // polish: the other entries
}

func newIPM(ar *arena, obj objective, a []float64, b, tol float64, maxIter int) *ipm {
	n := len(a)
	next := ar.floats
	return &ipm{
		obj: obj, a: a, b: b, n: n, tol: tol, maxIter: maxIter,
		x: next(n), z: next(n), g: next(n), rd: next(n), rc: next(n),
		h: next(n * n), m: next(n * n), v: next(n), u: next(n),
		dxa: next(n), dza: next(n), dx: next(n), dz: next(n),
		xt: next(n), zt: next(n), gt: next(n), rdt: next(n),
		fixed: make([]bool, n), free: make([]int, 0, n),
	}
}

// coreResult is what the core hands back to the problem wrappers.
type coreResult struct {
	x, z       []float64
	y, f       float64
	iterations int
	status     Status
	kkt        KKT
}

// start sets the balanced, dual-feasible starting point. It reports false
// when f is not finite there.
func (p *ipm) start() bool {
	n := p.n
	for i := range n {
		p.x[i] = p.b / (float64(n) * p.a[i])
	}
	f, ok := p.obj.grad(p.x, p.g)
	if !ok || !isFinite(f) {
		return false
	}
	p.f = f
	lo, hi := math.Inf(1), math.Inf(-1)
	xg := 0.0
	for i := range n {
		r := p.g[i] / p.a[i]
		lo = min(lo, r)
		hi = max(hi, r)
		xg += float64(p.x[i] * p.g[i])
	}
	if !isFinite(lo) || !isFinite(hi) || !isFinite(xg) {
		return false
	}
	eps := max(math.Abs(f), math.Abs(xg)) / p.b
	if !(eps > 0) || !isFinite(eps) {
		eps = 1 / p.b
	}
	delta := (hi - lo) + eps
	p.y = lo - delta
	for i := range n {
		p.z[i] = p.g[i] - float64(p.a[i]*p.y)
		if !(p.z[i] > 0) {
			p.z[i] = p.a[i] * delta
		}
	}
	return true
}

// residuals computes r_d into rd for the point (x, y, z) with gradient g and
// returns r_p and the scaled KKT residuals.
func (p *ipm) residuals(x, z, g []float64, y, f float64, rd []float64) (rp float64, k KKT) {
	var dmax, cmax, xz, ax, neg float64
	for i := range p.n {
		rd[i] = g[i] - float64(p.a[i]*y) - z[i]
		// b/a_i is the largest x_i on the feasible set, so this is the
		// objective change the residual can account for.
		dmax = max(dmax, math.Abs(rd[i])*p.b/p.a[i])
		c := float64(x[i] * z[i])
		cmax = max(cmax, c)
		xz += c
		ax += float64(p.a[i] * x[i])
		neg = max(neg, -x[i]*p.a[i]/p.b)
	}
	rp = ax - p.b
	sf := 1 + math.Abs(f)
	k = KKT{
		Stationarity:    dmax / sf,
		Primal:          max(math.Abs(rp)/p.b, neg),
		Complementarity: cmax / sf,
		Gap:             xz / sf,
	}
	return rp, k
}

// factor forms M = H + X⁻¹Z + ρ·a·aᵀ in p.m and factorises it in place,
// adding a growing multiple of the identity if rounding has made it
// indefinite. The ρ·a·aᵀ term (matched by ρ·a·r_p on the right-hand side in
// direction) leaves the Newton step unchanged but keeps M well conditioned
// near the optimum, where X⁻¹Z vanishes on the free entries and H may be
// singular along a direction that leaves the constraint. It returns ρ.
func (p *ipm) factor() (float64, bool) {
	n := p.n
	hmax, amax, dmax := 0.0, 0.0, 0.0
	for i := range n {
		hmax = max(hmax, p.h[i*n+i])
		amax = max(amax, p.a[i])
		dmax = max(dmax, math.Abs(p.h[i*n+i])+p.z[i]/p.x[i])
	}
	rho := hmax / (amax * amax)
	shift := 0.0
	for try := 0; try < 12; try++ {
		for i := range n {
			row := i * n
			ra := rho * p.a[i]
			for j := 0; j <= i; j++ {
				p.m[row+j] = p.h[row+j] + float64(ra*p.a[j])
			}
			p.m[row+i] += p.z[i]/p.x[i] + shift
		}
		if cholesky(p.m, n) {
			return rho, true
		}
		if shift == 0 {
			shift = 1e-14 * (1 + dmax)
		} else {
			shift *= 100
		}
	}
	return 0, false
}

// direction solves the Newton system for the right-hand sides r_d (in
// p.rd), r_p and r_c (in p.rc), given the factor of M + ρ·a·aᵀ in p.m and
// v = (M + ρ·a·aᵀ)⁻¹a with s = aᵀv. It writes dx and dz and returns dy.
func (p *ipm) direction(rho, rp, s float64, dx, dz []float64) float64 {
	n := p.n
	for i := range n {
		dx[i] = -p.rd[i] - p.rc[i]/p.x[i] - float64(rho*p.a[i]*rp)
	}
	cholSolve(p.m, n, dx)
	au := 0.0
	for i := range n {
		au += float64(p.a[i] * dx[i])
	}
	dy := (-rp - au) / s
	for i := range n {
		dx[i] += float64(p.v[i] * dy)
		dz[i] = -(p.rc[i] + float64(p.z[i]*dx[i])) / p.x[i]
	}
	return dy
}

// maxStep returns the largest t in (0, 1] with v + t·dv >= 0.
func maxStep(v, dv []float64) float64 {
	t := 1.0
	for i, d := range dv {
		if d < 0 {
			t = min(t, -v[i]/d)
		}
	}
	return t
}

// merit returns ‖r_d‖² + r_p² + ‖x∘z − target‖² for residuals rd and rp.
func merit(x, z, rd []float64, rp, target float64) float64 {
	s := rp * rp
	for i := range x {
		c := float64(x[i]*z[i]) - target
		s += float64(rd[i]*rd[i]) + float64(c*c)
	}
	return s
}

// residualStep backtracks along (dx, dy, dz) from the fraction-to-boundary
// step until the residual norm ‖r_d‖² + r_p² + ‖x∘z − τ‖² falls by the
// Armijo factor (the Newton direction of the perturbed KKT system is a
// descent direction for it), and takes that step.
func (p *ipm) residualStep(dx, dz []float64, dy, rp, tau, frac float64) bool {
	const armijo = 1e-4
	phi0 := merit(p.x, p.z, p.rd, rp, tau)
	t := frac * min(maxStep(p.x, dx), maxStep(p.z, dz))
	for range 60 {
		for i := range p.n {
			p.xt[i] = p.x[i] + float64(t*dx[i])
			p.zt[i] = p.z[i] + float64(t*dz[i])
		}
		y := p.y + float64(t*dy)
		f, ok := p.obj.grad(p.xt, p.gt)
		if ok && isFinite(f) && positive(p.xt) && positive(p.zt) {
			rpt, _ := p.residuals(p.xt, p.zt, p.gt, y, f, p.rdt)
			phi := merit(p.xt, p.zt, p.rdt, rpt, tau)
			if phi <= float64(1-float64(2*armijo*t))*phi0 && isFinite(phi) {
				copy(p.x, p.xt)
				copy(p.z, p.zt)
				copy(p.g, p.gt)
				p.y, p.f = y, f
				return true
			}
		}
		t *= 0.5
	}
	return false
}

// barrierStep backtracks the primal step along dx from the fraction frac of
// the way to the boundary until the barrier function f(x) − τ·Σ log x_i
// falls by the Armijo factor, then moves z by its own fraction-to-boundary
// step and keeps each x_i·z_i within a factor kappa of τ. It reports false when dx is not a descent direction or no
// step is accepted.
func (p *ipm) barrierStep(dx, dz []float64, dy, tau, frac float64) bool {
	const (
		armijo = 1e-4
		kappa  = 1e10
	)
	phi0, slope := p.f, 0.0
	for i := range p.n {
		phi0 -= float64(tau * numerics.Log(p.x[i]))
		slope += float64((p.g[i] - tau/p.x[i]) * dx[i])
	}
	slack := float64(1e-14 * (1 + math.Abs(phi0)))
	if !(slope < 0) {
		if !(slope <= slack) {
			return false
		}
		// dx is zero to rounding: x already minimises the barrier
		// function, so only the multipliers move.
		slope = 0
	}
	t := frac * maxStep(p.x, dx)
	for range 60 {
		for i := range p.n {
			p.xt[i] = p.x[i] + float64(t*dx[i])
		}
		f, ok := p.obj.grad(p.xt, p.gt)
		if ok && isFinite(f) && positive(p.xt) {
			phi := f
			for _, v := range p.xt {
				phi -= float64(tau * numerics.Log(v))
			}
			if phi <= phi0+float64(armijo*t*slope)+slack {
				tz := frac * maxStep(p.z, dz)
				for i := range p.n {
					z := p.z[i] + float64(tz*dz[i])
					p.z[i] = min(max(z, tau/(kappa*p.xt[i])), kappa*tau/p.xt[i])
				}
				copy(p.x, p.xt)
				copy(p.g, p.gt)
				p.y += float64(t * dy)
				p.f = f
				return true
			}
		}
		t *= 0.5
	}
	return false
}

// run solves (P) from the balanced start.
func (p *ipm) run() coreResult {
	res := coreResult{x: p.x, z: p.z, status: Stalled}
	if !p.start() {
		return res
	}
	polished := false
	res.status, polished = p.interior(&res)
	if !polished {
		k, _ := p.polish(&res)
		res.iterations += k
	}
	return res
}

// interior runs the interior-point iterations and returns the final status
// and whether it ended with an accepted polish.
func (p *ipm) interior(res *coreResult) (Status, bool) {
	n := p.n
	polishAt, steps := math.Sqrt(p.tol), 0
	for it := 0; ; it++ {
		rp, k := p.residuals(p.x, p.z, p.g, p.y, p.f, p.rd)
		res.iterations, res.kkt, res.y, res.f = it+steps, k, p.y, p.f
		if k.max() <= p.tol {
			return Optimal, false
		}
		if k.max() <= polishAt {
			// Close enough to guess the active set: try to finish.
			ps, ok := p.polish(res)
			steps += ps
			res.iterations = it + steps
			if ok {
				return Optimal, true
			}
			polishAt = k.max() * 1e-2
		}
		if it >= p.maxIter {
			return IterationLimit, false
		}
		p.obj.hess(p.x, p.h)
		rho, ok := p.factor()
		if !ok {
			return Stalled, false
		}
		copy(p.v, p.a)
		cholSolve(p.m, n, p.v)
		s := 0.0
		for i := range n {
			s += float64(p.a[i] * p.v[i])
		}
		mu := 0.0
		for i := range n {
			mu += float64(p.x[i] * p.z[i])
		}
		mu /= float64(n)

		// Predictor: the affine-scaling direction.
		for i := range n {
			p.rc[i] = p.x[i] * p.z[i]
		}
		p.direction(rho, rp, s, p.dxa, p.dza)
		tp, td := maxStep(p.x, p.dxa), maxStep(p.z, p.dza)
		muAff := 0.0
		for i := range n {
			muAff += float64((p.x[i] + float64(tp*p.dxa[i])) * (p.z[i] + float64(td*p.dza[i])))
		}
		muAff /= float64(n)
		sigma := min(numerics.Pow(max(muAff, 0)/mu, 3), 1)
		// The target never falls below a tenth of the tolerance, which
		// keeps the barrier subproblem well conditioned.
		tau := max(sigma*mu, 0.1*p.tol*(1+math.Abs(p.f))/float64(n))
		// Fraction to the boundary: 0.995 far from the optimum, closer
		// to 1 as the relative gap closes.
		frac := max(0.995, 1-k.Gap)

		// Corrector: centring plus the second-order term. If it is
		// not a descent direction for the barrier function, the plain
		// Newton direction is; if that fails too (rounding near the
		// optimum), a step that reduces the residual norm is taken.
		for i := range n {
			p.rc[i] = float64(p.x[i]*p.z[i]) + float64(p.dxa[i]*p.dza[i]) - tau
		}
		dy := p.direction(rho, rp, s, p.dx, p.dz)
		if p.barrierStep(p.dx, p.dz, dy, tau, frac) {
			continue
		}
		for i := range n {
			p.rc[i] = float64(p.x[i]*p.z[i]) - tau
		}
		dy = p.direction(rho, rp, s, p.dx, p.dz)
		if p.barrierStep(p.dx, p.dz, dy, tau, frac) {
			continue
		}
		if !p.residualStep(p.dx, p.dz, dy, rp, tau, frac) {
			return Stalled, false
		}
	}
}

// polish tries the active-set crossover described in the header from the
// current interior point and replaces it in res when the polished point is
// certified optimal. It returns the number of Newton steps taken and
// whether the polished point was accepted.
func (p *ipm) polish(res *coreResult) (steps int, accepted bool) {
	n := p.n
	sf := 1 + math.Abs(p.f)
	fixed := p.fixed
	for i := range n {
		fixed[i] = p.x[i]*p.a[i]/p.b < p.z[i]*p.b/(p.a[i]*sf)
	}
	free := p.free
	xp, gp, zp := p.xt, p.gt, p.zt
	for range 6 {
		free = free[:0]
		for i := range n {
			xp[i] = 0
			if !fixed[i] {
				xp[i] = p.x[i]
				free = append(free, i)
			}
		}
		if len(free) == 0 {
			return steps, false
		}
		y, f, k, ok := p.faceNewton(free, xp, gp)
		steps += k
		if !ok {
			return steps, false
		}
		moved := false
		for _, i := range free {
			if !(xp[i] > 0) {
				fixed[i] = true
				moved = true
			}
		}
		if moved {
			continue
		}
		for i := range n {
			zp[i] = 0
			if fixed[i] {
				zp[i] = max(gp[i]-float64(p.a[i]*y), 0)
			}
		}
		_, kkt := p.residuals(xp, zp, gp, y, f, p.rdt)
		if kkt.max() > p.tol {
			// Free the fixed entries whose multiplier is negative
			// (they appear as stationarity residuals).
			for i := range n {
				if fixed[i] && math.Abs(p.rdt[i])*p.b/p.a[i] > p.tol*(1+math.Abs(f)) {
					fixed[i] = false
					moved = true
				}
			}
			if moved {
				continue
			}
			return steps, false
		}
		copy(p.x, xp)
		copy(p.z, zp)
		copy(p.g, gp)
		p.y, p.f = y, f
		res.y, res.f, res.kkt, res.status = y, f, kkt, Optimal
		return steps, true
	}
	return steps, false
}

// faceNewton runs Newton's method for minimize f(x) subject to aᵀx = b
// with only the entries listed in free allowed to change, from x (whose
// other entries are zero). It leaves the final point in x and its gradient
// in g, and returns the multiplier y, f(x), the number of steps and false
// when a step left the domain of f or the system was singular. It stops
// early, with ok true, if a free entry turns non-positive.
func (p *ipm) faceNewton(free []int, x, g []float64) (y, f float64, steps int, ok bool) {
	n, nf := p.n, len(free)
	m := p.m[:nf*nf]
	u, v := p.u[:nf], p.v[:nf]
	for steps < 30 {
		f, ok = p.obj.grad(x, g)
		if !ok || !isFinite(f) {
			return 0, 0, steps, false
		}
		if steps > 0 {
			// Converged when the stationarity at the end of the
			// step is a hundredth of the tolerance.
			worst := 0.0
			for _, i := range free {
				worst = max(worst, math.Abs(g[i]-float64(p.a[i]*y))*p.b/p.a[i])
			}
			if worst <= 1e-2*p.tol*(1+math.Abs(f)) {
				f, ok = p.restore(free, x, g)
				return y, f, steps, ok
			}
		}
		p.obj.hess(x, p.h)
		// r is the equality residual the step must remove.
		r := p.b
		for _, i := range free {
			r -= float64(p.a[i] * x[i])
		}
		// M = H_FF + ρ·a_F·a_Fᵀ: the added term changes nothing on the
		// constraint and keeps M definite when H is singular along a
		// direction that leaves the constraint (the norm in the lambda
		// problem is flat along x itself).
		hmax, amax := 0.0, 0.0
		for _, i := range free {
			hmax = max(hmax, p.h[i*n+i])
			amax = max(amax, p.a[i])
		}
		// The floor gives ρ·a·aᵀ the size f/x² has on the feasible set
		// when H vanishes on the face (a linear objective).
		rho := max(hmax/(amax*amax), (1+math.Abs(p.f))/(p.b*p.b))
		for ii, i := range free {
			for jj, j := range free[:ii+1] {
				m[ii*nf+jj] = p.h[i*n+j] + float64(rho*p.a[i]*p.a[j])
			}
		}
		if !cholesky(m, nf) {
			return 0, 0, steps, false
		}
		for ii, i := range free {
			u[ii] = -g[i] + float64(rho*p.a[i]*r)
			v[ii] = p.a[i]
		}
		cholSolve(m, nf, u)
		cholSolve(m, nf, v)
		au, av := 0.0, 0.0
		for ii, i := range free {
			au += float64(p.a[i] * u[ii])
			av += float64(p.a[i] * v[ii])
		}
		if !(av > 0) {
			return 0, 0, steps, false
		}
		y = (r - au) / av
		steps++
		stop := false
		for ii, i := range free {
			x[i] += u[ii] + float64(v[ii]*y)
			if !(x[i] > 0) {
				stop = true
			}
		}
		if stop {
			return y, f, steps, true
		}
	}
	f, ok = p.restore(free, x, g)
	return y, f, steps, ok
}

// restore rescales the free entries of x so that aᵀx = b holds to rounding
// (the Newton steps meet it only to the conditioning of the system) and
// returns f(x) with its gradient in g.
func (p *ipm) restore(free []int, x, g []float64) (float64, bool) {
	ax := 0.0
	for _, i := range free {
		ax += float64(p.a[i] * x[i])
	}
	if ax > 0 {
		c := p.b / ax
		for _, i := range free {
			x[i] *= c
		}
	}
	f, ok := p.obj.grad(x, g)
	return f, ok && isFinite(f)
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func positive(v []float64) bool {
	for _, e := range v {
		if !(e > 0) {
			return false
		}
	}
	return true
}
