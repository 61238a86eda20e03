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
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn/checkpoint"
)

// tinySparse returns n sparse 5000-d rows whose label decides which block of
// features is active, with a class-0 share of p0.
func tinySparse(name string, n int, p0 float64, shift int, seed uint64) data.Subset {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := &data.CSR{Rows: n, Cols: 5000, RowPtr: []int{0}}
	y := make([]int, n)
	for i := range n {
		if rng.Float64() >= p0 {
			y[i] = 1
		}
		for k := 0; k < 12; k++ {
			col := rng.IntN(40) + 100*y[i] + shift
			if k%3 == 0 {
				col = rng.IntN(5000)
			}
			c.ColIdx = append(c.ColIdx, int32(col))
			c.Val = append(c.Val, float32(1+rng.IntN(3)))
		}
		c.RowPtr = append(c.RowPtr, len(c.ColIdx))
	}
	// Sort and merge duplicate columns within rows.
	for i := range n {
		lo, hi := c.RowPtr[i], c.RowPtr[i+1]
		for a := lo; a < hi; a++ {
			for b := a + 1; b < hi; b++ {
				if c.ColIdx[b] < c.ColIdx[a] {
					c.ColIdx[a], c.ColIdx[b] = c.ColIdx[b], c.ColIdx[a]
					c.Val[a], c.Val[b] = c.Val[b], c.Val[a]
				}
			}
		}
	}
	return data.Subset{Domain: name, From: "train", Split: data.Split{Sparse: c, Y: y, NumClasses: 2}}
}

func tinyTask(scenario data.Scenario) *data.Task {
	return &data.Task{
		Dataset: "amazon", Target: "t", NumClasses: 2,
		Sources: []data.Subset{
			tinySparse("a", 48, 0.33, 0, 1), tinySparse("b", 40, 0.3, 3, 2), tinySparse("c", 44, 0.35, 6, 3),
		},
		TargetTrain: tinySparse("t", 40, 0.5, 9, 4),
		TargetTest:  tinySparse("t", 30, 0.5, 9, 5),
	}
}

func tinyConfig(t *testing.T, sc data.Scenario) Config {
	cfg, err := DefaultConfig("amazon", sc)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Epochs, cfg.Batch = 3, 8
	cfg.Hidden = []int{32, 16, 8} // the same network, smaller
	cfg.AlphaStart, cfg.LambdaStart = 2, 2
	return cfg
}

func TestTrainResumeIsExact(t *testing.T) {
	cfg := tinyConfig(t, data.UDA)
	full, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 4, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 4, OutDir: dir, StopAfter: 8})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	res, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 4, OutDir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Accuracy != full.Accuracy {
		t.Errorf("resumed accuracy %v, uninterrupted %v", res.Accuracy, full.Accuracy)
	}
	for i := range full.History {
		a, b := full.History[i], res.History[i]
		if a.Loss != b.Loss || a.Lambda[0] != b.Lambda[0] || a.Alpha[1][0] != b.Alpha[1][0] {
			t.Errorf("epoch %d: resumed %+v\nuninterrupted %+v", i+1, b, a)
		}
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
	if _, err := checkpoint.Load(filepath.Join(dir, CheckpointFile)); err != nil {
		t.Fatal(err)
	}
}

