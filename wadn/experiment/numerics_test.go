package experiment

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/wadn-go/wadn/internal/numerics"
)

// TestNumericsRunsApart checks that runs in the reference numerics mode have
// an identity, a directory and a report row of their own, that the default
// mode's identity is as it was before the mode existed, and that Run sets
// the mode for its runs and restores it.
func TestNumericsRunsApart(t *testing.T) {
	out := t.TempDir()
	rn := &Runner{Out: out}
	def := smallSpecs(t, "source", []uint64{0}, nil)
	ref := smallSpecs(t, "source", []uint64{0}, map[string]string{"numerics": "reference"})
	if ref[0].Numerics != numerics.Reference || def[0].Numerics != numerics.Default {
		t.Fatalf("modes %v and %v from the plan", def[0].Numerics, ref[0].Numerics)
	}
	domains := fixtureDomains()
	idDef, err := def[0].Identity(domains)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(idDef)
	if strings.Contains(string(b), "numerics") {
		t.Errorf("the default mode's identity names the mode: %s", b)
	}
	idRef, err := ref[0].Identity(domains)
	if err != nil {
		t.Fatal(err)
	}
	if idRef.Key() == idDef.Key() || idRef.Numerics != "reference" {
		t.Errorf("reference identity %s (numerics %q), default %s", idRef.Key(), idRef.Numerics, idDef.Key())
	}
	back, err := SpecOf(idRef)
	if err != nil || back.Numerics != numerics.Reference {
		t.Fatalf("SpecOf: %v, %v", back, err)
	}

	a, err := rn.Run(context.Background(), def)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rn.Run(context.Background(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if numerics.Get() != numerics.Default {
		t.Errorf("Run left the process in the %s mode", numerics.Get())
	}
	if a[0].Dir == r[0].Dir {
		t.Fatalf("both modes in %s", a[0].Dir)
	}
	if got := r[0].Result.Environment[0].Numerics; got != "reference" {
		t.Errorf("the reference run's environment records numerics %q", got)
	}
	rep, err := Collect(out)
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, row := range rep.Rows {
		labels = append(labels, row.Name())
	}
	want := []string{
		"source [epochs 1, train-size 100, test-size 50, hidden 32,16,8]",
		"source [epochs 1, train-size 100, test-size 50, hidden 32,16,8, numerics reference]",
	}
	if d := cmp.Diff(want, labels); d != "" {
		t.Errorf("report rows (-want +got):\n%s", d)
	}
	// The experiment file of the reference run reads back to the same run.
	f, _ := json.Marshal(ref[0].File())
	p, err := ReadPlan(strings.NewReader(string(f)))
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Specs()
	if err != nil || len(again) != 1 || again[0].Numerics != numerics.Reference {
		t.Errorf("experiment file %s read back as %v, %v", f, again, err)
	}

	if _, err := rn.Run(context.Background(), append(def, ref...)); err == nil || !strings.Contains(err.Error(), "numerics") {
		t.Errorf("runs in two modes at once: error %v, want one naming the numerics modes", err)
	}
}

func TestPlanNumerics(t *testing.T) {
	for _, tc := range []struct{ file, err string }{
		{`{"numerics": "fast"}`, `"numerics": numerics: unknown mode "fast"`},
		{`{"numerics": 1}`, `"numerics": want "default" or "reference"`},
	} {
		_, err := ReadPlan(strings.NewReader(tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want %q", tc.file, err, tc.err)
		}
	}
	p := &Plan{}
	if err := p.Set("numerics", "reference"); err != nil || p.Numerics != numerics.Reference {
		t.Errorf("Set: %v, mode %v", err, p.Numerics)
	}
	if err := p.Set("numerics", "x"); err == nil {
		t.Error(`Set("numerics", "x") accepted`)
	}
}
