package convex

import (
	"strings"
	"testing"
)

func TestSizeLimit(t *testing.T) {
	ones := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 1
		}
		return v
	}
	square := func(rows, cols int) [][]float64 {
		c := make([][]float64, rows)
		for i := range c {
			c[i] = ones(cols)
		}
		return c
	}
	n := MaxVariables + 1
	for _, tc := range []struct {
		name    string
		solve   func() (*Result, error)
		wantErr string
	}{
		{"lambda", func() (*Result, error) {
			return SolveLambda(LambdaProblem{A: ones(n), W: ones(n), Beta: ones(n), C1: 1}, nil)
		}, "a has 5001 entries, more than the 5000"},
		{"alpha classes", func() (*Result, error) {
			return SolveAlpha(AlphaProblem{C: square(2, n), P: []float64{0.5, 0.5}}, nil)
		}, "C[0] (the classes) has 5001 entries"},
		{"alpha rows", func() (*Result, error) {
			return SolveAlpha(AlphaProblem{C: square(n, 2), P: ones(n)}, nil)
		}, "C (the rows) has 5001 entries"},
	} {
		res, err := tc.solve()
		if err == nil || res != nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: got %v, %v; want an error containing %q", tc.name, res, err, tc.wantErr)
		}
	}
	// The limit itself is accepted (Validate only: a solve of that size
	// takes minutes).
	q := LambdaProblem{A: ones(MaxVariables), W: ones(MaxVariables), Beta: ones(MaxVariables), C1: 1}
	if err := q.Validate(); err != nil {
		t.Errorf("a problem of MaxVariables entries: %v", err)
	}
}
