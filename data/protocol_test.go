package data

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// toyDomain has n train and m test samples whose single feature is the row
// index (train) or 10000+row (test), and classes i%k.
func toyDomain(name string, n, m, k int) Domain {
	mk := func(n, base int) Split {
		s := Split{Dense: &Dense{N: n, Shape: []int{1}, X: make([]float32, n)}, Y: make([]int, n), NumClasses: k}
		for i := 0; i < n; i++ {
			s.Dense.X[i] = float32(base + i)
			s.Y[i] = i % k
		}
		return s
	}
	return Domain{Dataset: "toy", Name: name, Train: mk(n, 0), Test: mk(m, 10000)}
}

// checkSubset verifies that a subset holds exactly the rows it names.
func checkSubset(t *testing.T, what string, s Subset, d Domain) {
	t.Helper()
	from := &d.Train
	base := 0
	if s.From == "test" {
		from, base = &d.Test, 10000
	}
	if s.Len() != len(s.Rows) || !slices.IsSorted(s.Rows) {
		t.Fatalf("%s: %d samples, %d rows, sorted %v", what, s.Len(), len(s.Rows), slices.IsSorted(s.Rows))
	}
	for j, r := range s.Rows {
		want, y := float32(base+r), 0
		switch {
		case s.From == "pool" && r >= d.Train.Len():
			want, y = float32(10000+r-d.Train.Len()), d.Test.Y[r-d.Train.Len()]
		case r < from.Len():
			y = from.Y[r]
		default:
			t.Fatalf("%s: row %d outside the %s split", what, r, s.From)
		}
		if s.Dense.X[j] != want || s.Y[j] != y {
			t.Fatalf("%s: sample %d is not row %d of %s", what, j, r, s.From)
		}
		if j > 0 && s.Rows[j-1] == r {
			t.Fatalf("%s: row %d repeated", what, r)
		}
	}
}

func toyDomains() []Domain {
	return []Domain{toyDomain("a", 1000, 300, 10), toyDomain("b", 900, 250, 10), toyDomain("c", 1200, 200, 10), toyDomain("t", 800, 400, 10)}
}

// toyUDA is the unsupervised protocol the toy tasks are drawn with: 700
// training samples per domain, 150 held out, half of classes 5-9 dropped.
func toyUDA() Protocol {
	return Protocol{Scenario: UDA, TrainSize: 700, TestSize: 150, DropClasses: []int{5, 6, 7, 8, 9}, DropRate: 0.5}
}

func TestProtocolUDA(t *testing.T) {
	ds := toyDomains()
	p := toyUDA()
	task, err := p.BuildFor(ds, "t", 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.Sources) != 3 || task.Target != "t" || task.NumClasses != 10 {
		t.Fatalf("task: %d sources, target %q, %d classes", len(task.Sources), task.Target, task.NumClasses)
	}
	for i, s := range task.Sources {
		checkSubset(t, "source "+s.Domain, s, ds[i])
		h := s.Histogram()
		// The 700 drawn rows hold n_c of class c; classes 5-9 lose
		// round(n_c/2), the others keep all.
		drawn := make([]int, 10)
		r := newRand(42, "train", s.Domain)
		all := r.Perm(ds[i].Train.Len())[:700]
		for _, row := range all {
			drawn[ds[i].Train.Y[row]]++
		}
		total := 0
		for c := range h {
			total += h[c]
		}
		if total < 700*3/4-40 || total > 700*3/4+40 {
			t.Errorf("source %s kept %d of 700, want about 525", s.Domain, total)
		}
		for c := range h {
			want := drawn[c]
			if c >= 5 {
				want -= int(math.Round(float64(drawn[c]) / 2))
			}
			if h[c] != want {
				t.Errorf("source %s class %d: %d kept of %d drawn, want %d", s.Domain, c, h[c], drawn[c], want)
			}
		}
	}
	// Held-out source rows: TestSize rows of each source's test split,
	// not thinned (classes 5-9 keep their share).
	if len(task.SourceTest) != 3 {
		t.Fatalf("%d held-out source sets, want 3", len(task.SourceTest))
	}
	for i, h := range task.SourceTest {
		checkSubset(t, "held-out "+h.Domain, h, ds[i])
		if h.From != "test" || h.Len() != 150 {
			t.Errorf("held-out %s: %d rows from %s, want 150 from test", h.Domain, h.Len(), h.From)
		}
		hist := h.Histogram()
		if hist[7] < 8 || hist[2] < 8 {
			t.Errorf("held-out %s histogram %v: classes were thinned", h.Domain, hist)
		}
	}
	checkSubset(t, "target train", task.TargetTrain, ds[3])
	checkSubset(t, "target test", task.TargetTest, ds[3])
	if task.TargetTrain.Len() != 700 || task.TargetTest.Len() != 150 || task.TargetTest.From != "test" {
		t.Errorf("target: %d train, %d test from %s; want 700, 150 from test", task.TargetTrain.Len(), task.TargetTest.Len(), task.TargetTest.From)
	}
	// Same seed, same task; another seed, another draw.
	again, err := p.BuildFor(ds, "t", 42)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(task, again) {
		t.Error("the same seed gave two different tasks")
	}
	other, err := p.BuildFor(ds, "t", 43)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.Sources[0].Rows, task.Sources[0].Rows) {
		t.Error("seeds 42 and 43 drew the same source rows")
	}
	// A source's draw does not depend on which domain is the target.
	swapped, err := p.BuildFor(ds, "c", 42)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(swapped.Sources[0].Rows, task.Sources[0].Rows) {
		t.Error("source a's rows changed with the choice of target")
	}
}

