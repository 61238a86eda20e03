package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// form is an enumeration for the tests.
type form int

const (
	paper form = iota
	squared
)

var formNames = []string{"paper", "squared"}

func (f form) MarshalText() ([]byte, error) {
	if int(f) < 0 || int(f) >= len(formNames) {
		return nil, fmt.Errorf("form %d", int(f))
	}
	return []byte(formNames[f]), nil
}

func (f *form) UnmarshalText(b []byte) error {
	for i, n := range formNames {
		if n == string(b) {
			*f = form(i)
			return nil
		}
	}
	return fmt.Errorf("unknown form %q", b)
}

func (form) Values() []string { return formNames }

type method struct {
	C0     float64 `setting:"c0" help:"weight"`
	Start  int     `setting:"start"`
	Soft   bool    `setting:"soft"`
	Form   form    `setting:"form"`
	Hidden []int   `setting:"hidden"`
	Name   string  `setting:"name"`
	C2     float64 `setting:"c2" scenarios:"uda partial"`
	other  int
}

type common struct {
	Epochs int `setting:"epochs"`
}

// withNet embeds a struct whose settings become its own.
type withNet struct {
	Split string `setting:"split"`
	net
	Extra int // no tag: not a setting
}

type net struct {
	Depth int `setting:"depth"`
}

func TestFieldsSetAndString(t *testing.T) {
	m, c := &method{C0: 0.02, Hidden: []int{1000, 500}}, &common{Epochs: 50}
	fs := Fields(m, c)
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	if d := cmp.Diff([]string{"c0", "start", "soft", "form", "hidden", "name", "c2", "epochs"}, names); d != "" {
		t.Fatalf("names (-want +got):\n%s", d)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"c0", "1e-3", "0.001"},
		{"c0", " 0.5", "0.5"},
		{"start", "20", "20"},
		{"soft", "true", "true"},
		{"form", "squared", "squared"},
		{"hidden", "100, 50,2", "100,50,2"},
		{"hidden", "", ""},
		{"name", "a b", "a b"},
		{"epochs", "7", "7"},
	} {
		f, err := Lookup(fs, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Set(tc.in); err != nil {
			t.Errorf("Set(%s, %q): %v", tc.name, tc.in, err)
			continue
		}
		if got := f.String(); got != tc.want {
			t.Errorf("Set(%s, %q) then String() = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
	if m.C0 != 0.5 || m.Start != 20 || !m.Soft || m.Form != squared || m.Hidden != nil || c.Epochs != 7 {
		t.Errorf("the structs were not set: %+v %+v", m, c)
	}
}

func TestEmbedded(t *testing.T) {
	w := &withNet{Split: "pool", net: net{Depth: 3}}
	fs := Fields(w)
	if got := Values(fs); !cmp.Equal(got, map[string]string{"split": "pool", "depth": "3"}) {
		t.Fatalf("Values = %v", got)
	}
	f, _ := Lookup(fs, "depth")
	if err := f.Set("1"); err != nil || w.Depth != 1 {
		t.Errorf("Set(depth, 1) = %v, Depth %d", err, w.Depth)
	}
}

func TestSetRefuses(t *testing.T) {
	m := &method{C0: 0.02, Form: paper}
	fs := Fields(m)
	for _, tc := range []struct{ name, in, want string }{
		{"c0", "NaN", "c0: NaN is not a finite number"},
		{"c0", "+Inf", "c0: +Inf is not a finite number"},
		{"c0", "abc", `c0: "abc" is not a number`},
		{"start", "1.5", `start: "1.5" is not an integer`},
		{"soft", "yes", `soft: "yes" is not true or false`},
		{"form", "code", `form: "code" is not one of paper, squared`},
		{"hidden", "1,x", `hidden: "1,x" is not a comma-separated list of integers`},
	} {
		f, _ := Lookup(fs, tc.name)
		err := f.Set(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("Set(%s, %q) = %v, want %q", tc.name, tc.in, err, tc.want)
		}
	}
	if m.C0 != 0.02 || m.Form != paper {
		t.Errorf("a refused value changed the struct: %+v", m)
	}
	if _, err := Lookup(fs, "mu"); !errors.Is(err, ErrUnknown) {
		t.Errorf("Lookup(mu) = %v, want ErrUnknown", err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	m := &method{C0: 0.1 + 0.2, Start: 3, Soft: true, Form: squared, Hidden: []int{4, 5}, Name: "x"}
	b, err := json.Marshal(Map(Fields(m)))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	back := &method{}
	fs := Fields(back)
	for name, v := range raw {
		f, err := Lookup(fs, name)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.SetJSON(v); err != nil {
			t.Fatalf("SetJSON(%s, %s): %v", name, v, err)
		}
	}
	if d := cmp.Diff(m, back, cmp.AllowUnexported(method{})); d != "" {
		t.Errorf("round trip through %s (-want +got):\n%s", b, d)
	}
	// Strings are read as text, whatever the kind.
	f, _ := Lookup(fs, "c0")
	if err := f.SetJSON(json.RawMessage(`"0.25"`)); err != nil || back.C0 != 0.25 {
		t.Errorf(`SetJSON(c0, "0.25") = %v, C0 %v`, err, back.C0)
	}
	if err := f.SetJSON(json.RawMessage(`[1]`)); err == nil {
		t.Error("SetJSON(c0, [1]) accepted a list")
	}
	// An enumeration takes its names, as strings; a list is refused.
	g, _ := Lookup(fs, "form")
	if err := g.SetJSON(json.RawMessage(`["paper"]`)); err == nil || !strings.Contains(err.Error(), "not a single value") {
		t.Errorf(`SetJSON(form, ["paper"]) = %v`, err)
	}
	if err := g.SetJSON(json.RawMessage(`1`)); err == nil {
		t.Error("SetJSON(form, 1) accepted a number")
	}
}

func TestTypesAndScenarios(t *testing.T) {
	fs := Fields(&method{})
	want := map[string]string{"c0": "number", "start": "integer", "soft": "true|false", "form": "paper|squared",
		"hidden": "integers, comma-separated", "name": "text", "c2": "number"}
	for _, f := range fs {
		if f.Type() != want[f.Name] {
			t.Errorf("%s: Type() = %q, want %q", f.Name, f.Type(), want[f.Name])
		}
		if f.IsBool() != (f.Name == "soft") {
			t.Errorf("%s: IsBool() = %v", f.Name, f.IsBool())
		}
		reads := f.Reads("limited")
		if reads != (f.Name != "c2") {
			t.Errorf("%s: Reads(limited) = %v", f.Name, reads)
		}
		if !f.Reads("uda") {
			t.Errorf("%s: Reads(uda) = false", f.Name)
		}
	}
}

func TestFieldsPanicsOnBadDeclarations(t *testing.T) {
	type dup struct {
		A int `setting:"a"`
		B int `setting:"a"`
	}
	type bad struct {
		M map[string]int `setting:"m"`
	}
	type badRecord struct {
		A int `setting:"a" record:"always"`
	}
	for name, p := range map[string]any{"duplicate": &dup{}, "map": &bad{}, "not a pointer": method{}, "record tag": &badRecord{}} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: Fields did not panic", name)
				}
			}()
			Fields(p)
		}()
	}
	// Two structs may not share a name either.
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), `"epochs"`) {
				t.Errorf("a name in two structs: recovered %v", r)
			}
		}()
		Fields(&common{}, &common{})
	}()
}

