package experiment

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/internal/fixture"
	"github.com/wadn-go/wadn/wadn/method"
)

// unreadValues holds, for every setting some scenario does not read, a
// valid value other than its default.
var unreadValues = map[string]string{
	"c2": "0.2", "alpha-keep": "0.5", "alpha-start": "1", "alpha": "eval",
	"soft-estimate": "true", "pseudo-threshold": "0.6",
	"target-weight": "1", "transductive": "true", "keep-classes": "1",
}

// TestMethodsIgnoreUnreadSettings checks the scenarios tags against
// training: every method, in every scenario it runs in, trains exactly as
// with the defaults when every setting of its own and of the training that
// the scenario does not read is changed, and differently when a setting it
// reads (the learning rate) is changed as well. A failure names the
// settings that change the run one by one.
func TestMethodsIgnoreUnreadSettings(t *testing.T) {
	for _, m := range Methods {
		for _, sc := range m.Scenarios {
			t.Run(m.Name+"-"+sc.String(), func(t *testing.T) {
				run := func(change map[string]string, lr float64) []method.EpochLog {
					t.Helper()
					tr := fixture.Train()
					tr.Epochs, tr.LR = 2, lr
					s := m.Settings(dataset.Amazon, sc)
					for _, f := range settings.Fields(&tr, s) {
						if v, ok := change[f.Name]; ok {
							if err := f.Set(v); err != nil {
								t.Fatal(err)
							}
						}
					}
					res, err := method.Execute(context.Background(), method.Config{Method: m, Settings: s, Task: fixture.Task(), Scenario: sc, Net: fixture.Net(), Train: tr}, method.Options{Seed: 5})
					if err != nil {
						t.Fatal(err)
					}
					for i := range res.History {
						res.History[i].Seconds = 0
					}
					return res.History
				}
				tr := fixture.Train()
				unread := map[string]string{}
				for _, f := range settings.Fields(&tr, m.Settings(dataset.Amazon, sc)) {
					if f.Reads(sc.String()) {
						continue
					}
					v, ok := unreadValues[f.Name]
					if !ok {
						t.Fatalf("no test value for setting %s", f.Name)
					}
					unread[f.Name] = v
				}
				want := run(nil, tr.LR)
				if got := run(unread, tr.LR); !cmp.Equal(got, want) {
					for k, v := range unread {
						if !cmp.Equal(run(map[string]string{k: v}, tr.LR), want) {
							t.Errorf("%s changes the %s run, but its scenarios tag leaves %s out", k, sc, sc)
						}
					}
				}
				if got := run(unread, tr.LR/2); cmp.Equal(got, want) {
					t.Errorf("half the learning rate leaves the %s run unchanged", sc)
				}
			})
		}
	}
}

// TestKeepClassesReadInPartialOnly checks the data sets' setting of the
// partial scenario: the task drawn in another scenario is the same whatever
// keep-classes says.
func TestKeepClassesReadInPartialOnly(t *testing.T) {
	domains := fixtureDomains()
	for _, sc := range []data.Scenario{data.UDA, data.Limited, data.Partial} {
		draw := func(keep string) *data.Task {
			s := dataset.Digits.Settings()
			f, err := settings.Lookup(settings.Fields(s), "keep-classes")
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Set(keep); err != nil {
				t.Fatal(err)
			}
			p := dataset.Digits.Protocol(sc, s)
			p.TrainSize, p.TestSize, p.DropClasses = 30, 10, nil
			task, err := p.BuildFor(domains, "kitchen", 1)
			if err != nil {
				t.Fatal(err)
			}
			return task
		}
		one, two := draw("1"), draw("2")
		if same := cmp.Equal(one.TargetTrain.Rows, two.TargetTrain.Rows); same != (sc != data.Partial) {
			t.Errorf("%s: keep-classes 1 and 2 draw the same target: %v", sc, same)
		}
	}
}

// fixtureDomains returns four domains of three classes made from the
// fixture's rows, named as Amazon's.
func fixtureDomains() []data.Domain {
	var out []data.Domain
	for i, name := range dataset.Amazon.Loaded {
		tr := fixture.Sparse(name, 60, 0.5, 3*i, uint64(10+i))
		te := fixture.Sparse(name, 30, 0.5, 3*i, uint64(20+i))
		for _, s := range []*data.Subset{&tr, &te} {
			s.NumClasses = 3
			for j := range s.Y {
				if j%3 == 2 {
					s.Y[j] = 2
				}
			}
		}
		out = append(out, data.Domain{Dataset: "amazon", Name: name, Train: tr.Split, Test: te.Split})
	}
	return out
}