func TestProtocolThinIsExact(t *testing.T) {
	d := toyDomain("a", 1000, 0, 2) // 500 of each class
	p := Protocol{DropClasses: []int{0}, DropRate: 0.5}
	rows := span(0, 1000)
	kept := p.thin(rows, d.Train.Y, newRand(1, "drop", "a"))
	if h := histogram(d.Train.Select(kept).Y, 2); !slices.Equal(h, []int{250, 500}) {
		t.Errorf("thinning 50%% of class 0 of 500+500 left %v, want [250 500]", h)
	}
}

func TestProtocolLimited(t *testing.T) {
	ds := toyDomains()
	p := Protocol{Scenario: Limited, TrainSize: 700, DropClasses: []int{0}, DropRate: 0.5, LabelledFraction: 0.1}
	task, err := p.BuildFor(ds, "t", 7)
	if err != nil {
		t.Fatal(err)
	}
	checkSubset(t, "labelled", task.TargetTrain, ds[3])
	checkSubset(t, "test", task.TargetTest, ds[3])
	if task.TargetTrain.Len() != 70 || task.TargetTest.Len() != 630 || task.TargetTest.From != "train" {
		t.Fatalf("limited target: %d labelled, %d test from %s; want 70, 630 from train", task.TargetTrain.Len(), task.TargetTest.Len(), task.TargetTest.From)
	}
	seen := map[int]bool{}
	for _, r := range append(slices.Clone(task.TargetTrain.Rows), task.TargetTest.Rows...) {
		if seen[r] {
			t.Fatalf("row %d is both labelled and test", r)
		}
		seen[r] = true
	}
}

