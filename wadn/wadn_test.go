package wadn

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/checkpoint"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/internal/fixture"
	"github.com/wadn-go/wadn/wadn/method"
	"github.com/wadn-go/wadn/wadn/nets"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// config is a WADN run's settings on the fixture's small network.
type config struct {
	sc  data.Scenario
	s   Settings
	tr  method.Train
	net *nets.Amazon
}

// tinyConfig returns the Amazon defaults of scenario sc on the fixture's
// network, three epochs of batches of 8, alpha and lambda from epoch 2.
func tinyConfig(sc data.Scenario) config {
	c := config{sc: sc, s: *Method.Settings(dataset.Amazon, sc).(*Settings), tr: fixture.Train(), net: fixture.Net()}
	c.s.AlphaStart, c.s.LambdaStart = 2, 2
	return c
}

// train runs WADN with c on task.
func train(task *data.Task, c config, opt method.Options) (*method.Result, error) {
	if _, err := newAlgo(&c.s); err != nil {
		return nil, err
	}
	if err := c.net.Validate(); err != nil {
		return nil, err
	}
	return method.Execute(context.Background(), method.Config{Method: Method, Settings: &c.s, Task: task, Scenario: c.sc, Net: c.net, Train: c.tr}, opt)
}

func TestTrainResumeIsExact(t *testing.T) {
	cfg := tinyConfig(data.UDA)
	full, err := train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: dir, StopAfter: 8})
	if !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	res, err := train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accuracy != full.Accuracy {
		t.Errorf("resumed accuracy %v, uninterrupted %v", res.Accuracy, full.Accuracy)
	}
	if d := cmp.Diff(full.History, res.History, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Seconds"
	}, cmp.Ignore())); d != "" {
		t.Errorf("resumed history (-uninterrupted +resumed):\n%s", d)
	}
	// Lambda and alpha were re-estimated (epochs 2 and 3) and stay valid.
	last := full.History[len(full.History)-1]
	var s float64
	for _, l := range last.Lambda {
		if l < 0 {
			t.Errorf("negative lambda %v", last.Lambda)
		}
		s += l
	}
	if math.Abs(s-1) > 1e-9 {
		t.Errorf("lambda %v sums to %v", last.Lambda, s)
	}
	for _, a := range last.Alpha {
		for _, v := range a {
			if v < 0 || math.IsNaN(v) {
				t.Errorf("alpha %v", last.Alpha)
			}
		}
	}
	if _, err := checkpoint.Load(filepath.Join(dir, trainer.CheckpointFile)); err != nil {
		t.Fatal(err)
	}
	// A checkpoint of another run is refused.
	other := method.Options{Seed: 5, Dir: dir, Resume: true}
	if _, err := train(fixture.Task(), cfg, other); err == nil || !strings.Contains(err.Error(), "seed 4") {
		t.Errorf("resuming seed 4's checkpoint as seed 5: %v, want a refusal naming both", err)
	}
}

func TestLimitedAlphaFromLabels(t *testing.T) {
	task := fixture.Task()
	cfg := tinyConfig(data.Limited)
	cfg.tr.Epochs = 1
	res, err := train(task, cfg, method.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for s := range task.Sources {
		for y := range 2 {
			if got, want := res.Alpha[s][y], res.TrueAlpha[s][y]; math.Abs(got-want) > 1e-12 {
				t.Errorf("source %d class %d: alpha %v, want the label ratio %v", s, y, got, want)
			}
		}
	}
}

func TestCentroidMovingAverage(t *testing.T) {
	z := autodiff.New([]float32{1, 2, 3, 4, 5, 6, 7, 8}, 4, 2)
	old := autodiff.New([]float32{10, 10, 20, 20, 30, 30}, 3, 2)
	for _, c := range []struct {
		y    []int
		want []float32
	}{
		{[]int{0, 2, 0, 2}, []float32{
			0.7*10 + 0.3*3, 0.7*10 + 0.3*4, // class 0: mean of rows 0 and 2
			20, 20, // class 1 absent: unchanged
			0.7*30 + 0.3*5, 0.7*30 + 0.3*6, // class 2: mean of rows 1 and 3
		}},
		{[]int{0, -1, -1, 2}, []float32{ // rows of class -1 left out
			0.7*10 + 0.3*1, 0.7*10 + 0.3*2,
			20, 20,
			0.7*30 + 0.3*7, 0.7*30 + 0.3*8,
		}},
		{[]int{-1, -1, -1, -1}, []float32{10, 10, 20, 20, 30, 30}},
	} {
		got := centroid(z, c.y, old, 0.7).Data()
		for i, w := range c.want {
			if d := got[i] - w; d > 1e-5 || d < -1e-5 {
				t.Errorf("labels %v: centroid[%d] = %v, want %v", c.y, i, got[i], w)
			}
		}
	}
}

// TestInterpolate checks the penalty's interpolates bit for bit against
// float32(xi*zs) + float32((1-xi)*zt), each product rounded, with xi the
// step generator's next draw: shapes whose lengths are and are not
// multiples of the vector width, values of every magnitude.
func TestInterpolate(t *testing.T) {
	for _, shape := range [][2]int{{1, 1}, {3, 5}, {4, 8}, {20, 37}} {
		n := shape[0] * shape[1]
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		zs, zt := make([]float32, n), make([]float32, n)
		for i := range zs {
			zs[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6)))
			zt[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(12)-6)))
		}
		a := &algo{zint: []*autodiff.Tensor[float32]{autodiff.Zeros[float32](shape[0], shape[1])}}
		r := &method.Run{Rand: rand.New(rand.NewPCG(5, 6))}
		got := a.interpolate(r, 0, zs, zt).Data()
		xi := float32(rand.New(rand.NewPCG(5, 6)).Float64())
		for i := range got {
			if want := float32(xi*zs[i]) + float32((1-xi)*zt[i]); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("%v: value %d = %v, want %v (xi %v, zs %v, zt %v)", shape, i, got[i], want, xi, zs[i], zt[i])
			}
		}
	}
}

