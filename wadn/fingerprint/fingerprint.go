// Package fingerprint trains a fixed small problem and hashes the result, so
// that two builds, platforms or settings can be compared to the last bit. In
// the reference numerics mode (package numerics) the fingerprint is the same
// on every GOOS/GOARCH, kernel implementation and thread count; a difference
// always means a difference in code.
//
// The problem has two parts, both with data generated here from fixed seeds:
//
//   - WADN (package wadn) on a synthetic Amazon-like task: three sources and
//     a target of sparse bag-of-words rows over the 5000 Amazon inputs, with
//     the source label distributions shifted as the Amazon protocol does;
//     the Amazon MLP at small sizes (dropout, sparse first layer), its
//     critics with the gradient penalty (a double backward), the Adadelta
//     steps, and at every epoch's end the evaluation and the convex lambda
//     and alpha problems;
//   - a small convolutional network (two 3x3 convolutions of 16 channels,
//     the second of the shape the Winograd path takes in the default mode,
//     max pooling, a linear head, cross-entropy) trained for a few Adadelta
//     steps on random images (uniform in [-1, 1)).
//
// The hashes are SHA-256 of the parameters (name, then the float32 bits in
// little-endian order) and of the losses (the epoch logs without their
// timings, then the conv steps' losses as float64 bits).
package fingerprint

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/numerics"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/optim"
	"github.com/wadn-go/wadn/wadn"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
)

// Sizes of the problem. They fix the fingerprint: changing one changes it.
const (
	domainRows  = 96 // samples of every synthetic domain
	rowWords    = 24 // distinct words of a review
	signalWords = 400
	epochs      = 6
	batch       = 8
	convImages  = 8
	convSide    = 16
	convSteps   = 3
	seed        = 29
)

// Result is a fingerprint with what it was computed on.
type Result struct {
	Numerics string `json:"numerics"` // the numerics mode
	Platform string `json:"platform"` // GOOS/GOARCH
	Kernels  string `json:"kernels"`  // the kernel implementation (kernel.Impl)
	Threads  int    `json:"threads"`  // the kernels' threads
	Steps    int    `json:"steps"`    // training steps taken, WADN's and the conv net's
	Weights  string `json:"weights"`  // SHA-256 of the trained parameters
	Losses   string `json:"losses"`   // SHA-256 of the losses and epoch logs
	// Loss is the last WADN epoch's mean loss, for a reader to see at a
	// glance that training happened (the hashes are what compare).
	Loss float64 `json:"loss"`
}

// Sum returns the SHA-256 of the weights and the losses together: the one
// value two platforms must agree on.
func (r *Result) Sum() string {
	h := sha256.Sum256([]byte(r.Weights + r.Losses))
	return hex.EncodeToString(h[:])
}

// Run trains the problem in the numerics mode in use and returns its
// fingerprint.
func Run(ctx context.Context) (*Result, error) { return RunTrace(ctx, nil) }