// TestProtocolLimitedStratified draws the labelled tenth of every class of
// a target without a test split apart: round(0.1*n_c) of class c, the rest
// the test set, the draw fixed by the seed and changing with it.
func TestProtocolLimitedStratified(t *testing.T) {
	sizes := []int{8, 24, 13, 15} // 1, 2, 1 and 2 labelled
	tgt := Domain{Dataset: "toy", Name: "t"}
	var y []int
	for c, n := range sizes {
		for range n {
			y = append(y, c)
		}
	}
	x := make([]float32, len(y))
	for i := range x {
		x[i] = float32(i)
	}
	tgt.Train = Split{Dense: &Dense{N: len(y), Shape: []int{1}, X: x}, Y: y, NumClasses: 4}
	tgt.Test = Split{NumClasses: 4}
	src := toyDomain("s", 40, 0, 4)
	p := OfficeCaltechProtocol(Limited)
	draw := func(seed uint64) *Task {
		task, err := p.Build(tgt, []Domain{src}, seed)
		if err != nil {
			t.Fatal(err)
		}
		return task
	}
	a, b := draw(1), draw(2)
	for _, task := range []*Task{a, b} {
		if h := task.TargetTrain.Histogram(); !slices.Equal(h, []int{1, 2, 1, 2}) {
			t.Errorf("labelled per class %v, want [1 2 1 2]", h)
		}
		all := append(slices.Clone(task.TargetTrain.Rows), task.TargetTest.Rows...)
		slices.Sort(all)
		if !slices.Equal(all, span(0, len(y))) || task.TargetTest.Len() != len(y)-6 || !slices.IsSorted(task.TargetTest.Rows) {
			t.Errorf("labelled %v and test rows do not split the target's %d rows", task.TargetTrain.Rows, len(y))
		}
		if task.Sources[0].Len() != 40 {
			t.Errorf("source of %d rows, want all 40 (no thinning)", task.Sources[0].Len())
		}
	}
	if !slices.Equal(draw(1).TargetTrain.Rows, a.TargetTrain.Rows) || slices.Equal(a.TargetTrain.Rows, b.TargetTrain.Rows) {
		t.Errorf("seed 1 twice: %v, %v; seed 2: %v", a.TargetTrain.Rows, draw(1).TargetTrain.Rows, b.TargetTrain.Rows)
	}
	// In UDA the target's rows are its training sample and its test set.
	u, err := OfficeCaltechProtocol(UDA).Build(tgt, []Domain{src}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.TargetTrain.Rows, span(0, len(y))) || !slices.Equal(u.TargetTest.Rows, span(0, len(y))) {
		t.Errorf("uda target: train %d rows, test %d rows, want all %d in both", u.TargetTrain.Len(), u.TargetTest.Len(), len(y))
	}
}

func TestProtocolPartial(t *testing.T) {
	ds := toyDomains()
	p := Protocol{Scenario: Partial, KeepClasses: 4}
	task, err := p.BuildFor(ds, "t", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.Classes) != 4 || !slices.IsSorted(task.Classes) {
		t.Fatalf("classes %v, want 4 ascending", task.Classes)
	}
	for _, s := range []Subset{task.TargetTrain, task.TargetTest} {
		checkSubset(t, "partial target", s, ds[3])
		for c, n := range s.Histogram() {
			_, kept := slices.BinarySearch(task.Classes, c)
			if kept != (n > 0) {
				t.Errorf("%s split: class %d has %d samples, kept %v", s.From, c, n, kept)
			}
		}
	}
	if task.Sources[0].Len() != 1000 {
		t.Errorf("partial source has %d samples, want all 1000", task.Sources[0].Len())
	}
	var draws []string
	for seed := uint64(0); seed < 5; seed++ {
		tk, err := p.BuildFor(ds, "t", seed)
		if err != nil {
			t.Fatal(err)
		}
		draws = append(draws, fmt.Sprint(tk.Classes))
	}
	slices.Sort(draws)
	if len(slices.Compact(draws)) < 2 {
		t.Errorf("five seeds all kept the classes %v", draws[0])
	}
}

func TestProtocolErrors(t *testing.T) {
	ds := toyDomains()
	for _, tc := range []struct {
		name   string
		p      Protocol
		target string
	}{
		{"too many train samples", Protocol{TrainSize: 1000}, "t"},
		{"too many test samples", Protocol{TestSize: 500}, "t"},
		{"drop class out of range", Protocol{DropClasses: []int{10}, DropRate: 0.5}, "t"},
		{"drop rate", Protocol{DropClasses: []int{1}, DropRate: 1.5}, "t"},
		{"drop rate NaN", Protocol{DropClasses: []int{1}, DropRate: math.NaN()}, "t"},
		{"labelled fraction", Protocol{Scenario: Limited, LabelledFraction: 1}, "t"},
		{"keep classes", Protocol{Scenario: Partial, KeepClasses: 11}, "t"},
		{"unknown target", Protocol{}, "nope"},
		{"unknown scenario", Protocol{Scenario: Scenario(9)}, "t"},
	} {
		if _, err := tc.p.BuildFor(ds, tc.target, 1); err == nil {
			t.Errorf("%s: Build succeeded", tc.name)
		}
	}
	if _, err := (Protocol{}).Build(ds[0], nil, 1); err == nil {
		t.Error("Build without sources succeeded")
	}
	mixed := toyDomains()
	mixed[1].Train.NumClasses = 3
	if _, err := (Protocol{}).BuildFor(mixed, "t", 1); err == nil {
		t.Error("Build with differing class counts succeeded")
	}
}

