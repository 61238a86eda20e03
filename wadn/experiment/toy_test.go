package experiment

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/nn"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/method"
)

// A new method is a file like this one: its settings type, its algorithm,
// and a method.Method; plus one line in a registry (TestNewMethod adds it to
// Methods). This one trains on the sources alone, their cross-entropy
// scaled by its one setting.

// ToySettings are the toy method's settings.
type ToySettings struct {
	Scale float64 `setting:"toy-scale" help:"scale of the source cross-entropy"`
}

var toy = method.Define(method.About{Name: "toy", Scenarios: []data.Scenario{data.UDA}, Summary: "a toy: the sources' cross-entropy, scaled"},
	func(data.Scenario) ToySettings { return ToySettings{Scale: 1} },
	func(s *ToySettings) (method.Algorithm, error) { return &toyAlgo{s: *s}, nil })

type toyAlgo struct{ s ToySettings }

func (a *toyAlgo) Setup(r *method.Run) (params, buffers []nn.Param[float32], err error) {
	return nil, nil, nil
}

func (a *toyAlgo) Step(r *method.Run, epoch int) error {
	T, B := len(r.Task.Sources), r.Train.Batch
	z := r.Model.Features(r.Splits, r.Rows)
	logits := r.Model.Classifier.Forward(autodiff.Slice(z, 0, 0, T*B))
	var ys []int
	for t := range T {
		for _, row := range r.Rows[t] {
			ys = append(ys, r.Splits[t].Y[row])
		}
	}
	ce, err := autodiff.CrossEntropy(logits, ys, nil, autodiff.ReduceMean)
	if err != nil {
		return err
	}
	for t := range T {
		r.Sums.Class[t] += float64(ce.Item())
	}
	loss := autodiff.MulScalar(ce, float32(a.s.Scale))
	r.Sums.Loss += float64(loss.Item())
	return r.Update(loss, nil)
}

func (a *toyAlgo) EndEpoch(r *method.Run, epoch int, log *method.EpochLog) error { return nil }

// TestNewMethod registers the toy method with one line and runs it through
// the plan, the runner and the report, with its setting.
func TestNewMethod(t *testing.T) {
	saved := Methods
	defer func() { Methods = saved }()
	Methods = append(Methods, toy) // the registry line

	out := t.TempDir()
	specs := smallSpecs(t, "toy", []uint64{0, 1}, map[string]string{"toy-scale": "0.5"})
	outs, err := (&Runner{Out: out}).Run(context.Background(), specs)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if o.Result.Accuracy <= 0 || o.Result.Epochs != 1 {
			t.Errorf("toy seed %d: %+v", o.Spec.Seed, o.Result)
		}
	}
	rep, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| uda | amazon | toy [epochs 1, train-size 100, test-size 50, hidden 32,16,8, toy-scale 0.5] | kitchen | 2 |") {
		t.Errorf("report:\n%s", b.String())
	}
	// Its setting belongs to it alone.
	s, err := NewSpec(dataset.Amazon, data.UDA, "wadn")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("toy-scale", "2"); err == nil || !strings.Contains(err.Error(), "it is one of toy") {
		t.Errorf("toy-scale on wadn: %v", err)
	}
}
