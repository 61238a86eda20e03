package optim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/datadir"
)

// trace is one PyTorch optimisation run from optimizer_traces.json: the
// optimiser minimises 0.5*p^T A p - b^T p from p0, and Steps[k] holds the
// parameters after step k+1.
type trace struct {
	Name    string                     `json:"name"`
	Algo    string                     `json:"optimizer"`
	Hyper   map[string]json.RawMessage `json:"hyperparameters"`
	Loss    string                     `json:"loss"`
	A       [][]float64                `json:"A"`
	B       []float64                  `json:"b"`
	P0      []float64                  `json:"p0"`
	Steps   [][]float64                `json:"params_after_step"`
	Version string                     `json:"torch_version"`
}

const traceLoss = "0.5*p^T A p - b^T p"

// loadTraces reads the reference trajectories, skipping the test when the
// shared reference directory is absent.
func loadTraces(t testing.TB) []trace {
	t.Helper()
	root, ok := datadir.RepoRoot()
	if !ok {
		t.Skip("no go.mod above the test directory, so no reference traces")
	}
	path := filepath.Join(root, "..", "shared", "reference", "optimizer_traces.json")
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Skipf("reference traces absent: %s does not exist", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	var trs []trace
	if err := json.Unmarshal(raw, &trs); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(trs) == 0 {
		t.Fatalf("%s: no traces", path)
	}
	for _, tr := range trs {
		n := len(tr.P0)
		if tr.Loss != traceLoss || len(tr.A) != n || len(tr.B) != n || len(tr.Steps) == 0 {
			t.Fatalf("%s: trace %q: want loss %q with n x n A, b and p0 and some steps; have loss %q, %d rows, %d, %d, %d steps",
				path, tr.Name, traceLoss, tr.Loss, len(tr.A), len(tr.B), n, len(tr.Steps))
		}
	}
	return trs
}

// newFromTrace builds the optimiser a trace names with its hyperparameters.
// Any hyperparameter it does not know is an error, so that a new entry in the
// file cannot be silently half-read.
func newFromTrace[T kernel.Float](tr trace) (Optimizer[T], error) {
	var (
		lr, rho, eps, mom, damp, wd float64
		betas                       [2]float64
		nesterov, amsgrad           bool
	)
	for k, v := range tr.Hyper {
		var dst any
		switch k {
		case "lr":
			dst = &lr
		case "rho":
			dst = &rho
		case "eps":
			dst = &eps
		case "momentum":
			dst = &mom
		case "dampening":
			dst = &damp
		case "weight_decay":
			dst = &wd
		case "betas":
			dst = &betas
		case "nesterov":
			dst = &nesterov
		case "amsgrad":
			dst = &amsgrad
		default:
			return nil, fmt.Errorf("trace %q: unknown hyperparameter %q", tr.Name, k)
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return nil, fmt.Errorf("trace %q: hyperparameter %q: %v", tr.Name, k, err)
		}
	}
	switch tr.Algo {
	case "Adadelta":
		return NewAdadelta[T](AdadeltaConfig{LR: lr, Rho: rho, Eps: eps, WeightDecay: wd})
	case "SGD":
		return NewSGD[T](SGDConfig{LR: lr, Momentum: mom, Dampening: damp, Nesterov: nesterov, WeightDecay: wd})
	case "Adam":
		return NewAdam[T](AdamConfig{LR: lr, Betas: betas, Eps: eps, WeightDecay: wd, AMSGrad: amsgrad})
	case "AdamW":
		return NewAdamW[T](AdamConfig{LR: lr, Betas: betas, Eps: eps, WeightDecay: wd, AMSGrad: amsgrad})
	}
	return nil, fmt.Errorf("trace %q: unknown optimizer %q", tr.Name, tr.Algo)
}

// quadGrad sets g = A p - b, the gradient of the trace loss, in T.
func quadGrad[T kernel.Float](g, p []T, a [][]T, b []T) {
	for i, row := range a {
		s := -b[i]
		for j, v := range row {
			s += v * p[j]
		}
		g[i] = s
	}
}

// quadProblem is the trace's loss converted to T, with the parameter as
// param "p".
type quadProblem[T kernel.Float] struct {
	a    [][]T
	b    []T
	p, g []T
}

func newQuad[T kernel.Float](tr trace) *quadProblem[T] {
	q := &quadProblem[T]{b: conv[T](tr.B), p: conv[T](tr.P0), g: make([]T, len(tr.P0))}
	for _, row := range tr.A {
		q.a = append(q.a, conv[T](row))
	}
	return q
}

func (q *quadProblem[T]) step(o Optimizer[T]) error {
	quadGrad(q.g, q.p, q.a, q.b)
	return o.Step([]Param[T]{{Name: "p", Value: q.p, Grad: q.g}})
}

func conv[T kernel.Float](x []float64) []T {
	y := make([]T, len(x))
	for i, v := range x {
		y[i] = T(v)
	}
	return y
}

// TestTraces runs every trajectory of the reference file in float64, where
// each step must match PyTorch to 1e-10, and in float32, where it must match
// to within float32 rounding (see tol32).
func TestTraces(t *testing.T) {
	for _, tr := range loadTraces(t) {
		t.Run(tr.Name+"/float64", func(t *testing.T) { runTrace[float64](t, tr, 1e-10) })
		// A float32 run rounds every operation to 2^-24 relative; over the
		// 25 steps of these well-conditioned problems (|p| < 4) its drift
		// from the float64 trajectory was at most 3.2e-7 on amd64. The
		// bound leaves room for platforms that fuse multiply-adds.
		const tol32 = 2e-6
		t.Run(tr.Name+"/float32", func(t *testing.T) { runTrace[float32](t, tr, tol32) })
	}
}

func runTrace[T kernel.Float](t *testing.T, tr trace, tol float64) {
	o, err := newFromTrace[T](tr)
	if err != nil {
		t.Fatal(err)
	}
	q := newQuad[T](tr)
	worst := 0.0
	for k, want := range tr.Steps {
		if err := q.step(o); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		for i, w := range want {
			d := math.Abs(float64(q.p[i]) - w)
			worst = max(worst, d)
			if !(d <= tol) {
				t.Fatalf("step %d: p[%d] = %.17g, PyTorch %.17g (difference %.3g > %.3g)", k+1, i, float64(q.p[i]), w, d, tol)
			}
		}
	}
	if st := o.State(); st.Step != len(tr.Steps) {
		t.Errorf("State().Step = %d after %d steps", st.Step, len(tr.Steps))
	}
	t.Logf("largest difference from PyTorch over %d steps: %.3g", len(tr.Steps), worst)
}

// TestTraceResume stops every reference run half way, saves the optimiser
// state through a checkpoint, restores it into a fresh optimiser and checks
// that the rest of the run is bit-for-bit the uninterrupted one.
func TestTraceResume(t *testing.T) {
	for _, tr := range loadTraces(t) {
		t.Run(tr.Name+"/float64", func(t *testing.T) { resumeTrace[float64](t, tr) })
		t.Run(tr.Name+"/float32", func(t *testing.T) { resumeTrace[float32](t, tr) })
	}
}

func resumeTrace[T kernel.Float](t *testing.T, tr trace) {
	o, err := newFromTrace[T](tr)
	if err != nil {
		t.Fatal(err)
	}
	q := newQuad[T](tr)
	half := len(tr.Steps) / 2
	for k := range half {
		if err := q.step(o); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
	}
	st := o.State()
	var buf bytes.Buffer
	err = checkpoint.Write(&buf, &checkpoint.File{
		Tensors:   []checkpoint.Tensor{{Name: "p", Shape: []int{len(q.p)}, F64: conv[float64](toF64(q.p))}},
		Optim:     st.Tensors(),
		OptimStep: st.Step,
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := checkpoint.Read(&buf, "resume")
	if err != nil {
		t.Fatal(err)
	}
	st2, err := StateFromTensors(f.OptimStep, f.Optim)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := newFromTrace[T](tr)
	if err != nil {
		t.Fatal(err)
	}
	if err := o2.SetState(st2); err != nil {
		t.Fatal(err)
	}
	q2 := newQuad[T](tr)
	copy(q2.p, conv[T](f.Tensors[0].F64))
	for k := half; k < len(tr.Steps); k++ {
		if err := q.step(o); err != nil {
			t.Fatalf("step %d: %v", k+1, err)
		}
		if err := q2.step(o2); err != nil {
			t.Fatalf("resumed step %d: %v", k+1, err)
		}
		for i := range q.p {
			if math.Float64bits(float64(q.p[i])) != math.Float64bits(float64(q2.p[i])) {
				t.Fatalf("step %d: p[%d] = %v resumed, %v uninterrupted", k+1, i, q2.p[i], q.p[i])
			}
		}
	}
	if a, b := o.State().Step, o2.State().Step; a != b || a != len(tr.Steps) {
		t.Errorf("step counts %d (uninterrupted) and %d (resumed), want %d", a, b, len(tr.Steps))
	}
}

func toF64[T kernel.Float](x []T) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = float64(v)
	}
	return y
}
