package baselines

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/wadn/method"
)

// DARN (Wen et al. 2020) is MDAN's per-source loss g_t = L_t + Mu*D_t
// combined by DARN's rule: with v = Gamma*g, the weights a = darnProject(v)
// minimise <v, a> + ||a||_2 over the simplex, and the loss is <v, a> +
// ||a||_2. The epoch's mean weights are kept as lambda.
var DARN = method.Define(method.About{Name: "darn", Scenarios: everyScenario,
	Summary:         "a domain classifier per source, weights by DARN's L2 projection onto the simplex",
	Terms:           mdanTerms,
	EstimatesLambda: true},
	func(data.Scenario) DARNSettings { return DARNSettings{Mu: 1e-2, Gamma: 1} },
	func(s *DARNSettings) (method.Algorithm, error) {
		return &mdan{darn: true, s: MDANSettings{Mu: s.Mu, Gamma: s.Gamma, Labelled: s.Labelled}}, nil
	})

// DARNSettings are the settings of DARN.
type DARNSettings struct {
	Mu    float64 `setting:"mu" range:"[0,inf)" help:"weight of the adversarial term (the DARN code's 1e-2)"`
	Gamma float64 `setting:"darn-gamma" range:"(0,inf)" help:"scale of the losses before the L2 projection (the DARN code's 1)"`
	Labelled
}

// errDARNNotFinite reports a non-finite input of the projection.
var errDARNNotFinite = errors.New("the DARN projection got a non-finite value")

// darnProject returns DARN's aggregation weights for the per-source losses
// v: the minimiser a of <v, a> + ||a||_2 over the probability simplex.
// Its optimality conditions give a = b/sum(b) with b_i = max(tau - v_i, 0)
// and ||b||_2 = 1: the L2 projection of DARN's paper. On the active set s
// (the v_i below tau, |s| = S) the solution has the closed form
//
//	A   = (sum_s v_i)^2 - S*(sum_s v_i^2 - 1)
//	tau = (sum_s v_i + sqrt(A)) / S
//	a_i = (tau - v_i) / sqrt(A) for i in s, 0 elsewhere,
//
// (sum_s (tau - v_i) = sqrt(A)). The forward finds s by sorting v and
// trying its prefixes; the result is then built from that formula with
// differentiable operators, the active set held fixed, so its gradient is
// the closed-form Jacobian of DARN's appendix and it can be differentiated
// again.
func darnProject[T kernel.Float](v *autodiff.Tensor[T]) (*autodiff.Tensor[T], error) {
	d := v.Data()
	n := len(d)
	if v.Dims() != 1 || n == 0 {
		return nil, fmt.Errorf("the DARN projection wants a non-empty vector, got shape %v", v.Shape())
	}
	sorted := make([]float64, n)
	for i, x := range d {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("%w: element %d is %v", errDARNNotFinite, i, x)
		}
		sorted[i] = float64(x)
	}
	slices.Sort(sorted)
	tau := math.NaN()
	var s1, s2 float64
	for k := 1; k <= n; k++ {
		x := sorted[k-1]
		s1 += x
		s2 += float64(x * x)
		A := float64(s1*s1) - float64(float64(k)*(s2-1))
		if A < 0 {
			continue
		}
		t := (s1 + math.Sqrt(A)) / float64(k)
		if t > x && (k == n || t <= sorted[k]) {
			tau = t
			break
		}
	}
	if math.IsNaN(tau) {
		// Rounding left no prefix consistent: solve sum max(tau-v, 0)^2 = 1
		// by bisection, as the function is increasing in tau.
		lo, hi := sorted[0], sorted[0]+1
		for range 200 {
			mid := float64((lo + hi) / 2)
			var f float64
			for _, x := range sorted {
				if mid > x {
					f += float64((mid - x) * (mid - x))
				}
			}
			if f > 1 {
				hi = mid
			} else {
				lo = mid
			}
		}
		tau = (lo + hi) / 2
	}
	mask := make([]T, n)
	S := 0
	for i, x := range d {
		if float64(x) < tau {
			mask[i] = 1
			S++
		}
	}
	if S == 0 { // unreachable: the smallest element is always active
		return nil, fmt.Errorf("the DARN projection found no active source for %v", d)
	}
	s := autodiff.New(mask, n)
	vs := autodiff.Mul(v, s)
	a1 := autodiff.SumAll(vs)
	a2 := autodiff.SumAll(autodiff.Square(vs))
	A := autodiff.Sub(autodiff.Square(a1), autodiff.MulScalar(autodiff.AddScalar(a2, -1), T(S)))
	r := autodiff.Sqrt(A)
	t := autodiff.MulScalar(autodiff.Add(a1, r), 1/T(S))
	return autodiff.Div(autodiff.Mul(s, autodiff.Sub(t, v)), r), nil
}

// toF64 converts v to float64.
func toF64[T kernel.Float](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