func TestTrainRejectsBadSettings(t *testing.T) {
	for name, mod := range map[string]func(*config){
		"epochs":           func(c *config) { c.tr.Epochs = 0 },
		"eps":              func(c *config) { c.s.Eps = 2 },
		"lr":               func(c *config) { c.tr.LR = math.NaN() },
		"dropout":          func(c *config) { c.net.Dropout = 1 },
		"pseudo-threshold": func(c *config) { c.s.PseudoThreshold = 1 },
		"nan threshold":    func(c *config) { c.s.PseudoThreshold = math.NaN() },
		"keep":             func(c *config) { c.s.AlphaKeep = 1.5 },
		"c1":               func(c *config) { c.s.C1 = -2 },
		"explicit":         func(c *config) { c.s.Explicit = 7 },
		"explicit-start":   func(c *config) { c.s.ExplicitStart = -3 },
	} {
		c := tinyConfig(data.UDA)
		mod(&c)
		if _, err := train(fixture.Task(), c, method.Options{}); err == nil {
			t.Errorf("%s: settings %+v accepted", name, c.s)
		}
	}
}

// TestEnumsReadBack checks that every value of the enumerations, and the
// named values of C1 and Start, read back from their text.
func TestEnumsReadBack(t *testing.T) {
	type text interface {
		MarshalText() ([]byte, error)
	}
	check := func(v text, back func([]byte) (text, error)) {
		t.Helper()
		b, err := v.MarshalText()
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		got, err := back(b)
		if err != nil || got != v {
			t.Errorf("%q reads back as %v, %v; want %v", b, got, err, v)
		}
	}
	for i := range len(explicitNames) {
		check(Explicit(i), func(b []byte) (text, error) { var e Explicit; return e, e.UnmarshalText(b) })
	}
	for i := range len(centroidNames) {
		check(Centroids(i), func(b []byte) (text, error) { var e Centroids; return e, e.UnmarshalText(b) })
	}
	for i := range len(distanceNames) {
		check(Distance(i), func(b []byte) (text, error) { var e Distance; return e, e.UnmarshalText(b) })
	}
	for i := range len(estimatorNames) {
		check(Estimator(i), func(b []byte) (text, error) { var e Estimator; return e, e.UnmarshalText(b) })
	}
	for _, c := range []C1{C1Max, 0, 1, 0.25} {
		check(c, func(b []byte) (text, error) { var v C1; err := v.UnmarshalText(b); return v, err })
	}
	for _, s := range []Start{StartWithAlign, 0, 1, 20} {
		check(s, func(b []byte) (text, error) { var v Start; err := v.UnmarshalText(b); return v, err })
	}
	for _, bad := range []string{"", "-1", "nan", "maximum"} {
		var c C1
		if c.UnmarshalText([]byte(bad)) == nil && bad != "" {
			t.Errorf("C1 %q accepted", bad)
		}
	}
	var e Explicit
	if err := e.UnmarshalText([]byte("Paper")); err == nil {
		t.Error("explicit form \"Paper\" accepted: names are lower case")
	}
	if _, err := Explicit(9).MarshalText(); err == nil {
		t.Error("Explicit(9) has a name")
	}
}

