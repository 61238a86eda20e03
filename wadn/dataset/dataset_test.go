package dataset

import (
	"strings"
	"testing"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]*Dataset{"amazon": Amazon, "digits": Digits, "office-home": OfficeHome, "officehome": OfficeHome,
		"office-caltech": OfficeCaltech, "office-caltech10": OfficeCaltech} {
		d, err := Lookup(name)
		if err != nil || d != want {
			t.Errorf("Lookup(%q) = %v, %v", name, d, err)
		}
	}
	if _, err := Lookup("cifar"); err == nil || !strings.Contains(err.Error(), "amazon, digits, office-caltech, office-home") {
		t.Errorf("Lookup(cifar): %v", err)
	}
}

// TestProtocols checks that each data set's settings give the paper's
// protocol at their defaults and reach it when changed.
func TestProtocols(t *testing.T) {
	for _, ds := range All {
		for _, sc := range ds.Scenarios {
			paper := ds.PaperProtocol(sc)
			got := ds.Protocol(sc, ds.Settings())
			if got.Pool != paper.Pool || got.TrainSize != paper.TrainSize || got.TestSize != paper.TestSize ||
				got.DropRate != paper.DropRate || got.LabelledFraction != paper.LabelledFraction {
				t.Errorf("%s %s: defaults give %+v, the paper's protocol is %+v", ds, sc, got, paper)
			}
		}
	}
	s := Digits.Settings()
	fs := settings.Fields(s)
	for name, v := range map[string]string{"split": "pool", "train-size": "500", "test-size": "all", "keep-classes": "3", "pixels": "unit",
		"shift": "0.2", "label-fraction": "0.03"} {
		f, err := settings.Lookup(fs, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	p := Digits.Protocol(data.Partial, s)
	if !p.Pool || p.TrainSize != 500 || p.TestSize != 0 || p.KeepClasses != 3 || p.DropRate != 0.2 || p.LabelledFraction != 0.03 {
		t.Errorf("changed settings give %+v", p)
	}
	if s.(*DigitsSettings).Pixels != data.Unit {
		t.Error("pixels not set")
	}
	if Digits.Settings().(*DigitsSettings).KeepClasses != 5 {
		t.Error("digits partial should keep 5 of the 10 classes by default")
	}
}

func TestSizeAndSplitText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Size
		ok   bool
	}{{"all", Every, true}, {"2000", 2000, true}, {"0", 0, false}, {"-3", 0, false}, {"x", 0, false}} {
		var n Size
		err := n.UnmarshalText([]byte(tc.in))
		if (err == nil) != tc.ok || (tc.ok && n != tc.want) {
			t.Errorf("Size %q: %v %v", tc.in, n, err)
		}
		if tc.ok {
			if b, _ := n.MarshalText(); string(b) != tc.in {
				t.Errorf("Size %q writes back as %q", tc.in, b)
			}
		}
	}
	var s SplitRule
	if err := s.UnmarshalText([]byte("fixed")); err != nil || s != Fixed {
		t.Errorf("split fixed: %v %v", s, err)
	}
	if err := s.UnmarshalText([]byte("random")); err == nil {
		t.Error("split random accepted")
	}
}
