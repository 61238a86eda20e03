package convex

import "fmt"

// MaxVariables is the largest number of variables (sources T of a
// LambdaProblem, classes K or confusion rows Y of an AlphaProblem) that the
// solvers accept. The interior-point core keeps two dense n×n float64
// matrices and factorises one of them at every Newton step, so memory grows
// as 16·n² bytes (400 MB at the limit) and time as n³. WADN's problems have
// a handful of sources and at most a few hundred classes; larger problems
// are refused by Validate before any working memory is allocated.
const MaxVariables = 5000

// checkSize reports a dimension above MaxVariables, with the memory the
// solve would have needed.
func checkSize(prob, what string, n int) error {
	if n <= MaxVariables {
		return nil
	}
	return fmt.Errorf("convex: %s: %s has %d entries, more than the %d this solver accepts (its Newton matrices would take %s)",
		prob, what, n, MaxVariables, fmtBytes(16*float64(n)*float64(n)))
}

// fmtBytes formats a byte count in decimal units.
func fmtBytes(b float64) string {
	for _, u := range []string{"B", "kB", "MB", "GB", "TB"} {
		if b < 1000 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1000
	}
	return fmt.Sprintf("%.3g PB", b)
}
