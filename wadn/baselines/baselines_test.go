package baselines

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/gradcheck"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/internal/fixture"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// train runs baseline m in scenario sc on task with the fixture's network,
// training settings tr and the Amazon defaults of m's settings changed by
// set (name -> value).
func train(t *testing.T, m method.Method, sc data.Scenario, task *data.Task, tr method.Train, set map[string]string, opt method.Options) (*method.Result, error) {
	t.Helper()
	s := m.Settings(dataset.Amazon, sc)
	fs := settings.Fields(s)
	for name, v := range set {
		f, err := settings.Lookup(fs, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	return method.Execute(context.Background(), method.Config{Method: m, Settings: s, Task: task, Scenario: sc, Net: fixture.Net(), Train: tr}, opt)
}

// epochs returns the fixture's training settings for n epochs.
func epochs(n int) method.Train {
	tr := fixture.Train()
	tr.Epochs = n
	return tr
}

// TestBaselinesTrain runs every baseline in every scenario it accepts on
// the tiny task and checks that the run ends with a finite accuracy, valid
// weights and, for the methods with their own state (alternating updates,
// checkpointed buffers), that an interrupted and resumed run repeats an
// uninterrupted one exactly.
func TestBaselinesTrain(t *testing.T) {
	resumed := map[string]bool{"m3sda": true, "mdmn": true, "rlus": true, "pada": true, "darn": true}
	for _, m := range All {
		for _, sc := range m.Scenarios {
			t.Run(m.Name+"-"+sc.String(), func(t *testing.T) {
				res, err := train(t, m, sc, fixture.Task(), epochs(2), nil, method.Options{Seed: 3, Dir: t.TempDir()})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.History) != 2 || math.IsNaN(res.Accuracy) || res.Accuracy < 0 || res.Accuracy > 100 {
					t.Fatalf("history %d epochs, accuracy %v", len(res.History), res.Accuracy)
				}
				var s float64
				for _, l := range res.Lambda {
					if !(l >= 0) {
						t.Errorf("lambda %v", res.Lambda)
					}
					s += l
				}
				if m.Name != "rlus" && math.Abs(s-1) > 1e-6 {
					t.Errorf("lambda %v sums to %v", res.Lambda, s)
				}
				if m.Name == "rlus" && !(s > 0 && s <= 1+1e-6) {
					t.Errorf("rlus source weights %v sum to %v, want (0, 1]", res.Lambda, s)
				}
				if l := res.History[1].Loss; math.IsNaN(l) || l == 0 {
					t.Errorf("epoch 2 loss %v", l)
				}
				if !resumed[m.Name] {
					return
				}
				dir := t.TempDir()
				_, err = train(t, m, sc, fixture.Task(), epochs(2), nil, method.Options{Seed: 3, Dir: dir, StopAfter: 7})
				if !errors.Is(err, trainer.ErrInterrupted) {
					t.Fatalf("stopped run: %v", err)
				}
				again, err := train(t, m, sc, fixture.Task(), epochs(2), nil, method.Options{Seed: 3, Dir: dir, Resume: true})
				if err != nil {
					t.Fatal(err)
				}
				for e := range res.History {
					a, b := res.History[e], again.History[e]
					if a.Loss != b.Loss || a.Accuracy != b.Accuracy || !slices.Equal(a.Lambda, b.Lambda) {
						t.Errorf("epoch %d: resumed loss %v acc %v lambda %v; uninterrupted %v %v %v",
							e+1, b.Loss, b.Accuracy, b.Lambda, a.Loss, a.Accuracy, a.Lambda)
					}
				}
			})
		}
	}
}

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name string
		sc   data.Scenario
		want string // "" for success, else part of the error
	}{
		{"mdan", data.UDA, ""},
		{"mme", data.Limited, ""},
		{"mme", data.UDA, "limited"},
		{"pada", data.UDA, "partial"},
		{"rlus", data.Partial, "limited"},
		{"cdan", data.UDA, "darn, pada, mme, rlus"},
	} {
		_, err := All.Lookup(c.name, c.sc)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: %v", c.name, c.sc, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s: error %v, want one mentioning %q", c.name, c.sc, err, c.want)
		}
	}
}