func TestDiff(t *testing.T) {
	was := map[string]string{"c0": "0.02", "eps": "0.5", "old": "1"}
	now := map[string]string{"c0": "0.05", "eps": "0.5", "new": "2"}
	got := Diff(was, now, []string{"eps", "c0"})
	want := []Change{{"c0", "0.02", "0.05"}, {"new", "", "2"}, {"old", "1", ""}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
}

func TestEnumHelpers(t *testing.T) {
	names := []string{"paper", "squared", "code"}
	for i, n := range names {
		b, err := EnumText(names, i, "form")
		if err != nil || string(b) != n {
			t.Errorf("EnumText(%d) = %q, %v", i, b, err)
		}
		var got int
		if err := ParseEnum(names, []byte(n), &got); err != nil || got != i {
			t.Errorf("ParseEnum(%q) = %d, %v", n, got, err)
		}
	}
	if _, err := EnumText(names, 3, "form"); err == nil || err.Error() != "unknown form 3" {
		t.Errorf("EnumText(3) = %v", err)
	}
	got := 1
	if err := ParseEnum(names, []byte("Paper"), &got); err == nil || got != 1 || !strings.Contains(err.Error(), "paper, squared, code") {
		t.Errorf(`ParseEnum("Paper") = %v, left %d`, err, got)
	}
}

// later is a settings struct that gained settings after runs were
// recorded: form at its zero value, shift at 0.5.
type later struct {
	C0    float64 `setting:"c0"`
	Form  form    `setting:"form" record:"omitzero"`
	Shift float64 `setting:"shift" record:"omit=0.5" range:"[0,1]"`
}

func TestRecordedAndRestore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		have    later
		want    map[string]any
		restore later // what a struct holding start restores from want
	}{
		{"zero left out", later{C0: 0.5, Form: paper, Shift: 0.5}, map[string]any{"c0": 0.5}, later{C0: 0.5, Form: paper, Shift: 0.5}},
		{"non-zero kept", later{C0: 0.5, Form: squared, Shift: 0.5}, map[string]any{"c0": 0.5, "form": "squared"}, later{C0: 0.5, Form: squared, Shift: 0.5}},
		// shift is left out at 0.5 only: its zero is recorded.
		{"omit value kept apart", later{C0: 0.5, Shift: 0}, map[string]any{"c0": 0.5, "shift": 0.0}, later{C0: 0.5}},
		{"other value kept", later{C0: 0.5, Shift: 0.8}, map[string]any{"c0": 0.5, "shift": 0.8}, later{C0: 0.5, Shift: 0.8}},
	} {
		rec := Recorded(Fields(&tc.have))
		if !cmp.Equal(rec, tc.want) {
			t.Errorf("%s: recorded %v, want %v", tc.name, rec, tc.want)
		}
		// The struct restored into starts from other values (a data set's
		// defaults): a recorded value and a missing omitzero one replace
		// them.
		got := later{C0: 9, Form: squared, Shift: 0.25}
		if err := Restore(Fields(&got), rec); err != nil || got != tc.restore {
			t.Errorf("%s: restored %+v (%v), want %+v", tc.name, got, err, tc.restore)
		}
	}
	// A missing setting without the tag keeps its value.
	got := later{C0: 9, Form: squared}
	if err := Restore(Fields(&got), map[string]any{"form": "paper"}); err != nil || got.C0 != 9 || got.Form != paper {
		t.Errorf("restored %+v (%v), want c0 kept at 9 and form paper", got, err)
	}
	for _, rec := range []map[string]any{{"c1": 1.0}, {"form": "cubed"}, {"c0": "x"}} {
		if err := Restore(Fields(&later{}), rec); err == nil {
			t.Errorf("record %v restored", rec)
		}
	}
	if err := Restore(Fields(&later{}), map[string]any{"c1": 1.0}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown name: %v, want ErrUnknown", err)
	}
}