func TestScenarioString(t *testing.T) {
	for s, want := range map[Scenario]string{UDA: "uda", Limited: "limited", Partial: "partial", 7: "Scenario(7)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(s), s.String(), want)
		}
	}
}

// TestProtocolPool checks the pooled split: every domain's training sample
// is drawn from its train and test splits together, the target is tested on
// the samples not drawn and each source's held-out set avoids its draw.
func TestProtocolPool(t *testing.T) {
	ds := toyDomains()
	p := Protocol{Scenario: UDA, TrainSize: 700, DropClasses: []int{5, 6, 7, 8, 9}, DropRate: 0.5, Pool: true}
	task, err := p.BuildFor(ds, "t", 9)
	if err != nil {
		t.Fatal(err)
	}
	tgt := ds[3]
	checkSubset(t, "target train", task.TargetTrain, tgt)
	checkSubset(t, "target test", task.TargetTest, tgt)
	if task.TargetTrain.From != "pool" || task.TargetTest.From != "pool" {
		t.Fatalf("target subsets from %q and %q, want pool", task.TargetTrain.From, task.TargetTest.From)
	}
	n := tgt.Train.Len() + tgt.Test.Len()
	if task.TargetTrain.Len() != 700 || task.TargetTest.Len() != n-700 {
		t.Fatalf("target: %d train and %d test samples, want 700 and %d", task.TargetTrain.Len(), task.TargetTest.Len(), n-700)
	}
	all := slices.Sorted(slices.Values(append(slices.Clone(task.TargetTrain.Rows), task.TargetTest.Rows...)))
	for i, r := range all {
		if r != i {
			t.Fatalf("target train and test rows do not partition the %d pooled samples (position %d holds %d)", n, i, r)
		}
	}
	fromTest := 0
	for _, r := range task.TargetTrain.Rows {
		if r >= tgt.Train.Len() {
			fromTest++
		}
	}
	if fromTest == 0 || fromTest == 700 {
		t.Errorf("%d of the 700 target training samples come from the test split: not a draw from both", fromTest)
	}
	for i, s := range task.Sources {
		checkSubset(t, "source", s, ds[i])
		checkSubset(t, "held-out", task.SourceTest[i], ds[i])
		in := map[int]bool{}
		for _, r := range s.Rows {
			in[r] = true
		}
		for _, r := range task.SourceTest[i].Rows {
			if in[r] {
				t.Fatalf("source %s: held-out row %d is also a training row", s.Domain, r)
			}
		}
	}

	// A test size draws from the samples not drawn for training.
	sized := p
	sized.TestSize = 100
	st, err := sized.BuildFor(ds, "t", 9)
	if err != nil {
		t.Fatal(err)
	}
	checkSubset(t, "sized target test", st.TargetTest, tgt)
	train := map[int]bool{}
	for _, r := range st.TargetTrain.Rows {
		train[r] = true
	}
	if st.TargetTest.Len() != 100 {
		t.Errorf("test size 100: %d target test samples", st.TargetTest.Len())
	}
	for _, r := range st.TargetTest.Rows {
		if train[r] {
			t.Fatalf("test size 100: target test row %d is also a training row", r)
		}
	}
	for i, s := range st.SourceTest {
		if s.Len() != 100 {
			t.Errorf("test size 100: source %d has %d held-out samples", i, s.Len())
		}
	}

	p.Scenario, p.LabelledFraction = Limited, 0.1
	if task, err = p.BuildFor(ds, "t", 9); err != nil {
		t.Fatal(err)
	}
	checkSubset(t, "labelled", task.TargetTrain, tgt)
	checkSubset(t, "limited test", task.TargetTest, tgt)
	if task.TargetTrain.Len() != 70 || task.TargetTest.Len() != 630 {
		t.Errorf("limited: %d labelled and %d test samples, want 70 and 630 of the 700 drawn", task.TargetTrain.Len(), task.TargetTest.Len())
	}
}

