package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

// lsEntry mirrors the JSON objects of "wadn data ls --json".
type lsEntry struct {
	Dataset   string `json:"dataset"`
	Domain    string `json:"domain"`
	Split     string `json:"split"`
	Count     int    `json:"count"`
	Histogram []int  `json:"histogram"`
	Source    string `json:"source"`
}

func TestDataLsWithoutDataDir(t *testing.T) {
	totals := map[string]int{"books": 6465, "dvd": 5586, "electronics": 7681, "kitchen": 7945}
	ocRows := map[string]int{"amazon": 958, "webcam": 295, "dslr": 157, "caltech": 1123}
	for _, tc := range []struct {
		name string
		env  string
		args []string
	}{
		{"WADN_DATA unset", "", []string{"data", "ls", "--json"}},
		{"WADN_DATA empty dir", t.TempDir(), []string{"data", "ls", "--json"}},
		{"flag empty dir", "", []string{"data", "ls", "--data", t.TempDir(), "--json"}},
	} {
		t.Setenv(datadir.Env, tc.env)
		code, out, errOut := runArgs(t, "", tc.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %s", tc.name, code, errOut)
		}
		var entries []lsEntry
		if err := json.Unmarshal([]byte(out), &entries); err != nil {
			t.Fatalf("%s: output is not a JSON array: %v\n%s", tc.name, err, out)
		}
		if len(entries) != 12 {
			t.Fatalf("%s: %d entries, want 12 (4 embedded Amazon domains x 2 splits, 4 embedded Office-Caltech10 domains)", tc.name, len(entries))
		}
		counts := map[string]int{}
		for _, e := range entries {
			if e.Dataset == "office-caltech" {
				sum := 0
				for _, n := range e.Histogram {
					sum += n
				}
				if e.Source != "embedded" || len(e.Histogram) != 10 || sum != e.Count || e.Count != ocRows[e.Domain] {
					t.Errorf("%s: entry %+v", tc.name, e)
				}
				continue
			}
			if e.Dataset != "amazon" || e.Source != "embedded" || len(e.Histogram) != 2 || e.Histogram[0]+e.Histogram[1] != e.Count {
				t.Errorf("%s: entry %+v", tc.name, e)
			}
			if e.Split == "train" && e.Count != 2000 {
				t.Errorf("%s: %s train has %d", tc.name, e.Domain, e.Count)
			}
			counts[e.Domain] += e.Count
		}
		if fmt.Sprint(counts) != fmt.Sprint(totals) {
			t.Errorf("%s: totals %v, want %v", tc.name, counts, totals)
		}
		if !strings.Contains(errOut, "embedded") {
			t.Errorf("%s: no progress on stderr: %q", tc.name, errOut)
		}
	}
}

func TestDataLsTable(t *testing.T) {
	t.Setenv(datadir.Env, "")
	code, out, _ := runArgs(t, "", "data", "ls")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 13 || !strings.HasPrefix(lines[0], "DATASET") || !strings.Contains(out, "electronics") || !strings.Contains(out, "1000 1000") ||
		!strings.Contains(out, "12 21 12 13 10 24 22 12 8 23") {
		t.Errorf("table:\n%s", out)
	}
}

func TestDataUsageErrors(t *testing.T) {
	t.Setenv(datadir.Env, "")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"data"}, 2, "usage: wadn data"},
		{[]string{"data", "nope"}, 2, "unknown subcommand"},
		{[]string{"data", "ls", "extra"}, 2, "unexpected argument"},
		{[]string{"data", "ls", "-h"}, 0, "usage: wadn data ls"},
		{[]string{"data", "verify", "-h"}, 0, "usage: wadn data verify"},
		{[]string{"data", "ls", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"data", "verify"}, 2, "no data directory"},
		{[]string{"data", "ls", "--data", "/nonexistent/wadn-data"}, 1, "data directory"},
		{[]string{"data", "verify", "--data", "/nonexistent/wadn-data"}, 1, "data directory"},
	} {
		code, _, errOut := runArgs(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("wadn %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.msg)
		}
	}
}

func TestDataVerify(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum := func(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }
	write("good", "good data")
	write("SHA256SUMS", sum("good data")+"  good\n")
	code, out, errOut := runArgs(t, "", "data", "verify", "--data", dir)
	if code != 0 || !strings.Contains(out, "ok") || !strings.Contains(errOut, "[1/1]") {
		t.Fatalf("all good: exit %d\n%s\n%s", code, out, errOut)
	}
	write("SHA256SUMS", sum("good data")+"  good\n"+sum("other")+"  absent\n")
	if code, out, _ := runArgs(t, "", "data", "verify", "--data", dir); code != 1 || !strings.Contains(out, "missing") {
		t.Errorf("missing file: exit %d\n%s", code, out)
	}
	if code, _, _ := runArgs(t, "", "data", "verify", "--data", dir, "--ignore-missing"); code != 0 {
		t.Errorf("missing file with --ignore-missing: exit %d", code)
	}
	write("good", "tampered")
	t.Setenv(datadir.Env, dir) // --data defaults to $WADN_DATA
	code, out, _ = runArgs(t, "", "data", "verify", "--ignore-missing")
	if code != 1 || !strings.Contains(out, "mismatch") || !strings.Contains(out, sum("tampered")) {
		t.Errorf("tampered file: exit %d\n%s", code, out)
	}
	empty := t.TempDir()
	if code, out, errOut := runArgs(t, "", "data", "verify", "--data", empty); code != 1 || out != "" ||
		!strings.Contains(errOut, "nothing verified: no SHA256SUMS list under "+empty+" and no file of a known data set") {
		t.Errorf("no lists, no file: exit %d, stdout %q, stderr %q; want 1 and nothing verified", code, out, errOut)
	}
	// Without a list, a file of a data set is checked against the checksum
	// its registry entry publishes.
	oc := filepath.Join(empty, "office_caltech")
	if err := os.MkdirAll(oc, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(oc, "dslr_SURF_L10.mat"), []byte("not the release"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runArgs(t, "", "data", "verify", "--data", empty)
	if code != 1 || !strings.Contains(out, "mismatch "+filepath.Join(oc, "dslr_SURF_L10.mat")) || !strings.Contains(out, "44d673c68e1d07b8") ||
		!strings.Contains(errOut, "no SHA256SUMS list under "+empty+": only the files of the data sets that publish checksums are checked") {
		t.Errorf("a damaged Office-Caltech10 file without a list: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestDataLsSharedData(t *testing.T) {
	dir, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	if testing.Short() {
		t.Skip("reads every label file of the data directory; skipped in -short mode")
	}
	code, out, errOut := runArgs(t, "", "data", "ls", "--data", dir, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var entries []lsEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"mnist/train": 60000, "mnist/test": 10000, "usps/train": 7291, "usps/test": 2007, "mnist_m/train": 10000, "mnist_m/test": 2000}
	got := map[string]int{}
	for _, e := range entries {
		if _, ok := want[e.Domain+"/"+e.Split]; ok {
			got[e.Domain+"/"+e.Split] = e.Count
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("digit counts %v, want %v", got, want)
	}
}