// TestRecordTagRefused checks that a record tag that is neither omitzero
// nor omit= a value of the field's type, within its range, is refused
// when the struct is first read.
func TestRecordTagRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"unknown", &struct {
			X float64 `setting:"x" record:"omitnone"`
		}{}},
		{"not a number", &struct {
			X float64 `setting:"x" record:"omit=half"`
		}{}},
		{"outside the range", &struct {
			X float64 `setting:"x" record:"omit=2" range:"[0,1]"`
		}{}},
		{"not an enum value", &struct {
			X form `setting:"x" record:"omit=cubed"`
		}{}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tc.name)
				}
			}()
			Fields(tc.v)
		}()
	}
}

// bounded are settings with range tags.
type bounded struct {
	LR    float64 `setting:"lr" range:"(0,inf)"`
	Keep  float64 `setting:"keep" range:"[0,1)"`
	Depth int     `setting:"depth" range:"[1,8]"`
	Sizes []int   `setting:"sizes" range:"[1,inf)"`
	Free  float64 `setting:"free"`
}

// TestBounds checks that Set refuses a value outside a setting's range,
// naming it and the interval and leaving the value as it was, and that
// Check finds a value set in code outside it.
func TestBounds(t *testing.T) {
	for _, c := range []struct {
		name, text string
		ok         bool
		want       string
	}{
		{"lr", "0.5", true, ""},
		{"lr", "0", false, "lr = 0, want > 0"},
		{"lr", "-1", false, "want > 0"},
		{"keep", "0", true, ""},
		{"keep", "1", false, "keep = 1, want in [0, 1)"},
		{"depth", "8", true, ""},
		{"depth", "9", false, "depth = 9, want in [1, 8]"},
		{"depth", "0", false, "want in [1, 8]"},
		{"sizes", "3,4", true, ""},
		{"sizes", "3,0", false, "sizes = 0, want >= 1"},
		{"free", "-1e300", true, ""},
	} {
		s := bounded{LR: 1, Keep: 0.5, Depth: 2, Sizes: []int{5}}
		before := s
		f, err := Lookup(Fields(&s), c.name)
		if err != nil {
			t.Fatal(err)
		}
		err = f.Set(c.text)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s = %s: error %v, want ok %v (%q)", c.name, c.text, err, c.ok, c.want)
		}
		if err != nil && !reflect.DeepEqual(s, before) {
			t.Errorf("%s = %s: refused, but the settings changed to %+v", c.name, c.text, s)
		}
	}
	s := bounded{LR: 1, Keep: 0.5, Depth: 2}
	if err := Check(Fields(&s)); err != nil {
		t.Errorf("defaults: %v", err)
	}
	s.Keep = 2
	if err := Check(Fields(&s)); err == nil || !strings.Contains(err.Error(), "keep") {
		t.Errorf("keep 2 passed Check: %v", err)
	}
	s.Keep = 0.5
	if f, _ := Lookup(Fields(&s), "sizes"); f.SetJSON([]byte("[1,-2]")) == nil || len(s.Sizes) != 0 {
		t.Errorf("a list out of range set from JSON: %v", s.Sizes)
	}
}

// TestBadRangeTags checks that a malformed range tag is a declaration
// mistake, found when the fields are listed.
func TestBadRangeTags(t *testing.T) {
	for name, p := range map[string]any{
		"no interval": &struct {
			X float64 `setting:"x" range:"0,1"`
		}{},
		"reversed": &struct {
			X float64 `setting:"x" range:"[2,1]"`
		}{},
		"not a number": &struct {
			X float64 `setting:"x" range:"[a,1]"`
		}{},
		"on a bool": &struct {
			X bool `setting:"x" range:"[0,1]"`
		}{},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			Fields(p)
		}()
	}
}