func TestConcatSplitsSparse(t *testing.T) {
	a := Split{NumClasses: 2, Y: []int{0, 1}, Sparse: &CSR{Rows: 2, Cols: 5, RowPtr: []int{0, 2, 3}, ColIdx: []int32{0, 3, 4}, Val: []float32{1, 2, 3}}}
	b := Split{NumClasses: 2, Y: []int{1}, Sparse: &CSR{Rows: 1, Cols: 5, RowPtr: []int{0, 2}, ColIdx: []int32{1, 2}, Val: []float32{4, 5}}}
	got, err := concatSplits(&a, &b)
	if err != nil {
		t.Fatal(err)
	}
	want := &CSR{Rows: 3, Cols: 5, RowPtr: []int{0, 2, 3, 5}, ColIdx: []int32{0, 3, 4, 1, 2}, Val: []float32{1, 2, 3, 4, 5}}
	if !got.Sparse.Equal(want) || !slices.Equal(got.Y, []int{0, 1, 1}) {
		t.Fatalf("concatenation: %+v labels %v, want %+v labels [0 1 1]", got.Sparse, got.Y, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if e, err := concatSplits(&a, &Split{NumClasses: 2}); err != nil || e.Len() != 2 {
		t.Errorf("appending an empty split gave %d samples (error %v), want 2", e.Len(), err)
	}
}

// TestConcatSplitsMismatch: splits that cannot be joined are refused, naming
// the difference, and pooling a domain whose splits differ names the domain.
func TestConcatSplitsMismatch(t *testing.T) {
	sparse := Split{NumClasses: 2, Y: []int{0}, Sparse: &CSR{Rows: 1, Cols: 5, RowPtr: []int{0, 1}, ColIdx: []int32{2}, Val: []float32{1}}}
	dense := func(k int, shape ...int) Split {
		n := 1
		for _, s := range shape {
			n *= s
		}
		return Split{NumClasses: k, Y: []int{1}, Dense: &Dense{N: 1, Shape: shape, X: make([]float32, n)}}
	}
	for _, c := range []struct {
		name string
		a, b Split
		want string
	}{
		{"sparse and dense", sparse, dense(2, 5), "sparse samples against dense"},
		{"dense and sparse", dense(2, 5), sparse, "dense samples against sparse"},
		{"classes", dense(2, 3, 2, 2), dense(10, 3, 2, 2), "2 classes against 10"},
		{"shapes", dense(10, 3, 2, 2), dense(10, 1, 2, 2), "shape [3 2 2] against [1 2 2]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := concatSplits(&c.a, &c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v (and %d samples), want one saying %q", err, got.Len(), c.want)
			}
			d := Domain{Name: "mixed", Train: c.a, Test: c.b}
			if _, err := pooled(d); err == nil || !strings.Contains(err.Error(), "domain mixed") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("pooling: error %v, want one naming domain mixed and %q", err, c.want)
			}
		})
	}
}