func TestLimitedAlphaFromLabels(t *testing.T) {
	task := tinyTask(data.Limited)
	cfg := tinyConfig(t, data.Limited)
	cfg.Epochs = 1
	res, err := Train(context.Background(), task, cfg, RunOptions{Seed: 1})
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

func TestTrainRejectsBadConfig(t *testing.T) {
	cfg := tinyConfig(t, data.UDA)
	for _, mod := range []func(*Config){
		func(c *Config) { c.Epochs = 0 },
		func(c *Config) { c.Eps = 2 },
		func(c *Config) { c.LR = math.NaN() },
		func(c *Config) { c.Dropout = 1 },
		func(c *Config) { c.Dataset = "cifar" },
		func(c *Config) { c.PseudoThreshold = 1 },
		func(c *Config) { c.PseudoThreshold = math.NaN() },
	} {
		c := cfg
		mod(&c)
		if _, err := Train(context.Background(), tinyTask(data.UDA), c, RunOptions{}); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

func TestMeanStd(t *testing.T) {
	m, s := meanStd([]float64{70, 72, 74})
	if m != 72 || math.Abs(s-2) > 1e-12 {
		t.Errorf("meanStd = %v, %v; want 72, 2", m, s)
	}
}

// TestHeldOutEstimate runs the held-out estimation of alpha and checks that
// the estimates stay on the constraint set: alpha >= 0 and, for the new
// estimates, sum_k alpha_k S_t(k) = 1 up to the moving average with 1.
func TestHeldOutEstimate(t *testing.T) {
	task := tinyTask(data.UDA)
	for i := range task.Sources {
		task.SourceTest = append(task.SourceTest, tinySparse(task.Sources[i].Domain, 30, 0.5, 3*i, uint64(10+i)))
	}
	cfg := tinyConfig(t, data.UDA)
	cfg.HeldOut = true
	res, err := Train(context.Background(), task, cfg, RunOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for s, a := range res.Alpha {
		share := normalise(histogram(task.Sources[s].Y, 2))
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
	task := tinyTask(data.UDA)
	cfg := tinyConfig(t, data.UDA)
	cfg.AlphaStart = 1
	for _, oracle := range []bool{false, true} {
		cfg.OracleAlpha = oracle
		res, err := Train(context.Background(), task, cfg, RunOptions{Seed: 3})
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

// TestAlignStart checks that the conditional terms stay off before
// AlignStart: a run whose terms start after its last epoch is the run with
// C0 = 0, bit for bit, and one whose terms start at once is not.
func TestAlignStart(t *testing.T) {
	run := func(c0 float64, start int, more ...func(*Config)) *Result {
		t.Helper()
		cfg := tinyConfig(t, data.UDA)
		cfg.C0, cfg.AlignStart = c0, start
		for _, f := range more {
			f(&cfg)
		}
		res, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	off := run(0, 0)
	late := run(0.5, 4) // after the 3 epochs
	early := run(0.5, 1)
	same := func(a, b *Result) bool {
		return cmp.Equal(a.Alpha, b.Alpha) && cmp.Equal(a.Lambda, b.Lambda) && a.Accuracy == b.Accuracy
	}
	if !same(off, late) {
		t.Errorf("terms from epoch 4 of 3: alpha %v lambda %v acc %v; with C0 = 0: %v %v %v",
			late.Alpha, late.Lambda, late.Accuracy, off.Alpha, off.Lambda, off.Accuracy)
	}
	if same(off, early) {
		t.Errorf("terms from epoch 1 changed nothing: alpha %v lambda %v", early.Alpha, early.Lambda)
	}

	// ExplicitStart starts the centroid term on its own.
	explicitFrom := func(e int) func(*Config) { return func(c *Config) { c.ExplicitStart = e } }
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
	if r := run(0.5, 4, explicitFrom(1), func(c *Config) { c.Eps = 0 }); !same(r, off) {
		t.Errorf("Eps 0, critics after the last epoch: the run differs from C0 = 0")
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
	task := tinyTask(data.Limited)
	task.TargetTrain = flipped(task.TargetTrain)
	task.TargetTest = flipped(task.TargetTest)
	acc := map[float64]float64{}
	for _, w := range []float64{0, 100} {
		cfg := tinyConfig(t, data.Limited)
		cfg.Epochs, cfg.TargetWeight = 10, w
		res, err := Train(context.Background(), task, cfg, RunOptions{Seed: 3})
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

// TestTransductive checks that with limited labels and Transductive the
// critics read the target's test rows but never their labels, and that a
// stopped run resumes exactly.
func TestTransductive(t *testing.T) {
	run := func(transductive bool, change func(*data.Task), opt RunOptions) (*Result, error) {
		task := tinyTask(data.Limited)
		if change != nil {
			change(task)
		}
		cfg := tinyConfig(t, data.Limited)
		cfg.Transductive = transductive
		opt.Seed = 6
		return Train(context.Background(), task, cfg, opt)
	}
	losses := func(r *Result) []float64 {
		var l []float64
		for _, e := range r.History {
			l = append(l, e.Loss)
		}
		return l
	}
	must := func(r *Result, err error) *Result {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := must(run(true, nil, RunOptions{}))
	if plain := must(run(false, nil, RunOptions{})); cmp.Equal(losses(plain), losses(base)) {
		t.Errorf("transductive and plain runs have the same losses %v", losses(base))
	}
	flipped := must(run(true, func(task *data.Task) {
		y := make([]int, len(task.TargetTest.Y))
		for i, v := range task.TargetTest.Y {
			y[i] = 1 - v
		}
		task.TargetTest.Y = y
	}, RunOptions{}))
	if !cmp.Equal(losses(flipped), losses(base)) {
		t.Errorf("flipping the test labels changed the training losses: %v, want %v", losses(flipped), losses(base))
	}
	other := must(run(true, func(task *data.Task) {
		task.TargetTest = tinySparse("t", 30, 0.5, 2, 8)
	}, RunOptions{}))
	if cmp.Equal(losses(other), losses(base)) {
		t.Errorf("other test rows left the training losses unchanged")
	}

	dir := t.TempDir()
	if _, err := run(true, nil, RunOptions{OutDir: dir, StopAfter: 8}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped run returned %v, want ErrInterrupted", err)
	}
	resumed := must(run(true, nil, RunOptions{OutDir: dir, Resume: true}))
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
		name string
		set  func(*Config)
		tol  float64 // of sum_k alpha_k S_t(k) = 1
	}{
		// The batch estimate's constraint holds for the label shares of the
		// rows the epochs drew, which are near the source's own.
		{"batches", func(*Config) {}, 0.1},
		{"eval", func(c *Config) { c.EvalEstimate = true }, 1e-6},
		{"held-out", func(c *Config) { c.HeldOut = true }, 1e-6},
	} {
		t.Run(c.name, func(t *testing.T) {
			task := tinyTask(data.UDA)
			for i := range task.Sources {
				task.SourceTest = append(task.SourceTest, tinySparse(task.Sources[i].Domain, 30, 0.5, 3*i, uint64(10+i)))
			}
			run := func(soft bool) *Result {
				cfg := tinyConfig(t, data.UDA)
				c.set(&cfg)
				cfg.SoftEstimate = soft
				res, err := Train(context.Background(), task, cfg, RunOptions{Seed: 2})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			hard, soft := run(false), run(true)
			for s, a := range soft.Alpha {
				share := normalise(histogram(task.Sources[s].Y, 2))
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
	run := func(threshold float64) *Result {
		cfg := tinyConfig(t, data.UDA)
		cfg.AlignStart, cfg.PseudoThreshold = 1, threshold
		res, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	explicit := func(r *Result) []float64 {
		var e []float64
		for _, h := range r.History {
			e = append(e, h.Explicit...)
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

// TestCodeSwitches checks that CodeCentroids and CentroidMSE change the
// explicit term alone, each its own way, and that ClassNorm changes nothing
// while alpha is 1.
func TestCodeSwitches(t *testing.T) {
	run := func(f func(*Config)) *Result {
		t.Helper()
		cfg := tinyConfig(t, data.UDA)
		cfg.C0, cfg.AlignStart = 0.5, 1
		cfg.CentroidMSE, cfg.ClassNorm = false, false // from the paper's forms
		f(&cfg)
		res, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	same := func(a, b *Result) bool {
		return cmp.Equal(a.Alpha, b.Alpha) && cmp.Equal(a.Lambda, b.Lambda) && a.Accuracy == b.Accuracy
	}
	base := run(func(*Config) {})
	code := run(func(c *Config) { c.CodeCentroids = true })
	if same(code, base) {
		t.Error("CodeCentroids changed nothing")
	}
	mse := run(func(c *Config) { c.CentroidMSE = true })
	if same(mse, base) || same(mse, code) {
		t.Error("CentroidMSE equals the default or CodeCentroids: the target centroid must be the moving average")
	}
	noExplicit := func(c *Config) { c.Eps = 0 }
	for name, f := range map[string]func(*Config){
		"CodeCentroids": func(c *Config) { c.CodeCentroids = true },
		"CentroidMSE":   func(c *Config) { c.CentroidMSE = true },
	} {
		if a, b := run(noExplicit), run(func(c *Config) { noExplicit(c); f(c) }); !same(a, b) {
			t.Errorf("with Eps 0 %s changed the run: it must touch the explicit term only", name)
		}
	}
	alphaOne := func(c *Config) { c.AlphaStart = 100 }
	if a, b := run(alphaOne), run(func(c *Config) { alphaOne(c); c.ClassNorm = true }); !same(a, b) {
		t.Error("with alpha fixed at 1 ClassNorm changed the run")
	}
	if r := run(func(c *Config) { c.ClassNorm = true }); same(r, base) {
		t.Error("ClassNorm changed nothing once alpha was estimated")
	}
}

// TestHiddenCentroids checks that HiddenCentroids takes the centroids on the
// classifier's last hidden layer: the split classifier computes what the
// whole one does, the centroids have that layer's width, the switch changes
// the explicit term alone, and a classifier without a hidden layer is
// refused.
func TestHiddenCentroids(t *testing.T) {
	cfg := tinyConfig(t, data.UDA)
	cfg.Depth = 1 // classifier 32 -> 16 -> 8 -> 2
	cfg.C0 = 0.5
	cfg.HiddenCentroids = true
	tr, err := newTrainer(&wadnAlgo{}, tinyTask(data.UDA), cfg, RunOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	a := tr.algo.(*wadnAlgo)
	for _, c := range append(slices.Clone(a.centS), a.centT, a.zeroT) {
		if got := c.Shape(); !slices.Equal(got, []int{2, 8}) {
			t.Fatalf("centroid shape %v, want [2 8]", got)
		}
	}
	tr.m.setTrain(false)
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 5*32)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	z := autodiff.New(x, 5, 32)
	if whole, split := tr.m.cls.Forward(z).Data(), a.clsOut.Forward(a.clsHidden.Forward(z)).Data(); !slices.Equal(whole, split) {
		t.Errorf("split classifier gives %v, the whole one %v", split, whole)
	}

	run := func(f func(*Config)) *Result {
		t.Helper()
		c := tinyConfig(t, data.UDA)
		c.Depth, c.C0 = 1, 0.5
		f(&c)
		res, err := Train(context.Background(), tinyTask(data.UDA), c, RunOptions{Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// same compares the training of two runs: every epoch's accuracy and
	// losses (the explicit term's value too when explicit is set).
	same := func(a, b *Result, explicit bool) bool {
		if !cmp.Equal(a.Alpha, b.Alpha) || !cmp.Equal(a.Lambda, b.Lambda) || len(a.History) != len(b.History) {
			return false
		}
		for i := range a.History {
			x, y := a.History[i], b.History[i]
			if x.Accuracy != y.Accuracy || x.Loss != y.Loss || !slices.Equal(x.Class, y.Class) ||
				!slices.Equal(x.Implicit, y.Implicit) || (explicit && !slices.Equal(x.Explicit, y.Explicit)) {
				return false
			}
		}
		return true
	}
	hidden := func(c *Config) { c.HiddenCentroids = true }
	if same(run(func(*Config) {}), run(hidden), true) {
		t.Error("HiddenCentroids changed nothing")
	}
	noExplicit := func(c *Config) { c.Eps = 0 }
	if !same(run(noExplicit), run(func(c *Config) { noExplicit(c); hidden(c) }), false) {
		t.Error("with Eps 0 HiddenCentroids changed the run: it must touch the explicit term only")
	}

	cfg = tinyConfig(t, data.UDA) // Depth 3: a linear classifier
	cfg.HiddenCentroids = true
	if _, err := Train(context.Background(), tinyTask(data.UDA), cfg, RunOptions{Seed: 5}); err == nil || !strings.Contains(err.Error(), "HiddenCentroids") {
		t.Errorf("a linear classifier with HiddenCentroids: error %v, want one naming HiddenCentroids", err)
	}
}

// TestHiddenClassifier checks Config.HiddenClassifier against the networks
// newModel builds: it must say a hidden layer is there exactly when the
// classifier can be split before its output layer.
func TestHiddenClassifier(t *testing.T) {
	for _, tc := range []struct {
		dataset string
		depth   int
		want    bool
	}{
		{"amazon", 1, true}, {"amazon", 2, true}, {"amazon", 3, false},
		{"digits", 0, true}, {"office-home", 0, false},
	} {
		cfg, err := DefaultConfig(tc.dataset, data.UDA)
		if err != nil {
			t.Fatal(err)
		}
		if tc.depth > 0 {
			cfg.Depth = tc.depth
		}
		m, err := newModel(&cfg, 2, 3, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, _, _, splitErr := m.splitClassifier()
		if got := cfg.HiddenClassifier(); got != tc.want || got != (splitErr == nil) {
			t.Errorf("%s depth %d: HiddenClassifier %v, want %v; splitClassifier error %v", tc.dataset, cfg.Depth, got, tc.want, splitErr)
		}
	}
}
