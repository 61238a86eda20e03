package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

// TestDataLsSaysEmptyDir: a data directory holding none of the data sets is
// named on stderr with what was looked for; one that holds a data set is not.
func TestDataLsSaysEmptyDir(t *testing.T) {
	t.Setenv(datadir.Env, "")
	empty := t.TempDir()
	if err := os.Mkdir(filepath.Join(empty, "unrelated"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runArgs(t, "", "data", "ls", "--data", empty)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, empty+" holds no data set") || !strings.Contains(errOut, "amazon/") || !strings.Contains(errOut, "mnist_m/") {
		t.Errorf("stderr does not say that %s held nothing and what was looked for:\n%s", empty, errOut)
	}

	full := t.TempDir()
	writeUSPSFixture(t, full)
	code, out, errOut := runArgs(t, "", "data", "ls", "--data", full)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "holds no data set") || !strings.Contains(out, "usps") {
		t.Errorf("a directory with a USPS file: stdout\n%s\nstderr\n%s", out, errOut)
	}
}

// writeUSPSFixture writes an empty USPS training file into dir: enough for
// the catalog to find a data set there.
func writeUSPSFixture(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "usps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "usps", "usps.bz2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
