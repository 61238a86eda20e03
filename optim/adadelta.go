package optim

import (
	"math"
	"unsafe"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// AdadeltaConfig holds the hyperparameters of Adadelta. A zero Rho or Eps
// takes PyTorch's default; LR must be given.
type AdadeltaConfig struct {
	LR          float64 // learning rate, which scales the whole update (PyTorch's default is 1)
	Rho         float64 // decay of the running averages; 0 means 0.9
	Eps         float64 // added inside both square roots; 0 means 1e-6
	WeightDecay float64 // L2 penalty added to the gradient; 0 means none
}

// Adadelta is the optimiser of Zeiler (2012) as torch.optim.Adadelta
// implements it. For each element, with gradient g and parameter p:
//
//	g += weight_decay * p
//	square_avg = rho*square_avg + (1-rho)*g*g
//	delta      = sqrt(acc_delta+eps) / sqrt(square_avg+eps) * g
//	acc_delta  = rho*acc_delta + (1-rho)*delta*delta
//	p         -= lr * delta
//
// except that square_avg and acc_delta are set to zero where they fall below
// the smallest normal float (subnormal): the averages of a parameter whose
// gradient stays zero would otherwise stay subnormal for good (rho times the
// smallest subnormals rounds back to them), and subnormal arithmetic is slow
// on many x86 CPUs. With eps above 1e-20 this changes no parameter: a
// subnormal added to eps leaves it unchanged.
type Adadelta[T kernel.Float] struct {
	cfg AdadeltaConfig
	stepper[T]

	k adadeltaCoef[T]
}

// NewAdadelta returns an Adadelta optimiser, or an error wrapping ErrConfig
// when a hyperparameter is out of range.
func NewAdadelta[T kernel.Float](cfg AdadeltaConfig) (*Adadelta[T], error) {
	const algo = "Adadelta"
	cfg.Rho = orDefault(cfg.Rho, 0.9)
	cfg.Eps = orDefault(cfg.Eps, 1e-6)
	if err := checkLR(algo, cfg.LR); err != nil {
		return nil, err
	}
	if err := checkRange(algo, "rho", cfg.Rho, 0, 1, true); err != nil {
		return nil, err
	}
	if err := checkRange(algo, "eps", cfg.Eps, 0, math.Inf(1), false); err != nil {
		return nil, err
	}
	if err := checkRange(algo, "weight decay", cfg.WeightDecay, 0, math.Inf(1), false); err != nil {
		return nil, err
	}
	return &Adadelta[T]{cfg: cfg, stepper: stepper[T]{reg: newRegistry[T](algo, "square_avg", "acc_delta")}}, nil
}

// Config returns the hyperparameters in use, defaults filled in.
func (o *Adadelta[T]) Config() AdadeltaConfig { return o.cfg }

// LR returns the learning rate.
func (o *Adadelta[T]) LR() float64 { return o.cfg.LR }

// SetLR sets the learning rate used by the following steps.
func (o *Adadelta[T]) SetLR(lr float64) error {
	if err := checkLR("Adadelta", lr); err != nil {
		return err
	}
	o.cfg.LR = lr
	return nil
}

// State returns a copy of the optimiser state.
func (o *Adadelta[T]) State() State { return o.reg.state() }

// SetState replaces the optimiser state with a copy of s, which must hold the
// slots "square_avg" and "acc_delta" for every parameter.
func (o *Adadelta[T]) SetState(s State) error { return o.reg.setState(s) }

// Step applies one Adadelta update to every parameter.
func (o *Adadelta[T]) Step(params []Param[T]) error {
	c := o.cfg
	o.k = adadeltaCoef[T]{lr: T(c.LR), rho: T(c.Rho), omr: T(1 - c.Rho), eps: T(c.Eps), wd: T(c.WeightDecay)}
	return o.run(params, o, false)
}

// updateRange updates elements [lo, hi) of the i-th parameter of the Step
// in progress.
func (o *Adadelta[T]) updateRange(i, lo, hi int) {
	p, e := &o.cur[i], o.ents[i]
	adadeltaUpdate(p.Value[lo:hi], p.Grad[lo:hi], e.slots[0][lo:hi], e.slots[1][lo:hi], &o.k)
}

// adadeltaCoef holds the scalars of an Adadelta update in the element type;
// omr is 1-rho rounded from float64. The assembly kernels read it as an array
// of five floats in this order.
type adadeltaCoef[T kernel.Float] struct {
	lr, rho, omr, eps, wd T
}

// adadeltaOps is the operations adadeltaGo does per element without weight
// decay, for kernel's count: 13 multiplies and adds, 2 square roots, a
// division and 2 comparisons.
const adadeltaOps = 18

// adadeltaUpdate is one Adadelta update of p from gradient g, with running
// averages sq (of g*g) and acc (of delta*delta). It uses the assembly kernel
// where there is one and adadeltaGo for the rest.
func adadeltaUpdate[T kernel.Float](p, g, sq, acc []T, k *adadeltaCoef[T]) {
	kernel.AddFlops(adadeltaOps * len(g))
	done := 0
	if isFloat32[T]() {
		done = adadeltaAsm(f32s(p), f32s(g), f32s(sq), f32s(acc), (*adadeltaCoef[float32])(unsafe.Pointer(k)))
	}
	adadeltaGo(p[done:], g[done:], sq[done:], acc[done:], k)
}

// adadeltaGo is
//
//	for i, gi := range g {
//		if wd != 0 { gi += wd * p[i] }
//		s := flush(rho*sq[i] + omr*gi*gi)
//		d := sqrt(acc[i]+eps) / sqrt(s+eps) * gi
//		acc[i] = flush(rho*acc[i] + omr*d*d)
//		sq[i] = s
//		p[i] -= lr * d
//	}
//
// where flush(x) is 0 for x below the smallest normal T and x otherwise (NaN
// included), with every product rounded before it is added (no fused
// multiply-add), so that it gives the same bits on every platform and as the
// assembly kernels.
func adadeltaGo[T kernel.Float](p, g, sq, acc []T, k *adadeltaCoef[T]) {
	p, sq, acc = p[:len(g)], sq[:len(g)], acc[:len(g)]
	lr, rho, omr, eps, wd := k.lr, k.rho, k.omr, k.eps, k.wd
	tiny := smallestNormal[T]()
	for i, gi := range g {
		if wd != 0 {
			gi += T(wd * p[i])
		}
		s := T(rho*sq[i]) + T(omr*gi*gi)
		if s < tiny {
			s = 0
		}
		d := sqrt(acc[i]+eps) / sqrt(s+eps) * gi
		a := T(rho*acc[i]) + T(omr*d*d)
		if a < tiny {
			a = 0
		}
		acc[i] = a
		sq[i] = s
		p[i] -= T(lr * d)
	}
}

// smallestNormal returns the smallest positive normal value of T: 2^-126 for
// float32, 2^-1022 for float64.
func smallestNormal[T kernel.Float]() T {
	if isFloat32[T]() {
		return T(0x1p-126)
	}
	return T(0x1p-1022)
}