// RunTrace is Run that also writes to trace, when it is not nil, what the
// hashes are computed from, line by line: every WADN epoch log, every
// parameter's own SHA-256 and every conv step's loss, and before them, op by
// op, a hash of every operator's output and gradient (autodiff.SetTrace). Two platforms whose
// fingerprints differ can then be compared line by line to find the first
// value that differs.
func RunTrace(ctx context.Context, trace io.Writer) (*Result, error) {
	if trace == nil {
		trace = io.Discard
	} else {
		autodiff.SetTrace(trace)
		defer autodiff.SetTrace(nil)
	}
	wh, lh := sha256.New(), sha256.New()
	res := &Result{Numerics: numerics.Get().String(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Kernels: kernel.Impl(), Threads: kernel.Threads()}
	steps, loss, err := trainWADN(ctx, wh, lh, trace)
	if err != nil {
		return nil, fmt.Errorf("fingerprint: WADN: %w", err)
	}
	res.Steps, res.Loss = steps, loss
	n, err := trainConv(wh, lh, trace)
	if err != nil {
		return nil, fmt.Errorf("fingerprint: conv: %w", err)
	}
	res.Steps += n
	res.Weights = hex.EncodeToString(wh.Sum(nil))
	res.Losses = hex.EncodeToString(lh.Sum(nil))
	return res, nil
}

// hashParams writes every parameter's name and float32 bits to h, and a
// line per parameter with its own hash to trace.
func hashParams(h hash.Hash, ps []nn.Param[float32], trace io.Writer) {
	var b [4]byte
	for _, p := range ps {
		one := sha256.New()
		h.Write([]byte(p.Name))
		for _, v := range p.Tensor.Data() {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
			one.Write(b[:])
		}
		fmt.Fprintf(trace, "param %s %x\n", p.Name, one.Sum(nil))
	}
}

// domains returns the synthetic Amazon-like domains: in every domain a
// review is rowWords distinct words with counts 1 to 3; its class is the sign
// of a score over the first signalWords words, whose weights each domain
// perturbs; each domain's class balance differs.
func domains() []data.Domain {
	r := rand.New(rand.NewPCG(seed, 1))
	w := make([]float64, signalWords)
	for i := range w {
		w[i] = r.Float64()*2 - 1 // exact: no rounding to differ in
	}
	var out []data.Domain
	for d, name := range []string{"s1", "s2", "s3", "target"} {
		shift := 0.1 * float64(d-1)
		split := func(rows int) data.Split {
			m := &data.CSR{Rows: rows, Cols: nets.AmazonInputs, RowPtr: []int{0}}
			y := make([]int, rows)
			for i := range rows {
				seen := map[int32]bool{}
				score := shift
				for len(seen) < rowWords {
					c := int32(r.IntN(nets.AmazonInputs))
					if c >= signalWords && r.IntN(2) == 0 {
						c = int32(r.IntN(signalWords))
					}
					seen[c] = true
				}
				// Columns in increasing order, as the readers give them.
				for c := range int32(nets.AmazonInputs) {
					if !seen[c] {
						continue
					}
					v := float32(1 + r.IntN(3))
					m.ColIdx = append(m.ColIdx, c)
					m.Val = append(m.Val, v)
					if c < signalWords {
						// Products rounded, as everywhere on the training path.
						f := float64(float64(0.2*float64(d)) * float64(c%3-1))
						score += float64(float64(w[c]*float64(v)) * (1 + f))
					}
				}
				m.RowPtr = append(m.RowPtr, len(m.ColIdx))
				if score > 0 {
					y[i] = 1
				}
			}
			return data.Split{Sparse: m, Y: y, NumClasses: 2}
		}
		out = append(out, data.Domain{Dataset: "synthetic", Name: name, Train: split(domainRows), Test: split(domainRows / 2)})
	}
	return out
}

// trainWADN trains WADN on the synthetic task and hashes its epoch logs and
// its parameters. It returns the steps taken and the last epoch's loss.
func trainWADN(ctx context.Context, wh, lh hash.Hash, trace io.Writer) (int, float64, error) {
	p := data.Protocol{Scenario: data.UDA, TrainSize: 64, TestSize: 32, DropClasses: []int{0}, DropRate: 0.5, Pool: true}
	task, err := p.BuildFor(domains(), "target", seed)
	if err != nil {
		return 0, 0, err
	}
	cfg := wadn.Method.Settings(dataset.Amazon, data.UDA)
	s, ok := cfg.(*wadn.Settings)
	if !ok {
		return 0, 0, fmt.Errorf("WADN's settings are a %T", cfg)
	}
	s.AlphaStart, s.LambdaStart = 2, 1
	net := &nets.Amazon{Dropout: 0.5, Hidden: []int{32, 16}, Depth: 1}
	tr := method.Train{Epochs: epochs, Batch: batch, Settings: optim.Settings{LR: 1}, EvalBatch: 32}
	res, err := method.Execute(ctx, method.Config{Method: wadn.Method, Settings: cfg, Task: task, Scenario: data.UDA, Net: net, Train: tr}, method.Options{Seed: seed})
	if err != nil {
		return 0, 0, err
	}
	for _, e := range res.History {
		e.Seconds = 0
		b, err := json.Marshal(e)
		if err != nil {
			return 0, 0, err
		}
		lh.Write(b)
		fmt.Fprintf(trace, "epoch %s\n", b)
	}
	hashParams(wh, res.Params, trace)
	sizes := make([]int, len(task.Sources))
	for i, src := range task.Sources {
		sizes[i] = src.Len()
	}
	return epochs * data.EpochSteps(sizes, batch), res.History[len(res.History)-1].Loss, nil
}

// trainConv takes convSteps Adadelta steps of a small convolutional network
// on random images and hashes the losses and the parameters.
func trainConv(wh, lh hash.Hash, trace io.Writer) (int, error) {
	rng := nn.NewRand(seed)
	net := nn.NewSequential[float32](
		nn.NewConv2d[float32](3, 16, 3, 1, 1, rng), nn.ReLU[float32]{},
		nn.NewConv2d[float32](16, 16, 3, 1, 1, rng), nn.ReLU[float32]{},
		&nn.MaxPool2d[float32]{Kernel: 2},
		nn.Flatten[float32]{},
		nn.NewLinear[float32](16*(convSide/2)*(convSide/2), 10, true, rng),
	)
	ps := net.Params()
	opt, err := optim.NewAdadelta[float32](optim.AdadeltaConfig{LR: 1})
	if err != nil {
		return 0, err
	}
	r := rand.New(rand.NewPCG(seed, 2))
	x := make([]float32, convImages*3*convSide*convSide)
	labels := make([]int, convImages)
	var b [8]byte
	for step := range convSteps {
		for i := range x {
			x[i] = float32(r.Float64()*2 - 1) // exact: no rounding to differ in
		}
		for i := range labels {
			labels[i] = r.IntN(10)
		}
		nn.ZeroGrad(ps)
		logits := net.Forward(autodiff.New(x, convImages, 3, convSide, convSide))
		loss, err := nn.CrossEntropy(logits, labels, nn.CrossEntropyOptions[float32]{})
		if err != nil {
			return step, err
		}
		loss.Backward()
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(float64(loss.Item())))
		lh.Write(b[:])
		fmt.Fprintf(trace, "conv step %d loss %v\n", step, loss.Item())
		op := make([]optim.Param[float32], len(ps))
		for i, p := range ps {
			op[i] = optim.Param[float32]{Name: p.Name, Value: p.Tensor.Data(), Grad: p.Tensor.Grad().Data()}
		}
		if err := opt.Step(op); err != nil {
			return step, err
		}
	}
	hashParams(wh, ps, trace)
	return convSteps, nil
}