// darnObjective is <v, a> + ||a||_2.
func darnObjective(v, a []float64) float64 {
	var dot, sq float64
	for i := range v {
		dot += v[i] * a[i]
		sq += a[i] * a[i]
	}
	return dot + math.Sqrt(sq)
}

func TestDARNProjectionIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range [][]float64{
		{0.3, 0.5, 0.9},
		{0.1, 2, 3},      // one active source
		{1, 1, 1, 1},     // ties: uniform
		{-4, 0.2, 0.25},  // negative losses
		{0.7, 0.71, 0.2}, // close pair
	} {
		p, err := darnProject(autodiff.New(slices.Clone(v), len(v)))
		if err != nil {
			t.Fatal(err)
		}
		a := p.Data()
		var s float64
		for _, x := range a {
			if x < 0 {
				t.Errorf("v %v: negative weight in %v", v, a)
			}
			s += x
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("v %v: weights %v sum to %v", v, a, s)
		}
		best := darnObjective(v, a)
		// No point of the simplex does better: random points and the
		// vertices.
		for k := range 2000 + len(v) {
			q := make([]float64, len(v))
			if k < len(v) {
				q[k] = 1
			} else {
				var qs float64
				for i := range q {
					q[i] = -math.Log(rng.Float64())
					qs += q[i]
				}
				for i := range q {
					q[i] /= qs
				}
			}
			if o := darnObjective(v, q); o < best-1e-12 {
				t.Errorf("v %v: weights %v give %v, but %v gives %v", v, a, best, q, o)
				break
			}
		}
	}
	if _, err := darnProject(autodiff.New([]float64{1, math.NaN()}, 2)); !errors.Is(err, errDARNNotFinite) {
		t.Errorf("NaN input: %v", err)
	}
}

