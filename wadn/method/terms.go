package method

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Term is one of a method's own loss terms, declared with the method
// (About.Terms) and logged every epoch under its name: WADN's "implicit"
// (the critics' Wasserstein estimates), DANN's "domain" (its domain
// classifier's loss), MME's "entropy". The classification loss on each
// source, which every method has, is the log's "class" and no term.
type Term struct {
	// Name is the epoch log's key and the prefix of report --csv's columns
	// (NAME.SOURCE for a term per source, NAME for one value); it must not
	// be one of the log's own keys (LogKeys).
	Name string
	// Help says what the term measures, for help texts.
	Help string
	// PerSource is set for a term with a value per source; without, the
	// term has one value a step.
	PerSource bool
	// Was names the per-source slot ("explicit", "implicit" or "penalty")
	// that held the term in the epoch logs written before the methods named
	// their terms, when it differs from Name; reading such a log (Canonical)
	// moves the slot to the term.
	Was string
}

// Width returns how many values the term has in a run with sources sources.
func (t Term) Width(sources int) int {
	if t.PerSource {
		return sources
	}
	return 1
}

// legacySlots are the per-source keys every epoch log had before the methods
// named their terms, in the order they were written.
var legacySlots = []string{"explicit", "implicit", "penalty"}

// LogKeys are the keys of an epoch log line that are not a method's terms.
var LogKeys = []string{"epoch", "loss", "class", "accuracy", "accuracy_trained", "source_accuracy",
	"lambda", "alpha", "alpha_error", "target_dist", "seconds"}

// checkTerms reports a term list that cannot be logged: an empty, reserved
// or repeated name.
func checkTerms(terms []Term) error {
	seen := map[string]bool{}
	for _, t := range terms {
		switch {
		case t.Name == "":
			return fmt.Errorf("a term has no name")
		case slices.Contains(LogKeys, t.Name):
			return fmt.Errorf("term %q is one of the epoch log's own keys", t.Name)
		case seen[t.Name]:
			return fmt.Errorf("term %q declared twice", t.Name)
		case t.Was != "" && !slices.Contains(legacySlots, t.Was):
			return fmt.Errorf("term %q: was %q, want one of %v", t.Name, t.Was, legacySlots)
		}
		seen[t.Name] = true
	}
	return nil
}

// Value is one term's mean over an epoch, as its log line holds it.
type Value struct {
	Name string
	// V holds a value per source (PerSource), or one value.
	V         []float64
	PerSource bool
}

// Term returns the values of the epoch's term called name, nil when the
// line has none.
func (l *EpochLog) Term(name string) []float64 {
	for _, v := range l.Terms {
		if v.Name == name {
			return v.V
		}
	}
	return nil
}

// Canonical rewrites the terms of l, an epoch log line of a method that
// declares terms, as the method logs them now: a term missing under its
// name is taken from the slot it was logged in before the methods named
// their terms (Term.Was: the slot's first value for a term of one value),
// and the slots no term of the method reads are dropped. A line written
// since is left as it is.
func Canonical(terms []Term, l *EpochLog) {
	var out []Value
	for _, t := range terms {
		if v := l.value(t.Name); v != nil && v.PerSource == t.PerSource {
			out = append(out, *v)
			continue
		}
		slot := t.Was
		if slot == "" {
			slot = t.Name
		}
		if w := l.value(slot); w != nil && w.PerSource && len(w.V) > 0 && slices.Contains(legacySlots, slot) {
			v := Value{Name: t.Name, V: w.V, PerSource: t.PerSource}
			if !t.PerSource {
				v.V = w.V[:1]
			}
			out = append(out, v)
		}
	}
	for _, v := range l.Terms {
		declared := slices.ContainsFunc(terms, func(t Term) bool { return t.Name == v.Name })
		if !declared && !slices.Contains(legacySlots, v.Name) {
			out = append(out, v)
		}
	}
	l.Terms = out
}

func (l *EpochLog) value(name string) *Value {
	for i := range l.Terms {
		if l.Terms[i].Name == name {
			return &l.Terms[i]
		}
	}
	return nil
}

// logHead is what an epoch log line holds before the method's terms: the
// first fields of EpochLog, in its order.
type logHead struct {
	Epoch int       `json:"epoch"`
	Loss  float64   `json:"loss"`
	Class []float64 `json:"class"`
}

// logFields is EpochLog without its methods, so that encoding/json writes
// and reads its tagged fields (Terms has no tag: json:"-").
type logFields EpochLog

