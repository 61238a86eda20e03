package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/wadn-go/wadn/convex"
)

func init() {
	register(&command{
		name:    "solve",
		summary: "solve one lambda or alpha convex problem given as JSON",
		usage:   "[-tol T] [-max-iter N] [FILE]",
		run:     runSolve,
	})
}

// solveOutput is the JSON that "wadn solve" prints.
type solveOutput struct {
	X            []float64  `json:"x"`
	Objective    float64    `json:"objective"`
	Iterations   int        `json:"iterations"`
	Status       string     `json:"status"`
	KKT          convex.KKT `json:"kkt"`
	Unidentified []int      `json:"unidentified,omitempty"`
}

func runSolve(_ context.Context, e *env, args []string) error {
	c := commands["solve"]
	fs := newFlagSet(c, e)
	tol := fs.Float64("tol", convex.DefaultTol, "relative KKT tolerance")
	maxIter := fs.Int("max-iter", convex.DefaultMaxIterations, "Newton step budget")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: wadn %s %s\n\n%s\n\n", c.name, c.usage, c.summary)
		fmt.Fprintf(e.stderr, "FILE (or standard input when absent or \"-\") holds one case:\n")
		fmt.Fprintf(e.stderr, "  {\"problem\":\"lambda\",\"a\":[...],\"w\":[...],\"beta\":[...],\"C0\":..,\"C1\":..}\n")
		fmt.Fprintf(e.stderr, "  {\"problem\":\"alpha\",\"C\":[[...],...],\"p\":[...],\"C2\":..[,\"s\":[...]][,\"objective\":\"nll\"|\"lsq\"]}\n")
		fmt.Fprintf(e.stderr, "Problems of more than %d variables (sources, classes or confusion rows) are refused.\n", convex.MaxVariables)
		fmt.Fprintf(e.stderr, "\nflags:\n")
		fs.PrintDefaults()
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		fmt.Fprintf(e.stderr, "wadn solve: want at most one FILE, got %d arguments\n", len(pos))
		return errUsage
	}
	name, in := "stdin", e.stdin
	if len(pos) == 1 && pos[0] != "-" {
		name = pos[0]
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	cs, err := convex.ReadCase(in)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	res, err := cs.Solve(&convex.Settings{Tol: *tol, MaxIterations: *maxIter})
	if res == nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if werr := writeSolve(e.stdout, res); werr != nil {
		return werr
	}
	if err != nil && errors.Is(err, convex.ErrNotOptimal) {
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

func writeSolve(w io.Writer, res *convex.Result) error {
	out := solveOutput{
		X:            res.X,
		Objective:    res.Objective,
		Iterations:   res.Iterations,
		Status:       res.Status.String(),
		KKT:          res.KKT,
		Unidentified: res.Unidentified,
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