func TestConcatSplitsDense(t *testing.T) {
	shape := []int{3, 2, 2}
	grey := func(n int, scale float32, first uint8) Split {
		d := &Dense{N: n, Shape: shape, Scale: scale, Grey: true}
		for i := range n * 4 {
			d.Pix = append(d.Pix, first+uint8(i))
		}
		return Split{NumClasses: 10, Y: make([]int, n), Dense: d}
	}
	floats := func(n int) Split {
		d := &Dense{N: n, Shape: shape}
		for i := range n * 12 {
			d.X = append(d.X, -float32(i)/7)
		}
		return Split{NumClasses: 10, Y: make([]int, n), Dense: d}
	}
	for _, c := range []struct {
		name    string
		a, b    Split
		wantPix bool
	}{
		{"bytes", grey(2, 1, 0), grey(3, 1, 100), true},
		{"bytes and floats", grey(2, 1, 0), floats(2), false},
		{"other scales", grey(2, 1, 0), grey(1, 1.0/255, 50), false},
		{"floats", floats(1), floats(3), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := concatSplits(&c.a, &c.b)
			if err != nil {
				t.Fatal(err)
			}
			if err := got.Validate(); err != nil {
				t.Fatal(err)
			}
			if got.Len() != c.a.Len()+c.b.Len() || (got.Dense.Pix != nil) != c.wantPix {
				t.Fatalf("%d samples, bytes kept %v; want %d, %v", got.Len(), got.Dense.Pix != nil, c.a.Len()+c.b.Len(), c.wantPix)
			}
			for i := range got.Len() {
				src, j := c.a.Dense, i
				if i >= c.a.Len() {
					src, j = c.b.Dense, i-c.a.Len()
				}
				if g, w := got.Dense.Row(i, nil), src.Row(j, nil); !slices.Equal(g, w) {
					t.Errorf("sample %d: %v, want %v", i, g, w)
				}
			}
		})
	}
}

func TestPooledSources(t *testing.T) {
	task, err := toyUDA().BuildFor(toyDomains(), "t", 42)
	if err != nil {
		t.Fatal(err)
	}
	if len(task.SourceTest) != len(task.Sources) {
		t.Fatalf("the toy task has %d source test sets for %d sources", len(task.SourceTest), len(task.Sources))
	}
	concat := func(subs []Subset) (x []float32, y []int) {
		for _, s := range subs {
			x, y = append(x, s.Dense.X...), append(y, s.Y...)
		}
		return x, y
	}
	for _, c := range []struct {
		name     string
		dropTest bool // one source without its test set
	}{{"every source test set", false}, {"one missing", true}} {
		t.Run(c.name, func(t *testing.T) {
			in := *task
			in.SourceTest = slices.Clone(task.SourceTest)
			if c.dropTest {
				in.SourceTest = in.SourceTest[:2]
			}
			out, err := in.PooledSources()
			if err != nil {
				t.Fatal(err)
			}
			if len(in.Sources) != 3 {
				t.Fatalf("pooling changed the task it was given: %d sources", len(in.Sources))
			}
			if len(out.Sources) != 1 {
				t.Fatalf("%d sources after pooling, want 1", len(out.Sources))
			}
			s := out.Sources[0]
			if s.Domain != "a+b+c" || s.From != "pooled" || s.Rows != nil || s.NumClasses != 10 {
				t.Errorf("pooled source %q from %q, rows %v, %d classes", s.Domain, s.From, s.Rows, s.NumClasses)
			}
			x, y := concat(in.Sources)
			if !slices.Equal(s.Dense.X, x) || !slices.Equal(s.Y, y) || s.Dense.N != len(y) {
				t.Errorf("pooled samples are not the sources' in order (%d samples, want %d)", s.Len(), len(y))
			}
			if got := out.EpochSteps(20); got != len(y)/20 {
				t.Errorf("epoch of %d steps, want %d", got, len(y)/20)
			}
			switch {
			case c.dropTest && out.SourceTest != nil:
				t.Errorf("pooled %d source test sets with one missing", len(out.SourceTest))
			case !c.dropTest:
				x, y := concat(in.SourceTest)
				if len(out.SourceTest) != 1 || !slices.Equal(out.SourceTest[0].Dense.X, x) || !slices.Equal(out.SourceTest[0].Y, y) {
					t.Errorf("source test sets not pooled in order")
				}
			}
			if out.Target != in.Target || out.TargetTrain.Len() != in.TargetTrain.Len() || out.TargetTest.Len() != in.TargetTest.Len() {
				t.Errorf("pooling changed the target")
			}
		})
	}

	bad := *task
	bad.Sources = slices.Clone(task.Sources)
	bad.Sources[1].NumClasses = 3
	if _, err := bad.PooledSources(); err == nil || !strings.Contains(err.Error(), "source b") {
		t.Errorf("mismatched classes: err %v, want one naming source b", err)
	}
	if _, err := (&Task{}).PooledSources(); err == nil {
		t.Error("a task without sources pooled without error")
	}
}
