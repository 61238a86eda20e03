package experiment

import (
	"context"
	"strconv"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/method"
)

// A method with log terms and a head of its own, in one file: a domain
// probe, a head the data set's network lays out, learns to tell each
// source's features from the target's; its loss is added to the sources'
// cross-entropy, and it logs the probe's loss ("probe", one value) and
// each source's mean probe output ("margin", per source).

// ProbeSettings are the probe method's settings.
type ProbeSettings struct {
	Weight float64 `setting:"probe-weight" range:"[0,inf)" help:"weight of the probe's loss"`
}

var probe = method.Define(method.About{Name: "probe", Scenarios: []data.Scenario{data.UDA},
	Summary: "a toy: the sources' cross-entropy and a domain probe's loss",
	Terms: []method.Term{
		{Name: "probe", Help: "the probe's binary cross-entropy, sources against target"},
		{Name: "margin", Help: "each source's mean probe output", PerSource: true},
	}},
	func(data.Scenario) ProbeSettings { return ProbeSettings{Weight: 0.1} },
	func(s *ProbeSettings) (method.Algorithm, error) { return &probeAlgo{s: *s}, nil })

type probeAlgo struct {
	s    ProbeSettings
	head nn.Module[float32]
}

func (a *probeAlgo) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	a.head = r.Net.NewHead(1, r.Init)
	return nn.Prefix("probe", a.head.Params()), nil, nil
}

func (a *probeAlgo) Step(r *method.Run, epoch int) error {
	T, B := len(r.Task.Sources), r.Train.Batch
	z := r.Model.Features(r.Splits, r.Rows)
	src := autodiff.Slice(z, 0, 0, T*B)
	var ys []int
	for t := range T {
		for _, row := range r.Rows[t] {
			ys = append(ys, r.Splits[t].Y[row])
		}
	}
	ce, err := autodiff.CrossEntropy(r.Model.Classifier.Forward(src), ys, nil, autodiff.ReduceMean)
	if err != nil {
		return err
	}
	out := a.head.Forward(z)
	labels := make([]float32, (T+1)*B)
	for i := range T * B {
		labels[i] = 1
	}
	bce, err := nn.BCEWithLogits(out, autodiff.New(labels, (T+1)*B, 1), nn.Mean)
	if err != nil {
		return err
	}
	d := out.Data()
	for t := range T {
		var m float64
		for _, v := range d[t*B : (t+1)*B] {
			m += float64(v)
		}
		r.Sums.Terms[1][t] += m / float64(B)
		r.Sums.Class[t] += float64(ce.Item())
	}
	r.Sums.Terms[0][0] += float64(bce.Item())
	loss := autodiff.Add(ce, autodiff.MulScalar(bce, float32(a.s.Weight)))
	r.Sums.Loss += float64(loss.Item())
	return r.Update(loss, nil)
}

func (a *probeAlgo) EndEpoch(*method.Run, int, *method.EpochLog) error { return nil }

// TestMethodTerms registers the probe method and checks that its terms
// reach its epoch log, under their names and shapes, and report --csv's
// columns, and that the columns of no other method's terms appear.
func TestMethodTerms(t *testing.T) {
	saved := Methods
	defer func() { Methods = saved }()
	Methods = append(Methods, probe)

	out := t.TempDir()
	outs, err := (&Runner{Out: out}).Run(context.Background(), smallSpecs(t, "probe", []uint64{0}, nil))
	if err != nil {
		t.Fatal(err)
	}
	hist, err := ReadHistory(outs[0].Dir)
	if err != nil || len(hist) != 1 {
		t.Fatalf("epoch log: %v, %d lines", err, len(hist))
	}
	if p, m := hist[0].Term("probe"), hist[0].Term("margin"); len(p) != 1 || !(p[0] > 0) || len(m) != 3 {
		t.Fatalf("epoch log's terms: %+v", hist[0].Terms)
	}
	recs, col := reportCSV(t, out)
	var srcs []string // every other domain, in order
	for _, d := range outs[0].Spec.Dataset.Domains {
		if d != outs[0].Spec.Target {
			srcs = append(srcs, d)
		}
	}
	for name, want := range map[string]float64{"probe": hist[0].Term("probe")[0], "margin." + srcs[2]: hist[0].Term("margin")[2]} {
		i, ok := col[name]
		if !ok {
			t.Errorf("no column %s in %v", name, recs[0])
			continue
		}
		if got, err := strconv.ParseFloat(recs[1][i], 64); err != nil || got != want {
			t.Errorf("%s = %q, want %v", name, recs[1][i], want)
		}
	}
	for _, other := range []string{"implicit." + srcs[0], "explicit." + srcs[0], "domain"} {
		if _, ok := col[other]; ok {
			t.Errorf("column %s, a term the probe method does not have", other)
		}
	}
}
