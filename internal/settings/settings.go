// Package settings reads, writes and compares typed settings: the fields of
// structs tagged `setting:"name"`, known by those names on the command line,
// in experiment files and in the files a run records.
//
// A settings struct declares each setting as an exported field:
//
//	C0 float64 `setting:"c0" help:"weight of the conditional terms"`
//	C2 float64 `setting:"c2" scenarios:"uda partial" help:"L1 weight of the alpha problem"`
//
// The name is kebab-case and unique among the structs of a run. A number
// setting may declare the interval it must lie in with a range tag
// (Bounds), which Check and Field.Set enforce. The scenarios
// tag lists the scenarios whose training reads the setting (all when absent).
// A setting added after runs were recorded without it is tagged
// `record:"omitzero"` when its zero value does what those runs did: Recorded
// then leaves it out at its zero value, and Restore takes a missing one as
// zero, so that the records, and the identities hashed from them, of the
// earlier runs stay valid. A setting whose value before it was added is not
// its type's zero is tagged `record:"omit=V"` instead: Recorded leaves it
// out while it equals V, and Restore takes a missing one as V.
// A field may be a bool, an int, a float64 (finite), a string, an []int, or
// any type whose pointer implements encoding.TextUnmarshaler and whose value
// implements encoding.TextMarshaler, such as the enumerations of the methods;
// an enumeration that also has a Values() []string method lists them in
// help texts and errors. Fields without a setting tag are not settings, but
// the settings of an embedded struct are the struct's own, in its place.
package settings

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Field is one setting of a settings struct, bound to the struct's field.
type Field struct {
	Name      string
	Help      string
	Scenarios []string // the scenarios that read it; nil: every one
	// OmitZero is set by the tag record:"omitzero": Recorded leaves the
	// setting out at its zero value, Restore zeroes it when it is missing.
	OmitZero bool
	// Omitted, from the tag record:"omit=V", is V read as the field's
	// type: Recorded leaves the setting out at that value, Restore sets it
	// when it is missing. Invalid (the zero Value) when there is no such
	// tag.
	Omitted reflect.Value
	// Bounds, from the range tag, is the interval a number setting must lie
	// in (Check); nil: any.
	Bounds *Bounds
	v      reflect.Value
}

// Enum is implemented by enumerations that can list their values.
type Enum interface {
	encoding.TextMarshaler
	Values() []string
}

// Typer is implemented by text settings that describe the values they take
// ("number|max") for help texts.
type Typer interface {
	SettingType() string
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// ErrUnknown is wrapped by the errors for a setting name no struct declares.
var ErrUnknown = errors.New("no such setting")

// Fields returns the settings of the structs ps points to, in declaration
// order, struct after struct. It panics when a p is not a pointer to a
// struct, a tagged field has a type it cannot read, or two fields share a
// name: those are mistakes in the declarations, not in the input.
func Fields(ps ...any) []Field {
	out := make([]Field, 0, 64)
	seen := map[string]bool{}
	for _, p := range ps {
		v := reflect.ValueOf(p)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			panic(fmt.Sprintf("settings: %T is not a pointer to a struct", p))
		}
		out = appendFields(out, v.Elem(), seen)
	}
	return out
}

// appendFields appends the settings of the struct v, those of its embedded
// structs in their place, to out.
func appendFields(out []Field, v reflect.Value, seen map[string]bool) []Field {
	for _, d := range declared(v.Type()) {
		if seen[d.Name] {
			panic(fmt.Sprintf("settings: %s: setting name %q declared twice", v.Type(), d.Name))
		}
		seen[d.Name] = true
		f := d.Field
		f.v = v.FieldByIndex(d.index)
		out = append(out, f)
	}
	return out
}

// decl is a setting as its struct type declares it: its Field without a
// value, and where the field is.
type decl struct {
	Field
	index []int
}

// decls caches declared by struct type: reading tags is slow, and a large
// sweep reads the same few types a million times.
var decls sync.Map // reflect.Type -> []decl

