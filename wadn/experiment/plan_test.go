package experiment

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// specNames describes specs as "dataset scenario method target [label] seed".
func specNames(specs []*Spec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, fmt.Sprintf("%s %s %s %s [%s] %d", s.Dataset, s.Scenario, s.Method.Name, s.Target, s.Label(), s.Seed))
	}
	return out
}

func TestPlanExpands(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"defaults", `{}`, []string{"amazon uda wadn kitchen [] 0"}},
		{"seeds and a setting", `{"seeds": [2, 0], "c0": 0.05}`, []string{
			"amazon uda wadn kitchen [c0 0.05] 2", "amazon uda wadn kitchen [c0 0.05] 0"}},
		{"seeds as text", `{"seeds": "3,4", "target": "books"}`, []string{
			"amazon uda wadn books [] 3", "amazon uda wadn books [] 4"}},
		{"a grid; settings only where read", `{"method": ["wadn", "source"], "target": ["books", "dvd"], "c0": [0.01, 0.02], "lr": [0.5, 1]}`, []string{
			"amazon uda wadn books [c0 0.01] 0", "amazon uda wadn books [lr 1, c0 0.01] 0",
			"amazon uda wadn books [] 0", "amazon uda wadn books [lr 1] 0",
			"amazon uda wadn dvd [c0 0.01] 0", "amazon uda wadn dvd [lr 1, c0 0.01] 0",
			"amazon uda wadn dvd [] 0", "amazon uda wadn dvd [lr 1] 0",
			"amazon uda source books [] 0", "amazon uda source books [lr 1] 0",
			"amazon uda source dvd [] 0", "amazon uda source dvd [lr 1] 0",
		}},
		{"methods outside their scenarios are left out", `{"scenario": ["uda", "limited"], "method": ["mme", "source"], "epochs": 2}`, []string{
			"amazon uda source kitchen [epochs 2] 0",
			"amazon limited mme kitchen [epochs 2] 0", "amazon limited source kitchen [epochs 2] 0",
		}},
		{"a list-valued setting takes lists", `{"hidden": [[10, 5], [20]], "depth": 1}`, []string{
			"amazon uda wadn kitchen [hidden 10,5, depth 1] 0", "amazon uda wadn kitchen [hidden 20, depth 1] 0"}},
		{"one list value is one value", `{"hidden": [10, 5], "depth": 2}`, []string{"amazon uda wadn kitchen [hidden 10,5, depth 2] 0"}},
		{"data sets", `{"dataset": ["amazon", "digits"], "scenario": "partial", "method": "source"}`, []string{
			"digits partial source mnist [] 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadPlan(strings.NewReader(tc.file))
			if err != nil {
				t.Fatal(err)
			}
			specs, err := p.Specs()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, specNames(specs)); d != "" {
				t.Errorf("runs (-want +got):\n%s", d)
			}
		})
	}
}

func TestPlanRefuses(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{`[1]`, "not a JSON object"},
		{`{"seeds": [1, 1]}`, "seed 1 is given twice"},
		{`{"seeds": [-1]}`, `"seeds"`},
		{`{"method": []}`, `"method": want a string or a non-empty list`},
		{`{"c0": []}`, `"c0": want a value or a non-empty list`},
		{`{"mu": 0.1}`, "mu is not a setting of method wadn on amazon (it is one of dann, mdan, mdmn, darn)"},
		{`{"method": "source", "c0": 0.1}`, "c0 is not a setting of method source"},
		{`{"scenario": "limited", "c2": 0.1}`, "c2 is not read in the limited scenario"},
		{`{"c0": "x"}`, `c0: "x" is not a number`},
		{`{"c0": NaN}`, "not a JSON object"},
		{`{"explicit": "papers"}`, `explicit: "papers" is not one of paper, squared, code`},
		{`{"method": "mme"}`, "method mme runs in the limited scenario(s), not uda"},
		{`{"dataset": "amazon", "scenario": "partial"}`, "amazon is not run in the partial scenario"},
		{`{"dataset": "cifar"}`, `unknown data set "cifar"`},
		{`{"nonsense": 1}`, "nonsense is no setting"},
		// Read strictly: what a lax decoder would take without a word.
		{`{"seeds": [0], "seeds": [5]}`, `"seeds" is given twice`},
		{`{"hidden": [[1, 2]], "lr": 1, "hidden": [[3]]}`, `"hidden" is given twice`},
		{`{"seeds": [0]} {"seeds": [5]}`, "content after the object (\"{\" at byte 16)"},
		{`{"seeds": [0]} x`, "after the object"},
		{`{"seeds": [0]}]`, "after the object"},
		{`null`, "not a JSON object of settings: the file holds null"},
		{`"amazon"`, `the file holds the string "amazon"`},
		{``, "not a JSON object"},
		{`{"seeds": null}`, `"seeds": null is not a value`},
		{`{"lr": [1, null]}`, `"lr[1]": null is not a value`},
		{`{"target": ["books", null]}`, `"target[1]": null is not a value`},
		{`{"x": {"a": 1, "a": 2}}`, `"x.a" is given twice`},
		{strings.Repeat(" ", MaxPlanFile) + `{}`, "more than 1048576 bytes"},
		// 10^6 runs, refused before any is built.
		{`{"seeds": [0,1,2,3,4,5,6,7,8,9], "lr": [1,2,3,4,5,6,7,8,9,10], "c0": [1,2,3,4,5,6,7,8,9,10], "c2": [1,2,3,4,5,6,7,8,9,10],
		  "gp": [1,2,3,4,5,6,7,8,9,10], "eps": [0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]}`, "more than 10000 runs"},
		{`{"seeds": [0,1,2,3,4,5,6,7,8,9,10], "lr": [1,2,3,4,5,6,7,8,9,10], "c0": [1,2,3,4,5,6,7,8,9,10], "c2": [1,2,3,4,5,6,7,8,9,10]}`, "more than 10000 runs"},
	} {
		p, err := ReadPlan(strings.NewReader(tc.file))
		if err == nil {
			_, err = p.Specs()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.file, err, tc.want)
		}
	}
	p, _ := ReadPlan(strings.NewReader(`{"lr": 0.1, "method": "wadn", "mu": 1}`))
	if _, err := p.Specs(); !errors.Is(err, ErrNotASetting) {
		t.Errorf("mu for wadn: %v, want ErrNotASetting", err)
	}
}

func TestParseSeeds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []uint64
		err  string
	}{
		{"0", []uint64{0}, ""},
		{" 3, 1 ,2", []uint64{3, 1, 2}, ""},
		{"1,x", nil, `"x" is not a seed`},
		{"2,1,2", nil, "seed 2 is given twice"},
		{"", nil, `"" is not a seed`},
	} {
		got, err := ParseSeeds(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tc.want) {
			t.Errorf("%q: %v %v, want %v", tc.in, got, err, tc.want)
		}
	}
}