// MarshalJSON writes the line as one object: epoch, loss and class, the
// method's terms in their declared order (an array for a term per source, a
// number for one value), then the rest.
func (l EpochLog) MarshalJSON() ([]byte, error) {
	all, err := json.Marshal(logFields(l))
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(logHead{l.Epoch, l.Loss, l.Class})
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(all, head[:len(head)-1]) {
		return nil, fmt.Errorf("epoch log: the line does not start with epoch, loss and class: %s", all)
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	for _, v := range l.Terms {
		key, err := json.Marshal(v.Name)
		if err != nil {
			return nil, err
		}
		var val []byte
		if v.PerSource {
			val, err = json.Marshal(v.V)
		} else if len(v.V) == 1 {
			val, err = json.Marshal(v.V[0])
		} else {
			err = fmt.Errorf("term %s of one value has %d", v.Name, len(v.V))
		}
		if err != nil {
			return nil, err
		}
		b.WriteByte(',')
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	b.Write(all[len(head)-1:])
	return b.Bytes(), nil
}

// UnmarshalJSON reads a line MarshalJSON wrote, or one written before the
// methods named their terms (their slots become terms of those names, which
// Canonical renames): every key that is not one of LogKeys is a term, an
// array a term per source and a number a term of one value, in the line's
// order.
func (l *EpochLog) UnmarshalJSON(b []byte) error {
	var f logFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*l = EpochLog(f)
	l.Terms = nil
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // '{', checked by Unmarshal above
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if slices.Contains(LogKeys, key) {
			continue
		}
		v := Value{Name: key}
		var x float64
		if err := json.Unmarshal(raw, &x); err == nil {
			v.V = []float64{x}
		} else if err := json.Unmarshal(raw, &v.V); err == nil {
			v.PerSource = true
		} else {
			return fmt.Errorf("term %q: want a number or an array of numbers, have %s", key, raw)
		}
		l.Terms = append(l.Terms, v)
	}
	return nil
}

// Sums accumulates the statistics of one epoch.
type Sums struct {
	Loss  float64
	Class []float64
	// Terms holds, in the order the method declares its terms, each term's
	// sum: a value per source, or one value.
	Terms [][]float64
	Conf  [][][]float64 // per source [predicted][true] counts
	Pred  []float64     // target predictions per class

	terms []Term
}

func newSums(terms []Term, sources, classes int) Sums {
	s := Sums{Class: make([]float64, sources), Pred: make([]float64, classes), terms: terms}
	for _, t := range terms {
		s.Terms = append(s.Terms, make([]float64, t.Width(sources)))
	}
	for range sources {
		c := make([][]float64, classes)
		for y := range c {
			c[y] = make([]float64, classes)
		}
		s.Conf = append(s.Conf, c)
	}
	return s
}

// sumsJSON is Sums as a checkpoint holds it; Explicit, Implicit and
// Penalty are the slots of the checkpoints written before the methods named
// their terms, read only.
type sumsJSON struct {
	Loss     float64              `json:"loss"`
	Class    []float64            `json:"class"`
	Terms    map[string][]float64 `json:"terms,omitempty"`
	Explicit []float64            `json:"explicit,omitempty"`
	Implicit []float64            `json:"implicit,omitempty"`
	Penalty  []float64            `json:"penalty,omitempty"`
	Conf     [][][]float64        `json:"conf"`
	Pred     []float64            `json:"pred"`
}

// MarshalJSON writes the sums with the terms by name.
func (s Sums) MarshalJSON() ([]byte, error) {
	j := sumsJSON{Loss: s.Loss, Class: s.Class, Conf: s.Conf, Pred: s.Pred, Terms: map[string][]float64{}}
	for i, t := range s.terms {
		j.Terms[t.Name] = s.Terms[i]
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads sums into s, whose terms are those of the run being
// resumed (newSums): each term by name, or, from a checkpoint written
// before the methods named their terms, from the slot it was kept in.
func (s *Sums) UnmarshalJSON(b []byte) error {
	var j sumsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	legacy := map[string][]float64{"explicit": j.Explicit, "implicit": j.Implicit, "penalty": j.Penalty}
	terms := make([][]float64, len(s.terms))
	for i, t := range s.terms {
		v, ok := j.Terms[t.Name]
		if j.Terms == nil {
			slot := t.Was
			if slot == "" {
				slot = t.Name
			}
			v, ok = legacy[slot]
			if ok && !t.PerSource && len(v) > 0 {
				v = v[:1]
			}
		}
		if !ok || len(v) != len(s.Terms[i]) {
			return fmt.Errorf("the checkpoint's sums have %d values of term %s, want %d", len(v), t.Name, len(s.Terms[i]))
		}
		terms[i] = v
	}
	s.Loss, s.Class, s.Terms, s.Conf, s.Pred = j.Loss, j.Class, terms, j.Conf, j.Pred
	return nil
}