// TestHeldOutEstimate runs the held-out estimation of alpha and checks that
// the estimates stay on the constraint set: alpha >= 0 and, for the new
// estimates, sum_k alpha_k S_t(k) = 1 up to the moving average with 1.
func TestHeldOutEstimate(t *testing.T) {
	task := fixture.Task()
	fixture.HeldOut(task)
	cfg := tinyConfig(data.UDA)
	cfg.s.Alpha = HeldOut
	res, err := train(task, cfg, method.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for s, a := range res.Alpha {
		share := method.Normalise(method.Histogram(task.Sources[s].Y, 2))
		dot := a[0]*share[0] + a[1]*share[1]
		// Both the initial ones and every solution satisfy the constraint,
		// so their moving average does too.
		if a[0] < 0 || a[1] < 0 || math.Abs(dot-1) > 1e-6 {
			t.Errorf("source %d: alpha %v, sum alpha*S = %v", s, a, dot)
		}
	}
}

// TestOracleAlpha checks that the diagnostic keeps alpha at the true ratios
// in an unsupervised run, where it would otherwise be re-estimated.
func TestOracleAlpha(t *testing.T) {
	task := fixture.Task()
	cfg := tinyConfig(data.UDA)
	cfg.s.AlphaStart = 1
	for _, oracle := range []bool{false, true} {
		cfg.s.Alpha = Batches
		if oracle {
			cfg.s.Alpha = Oracle
		}
		res, err := train(task, cfg, method.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		exact := true
		for s := range task.Sources {
			for y := range 2 {
				exact = exact && res.Alpha[s][y] == res.TrueAlpha[s][y]
			}
		}
		if exact != oracle {
			t.Errorf("oracle %v: alpha %v, true ratios %v", oracle, res.Alpha, res.TrueAlpha)
		}
	}
}

// same compares the outcome of two runs: alpha, lambda and accuracy.
func same(a, b *method.Result) bool {
	return cmp.Equal(a.Alpha, b.Alpha) && cmp.Equal(a.Lambda, b.Lambda) && a.Accuracy == b.Accuracy
}

// TestAlignStart checks that the conditional terms stay off before
// AlignStart: a run whose terms start after its last epoch is the run with
// C0 = 0, bit for bit, and one whose terms start at once is not.
func TestAlignStart(t *testing.T) {
	run := func(c0 float64, start int, more ...func(*config)) *method.Result {
		t.Helper()
		cfg := tinyConfig(data.UDA)
		cfg.s.C0, cfg.s.AlignStart = c0, start
		for _, f := range more {
			f(&cfg)
		}
		res, err := train(fixture.Task(), cfg, method.Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	off := run(0, 1)
	late := run(0.5, 4) // after the 3 epochs
	early := run(0.5, 1)
	if !same(off, late) {
		t.Errorf("terms from epoch 4 of 3: alpha %v lambda %v acc %v; with C0 = 0: %v %v %v",
			late.Alpha, late.Lambda, late.Accuracy, off.Alpha, off.Lambda, off.Accuracy)
	}
	if same(off, early) {
		t.Errorf("terms from epoch 1 changed nothing: alpha %v lambda %v", early.Alpha, early.Lambda)
	}

	// ExplicitStart starts the centroid term on its own.
	explicitFrom := func(e Start) func(*config) { return func(c *config) { c.s.ExplicitStart = e } }
	if r := run(0.5, 1, explicitFrom(1)); !same(r, early) {
		t.Errorf("centroid term and critics both from epoch 1 differ from AlignStart 1 alone")
	}
	centroids := run(0.5, 4, explicitFrom(1))
	if same(centroids, off) {
		t.Errorf("centroid term from epoch 1 changed nothing")
	}
	if same(centroids, early) {
		t.Errorf("centroid term from epoch 1 with the critics after the last epoch equals both from epoch 1")
	}
	// With Eps 0 the centroid term weighs nothing: only the critics, off
	// until epoch 4, could change the run.
	if r := run(0.5, 4, explicitFrom(1), func(c *config) { c.s.Eps = 0 }); !same(r, off) {
		t.Errorf("Eps 0, critics after the last epoch: the run differs from C0 = 0")
	}
}

// TestLambdaDistance checks that the critic's term enters the lambda
// problem with LambdaDistance Both only: the two settings differ where the
// critics weigh something (eps < 1) and agree where they weigh nothing.
func TestLambdaDistance(t *testing.T) {
	run := func(eps float64, d Distance) *method.Result {
		t.Helper()
		cfg := tinyConfig(data.UDA)
		cfg.s.Eps, cfg.s.C0, cfg.s.LambdaDistance = eps, 0.5, d
		res, err := train(fixture.Task(), cfg, method.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if both, explicit := run(0.5, Both), run(0.5, ExplicitOnly); slices.Equal(both.Lambda, explicit.Lambda) {
		t.Errorf("eps 0.5: lambda %v with the critics' term and without", both.Lambda)
	}
	if both, explicit := run(1, Both), run(1, ExplicitOnly); !same(both, explicit) {
		t.Errorf("eps 1 (critics weigh nothing): lambda %v with Both, %v with ExplicitOnly", both.Lambda, explicit.Lambda)
	}
}

// TestLambdaNorm checks the norm term of the lambda problem: on sources of
// equal size the two forms are one, and where a source has a quarter of
// the others' samples the paper's shares cost its weight more than equal
// shares do.
func TestLambdaNorm(t *testing.T) {
	run := func(task *data.Task, n Norm) *method.Result {
		t.Helper()
		cfg := tinyConfig(data.UDA)
		cfg.s.LambdaNorm = n
		res, err := train(task, cfg, method.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// cut keeps the first n rows of source t.
	cut := func(task *data.Task, t, n int) {
		s := &task.Sources[t]
		keep := make([]int, n)
		for i := range keep {
			keep[i] = i
		}
		s.Split = s.Split.Select(keep)
		if s.Rows != nil {
			s.Rows = s.Rows[:n]
		}
	}
	equalSizes := func() *data.Task {
		task := fixture.Task()
		for t := range task.Sources {
			cut(task, t, 40)
		}
		return task
	}
	if shares, equal := run(equalSizes(), Shares), run(equalSizes(), Equal); !same(shares, equal) {
		t.Errorf("sources of equal size: lambda %v with shares, %v with equal", shares.Lambda, equal.Lambda)
	}
	small := func() *data.Task {
		task := equalSizes()
		cut(task, 0, 10)
		return task
	}
	shares, equal := run(small(), Shares), run(small(), Equal)
	if !(equal.Lambda[0] > shares.Lambda[0]) {
		t.Errorf("a source of a quarter of the samples: lambda %v with shares, %v with equal; want more weight with equal", shares.Lambda, equal.Lambda)
	}
}

// TestLimitedTargetWeight trains on a target whose labels are the sources'
// flipped: only the labelled target's cross-entropy can teach the flip, so
// the target accuracy must rise with its weight.
func TestLimitedTargetWeight(t *testing.T) {
	flipped := func(s data.Subset) data.Subset {
		y := make([]int, len(s.Y))
		for i, v := range s.Y {
			y[i] = 1 - v
		}
		s.Y = y
		return s
	}
	task := fixture.Task()
	task.TargetTrain = flipped(task.TargetTrain)
	task.TargetTest = flipped(task.TargetTest)
	acc := map[float64]float64{}
	for _, w := range []float64{0, 100} {
		cfg := tinyConfig(data.Limited)
		cfg.tr.Epochs, cfg.s.TargetWeight = 10, w
		res, err := train(task, cfg, method.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		acc[w] = res.Accuracy
	}
	t.Logf("target accuracy: %.1f%% without the target loss, %.1f%% with weight 100", acc[0], acc[100])
	if !(acc[100] >= acc[0]+30) {
		t.Errorf("target accuracy %.1f%% with the labelled target's loss, %.1f%% without: want at least 30 points more", acc[100], acc[0])
	}
}

// TestTransductive checks that with limited labels and the transductive
// setting the critics read the target's test rows but never their labels,
// and that a stopped run resumes exactly.
func TestTransductive(t *testing.T) {
	run := func(transductive bool, change func(*data.Task), opt method.Options) (*method.Result, error) {
		task := fixture.Task()
		if change != nil {
			change(task)
		}
		cfg := tinyConfig(data.Limited)
		cfg.tr.Transductive = transductive
		opt.Seed = 6
		return train(task, cfg, opt)
	}
	losses := func(r *method.Result) []float64 {
		var l []float64
		for _, e := range r.History {
			l = append(l, e.Loss)
		}
		return l
	}
	must := func(r *method.Result, err error) *method.Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := must(run(true, nil, method.Options{}))
	if plain := must(run(false, nil, method.Options{})); cmp.Equal(losses(plain), losses(base)) {
		t.Errorf("transductive and plain runs have the same losses %v", losses(base))
	}
	flipped := must(run(true, func(task *data.Task) {
		y := make([]int, len(task.TargetTest.Y))
		for i, v := range task.TargetTest.Y {
			y[i] = 1 - v
		}
		task.TargetTest.Y = y
	}, method.Options{}))
	if !cmp.Equal(losses(flipped), losses(base)) {
		t.Errorf("flipping the test labels changed the training losses: %v, want %v", losses(flipped), losses(base))
	}
	other := must(run(true, func(task *data.Task) {
		task.TargetTest = fixture.Sparse("t", 30, 0.5, 2, 8)
	}, method.Options{}))
	if cmp.Equal(losses(other), losses(base)) {
		t.Errorf("other test rows left the training losses unchanged")
	}

	dir := t.TempDir()
	if _, err := run(true, nil, method.Options{Dir: dir, StopAfter: 8}); !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	resumed := must(run(true, nil, method.Options{Dir: dir, Resume: true}))
	if !cmp.Equal(losses(resumed), losses(base)) || resumed.Accuracy != base.Accuracy {
		t.Errorf("resumed losses %v accuracy %v, uninterrupted %v %v", losses(resumed), resumed.Accuracy, losses(base), base.Accuracy)
	}
}

func TestPrediction(t *testing.T) {
	for _, c := range []struct {
		logits []float32
		soft   bool
		want   []float64
	}{
		{[]float32{0.1, 2, -1}, false, []float64{0, 1, 0}},
		{[]float32{3, 3}, false, []float64{1, 0}}, // ties go to the first class
		{[]float32{0, 0}, true, []float64{0.5, 0.5}},
		{[]float32{0, float32(math.Log(3))}, true, []float64{0.25, 0.75}},
		{[]float32{1000, 0}, true, []float64{1, 0}}, // no overflow
		{[]float32{-1000, -1000 + float32(math.Log(3))}, true, []float64{0.25, 0.75}},
	} {
		got := make([]float64, len(c.logits))
		got[0] = 7 // overwritten, not added to
		prediction(got, c.logits, c.soft)
		for y := range got {
			// float32 logits near -1000 carry log(3) to about 6e-5.
			if math.Abs(got[y]-c.want[y]) > 1e-5 {
				t.Errorf("prediction(%v, soft %v) = %v, want %v", c.logits, c.soft, got, c.want)
				break
			}
		}
	}
}

// TestSoftEstimate checks, for each of the three estimates of alpha (the
// training batches, an evaluation-mode pass, held-out source rows), that
// soft-max probabilities reach it: the final alpha differs from the
// arg-max counts' and stays feasible, and the target distribution sums to 1.
func TestSoftEstimate(t *testing.T) {
	for _, c := range []struct {
		est Estimator
		tol float64 // of sum_k alpha_k S_t(k) = 1
	}{
		// The batch estimate's constraint holds for the label shares of the
		// rows the epochs drew, which are near the source's own.
		{Batches, 0.1},
		{Eval, 1e-6},
		{HeldOut, 1e-6},
	} {
		t.Run(estimatorNames[c.est], func(t *testing.T) {
			task := fixture.Task()
			fixture.HeldOut(task)
			run := func(soft bool) *method.Result {
				cfg := tinyConfig(data.UDA)
				cfg.s.Alpha, cfg.s.SoftEstimate = c.est, soft
				res, err := train(task, cfg, method.Options{Seed: 2})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			hard, soft := run(false), run(true)
			for s, a := range soft.Alpha {
				share := method.Normalise(method.Histogram(task.Sources[s].Y, 2))
				if dot := a[0]*share[0] + a[1]*share[1]; a[0] < 0 || a[1] < 0 || math.Abs(dot-1) > c.tol {
					t.Errorf("source %d: alpha %v, sum alpha*S = %v", s, a, dot)
				}
				if slices.Equal(a, hard.Alpha[s]) {
					t.Errorf("source %d: soft and hard estimates agree exactly (%v)", s, a)
				}
			}
			if last := soft.History[len(soft.History)-1].TargetDist; math.Abs(last[0]+last[1]-1) > 1e-9 {
				t.Errorf("soft target distribution %v does not sum to 1", last)
			}
		})
	}
}

// TestPseudoThreshold checks that the threshold reaches the target
// centroids: with two classes every arg-max has probability >= 0.5, so a
// threshold of 0.5 leaves the run as the default one, and a threshold of
// 0.99 (few rows of an untrained model are that sure) changes the
// explicit term and the losses.
func TestPseudoThreshold(t *testing.T) {
	run := func(threshold float64) *method.Result {
		cfg := tinyConfig(data.UDA)
		cfg.s.AlignStart, cfg.s.PseudoThreshold = 1, threshold
		res, err := train(fixture.Task(), cfg, method.Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	explicit := func(r *method.Result) []float64 {
		var e []float64
		for _, h := range r.History {
			e = append(e, h.Term("explicit")...)
		}
		return e
	}
	plain, half, sure := run(0), run(0.5), run(0.99)
	if !slices.Equal(explicit(half), explicit(plain)) {
		t.Errorf("threshold 0.5: explicit terms %v, want the default run's %v", explicit(half), explicit(plain))
	}
	if slices.Equal(explicit(sure), explicit(plain)) {
		t.Errorf("threshold 0.99: explicit terms %v equal the default run's", explicit(sure))
	}
}

func TestCentroidMSE(t *testing.T) {
	cs := autodiff.New([]float32{1, 2, 3, 4, 5, 6}, 2, 3).SetRequiresGrad(true)
	ct := autodiff.New([]float32{0, 2, 1, 4, 3, 6}, 2, 3)
	w := []float32{0.5, 2}
	// Row 0: differences 1, 0, 2, mean square 5/3, weight 0.5; row 1:
	// differences 0, 2, 0, mean square 4/3, weight 2.
	got := centroidMSE(cs, ct, w)
	if want := 0.5*5.0/3 + 2*4.0/3; math.Abs(float64(got.Item())-want) > 1e-5 {
		t.Errorf("value %v, want %v", got.Item(), want)
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{got}, nil, []*autodiff.Tensor[float32]{cs}, false)
	if err != nil {
		t.Fatal(err)
	}
	// d/dcs[y][j] = 2 w_y (cs - ct)[y][j] / d
	want := []float32{2 * 0.5 * 1 / 3., 0, 2 * 0.5 * 2 / 3., 0, 2 * 2 * 2 / 3., 0}
	for i, v := range g[0].Data() {
		if math.Abs(float64(v-want[i])) > 1e-5 {
			t.Errorf("gradient[%d] = %v, want %v", i, v, want[i])
		}
	}
}

func TestWeightNormalised(t *testing.T) {
	logits := autodiff.New([]float32{2, -1, 0.5, 0.5, -1, 3, 0, 1}, 4, 2)
	y := []int{0, 1, 1, 0}
	for _, tc := range []struct {
		name string
		w    []float32
	}{
		{"alpha weights", []float32{1.5, 0.75, 0.75, 1.5}},
		{"unit weights", []float32{1, 1, 1, 1}},
		{"zero weights", []float32{0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mean, err := autodiff.CrossEntropy(logits, y, tc.w, autodiff.ReduceMean)
			if err != nil {
				t.Fatal(err)
			}
			lg := logits.Data()
			var num, den float64
			for i, c := range y {
				a, b := float64(lg[2*i]), float64(lg[2*i+1])
				l := math.Log(math.Exp(a)+math.Exp(b)) - float64(lg[2*i+c])
				num += float64(tc.w[i]) * l
				den += float64(tc.w[i])
			}
			want := 0.0
			if den > 0 {
				want = num / den
			}
			if got := float64(weightNormalised(mean, tc.w).Item()); math.Abs(got-want) > 1e-5 {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// TestExplicitForms checks that the code and squared forms change the
// explicit term alone, each its own way, and that ClassNorm changes nothing
// while alpha is 1.
func TestExplicitForms(t *testing.T) {
	run := func(f func(*config)) *method.Result {
		t.Helper()
		cfg := tinyConfig(data.UDA)
		cfg.s.C0, cfg.s.AlignStart = 0.5, 1
		cfg.s.Explicit, cfg.s.ClassNorm = Paper, false
		f(&cfg)
		res, err := train(fixture.Task(), cfg, method.Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	base := run(func(*config) {})
	code := run(func(c *config) { c.s.Explicit = Code })
	if same(code, base) {
		t.Error("the code form changed nothing")
	}
	squared := run(func(c *config) { c.s.Explicit = Squared })
	if same(squared, base) || same(squared, code) {
		t.Error("the squared form equals the paper's or the code's: the target centroid must be the moving average")
	}
	noExplicit := func(c *config) { c.s.Eps = 0 }
	for _, form := range []Explicit{Code, Squared} {
		if a, b := run(noExplicit), run(func(c *config) { noExplicit(c); c.s.Explicit = form }); !same(a, b) {
			t.Errorf("with eps 0 the %s form changed the run: it must touch the explicit term only", explicitNames[form])
		}
	}
	alphaOne := func(c *config) { c.s.AlphaStart = 100 }
	if a, b := run(alphaOne), run(func(c *config) { alphaOne(c); c.s.ClassNorm = true }); !same(a, b) {
		t.Error("with alpha fixed at 1 ClassNorm changed the run")
	}
	if r := run(func(c *config) { c.s.ClassNorm = true }); same(r, base) {
		t.Error("ClassNorm changed nothing once alpha was estimated")
	}
}

// TestHiddenCentroids checks that the hidden centroids are taken on the
// classifier's last hidden layer: the split classifier computes what the
// whole one does, the centroids have that layer's width, the setting changes
// the explicit term alone, and a classifier without a hidden layer is
// refused, before any data are read too (CheckNetwork).
func TestHiddenCentroids(t *testing.T) {
	cfg := tinyConfig(data.UDA)
	cfg.net.Depth = 1 // classifier 32 -> 16 -> 8 -> 2
	cfg.s.C0, cfg.s.Centroids = 0.5, Hidden
	r, err := method.NewRun(method.Config{Method: Method, Settings: &cfg.s, Task: fixture.Task(), Scenario: data.UDA, Net: cfg.net, Train: cfg.tr}, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Algorithm().(*algo)
	for _, c := range append(slices.Clone(a.centS), a.centT, a.zeroT) {
		if got := c.Shape(); !slices.Equal(got, []int{2, 8}) {
			t.Fatalf("centroid shape %v, want [2 8]", got)
		}
	}
	r.Model.SetTrain(false)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 5*32)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	z := autodiff.New(x, 5, 32)
	if whole, split := r.Model.Classifier.Forward(z).Data(), a.clsOut.Forward(a.clsHidden.Forward(z)).Data(); !slices.Equal(whole, split) {
		t.Errorf("split classifier gives %v, the whole one %v", split, whole)
	}

	run := func(f func(*config)) *method.Result {
		t.Helper()
		c := tinyConfig(data.UDA)
		c.net.Depth, c.s.C0 = 1, 0.5
		f(&c)
		res, err := train(fixture.Task(), c, method.Options{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// alike compares the training of two runs: every epoch's accuracy and
	// losses (the explicit term's value too when explicit is set).
	alike := func(a, b *method.Result, explicit bool) bool {
		if !same(a, b) || len(a.History) != len(b.History) {
			return false
		}
		for i := range a.History {
			x, y := a.History[i], b.History[i]
			if x.Accuracy != y.Accuracy || x.Loss != y.Loss || !slices.Equal(x.Class, y.Class) ||
				!slices.Equal(x.Term("implicit"), y.Term("implicit")) || (explicit && !slices.Equal(x.Term("explicit"), y.Term("explicit"))) {
				return false
			}
		}
		return true
	}
	hidden := func(c *config) { c.s.Centroids = Hidden }
	if alike(run(func(*config) {}), run(hidden), true) {
		t.Error("hidden centroids changed nothing")
	}
	noExplicit := func(c *config) { c.s.Eps = 0 }
	if !alike(run(noExplicit), run(func(c *config) { noExplicit(c); hidden(c) }), false) {
		t.Error("with eps 0 hidden centroids changed the run: they must touch the explicit term only")
	}

	cfg = tinyConfig(data.UDA) // Depth 3: a linear classifier
	cfg.s.Centroids = Hidden
	if _, err := train(fixture.Task(), cfg, method.Options{Seed: 5}); err == nil || !strings.Contains(err.Error(), "hidden layer") {
		t.Errorf("a linear classifier with hidden centroids: error %v, want one about the hidden layer", err)
	}
	for _, tc := range []struct {
		net  nets.Network
		want bool
	}{
		{&nets.Amazon{Dropout: 0, Hidden: []int{8, 4}, Depth: 1}, true},
		{&nets.Amazon{Dropout: 0, Hidden: []int{8, 4}, Depth: 2}, false},
		{nets.Digits{}, true},
		{nets.OfficeHome{}, false},
	} {
		a, err := newAlgo(&Settings{Centroids: Hidden})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.(*algo).CheckNetwork(tc.net); (err == nil) != tc.want {
			t.Errorf("%T %+v: CheckNetwork = %v, want a hidden layer %v", tc.net, tc.net, err, tc.want)
		}
	}
}

// TestCriticsDrawnAfterTheModel checks that the critics continue the
// model's generator: WADN's network at a seed is the same whatever the
// method's own modules, and its first critic is what the generator gives
// after the extractor and the classifier.
func TestCriticsDrawnAfterTheModel(t *testing.T) {
	cfg := tinyConfig(data.UDA)
	r, err := method.NewRun(method.Config{Method: Method, Settings: &cfg.s, Task: fixture.Task(), Scenario: data.UDA, Net: cfg.net, Train: cfg.tr}, 9)
	if err != nil {
		t.Fatal(err)
	}
	a := r.Algorithm().(*algo)
	rng := nn.NewRand(9)
	cfg.net.NewExtractor(rng)
	cfg.net.NewClassifier(2, rng)
	want := cfg.net.NewHead(1, rng).Params()
	got := a.critics[0].Params()
	for i := range want {
		if !slices.Equal(want[i].Tensor.Data(), got[i].Tensor.Data()) {
			t.Fatalf("critic parameter %s differs from the generator's draw after the model", want[i].Name)
		}
	}
	if len(r.Params()) != len(r.Model.Extractor.Params())+len(r.Model.Classifier.Params())+3*len(want) {
		t.Errorf("%d parameters, want the model's and three critics'", len(r.Params()))
	}
}

// TestAverageLeavesTrainingAlone checks that Train.Average changes what is
// evaluated and kept, never the training: every loss of the epoch log and
// the accuracy of the weights as trained are those of a run without it; and
// that an interrupted run with it resumes to the same log and weights.
func TestAverageLeavesTrainingAlone(t *testing.T) {
	cfg := tinyConfig(data.UDA)
	plain, err := train(fixture.Task(), cfg, method.Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	cfg.tr.Average = 0.9
	avg, err := train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range plain.History {
		a := avg.History[i]
		if p.AccuracyTrained != nil {
			t.Errorf("epoch %d: accuracy_trained %v without averaging", p.Epoch, *p.AccuracyTrained)
		}
		if a.AccuracyTrained == nil || *a.AccuracyTrained != p.Accuracy {
			t.Errorf("epoch %d: accuracy of the trained weights %v, want the plain run's %v", p.Epoch, a.AccuracyTrained, p.Accuracy)
		}
		a.Accuracy, a.AccuracyTrained, a.Seconds = p.Accuracy, nil, p.Seconds
		if d := cmp.Diff(p, a); d != "" {
			t.Errorf("epoch %d (-plain +averaged):\n%s", p.Epoch, d)
		}
	}
	// The result's model is the average: its parameters differ from the
	// trained ones.
	differ := 0
	for i, p := range avg.Params {
		if !strings.HasPrefix(p.Name, "extractor.") && !strings.HasPrefix(p.Name, "classifier.") {
			continue
		}
		if !slices.Equal(p.Tensor.Data(), plain.Params[i].Tensor.Data()) {
			differ++
		}
	}
	if differ == 0 {
		t.Error("the averaged run's result holds the trained weights")
	}

	dir := t.TempDir()
	if _, err := train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: dir, StopAfter: 7}); !errors.Is(err, trainer.ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	res, err := train(fixture.Task(), cfg, method.Options{Seed: 4, Dir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(avg.History, res.History, cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".Seconds"
	}, cmp.Ignore())); d != "" {
		t.Errorf("resumed history (-uninterrupted +resumed):\n%s", d)
	}
	for i, p := range res.Params {
		if !slices.Equal(p.Tensor.Data(), avg.Params[i].Tensor.Data()) {
			t.Errorf("resumed run's %s differs from the uninterrupted run's", p.Name)
		}
	}
}

// TestSourceAccuracy checks that Train.SourceAccuracy logs, every epoch,
// one accuracy per source whose last value is that of the result's model
// (the average, with Train.Average) on the source's held-out rows, that it
// changes nothing else in the log, and that a source without held-out rows
// is refused by name.
func TestSourceAccuracy(t *testing.T) {
	heldOut := func() *data.Task { // rows enough to tell two models apart
		task := fixture.Task()
		for i, s := range task.Sources {
			task.SourceTest = append(task.SourceTest, fixture.Sparse(s.Domain, 600, 0.5, 3*i, uint64(20+i)))
		}
		return task
	}
	var trained [][]float64 // the weights as trained, per epoch
	for _, avg := range []float64{0, 0.9} {
		cfg := tinyConfig(data.UDA)
		cfg.tr.Epochs, cfg.tr.LR, cfg.tr.Average = 12, 2, avg
		plain, err := train(heldOut(), cfg, method.Options{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		cfg.tr.SourceAccuracy = true
		task := heldOut()
		got, err := train(task, cfg, method.Options{Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		differ := false
		for i, p := range plain.History {
			g := got.History[i]
			if avg == 0 {
				trained = append(trained, g.SourceAccuracy)
			} else if !slices.Equal(g.SourceAccuracy, trained[i]) {
				differ = true
			}
			if p.SourceAccuracy != nil {
				t.Errorf("average %v, epoch %d: source_accuracy %v without the setting", avg, p.Epoch, p.SourceAccuracy)
			}
			if len(g.SourceAccuracy) != len(task.Sources) {
				t.Errorf("average %v, epoch %d: source_accuracy %v, want %d values", avg, g.Epoch, g.SourceAccuracy, len(task.Sources))
			}
			g.SourceAccuracy, g.Seconds = nil, p.Seconds
			if d := cmp.Diff(p, g); d != "" {
				t.Errorf("average %v, epoch %d (-without +with):\n%s", avg, p.Epoch, d)
			}
		}
		if avg > 0 && !differ {
			t.Error("the average's source accuracies are the trained weights' at every epoch: the check below cannot tell them apart")
		}
		// The result's model on the held-out rows gives the last epoch's
		// values.
		init := nn.NewRand(1)
		m := &method.Model{Extractor: cfg.net.NewExtractor(init), Classifier: cfg.net.NewClassifier(task.NumClasses, init)}
		ps := append(nn.Prefix("extractor", m.Extractor.Params()), nn.Prefix("classifier", m.Classifier.Params())...)
		for i, p := range ps {
			if r := got.Params[i]; r.Name != p.Name {
				t.Fatalf("result parameter %d is %s, the model's %s", i, r.Name, p.Name)
			}
			copy(p.Tensor.Data(), got.Params[i].Tensor.Data())
		}
		last := got.History[len(got.History)-1].SourceAccuracy
		for i, s := range task.SourceTest {
			if want := m.Accuracy(&s.Split, cfg.tr.EvalBatch); i >= len(last) || last[i] != want {
				t.Errorf("average %v: source %s: logged %v, the result's model gives %v", avg, s.Domain, last, want)
			}
		}
	}

	cfg := tinyConfig(data.UDA)
	cfg.tr.SourceAccuracy = true
	task := heldOut()
	task.SourceTest[1] = data.Subset{Domain: task.Sources[1].Domain}
	if _, err := train(task, cfg, method.Options{Seed: 4}); err == nil || !strings.Contains(err.Error(), task.Sources[1].Domain) {
		t.Errorf("a source without held-out rows gave %v, want an error naming %s", err, task.Sources[1].Domain)
	}
}
