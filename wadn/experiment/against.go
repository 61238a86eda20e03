package experiment

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Level is the value of one setting at which a row's runs were trained,
// for the tables and figures of an ablation over that setting.
type Level struct {
	Value string // canonical text, as Spec.Values gives it
	Num   float64
	IsNum bool
}

// LevelOf returns the value of setting name in row's runs, when it is the
// only setting in which they differ from the defaults (or none differs:
// the default level); ok is false when the runs lack the setting, differ
// in another one, or disagree on its value.
func LevelOf(row *Row, name string) (l Level, ok bool) {
	if len(row.runs) == 0 {
		return l, false
	}
	for i, r := range row.runs {
		v, has := r.Spec.Values()[name]
		if !has {
			return l, false
		}
		for _, c := range r.Spec.Changes() {
			if c.Name != name {
				return l, false
			}
		}
		if i > 0 && v != l.Value {
			return l, false
		}
		l.Value = v
	}
	if n, err := strconv.ParseFloat(l.Value, 64); err == nil {
		l.Num, l.IsNum = n, true
	}
	return l, true
}

// compareLevels orders levels by number, or by text where either is not
// a number.
func compareLevels(a, b Level) int {
	if a.IsNum && b.IsNum {
		return cmp.Compare(a.Num, b.Num)
	}
	return cmp.Compare(a.Value, b.Value)
}

// WriteAgainst writes, for every data set and scenario whose rows hold
// setting name at two values or more (LevelOf), the accuracy against that
// setting: a Markdown table per target with a line per value and a
// column per method run at two values or more (WADN and the baselines in
// the order of Methods), each cell "mean ± std [n seeds]" over the seeds
// that the method has at every value on that target (so that the values
// are compared on the same draws: a default value run with more seeds
// than the others counts only theirs), the default value marked, and a
// table of the averages over the targets of those means, a cell only where
// every target has that method at that value. Rows at other settings are
// left out. It writes nothing, and reports false, when no data set holds
// two values.
func (rep *Report) WriteAgainst(w io.Writer, name string) (bool, error) {
	type group struct{ sc, ds string }
	type key struct {
		target, method, value string
	}
	var groups []group
	cells := map[group]map[key]*Row{}
	levels := map[group]map[string]Level{}
	for _, r := range rep.Rows {
		l, ok := LevelOf(r, name)
		if !ok {
			continue
		}
		g := group{r.Scenario, r.Dataset}
		if cells[g] == nil {
			groups = append(groups, g)
			cells[g], levels[g] = map[key]*Row{}, map[string]Level{}
		}
		cells[g][key{r.Target, r.Method, l.Value}] = r
		levels[g][l.Value] = l
	}
	var b strings.Builder
	wrote := false
	for _, g := range groups {
		if len(levels[g]) < 2 {
			continue
		}
		wrote = true
		var ls []Level
		for _, l := range levels[g] {
			ls = append(ls, l)
		}
		slices.SortFunc(ls, compareLevels)
		var targets, methods []string
		values := map[string]map[string]bool{} // method -> values
		for k := range cells[g] {
			if !slices.Contains(targets, k.target) {
				targets = append(targets, k.target)
			}
			if values[k.method] == nil {
				values[k.method] = map[string]bool{}
			}
			values[k.method][k.value] = true
		}
		for m, vs := range values {
			if len(vs) > 1 {
				methods = append(methods, m)
			}
		}
		slices.Sort(targets)
		slices.SortFunc(methods, func(a, b string) int {
			return cmp.Or(cmp.Compare(methodRank(a), methodRank(b)), cmp.Compare(a, b))
		})
		def := ""
		for _, r := range cells[g] {
			if d, ok := r.runs[0].Spec.defaultValues()[name]; ok {
				def = d
				break
			}
		}
		head := func(title string) {
			fmt.Fprintf(&b, "\n%s\n\n| %s |", title, name)
			for _, m := range methods {
				fmt.Fprintf(&b, " %s |", m)
			}
			b.WriteString("\n|---|" + strings.Repeat("---|", len(methods)) + "\n")
		}
		level := func(l Level) string {
			if l.Value == def {
				return l.Value + " (default)"
			}
			return l.Value
		}
		// means[k]: the mean over the common seeds of the cell k.
		means := map[key]float64{}
		for _, t := range targets {
			head(fmt.Sprintf("%s, %s, target %s: accuracy (%%) against %s, mean ± std [seeds]", g.sc, g.ds, t, name))
			common := map[string]map[uint64]bool{} // method -> the seeds of every value
			for _, m := range methods {
				for _, l := range ls {
					r, ok := cells[g][key{t, m, l.Value}]
					if !ok {
						continue
					}
					has := map[uint64]bool{}
					for _, sd := range r.Seeds {
						if common[m] == nil || common[m][sd] {
							has[sd] = true
						}
					}
					common[m] = has
				}
			}
			for _, l := range ls {
				fmt.Fprintf(&b, "| %s |", level(l))
				for _, m := range methods {
					r, ok := cells[g][key{t, m, l.Value}]
					var acc []float64
					if ok {
						for i, sd := range r.Seeds {
							if common[m][sd] {
								acc = append(acc, r.Accuracy[i])
							}
						}
					}
					if len(acc) == 0 {
						b.WriteString(" - |")
						continue
					}
					mean, std := MeanStd(acc)
					means[key{t, m, l.Value}] = mean
					if len(acc) < 2 {
						fmt.Fprintf(&b, " %.2f [1] |", mean)
					} else {
						fmt.Fprintf(&b, " %.2f ± %.2f [%d] |", mean, std, len(acc))
					}
				}
				b.WriteString("\n")
			}
		}
		head(fmt.Sprintf("%s, %s: accuracy (%%) against %s, mean over the %d targets (each the mean over the seeds of its table)", g.sc, g.ds, name, len(targets)))
		for _, l := range ls {
			fmt.Fprintf(&b, "| %s |", level(l))
			for _, m := range methods {
				var ms []float64
				for _, t := range targets {
					if v, ok := means[key{t, m, l.Value}]; ok {
						ms = append(ms, v)
					}
				}
				if len(ms) < len(targets) {
					b.WriteString(" - |")
					continue
				}
				avg, _ := MeanStd(ms)
				fmt.Fprintf(&b, " %.2f |", avg)
			}
			b.WriteString("\n")
		}
	}
	if !wrote {
		return false, nil
	}
	b.WriteString("\n[n]: the seeds the method has at every value on the target, over which the mean and std are taken. -: no run at that value, or none of those seeds (the average: not on every target).\n")
	_, err := io.WriteString(w, b.String())
	return true, err
}
