package settings

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Bounds is the interval a number setting must lie in, declared by its
// range tag in interval notation, each end closed ("[") or open ("("), an
// absent end written inf:
//
//	LR    float64 `setting:"lr" range:"(0,inf)" help:"..."`
//	Keep  float64 `setting:"keep" range:"[0,1)" help:"..."`
//	Depth int     `setting:"depth" range:"[1,8]" help:"..."`
//
// For a list of ints every element must lie in it.
type Bounds struct {
	Lo, Hi         float64 // -Inf and +Inf where unbounded
	LoOpen, HiOpen bool
}

// parseBounds reads a range tag; it panics on a malformed one, a mistake in
// the declaration.
func parseBounds(where, tag string) *Bounds {
	bad := func() {
		panic(fmt.Sprintf("settings: %s: range tag %q, want an interval such as [0,1) or (0,inf)", where, tag))
	}
	if len(tag) < 5 {
		bad()
	}
	open, close := tag[0], tag[len(tag)-1]
	lo, hi, ok := strings.Cut(tag[1:len(tag)-1], ",")
	if !ok || (open != '[' && open != '(') || (close != ']' && close != ')') {
		bad()
	}
	end := func(s string, inf float64) float64 {
		s = strings.TrimSpace(s)
		if s == "inf" || s == "-inf" {
			return inf
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			bad()
		}
		return v
	}
	b := &Bounds{Lo: end(lo, math.Inf(-1)), Hi: end(hi, math.Inf(1)), LoOpen: open == '(', HiOpen: close == ')'}
	if b.Lo > b.Hi {
		bad()
	}
	return b
}

// Contains reports whether v lies in b.
func (b *Bounds) Contains(v float64) bool {
	switch {
	case math.IsNaN(v):
		return false
	case v < b.Lo || (b.LoOpen && v == b.Lo):
		return false
	case v > b.Hi || (b.HiOpen && v == b.Hi):
		return false
	}
	return true
}

// String writes b as its tag does, or as "> 0" and ">= 1" when it has no
// upper end.
func (b *Bounds) String() string {
	if math.IsInf(b.Hi, 1) {
		if b.LoOpen {
			return "> " + num(b.Lo)
		}
		return ">= " + num(b.Lo)
	}
	if math.IsInf(b.Lo, -1) {
		if b.HiOpen {
			return "< " + num(b.Hi)
		}
		return "<= " + num(b.Hi)
	}
	l, r := "[", "]"
	if b.LoOpen {
		l = "("
	}
	if b.HiOpen {
		r = ")"
	}
	return "in " + l + num(b.Lo) + ", " + num(b.Hi) + r
}

// num writes v as an integer when it is one, else in the fewest digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Check returns an error naming the first setting of fs whose value lies
// outside its range tag's interval, and what it wants.
func Check(fs []Field) error {
	for _, f := range fs {
		if err := f.check(); err != nil {
			return err
		}
	}
	return nil
}

// check reports a value outside the field's bounds.
func (f Field) check() error {
	if f.Bounds == nil {
		return nil
	}
	var vals []float64
	switch f.v.Kind() {
	case reflect.Int:
		vals = []float64{float64(f.v.Int())}
	case reflect.Float64:
		vals = []float64{f.v.Float()}
	case reflect.Slice:
		for i := range f.v.Len() {
			vals = append(vals, float64(f.v.Index(i).Int()))
		}
	}
	for _, v := range vals {
		if !f.Bounds.Contains(v) {
			return fmt.Errorf("%s = %s, want %s", f.Name, num(v), f.Bounds)
		}
	}
	return nil
}
