package experiment

import (
	"cmp"
	"slices"
)

// Comparison is a table of methods side by side: for one scenario and data
// set, a line per target and a column per method and settings label, each
// cell a row of the report, and a last line of averages over the targets.
type Comparison struct {
	Scenario string
	Dataset  string
	// Columns are the methods with their labels, WADN and the baselines
	// in the order of Methods, then by name.
	Columns []Column
	Targets []string // in name order
	// Cells holds, per target and column, the row; nil where the column
	// has no run on the target.
	Cells [][]*Row
	// Averages holds, per column, its average over the targets.
	Averages []Average
}

// Column is one column of a Comparison: the rows of a method with one
// settings label.
type Column struct {
	Name   string // Row.Name: the method as the paper names it, and the label
	Method string // the method, as Methods names it
}

// Average is a column's average over the targets of a Comparison.
type Average struct {
	Mean float64 // the mean of the rows' means
	N    int     // the number of targets averaged
	// Paper is the paper's average for the method (its printed one where
	// it prints one, else the mean of its per-target numbers); nil when it
	// gives none.
	Paper *float64
	// PaperCovered says that the comparison's targets hold every target
	// of the paper's table, so that Paper averages the same targets as
	// Mean; false when Paper is over targets of which some are missing.
	PaperCovered bool
}

// Comparisons returns the tables of methods side by side, a Comparison for
// every scenario and data set among the rows, in the order of the rows.
func (rep *Report) Comparisons() []Comparison {
	type group struct{ sc, ds string }
	var groups []group
	cells := map[group]map[string]map[string]*Row{} // target -> name -> row
	method := map[string]string{}                   // name -> method
	for _, r := range rep.Rows {
		g := group{r.Scenario, r.Dataset}
		if cells[g] == nil {
			groups = append(groups, g)
			cells[g] = map[string]map[string]*Row{}
		}
		if cells[g][r.Target] == nil {
			cells[g][r.Target] = map[string]*Row{}
		}
		cells[g][r.Target][r.Name()] = r
		method[r.Name()] = r.Method
	}
	var out []Comparison
	for _, g := range groups {
		c := Comparison{Scenario: g.sc, Dataset: g.ds}
		present := map[string]bool{}
		for t, ms := range cells[g] {
			c.Targets = append(c.Targets, t)
			for m := range ms {
				present[m] = true
			}
		}
		slices.Sort(c.Targets)
		var order []string
		for m := range present {
			order = append(order, m)
		}
		slices.SortFunc(order, func(a, b string) int {
			return cmp.Or(cmp.Compare(methodRank(method[a]), methodRank(method[b])), cmp.Compare(a, b))
		})
		for _, m := range order {
			c.Columns = append(c.Columns, Column{Name: m, Method: method[m]})
		}
		for _, t := range c.Targets {
			line := make([]*Row, len(order))
			for j, m := range order {
				line[j] = cells[g][t][m]
			}
			c.Cells = append(c.Cells, line)
		}
		for _, m := range order {
			var means []float64
			ours := map[string]bool{}
			onPaper := true
			for _, t := range c.Targets {
				if r, ok := cells[g][t][m]; ok {
					means = append(means, r.Mean)
					ours[t] = true
					onPaper = onPaper && r.paperTask()
				}
			}
			var a Average
			a.Mean, _ = MeanStd(means)
			a.N = len(means)
			if p, ok := paperAverage(g.sc, g.ds, method[m]); ok && onPaper {
				a.Paper, a.PaperCovered = &p, coversPaper(g.sc, g.ds, ours)
			}
			c.Averages = append(c.Averages, a)
		}
		out = append(out, c)
	}
	return out
}
