package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/convex"
)

// TestSolveRefusesLargeProblem: a 200,000-entry lambda problem (a 9 MB
// file, whose dense Newton matrices would take 640 GB) exits 1 with a
// message naming the limit, before any working memory is allocated.
func TestSolveRefusesLargeProblem(t *testing.T) {
	const n = 200000
	var b bytes.Buffer
	b.WriteString(`{"problem":"lambda","C0":0.1,"C1":1`)
	for _, field := range []string{"a", "w", "beta"} {
		fmt.Fprintf(&b, `,%q:[`, field)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%g", 0.25+float64(i%7)/8)
		}
		b.WriteByte(']')
	}
	b.WriteString("}\n")
	file := filepath.Join(t.TempDir(), "large.json")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runArgs(t, "", "solve", file)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, errOut)
	}
	want := fmt.Sprintf("a has %d entries, more than the %d this solver accepts", n, convex.MaxVariables)
	if !strings.Contains(errOut, want) || !strings.Contains(errOut, file) {
		t.Errorf("stderr %q does not name the file and say %q", errOut, want)
	}
	if out != "" || strings.Contains(errOut, "goroutine") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("want one line on stderr and nothing on stdout; got stdout %q, stderr %q", out, errOut)
	}
}
