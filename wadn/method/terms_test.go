package method

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEpochLogJSON checks that a line is written with the method's terms by
// name, in their order, between class and accuracy (an array per source, a
// number for one value), and reads back as it was.
func TestEpochLogJSON(t *testing.T) {
	l := EpochLog{Epoch: 2, Loss: 0.5, Class: []float64{0.25, 0.75},
		Terms: []Value{
			{Name: "domain", V: []float64{1.5}},
			{Name: "gap", V: []float64{0.125, -0.5}, PerSource: true},
		},
		Accuracy: 61.5, Lambda: []float64{0.5, 0.5}, Alpha: [][]float64{{1, 1}, {1, 1}},
		AlphaError: []float64{0, 0}, TargetDist: []float64{0.5, 0.5}, Seconds: 3}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"epoch":2,"loss":0.5,"class":[0.25,0.75],"domain":1.5,"gap":[0.125,-0.5],"accuracy":61.5,` +
		`"lambda":[0.5,0.5],"alpha":[[1,1],[1,1]],"alpha_error":[0,0],"target_dist":[0.5,0.5],"seconds":3}`
	if string(b) != want {
		t.Fatalf("marshalled\n %s\nwant\n %s", b, want)
	}
	var back EpochLog
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(l, back); d != "" {
		t.Errorf("read back (-wrote +read):\n%s", d)
	}
	for _, bad := range []string{`{"epoch":1,"domain":"x"}`, `{"epoch":1,"domain":[1,"x"]}`, `{"epoch":1,`, `[1]`} {
		if err := json.Unmarshal([]byte(bad), &back); err == nil {
			t.Errorf("%s: read without an error", bad)
		}
	}
}

// TestCanonical checks that a line written before the methods named their
// terms reads as one written now: each term from the slot it was kept in,
// a term of one value from the slot's first value, unread slots dropped.
func TestCanonical(t *testing.T) {
	terms := []Term{
		{Name: "moment", PerSource: true, Was: "explicit"},
		{Name: "discrepancy", Was: "implicit"},
	}
	old := `{"epoch":1,"loss":1,"class":[1,2],"explicit":[0.5,0.25],"implicit":[3,3],"penalty":[0,0],"accuracy":50}`
	now := `{"epoch":1,"loss":1,"class":[1,2],"moment":[0.5,0.25],"discrepancy":3,"accuracy":50}`
	var a, b EpochLog
	if err := json.Unmarshal([]byte(old), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(now), &b); err != nil {
		t.Fatal(err)
	}
	Canonical(terms, &a)
	Canonical(terms, &b)
	if d := cmp.Diff(b, a); d != "" {
		t.Errorf("the old line reads otherwise than the new (-new +old):\n%s", d)
	}
	// A term of one value that kept its slot's name (MDMN's penalty).
	mdmn := []Term{{Name: "critic", Was: "implicit"}, {Name: "penalty", Was: "penalty"}}
	var m EpochLog
	if err := json.Unmarshal([]byte(`{"epoch":1,"implicit":[2,2],"penalty":[0.5,0.5],"explicit":[0,0]}`), &m); err != nil {
		t.Fatal(err)
	}
	Canonical(mdmn, &m)
	want := []Value{{Name: "critic", V: []float64{2}}, {Name: "penalty", V: []float64{0.5}}}
	if d := cmp.Diff(want, m.Terms); d != "" {
		t.Errorf("MDMN's old line (-want +got):\n%s", d)
	}
	// WADN's terms kept their names: its old lines are its new lines.
	wadn := []Term{{Name: "explicit", PerSource: true}, {Name: "implicit", PerSource: true}, {Name: "penalty", PerSource: true}}
	var w EpochLog
	if err := json.Unmarshal([]byte(old), &w); err != nil {
		t.Fatal(err)
	}
	Canonical(wadn, &w)
	if got := len(w.Terms); got != 3 || w.Term("implicit")[1] != 3 {
		t.Errorf("WADN's line lost its terms: %+v", w.Terms)
	}
}

// TestSumsCheckpoint checks that the epoch's sums survive a checkpoint by
// name, that a checkpoint written before the methods named their terms
// restores them from their slots, and that a checkpoint of another
// method's terms is refused.
func TestSumsCheckpoint(t *testing.T) {
	terms := []Term{{Name: "domain", Was: "implicit"}, {Name: "gap", PerSource: true, Was: "explicit"}}
	s := newSums(terms, 2, 2)
	s.Loss, s.Terms[0][0], s.Terms[1][1] = 4, 1.5, 2.5
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	back := newSums(terms, 2, 2)
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s.Terms, back.Terms); d != "" || back.Loss != 4 {
		t.Errorf("restored sums differ (-saved +restored):\n%s", d)
	}
	legacy := `{"loss":4,"class":[0,0],"explicit":[0,2.5],"implicit":[1.5,1.5],"penalty":[0,0],"conf":[],"pred":[0,0]}`
	old := newSums(terms, 2, 2)
	if err := json.Unmarshal([]byte(legacy), &old); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(s.Terms, old.Terms); d != "" {
		t.Errorf("sums from a checkpoint of before (-want +got):\n%s", d)
	}
	other := newSums([]Term{{Name: "entropy"}}, 2, 2)
	if err := json.Unmarshal(b, &other); err == nil || !strings.Contains(err.Error(), "entropy") {
		t.Errorf("another method's sums restored: %v", err)
	}
}

// TestCheckTerms checks that a declaration the log could not hold is
// refused.
func TestCheckTerms(t *testing.T) {
	for _, c := range []struct {
		terms []Term
		ok    bool
	}{
		{[]Term{{Name: "domain"}, {Name: "gap", PerSource: true}}, true},
		{[]Term{{Name: ""}}, false},
		{[]Term{{Name: "accuracy"}}, false},
		{[]Term{{Name: "class"}}, false},
		{[]Term{{Name: "a"}, {Name: "a"}}, false},
		{[]Term{{Name: "a", Was: "critic"}}, false},
	} {
		if err := checkTerms(c.terms); (err == nil) != c.ok {
			t.Errorf("%+v: error %v, want ok %v", c.terms, err, c.ok)
		}
	}
}