// declared returns the settings the struct type t declares, those of its
// embedded structs in their place, checking the declarations.
func declared(t reflect.Type) []decl {
	if d, ok := decls.Load(t); ok {
		return d.([]decl)
	}
	var out []decl
	seen := map[string]bool{}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, ok := sf.Tag.Lookup("setting")
		if !ok {
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				for _, d := range declared(sf.Type) {
					if seen[d.Name] {
						panic(fmt.Sprintf("settings: %s: setting name %q declared twice", t, d.Name))
					}
					seen[d.Name] = true
					out = append(out, decl{d.Field, append([]int{i}, d.index...)})
				}
			}
			continue
		}
		if name == "" || seen[name] {
			panic(fmt.Sprintf("settings: %s.%s: setting name %q empty or declared twice", t, sf.Name, name))
		}
		if !supported(sf.Type) {
			panic(fmt.Sprintf("settings: %s.%s has type %v, which settings cannot read", t, sf.Name, sf.Type))
		}
		seen[name] = true
		f := Field{Name: name, Help: sf.Tag.Get("help")}
		if sc := sf.Tag.Get("scenarios"); sc != "" {
			f.Scenarios = strings.Fields(sc)
		}
		if r, ok := sf.Tag.Lookup("range"); ok {
			k := sf.Type.Kind()
			if isText(sf.Type) || (k != reflect.Int && k != reflect.Float64 && k != reflect.Slice) {
				panic(fmt.Sprintf("settings: %s.%s: a range tag on a %v", t, sf.Name, sf.Type))
			}
			f.Bounds = parseBounds(t.String()+"."+sf.Name, r)
		}
		switch r := sf.Tag.Get("record"); r {
		case "":
		case "omitzero":
			f.OmitZero = true
		default:
			v, ok := strings.CutPrefix(r, "omit=")
			if !ok {
				panic(fmt.Sprintf("settings: %s.%s: record tag %q, want omitzero or omit=VALUE", t, sf.Name, r))
			}
			tmp := Field{Name: name, Bounds: f.Bounds, v: reflect.New(sf.Type).Elem()}
			if err := tmp.Set(v); err != nil {
				panic(fmt.Sprintf("settings: %s.%s: record tag %q: %v", t, sf.Name, r, err))
			}
			f.Omitted = tmp.v
		}
		out = append(out, decl{f, []int{i}})
	}
	decls.Store(t, out)
	return out
}

func supported(t reflect.Type) bool {
	if isText(t) {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Float64, reflect.String:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Int
	}
	return false
}

func isText(t reflect.Type) bool {
	return reflect.PointerTo(t).Implements(textUnmarshaler) && t.Implements(textMarshaler)
}

// Lookup returns the field called name among fs.
func Lookup(fs []Field, name string) (Field, error) {
	for _, f := range fs {
		if f.Name == name {
			return f, nil
		}
	}
	return Field{}, fmt.Errorf("%q: %w", name, ErrUnknown)
}

// Reads reports whether the setting is read in scenario.
func (f Field) Reads(scenario string) bool {
	return f.Scenarios == nil || slices.Contains(f.Scenarios, scenario)
}

// IsBool reports whether the setting is a bool, which a command line may
// give without a value.
func (f Field) IsBool() bool { return f.v.Kind() == reflect.Bool && !isText(f.v.Type()) }

// IsList reports whether the setting's value is a list.
func (f Field) IsList() bool { return f.v.Kind() == reflect.Slice && !isText(f.v.Type()) }

// Type describes the values the setting takes, for help texts: "number",
// "integer", "true|false", "text", "integers, comma-separated", or an
// enumeration's values joined by "|".
func (f Field) Type() string {
	t := f.v.Type()
	if isText(t) {
		switch e := f.v.Interface().(type) {
		case Enum:
			return strings.Join(e.Values(), "|")
		case Typer:
			return e.SettingType()
		}
		return "text"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true|false"
	case reflect.Int:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Slice:
		return "integers, comma-separated"
	}
	return "text"
}

// String returns the setting's value in its canonical text form, the form
// Set reads: numbers in the shortest form that reads back exactly.
func (f Field) String() string {
	v := f.v
	if isText(v.Type()) {
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		if err != nil {
			return fmt.Sprintf("!(%v)", err)
		}
		return string(b)
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return v.String()
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = strconv.FormatInt(v.Index(i).Int(), 10)
		}
		return strings.Join(parts, ",")
	}
	return ""
}

// Set sets the setting from its text form. An error names the setting and
// says what was expected (a value outside its range tag's interval
// included); the value is unchanged then.
func (f Field) Set(text string) error {
	old := reflect.New(f.v.Type()).Elem()
	old.Set(f.v)
	if err := f.set(text); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		f.v.Set(old)
		return err
	}
	return nil
}

func (f Field) set(text string) error {
	v := f.v
	t := v.Type()
	if isText(t) {
		p := reflect.New(t)
		if err := p.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			if e, ok := v.Interface().(Enum); ok {
				return fmt.Errorf("%s: %q is not one of %s", f.Name, text, strings.Join(e.Values(), ", "))
			}
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		v.Set(p.Elem())
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return fmt.Errorf("%s: %q is not true or false", f.Name, text)
		}
		v.SetBool(b)
	case reflect.Int:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 0)
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer", f.Name, text)
		}
		v.SetInt(n)
	case reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", f.Name, text)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %v is not a finite number", f.Name, x)
		}
		v.SetFloat(x)
	case reflect.String:
		v.SetString(text)
	case reflect.Slice:
		var list []int
		if strings.TrimSpace(text) != "" {
			for _, p := range strings.Split(text, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil {
					return fmt.Errorf("%s: %q is not a comma-separated list of integers", f.Name, text)
				}
				list = append(list, n)
			}
		}
		v.Set(reflect.ValueOf(list))
	}
	return nil
}