// TestDARNProjectionGradient checks the closed-form backward of the
// projection, and its second derivative, against finite differences.
func TestDARNProjectionGradient(t *testing.T) {
	f := func(xs []*gradcheck.Tensor) *gradcheck.Tensor {
		p, err := darnProject(xs[0])
		if err != nil {
			panic(err)
		}
		return p
	}
	for _, v := range [][]float64{
		{0.3, 0.5, 0.9},      // all active
		{0.1, 0.3, 3, 0.25},  // one inactive
		{-0.5, 0.1, 0.4, 2.}, // two inactive
	} {
		r, err := gradcheck.First(f, []*gradcheck.Tensor{autodiff.New(slices.Clone(v), len(v))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxErr > 1e-6 {
			t.Errorf("v %v: first order %v", v, r)
		}
		r, err = gradcheck.Second(f, []*gradcheck.Tensor{autodiff.New(slices.Clone(v), len(v))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxErr > 1e-5 {
			t.Errorf("v %v: second order %v", v, r)
		}
	}
	// The Jacobian has the closed form of the active set: inactive sources
	// get no gradient, and the weights' sum does not move.
	v := autodiff.New([]float64{0.1, 0.3, 3}, 3).SetRequiresGrad(true)
	p, err := darnProject(v)
	if err != nil {
		t.Fatal(err)
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{autodiff.SumAll(p)}, nil, []*autodiff.Tensor[float64]{v}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range g[0].Data() {
		if math.Abs(x) > 1e-12 {
			t.Errorf("d sumTerms(a)/dv[%d] = %v, want 0", i, x)
		}
	}
}

func TestMDANSoftMax(t *testing.T) {
	for _, c := range []struct {
		g     []float64
		gamma float64
	}{
		{[]float64{0.5, 0.7, 0.2}, 10},
		{[]float64{0.5, 0.7, 0.2}, 1},
		{[]float64{100, 101, 99}, 10}, // large values: no overflow
		{[]float64{0.3, 0.3}, 10},
	} {
		g := autodiff.New(slices.Clone(c.g), len(c.g)).SetRequiresGrad(true)
		out := softAggregate(g, c.gamma)
		var s float64
		for _, x := range c.g {
			s += math.Exp(c.gamma * (x - slices.Max(c.g)))
		}
		want := slices.Max(c.g) + math.Log(s)/c.gamma
		if math.Abs(out.Item()-want) > 1e-12 {
			t.Errorf("%v gamma %v: %v, want %v", c.g, c.gamma, out.Item(), want)
		}
		grad, err := autodiff.Gradients([]*autodiff.Tensor[float64]{out}, nil, []*autodiff.Tensor[float64]{g}, false)
		if err != nil {
			t.Fatal(err)
		}
		w := softmaxWeights(c.g, c.gamma)
		for i := range w {
			if math.Abs(grad[0].Data()[i]-w[i]) > 1e-12 {
				t.Errorf("%v gamma %v: gradient %v, want the soft-max weights %v", c.g, c.gamma, grad[0].Data(), w)
			}
		}
	}
	// The soft-max lies between the maximum and the maximum + log(T)/gamma,
	// and approaches the hard maximum as gamma grows.
	g := []float64{0.5, 0.7, 0.2}
	for _, gamma := range []float64{1, 10, 1000} {
		v := softAggregate(autodiff.New(slices.Clone(g), 3), gamma).Item()
		if v < 0.7 || v > 0.7+math.Log(3)/gamma+1e-12 {
			t.Errorf("gamma %v: %v outside [0.7, 0.7+log 3/gamma]", gamma, v)
		}
	}
}

func TestM3SDAMoments(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	mk := func(n, d int) ([]float64, *autodiff.Tensor[float64]) {
		x := make([]float64, n*d)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		return x, autodiff.New(slices.Clone(x), n, d)
	}
	const n, d = 5, 3
	var raw [][]float64
	var src []*autodiff.Tensor[float64]
	for range 3 {
		x, tx := mk(n, d)
		raw = append(raw, x)
		src = append(src, tx)
	}
	xt, tt := mk(n, d)
	// moment returns the k-th moment of each column of x, about the
	// column's mean when central and k > 1.
	moment := func(x []float64, k int, central bool) []float64 {
		mean := make([]float64, d)
		if central && k > 1 {
			for i := range n {
				for j := range d {
					mean[j] += x[i*d+j] / n
				}
			}
		}
		m := make([]float64, d)
		for i := range n {
			for j := range d {
				m[j] += math.Pow(x[i*d+j]-mean[j], float64(k)) / n
			}
		}
		return m
	}
	dist := func(a, b []float64) float64 {
		var s float64
		for j := range a {
			s += (a[j] - b[j]) * (a[j] - b[j])
		}
		return math.Sqrt(s + 1e-10)
	}
	for _, central := range []bool{false, true} {
		for _, order := range []int{1, 2, 4} {
			var want float64
			for k := 1; k <= order; k++ {
				mt := moment(xt, k, central)
				for i := range raw {
					want += dist(mt, moment(raw[i], k, central))
					for j := i + 1; j < len(raw); j++ {
						want += dist(moment(raw[i], k, central), moment(raw[j], k, central))
					}
				}
			}
			got := m3sdaMoments(src, tt, order, central).Item()
			if math.Abs(got-want) > 1e-10*math.Max(1, want) {
				t.Errorf("order %d, central %v: %v, want %v", order, central, got, want)
			}
		}
		// Identical domains have no moment distance beyond the norm's epsilon.
		if v := m3sdaMoments(src[:1], src[0], 4, central).Item(); v > 4*1e-5 {
			t.Errorf("central %v: distance of a domain to itself %v", central, v)
		}
	}
	// Central moments ignore a shift of a domain beyond its mean: shifting
	// the target by a constant changes only the first-order term.
	shifted := slices.Clone(xt)
	for i := range shifted {
		shifted[i] += 3
	}
	ts := autodiff.New(shifted, n, d)
	d1 := m3sdaMoments(src, ts, 1, true).Item() - m3sdaMoments(src, tt, 1, true).Item()
	d4 := m3sdaMoments(src, ts, 4, true).Item() - m3sdaMoments(src, tt, 4, true).Item()
	if math.Abs(d4-d1) > 1e-9 {
		t.Errorf("shifting the target changed the central terms by %v (first order %v)", d4-d1, d1)
	}
}

// TestMMEEntropySign checks that MME's term is minus lambda times the
// entropy, that a descent step on the classifier's logits raises the
// entropy, and that the gradient reversal hands the extractor the opposite
// direction.
func TestMMEEntropySign(t *testing.T) {
	logits := []float64{2, 0, -1, 0.5, 0.4, 0.3}
	l := autodiff.New(slices.Clone(logits), 2, 3).SetRequiresGrad(true)
	const lambda = 0.1
	out := mmeAdentropy(l, lambda)
	var ent float64
	for r := range 2 {
		row := logits[r*3 : (r+1)*3]
		var z float64
		for _, x := range row {
			z += math.Exp(x)
		}
		for _, x := range row {
			p := math.Exp(x) / z
			ent -= p * math.Log(p) / 2
		}
	}
	if math.Abs(out.Item()-(-lambda*ent)) > 1e-12 {
		t.Fatalf("term %v, want -lambda*H = %v", out.Item(), -lambda*ent)
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float64]{out}, nil, []*autodiff.Tensor[float64]{l}, false)
	if err != nil {
		t.Fatal(err)
	}
	stepped := slices.Clone(logits)
	for i := range stepped {
		stepped[i] -= 1 * g[0].Data()[i]
	}
	after := -mmeAdentropy(autodiff.New(stepped, 2, 3), 1).Item()
	if after <= ent {
		t.Errorf("entropy %v after a descent step on the classifier, %v before: want it to rise", after, ent)
	}
	// Through the reversal layer the features move the other way.
	z := autodiff.New([]float64{0.3, -0.2, 0.5, 0.1}, 2, 2).SetRequiresGrad(true)
	w := autodiff.New([]float64{1, -1, 0.5, 2, 0, 1}, 2, 3)
	plain := mmeAdentropy(autodiff.MatMul(z, w, false, false), lambda)
	rev := mmeAdentropy(autodiff.MatMul(autodiff.GradReverse(z, 1), w, false, false), lambda)
	gp, err := autodiff.Gradients([]*autodiff.Tensor[float64]{plain}, nil, []*autodiff.Tensor[float64]{z}, false)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := autodiff.Gradients([]*autodiff.Tensor[float64]{rev}, nil, []*autodiff.Tensor[float64]{z}, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range gp[0].Data() {
		if a, b := gp[0].Data()[i], gr[0].Data()[i]; a == 0 || math.Abs(a+b) > 1e-12 {
			t.Errorf("feature gradient %d: plain %v, reversed %v", i, a, b)
		}
	}
}

func TestCosineHead(t *testing.T) {
	tr, err := method.NewRun(method.Config{Method: MME, Settings: MME.Settings(dataset.Amazon, data.Limited), Task: fixture.Task(), Scenario: data.Limited, Net: fixture.Net(), Train: fixture.Train()}, 1)
	if err != nil {
		t.Fatal(err)
	}
	z := autodiff.New([]float32{3, 0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0}, 2, 8)
	out := tr.Model.Classifier.Forward(z).Data()
	for _, v := range out {
		// A cosine over the temperature lies in [-1/T, 1/T].
		if math.Abs(float64(v)) > 1/0.05+1e-3 {
			t.Errorf("score %v beyond 1/T", v)
		}
	}
	// Scaling a row does not change its scores.
	z2 := autodiff.New([]float32{6, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, 2, 8)
	out2 := tr.Model.Classifier.Forward(z2).Data()
	for i := range out {
		if math.Abs(float64(out[i]-out2[i])) > 1e-4 {
			t.Errorf("score %d: %v for x, %v for a multiple of x", i, out[i], out2[i])
		}
	}
}

func TestPADAClassWeights(t *testing.T) {
	for _, c := range []struct{ mean, want []float64 }{
		{[]float64{0.5, 0.25, 0.25}, []float64{1, 0.5, 0.5}},
		{[]float64{0.1, 0.6, 0.3, 0}, []float64{1.0 / 6, 1, 0.5, 0}},
		{[]float64{0.25, 0.25, 0.25, 0.25}, []float64{1, 1, 1, 1}},
	} {
		got, err := padaClassWeights(c.mean)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-12 {
				t.Errorf("mean %v: weights %v, want %v", c.mean, got, c.want)
				break
			}
		}
	}
	for _, bad := range [][]float64{nil, {0, 0}, {math.NaN(), 1}} {
		if g, err := padaClassWeights(bad); err == nil {
			t.Errorf("mean %v: weights %v, want an error", bad, g)
		}
	}
	// The averaged target predictions of a trained tiny model give weights
	// in [0, 1] with a largest of 1.
	res, err := train(t, PADA, data.Partial, fixture.Task(), epochs(1), nil, method.Options{Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Alpha[0]
	if slices.Max(a) != 1 || slices.Min(a) < 0 {
		t.Errorf("class weights %v", a)
	}
}

func TestRLUSWeights(t *testing.T) {
	// Equal sizes and no discrepancy: uniform. A source far from the target
	// loses its weight; the target, with discrepancy 0, keeps some.
	w, err := rlusWeights([]float64{0, 0, 0}, []float64{100, 100, 100}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range w {
		if math.Abs(x-1.0/3) > 1e-3 {
			t.Errorf("uniform case: %v", w)
		}
	}
	w, err = rlusWeights([]float64{0.05, 0.9, 0}, []float64{1500, 1500, 200}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !(w[1] < 1e-3 && w[0] > 0.1 && w[2] > 0.1) {
		t.Errorf("weights %v: want the distant source near 0", w)
	}
}

func TestMDMNWeights(t *testing.T) {
	const N, B = 3, 4
	rng := rand.New(rand.NewPCG(7, 8))
	pred := make([]float32, N*B*N)
	for i := range pred {
		pred[i] = float32(rng.NormFloat64())
	}
	W, c := mdmnWeights(pred, N, B)
	M := make([][]float64, N) // M[j][i]: mean of output i over domain j
	for j := range N {
		M[j] = make([]float64, N)
		for r := j * B; r < (j+1)*B; r++ {
			for i := range N {
				M[j][i] += float64(pred[r*N+i]) / B
			}
		}
	}
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	f := make([]float64, N)
	want := 0.0
	for i := range N {
		f[i] = -M[i][i]
		for j := range N {
			if j != i {
				f[i] += sig(M[j][i]-M[i][i]) * M[j][i]
			}
		}
	}
	wantC := softmaxWeights(f[:N-1], 1)
	for i := range N {
		ci := 1.0
		if i < N-1 {
			ci = wantC[i]
		}
		want += ci * f[i]
	}
	var got float64
	for k, w := range W {
		got += float64(w) * float64(pred[k])
	}
	if math.Abs(got-want) > 1e-5 {
		t.Errorf("sum of weights*pred %v, want sum_i c_i f_i = %v", got, want)
	}
	var s float64
	for i, v := range c {
		s += v
		if math.Abs(v-wantC[i]) > 1e-12 {
			t.Errorf("source weights %v, want %v", c, wantC)
		}
	}
	if math.Abs(s-1) > 1e-12 {
		t.Errorf("source weights %v sum to %v", c, s)
	}
}

// TestBaselineTargetDist checks that a baseline's epoch log reports the
// class shares of its own target predictions: with a target drawn like a
// source but with 10% class 0, they move from 0.5 towards 0.1.
func TestBaselineTargetDist(t *testing.T) {
	task := fixture.Task()
	task.TargetTrain = fixture.Sparse("t", 60, 0.1, 0, 11)
	task.TargetTest = fixture.Sparse("t", 30, 0.1, 0, 12)
	res, err := train(t, Source, data.UDA, task, epochs(6), nil, method.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.History {
		if len(e.TargetDist) != 2 || math.Abs(e.TargetDist[0]+e.TargetDist[1]-1) > 1e-12 {
			t.Fatalf("epoch %d: target distribution %v", e.Epoch, e.TargetDist)
		}
	}
	last := res.History[len(res.History)-1]
	if last.TargetDist[0] > 0.3 {
		t.Errorf("last epoch's predicted target class-0 share %v (accuracy %.1f%%), want near the true 0.1", last.TargetDist[0], last.Accuracy)
	}
}

// TestBaselinesLimitedTestRows checks which target rows the baselines train
// on with limited labels: by default only the labelled 10%, so other test
// rows leave every training loss unchanged; with Transductive also the test
// rows, labels unread, so other test rows change the losses and flipped
// test labels do not.
func TestBaselinesLimitedTestRows(t *testing.T) {
	otherRows := func(task *data.Task) { task.TargetTest = fixture.Sparse("t", 30, 0.5, 2, 8) }
	flipped := func(task *data.Task) { task.TargetTest.Y = flipLabels(task.TargetTest.Y) }
	for _, m := range All {
		if !m.Runs(data.Limited) {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			losses := func(transductive bool, change func(*data.Task)) []float64 {
				t.Helper()
				tr := epochs(2)
				tr.Transductive = transductive
				return limitedLosses(t, m, 4, change, tr, nil)
			}
			plain := losses(false, nil)
			if got := losses(false, otherRows); !slices.Equal(got, plain) {
				t.Errorf("other test rows changed the losses: %v, want %v", got, plain)
			}
			trans := losses(true, nil)
			if got := losses(true, flipped); !slices.Equal(got, trans) {
				t.Errorf("transductive: flipped test labels changed the losses: %v, want %v", got, trans)
			}
			// RLUS and Source+Tar have no term on unlabelled target rows.
			noTerm := m.Name == "rlus" || m.Name == "source"
			if got := losses(true, otherRows); slices.Equal(got, trans) != noTerm {
				t.Errorf("transductive: other test rows give losses %v, against %v (want them to differ: %v)", got, trans, !noTerm)
			}
		})
	}
}

// TestBaselinesTargetLabels checks which baselines read the labelled
// target's labels: Source+Tar, MME and RLUS always do; the unsupervised
// methods only through BaselineConfig.TargetWeight, so by default flipping
// those labels leaves every loss unchanged, and with a weight it does not.
func TestBaselinesTargetLabels(t *testing.T) {
	flipped := func(task *data.Task) { task.TargetTrain.Y = flipLabels(task.TargetTrain.Y) }
	always := map[string]bool{"source": true, "mme": true, "rlus": true}
	for _, m := range All {
		if !m.Runs(data.Limited) {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			losses := func(weight float64, change func(*data.Task)) []float64 {
				t.Helper()
				var set map[string]string
				if _, err := settings.Lookup(settings.Fields(m.Settings(dataset.Amazon, data.Limited)), "target-weight"); err == nil {
					set = map[string]string{"target-weight": fmt.Sprint(weight)}
				} else if weight > 0 && !always[m.Name] {
					t.Fatalf("%s has no target-weight", m.Name)
				}
				return limitedLosses(t, m, 5, change, epochs(2), set)
			}
			for _, w := range []float64{0, 1} {
				reads := always[m.Name] || w > 0
				plain, flip := losses(w, nil), losses(w, flipped)
				if slices.Equal(plain, flip) == reads {
					t.Errorf("target weight %v: losses %v with the labels flipped, %v without (want them to differ: %v)", w, flip, plain, reads)
				}
			}
		})
	}
}

// flipLabels returns the binary labels y with 0 and 1 swapped.
func flipLabels(y []int) []int {
	f := make([]int, len(y))
	for i, v := range y {
		f[i] = 1 - v
	}
	return f
}

// limitedLosses trains method m on the fixture's limited-label task, changed
// by change (may be nil), with training settings tr and m's settings set,
// and returns the loss of each epoch.
func limitedLosses(t *testing.T, m method.Method, seed uint64, change func(*data.Task), tr method.Train, set map[string]string) []float64 {
	t.Helper()
	task := fixture.Task()
	if change != nil {
		change(task)
	}
	res, err := train(t, m, data.Limited, task, tr, set, method.Options{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var l []float64
	for _, e := range res.History {
		l = append(l, e.Loss)
	}
	return l
}

// TestPoolSources checks pool-sources: Source and DANN then
// train on one source, the pool, with an epoch of the pool's size over the
// batch; on a task with a single source pooling changes nothing.
func TestPoolSources(t *testing.T) {
	for _, m := range []method.Method{Source, DANN} {
		name := m.Name
		run := func(task *data.Task, pool bool) (*method.Result, int) {
			t.Helper()
			steps := 0
			res, err := train(t, m, data.UDA, task, epochs(2), map[string]string{"pool-sources": fmt.Sprint(pool)},
				method.Options{Seed: 3, Progress: func(p method.Progress) { steps = p.Steps }})
			if err != nil {
				t.Fatal(err)
			}
			return res, steps
		}
		t.Run(name, func(t *testing.T) {
			task := fixture.Task()
			pool, all := 0, 0
			for _, s := range task.Sources {
				pool += s.Len()
				all = max(all, s.Len())
			}
			res, steps := run(task, true)
			if want := pool / 8; steps != want {
				t.Errorf("pooled: %d steps an epoch, want %d", steps, want)
			}
			if n := len(res.History[0].Class); n != 1 {
				t.Errorf("pooled: class losses of %d sources, want 1", n)
			}
			if _, steps := run(task, false); steps != all/8 {
				t.Errorf("not pooled: %d steps an epoch, want %d", steps, all/8)
			}
			one := fixture.Task()
			one.Sources = one.Sources[:1]
			a, _ := run(one, true)
			b, _ := run(one, false)
			for i := range a.History {
				a.History[i].Seconds, b.History[i].Seconds = 0, 0
			}
			if !cmp.Equal(a.History, b.History) {
				t.Errorf("one source: pooling changed the run\npooled %+v\nnot    %+v", a.History, b.History)
			}
		})
	}
}

// TestPADAClassLoss: PADA's class term is the class-weighted mean of the
// cross-entropy, and 0, with no gradient, for a batch whose every row is
// of a class of weight 0 in float32, where nn.CrossEntropy refuses the
// weights (they sum to zero).
func TestPADAClassLoss(t *testing.T) {
	logits := []float32{2, 0, -1, 0.5, 1, -2, 0, 0, 3}
	ys := []int{0, 1, 2}
	for _, c := range []struct {
		name  string
		gamma []float64
		zero  bool
	}{
		{"every class weighed", []float64{1, 0.5, 0.25}, false},
		{"one row weighed", []float64{0, 1e-3, 0}, false},
		{"no row weighed", []float64{0, 1e-60, 0}, true}, // 1e-60 is 0 in float32
	} {
		x := autodiff.New(slices.Clone(logits), 3, 3)
		x.SetRequiresGrad(true)
		got, err := padaClassLoss(x, ys, c.gamma)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := float32(0)
		if !c.zero {
			l, err := nn.CrossEntropy(autodiff.New(slices.Clone(logits), 3, 3), ys, nn.CrossEntropyOptions[float32]{ClassWeights: method.F32s(c.gamma)})
			if err != nil {
				t.Fatal(err)
			}
			want = l.Item()
		} else if _, err := nn.CrossEntropy(autodiff.New(slices.Clone(logits), 3, 3), ys, nn.CrossEntropyOptions[float32]{ClassWeights: method.F32s(c.gamma)}); err == nil {
			t.Errorf("%s: nn.CrossEntropy takes weights that sum to zero", c.name)
		}
		if got.Item() != want || math.IsNaN(float64(got.Item())) {
			t.Errorf("%s: %v, want %v", c.name, got.Item(), want)
		}
	}
}

// TestBaselinesReleaseBuffers checks that every baseline's steps give back
// every pooled buffer they take: once the first steps have released every
// size, further steps make no buffer (autodiff.PoolMisses).
func TestBaselinesReleaseBuffers(t *testing.T) {
	for _, m := range All {
		for _, sc := range m.Scenarios {
			t.Run(m.Name+"-"+sc.String(), func(t *testing.T) {
				r, err := method.NewRun(method.Config{Method: m, Settings: m.Settings(dataset.Amazon, sc), Task: fixture.Task(), Scenario: sc, Net: fixture.Net(), Train: fixture.Train()}, 1)
				if err != nil {
					t.Fatal(err)
				}
				fixture.CheckReleases(t, r)
			})
		}
	}
}
