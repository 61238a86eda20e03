package optim

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// AdamConfig holds the hyperparameters of Adam and AdamW. LR must be given.
// Betas equal to [2]float64{} (both zero) mean PyTorch's (0.9, 0.999); any
// other pair is used as it is, so (0, 0.9) is possible. A zero Eps means
// 1e-8. WeightDecay is used as given, also for AdamW, whose PyTorch default
// of 0.01 must be set explicitly.
type AdamConfig struct {
	LR          float64    // learning rate
	Betas       [2]float64 // decay of the first and second moment averages
	Eps         float64    // added to the denominator
	WeightDecay float64    // L2 penalty (Adam) or decoupled decay (AdamW)
	AMSGrad     bool       // divide by the running maximum of the second moment
}

// Adam is the optimiser of Kingma and Ba (2015), or with decoupled weight
// decay AdamW (Loshchilov and Hutter, 2019), as torch.optim.Adam and
// torch.optim.AdamW implement them. For each element, with gradient g,
// parameter p and t the number of updates this parameter has received:
//
//	if AdamW { p *= 1 - lr*weight_decay } else { g += weight_decay * p }
//	exp_avg    = beta1*exp_avg + (1-beta1)*g
//	exp_avg_sq = beta2*exp_avg_sq + (1-beta2)*g*g
//	v          = exp_avg_sq, or with AMSGrad max_exp_avg_sq = max(max_exp_avg_sq, exp_avg_sq)
//	denom      = sqrt(v)/sqrt(1-beta2^t) + eps
//	p         -= lr/(1-beta1^t) * exp_avg/denom
type Adam[T kernel.Float] struct {
	cfg       AdamConfig
	decoupled bool
	stepper[T]
}

// NewAdam returns an Adam optimiser, whose weight decay is an L2 penalty
// added to the gradient, or an error wrapping ErrConfig when a
// hyperparameter is out of range.
func NewAdam[T kernel.Float](cfg AdamConfig) (*Adam[T], error) {
	return newAdam[T]("Adam", cfg, false)
}

// NewAdamW returns an AdamW optimiser, whose weight decay shrinks the
// parameters directly, or an error wrapping ErrConfig when a hyperparameter
// is out of range.
func NewAdamW[T kernel.Float](cfg AdamConfig) (*Adam[T], error) {
	return newAdam[T]("AdamW", cfg, true)
}

func newAdam[T kernel.Float](algo string, cfg AdamConfig, decoupled bool) (*Adam[T], error) {
	if cfg.Betas == [2]float64{} {
		cfg.Betas = [2]float64{0.9, 0.999}
	}
	cfg.Eps = orDefault(cfg.Eps, 1e-8)
	if err := checkLR(algo, cfg.LR); err != nil {
		return nil, err
	}
	for k, b := range cfg.Betas {
		if err := checkRange(algo, fmt.Sprintf("beta%d", k+1), b, 0, 1, false); err != nil {
			return nil, err
		}
	}
	if err := checkRange(algo, "eps", cfg.Eps, 0, math.Inf(1), false); err != nil {
		return nil, err
	}
	if err := checkRange(algo, "weight decay", cfg.WeightDecay, 0, math.Inf(1), false); err != nil {
		return nil, err
	}
	slots := []string{"exp_avg", "exp_avg_sq"}
	if cfg.AMSGrad {
		slots = append(slots, "max_exp_avg_sq")
	}
	return &Adam[T]{cfg: cfg, decoupled: decoupled, stepper: stepper[T]{reg: newRegistry[T](algo, slots...)}}, nil
}

// Config returns the hyperparameters in use, defaults filled in.
func (o *Adam[T]) Config() AdamConfig { return o.cfg }

// LR returns the learning rate.
func (o *Adam[T]) LR() float64 { return o.cfg.LR }

// SetLR sets the learning rate used by the following steps.
func (o *Adam[T]) SetLR(lr float64) error {
	if err := checkLR(o.reg.algo, lr); err != nil {
		return err
	}
	o.cfg.LR = lr
	return nil
}

// State returns a copy of the optimiser state.
func (o *Adam[T]) State() State { return o.reg.state() }

// SetState replaces the optimiser state with a copy of s, which must hold the
// slots "exp_avg", "exp_avg_sq" and, with AMSGrad, "max_exp_avg_sq" for every
// parameter.
func (o *Adam[T]) SetState(s State) error { return o.reg.setState(s) }

// Step applies one Adam (or AdamW) update to every parameter.
func (o *Adam[T]) Step(params []Param[T]) error {
	return o.run(params, o, true)
}