// Value returns the setting's value as JSON encodes it: a bool, an int, a
// float64, a string (also for enumerations) or an []int.
func (f Field) Value() any {
	if isText(f.v.Type()) {
		return f.String()
	}
	if f.v.Kind() == reflect.Slice && f.v.IsNil() {
		return []int{}
	}
	return f.v.Interface()
}

// SetJSON sets the setting from a JSON value of its kind: true or false, a
// number, a string, or a list of integers. For convenience a string is read
// as Set reads text, whatever the setting's kind.
func (f Field) SetJSON(raw json.RawMessage) error {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return f.Set(s)
	}
	switch {
	case f.v.Kind() == reflect.Slice && !isText(f.v.Type()):
		var list []int
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%s: %s is not a list of integers", f.Name, raw)
		}
		old := f.v.Interface()
		f.v.Set(reflect.ValueOf(list))
		if err := f.check(); err != nil {
			f.v.Set(reflect.ValueOf(old))
			return err
		}
		return nil
	case isText(f.v.Type()) && (bytes.HasPrefix(raw, []byte("[")) || bytes.HasPrefix(raw, []byte("{"))):
		return fmt.Errorf("%s: %s is not a single value", f.Name, raw)
	}
	// A bool or a number: its JSON text is its Set text (also for a text
	// setting that takes numbers, as the sample counts do).
	return f.Set(string(bytes.TrimSpace(raw)))
}

// Values returns every field's canonical text, by name.
func Values(fs []Field) map[string]string {
	m := make(map[string]string, len(fs))
	for _, f := range fs {
		m[f.Name] = f.String()
	}
	return m
}

// Map returns every field's JSON value (Value), by name.
func Map(fs []Field) map[string]any {
	m := make(map[string]any, len(fs))
	for _, f := range fs {
		m[f.Name] = f.Value()
	}
	return m
}

// Recorded returns what a run records of fs: Map, without the OmitZero
// fields at their zero value and the fields tagged omit=V at V.
func Recorded(fs []Field) map[string]any {
	m := make(map[string]any, len(fs))
	for _, f := range fs {
		if !f.omitted() {
			m[f.Name] = f.Value()
		}
	}
	return m
}

// omitted reports whether Recorded leaves f out.
func (f Field) omitted() bool {
	if f.Omitted.IsValid() {
		return reflect.DeepEqual(f.v.Interface(), f.Omitted.Interface())
	}
	return f.OmitZero && f.v.IsZero()
}

// Restore sets fs from a record written by Recorded: each recorded value by
// name (SetJSON), the OmitZero fields the record lacks to zero and those
// tagged omit=V to V. Other
// fields the record lacks keep their values. A name that is not among fs is
// an error wrapping ErrUnknown.
func Restore(fs []Field, rec map[string]any) error {
	names := make([]string, 0, len(rec))
	for name := range rec {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, err := Lookup(fs, name); err != nil {
			return err
		}
	}
	for _, f := range fs {
		v, ok := rec[f.Name]
		if !ok {
			switch {
			case f.Omitted.IsValid():
				f.v.Set(f.Omitted)
			case f.OmitZero:
				f.v.SetZero()
			}
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		if err := f.SetJSON(b); err != nil {
			return err
		}
	}
	return nil
}

// Change is a setting whose value differs between two sets of settings.
type Change struct {
	Name     string
	Was, Now string // canonical text; "" when absent from that side
}

// Diff returns the settings whose canonical text differs between was and
// now (by name, in the order of now, then those only in was).
func Diff(was, now map[string]string, order []string) []Change {
	var out []Change
	seen := map[string]bool{}
	add := func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if was[name] != now[name] {
			out = append(out, Change{Name: name, Was: was[name], Now: now[name]})
		}
	}
	for _, n := range order {
		add(n)
	}
	var rest []string
	for n := range was {
		rest = append(rest, n)
	}
	for n := range now {
		rest = append(rest, n)
	}
	slices.Sort(rest)
	for _, n := range rest {
		add(n)
	}
	return out
}

// EnumText returns the name of value i of an enumeration whose values are
// named by names, for its MarshalText; an error says what it is for a value
// outside them.
func EnumText(names []string, i int, what string) ([]byte, error) {
	if i < 0 || i >= len(names) {
		return nil, fmt.Errorf("unknown %s %d", what, i)
	}
	return []byte(names[i]), nil
}

// ParseEnum sets *dst to the value named b, for an enumeration's
// UnmarshalText; an error lists the names.
func ParseEnum(names []string, b []byte, dst *int) error {
	i := slices.Index(names, string(b))
	if i < 0 {
		return fmt.Errorf("%q is not one of %s", b, strings.Join(names, ", "))
	}
	*dst = i
	return nil
}