// updateRange updates elements [lo, hi) of the i-th parameter of the Step
// in progress, whose step count has already been advanced.
func (o *Adam[T]) updateRange(i, lo, hi int) {
	c := o.cfg
	k := adamCoef[T]{
		beta1: T(c.Betas[0]), omb1: T(1 - c.Betas[0]),
		beta2: T(c.Betas[1]), omb2: T(1 - c.Betas[1]),
		eps: T(c.Eps),
	}
	if o.decoupled {
		k.decay = T(1 - c.LR*c.WeightDecay)
	} else {
		k.wd, k.decay = T(c.WeightDecay), 1
	}
	e := o.ents[i]
	t := float64(e.step)
	k.stepSize = T(c.LR / (1 - numerics.Pow(c.Betas[0], t)))
	k.bc2sqrt = T(math.Sqrt(1 - numerics.Pow(c.Betas[1], t)))
	p, g := o.cur[i].Value[lo:hi], o.cur[i].Grad[lo:hi]
	m, v := e.slots[0][lo:hi], e.slots[1][lo:hi]
	if c.AMSGrad {
		adamAMSGradUpdate(p, g, m, v, e.slots[2][lo:hi], &k)
	} else {
		adamUpdate(p, g, m, v, &k)
	}
}

// adamCoef holds the scalars of one Adam update in the element type: wd is
// the L2 penalty (zero for AdamW) and decay the decoupled shrink factor
// 1-lr*wd (one for Adam, where multiplying by it changes nothing). The
// assembly kernels read it as an array of nine floats in this order.
type adamCoef[T kernel.Float] struct {
	beta1, omb1, beta2, omb2, eps T
	wd, decay                     T
	stepSize, bc2sqrt             T
}

// adamUpdate is one Adam update of p from g with moment buffers m and v. It
// uses the assembly kernel where there is one and adamGo for the rest.
func adamUpdate[T kernel.Float](p, g, m, v []T, k *adamCoef[T]) {
	done := 0
	if isFloat32[T]() {
		done = adamAsm(f32s(p), f32s(g), f32s(m), f32s(v), (*adamCoef[float32])(unsafe.Pointer(k)))
	}
	adamGo(p[done:], g[done:], m[done:], v[done:], k)
}

// adamAMSGradUpdate is adamUpdate dividing by the running maximum vmax of v.
func adamAMSGradUpdate[T kernel.Float](p, g, m, v, vmax []T, k *adamCoef[T]) {
	done := 0
	if isFloat32[T]() {
		done = adamAMSGradAsm(f32s(p), f32s(g), f32s(m), f32s(v), f32s(vmax), (*adamCoef[float32])(unsafe.Pointer(k)))
	}
	adamAMSGradGo(p[done:], g[done:], m[done:], v[done:], vmax[done:], k)
}

// adamGo is
//
//	for i, gi := range g {
//		if wd != 0 { gi += wd * p[i] }
//		m[i] = beta1*m[i] + omb1*gi
//		v[i] = beta2*v[i] + omb2*gi*gi
//		p[i] = p[i]*decay - stepSize*(m[i]/(sqrt(v[i])/bc2sqrt+eps))
//	}
//
// with every product rounded before it is added (no fused multiply-add), so
// that it gives the same bits on every platform and as the assembly kernels.
func adamGo[T kernel.Float](p, g, m, v []T, k *adamCoef[T]) {
	p, m, v = p[:len(g)], m[:len(g)], v[:len(g)]
	beta1, omb1, beta2, omb2 := k.beta1, k.omb1, k.beta2, k.omb2
	eps, wd, decay, ss, bc2 := k.eps, k.wd, k.decay, k.stepSize, k.bc2sqrt
	for i, gi := range g {
		pi := p[i]
		if wd != 0 {
			gi += T(wd * pi)
		}
		pi = T(pi * decay)
		mi := T(beta1*m[i]) + T(omb1*gi)
		vi := T(beta2*v[i]) + T(omb2*gi*gi)
		m[i], v[i] = mi, vi
		p[i] = pi - T(ss*(mi/(sqrt(vi)/bc2+eps)))
	}
}

// adamAMSGradGo is adamGo with vmax[i] = max(vmax[i], v[i]) in place of v[i]
// in the denominator.
func adamAMSGradGo[T kernel.Float](p, g, m, v, vmax []T, k *adamCoef[T]) {
	p, m, v, vmax = p[:len(g)], m[:len(g)], v[:len(g)], vmax[:len(g)]
	beta1, omb1, beta2, omb2 := k.beta1, k.omb1, k.beta2, k.omb2
	eps, wd, decay, ss, bc2 := k.eps, k.wd, k.decay, k.stepSize, k.bc2sqrt
	for i, gi := range g {
		pi := p[i]
		if wd != 0 {
			gi += T(wd * pi)
		}
		pi = T(pi * decay)
		mi := T(beta1*m[i]) + T(omb1*gi)
		vi := T(beta2*v[i]) + T(omb2*gi*gi)
		vm := max(vmax[i], vi)
		m[i], v[i], vmax[i] = mi, vi, vm
		p[i] = pi - T(ss*(mi/(sqrt(vm)/bc2+eps)))
	}
}
