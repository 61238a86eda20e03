package data

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// allListers are the listers of every data set this package reads.
var allListers = []Lister{AmazonLister, DigitsLister, OfficeCaltechLister, OfficeHomeLister}

// officeCaltechRows are the rows of the Office-Caltech10 domains.
var officeCaltechRows = map[string]int{"amazon": 958, "webcam": 295, "dslr": 157, "caltech": 1123}

func TestCatalogEmbeddedOnly(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		var msgs []string
		entries, err := Catalog(dir, allListers, func(m string) { msgs = append(msgs, m) })
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 12 || len(msgs) != 2 {
			t.Fatalf("Catalog(%q): %d entries, %d progress messages; want the 8 embedded Amazon splits and the 4 Office-Caltech10 domains, from 2 jobs", dir, len(entries), len(msgs))
		}
		for _, e := range entries {
			if e.Source != "embedded" || e.Error != "" {
				t.Errorf("Catalog(%q): unexpected entry %+v", dir, e)
			}
			var want, classes int
			switch e.Dataset {
			case "amazon":
				want, classes = 2000, 2
				if e.Split == "test" {
					want = amazonTotals[e.Domain] - 2000
				}
			case "office-caltech":
				want, classes = officeCaltechRows[e.Domain], OfficeCaltechClasses
			default:
				t.Errorf("Catalog(%q): entry of %s", dir, e.Dataset)
			}
			sum := 0
			for _, n := range e.Histogram {
				sum += n
			}
			if e.Count != want || len(e.Histogram) != classes || sum != want {
				t.Errorf("%s %s %s: count %d histogram %v, want %d", e.Dataset, e.Domain, e.Split, e.Count, e.Histogram, want)
			}
		}
	}
	if _, err := Catalog(filepath.Join(t.TempDir(), "missing"), allListers, nil); err == nil {
		t.Error("Catalog of a missing directory succeeded")
	}
}

func TestCatalogDataDir(t *testing.T) {
	shared := requireData(t)
	if testing.Short() {
		t.Skip("reads the label files of the data directory; skipped in -short mode")
	}
	// A view of the shared data without the two slowest sources (USPS in
	// bzip2 and amazon.npz), whose readers are tested on their own; the cmd
	// tests list the full directory.
	dir := t.TempDir()
	for _, p := range []string{AmazonDir, MNISTDir, MNISTMDir, SVHNLayout, SynthLayout, fmt.Sprintf(OfficeHomeLayout, "art"), OfficeCaltechDir} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(shared, p), filepath.Join(dir, p)); err != nil {
			t.Skipf("cannot link the shared data: %v", err)
		}
	}
	entries, err := Catalog(dir, allListers, nil)
	if err != nil {
		t.Fatal(err)
	}
	find := func(dataset, domain, split, sourcePart string) *Entry {
		for i, e := range entries {
			if e.Dataset == dataset && e.Domain == domain && e.Split == split && strings.Contains(e.Source, sourcePart) {
				return &entries[i]
			}
		}
		return nil
	}
	for _, w := range []struct {
		dataset, domain, split, source string
		count                          int
		layout                         bool
	}{
		{"amazon", "books", "test", "embedded", 4465, false},
		{"amazon", "kitchen", "train", "amazon", 2000, false},
		{"digits", "mnist", "train", "mnist", 60000, false},
		{"digits", "mnist", "test", "mnist", 10000, false},
		{"digits", "mnist_m", "train", "mnist_m", 10000, false},
		{"digits", "mnist_m", "test", "mnist_m", 2000, false},
		{"digits", "svhn", "test", "svhn_layout", 300, true},
		{"digits", "synth", "test", "synth_layout", 300, true},
		{"office-home", "art", "train", "office_home_art", 130, true},
		{"office-caltech", "dslr", "train", "dslr_SURF_L10.mat", 157, false},
		{"office-caltech", "caltech", "train", "Caltech10_SURF_L10.mat", 1123, false},
		{"office-caltech", "caltech", "train", "embedded", 1123, false},
	} {
		e := find(w.dataset, w.domain, w.split, w.source)
		if e == nil {
			t.Errorf("no entry for %s/%s %s from %s", w.dataset, w.domain, w.split, w.source)
			continue
		}
		sum := 0
		for _, n := range e.Histogram {
			sum += n
		}
		if e.Error != "" || e.Count != w.count || sum != w.count || (e.Note != "") != w.layout {
			t.Errorf("%s/%s %s: %+v, want count %d, layout note %v", w.dataset, w.domain, w.split, e, w.count, w.layout)
		}
	}
}

func TestCatalogBadFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "usps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, USPSTrain), []byte("11 1:0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := Catalog(dir, allListers, nil)
	if err != nil {
		t.Fatal(err)
	}
	var bad *Entry
	for i := range entries {
		if entries[i].Domain == "usps" {
			bad = &entries[i]
		}
	}
	if bad == nil || !strings.Contains(bad.Error, "label 11") {
		t.Fatalf("a USPS file with label 11 gave %+v", bad)
	}
}

// writeTree writes files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sumOf(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"a.txt":          "alpha",
		"sub/b.txt":      "bravo",
		"sub/c.txt":      "changed",
		"sub/SHA256SUMS": sumOf("charlie") + "  c.txt\n" + sumOf("delta") + " *d.txt\n",
		"SHA256SUMS":     "# list\n" + sumOf("alpha") + "  a.txt\n\n" + strings.ToUpper(sumOf("bravo")) + "  sub/b.txt\n",
	})
	var seen []string
	checks, err := Verify(dir, nil, func(i, n int, f string) { seen = append(seen, fmt.Sprintf("%d/%d", i+1, n)) })
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range checks {
		rel, _ := filepath.Rel(dir, c.File)
		got[filepath.ToSlash(rel)] = c.Status
	}
	want := map[string]string{"a.txt": StatusOK, "sub/b.txt": StatusOK, "sub/c.txt": StatusMismatch, "sub/d.txt": StatusMissing}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Verify = %v, want %v", got, want)
	}
	if !slices.Equal(seen, []string{"1/4", "2/4", "3/4", "4/4"}) {
		t.Errorf("progress calls %v", seen)
	}
	for _, c := range checks {
		if c.Status == StatusMismatch && c.Got != sumOf("changed") {
			t.Errorf("mismatch reports sum %s, want the file's", c.Got)
		}
	}
	for _, bad := range []string{
		"nothex  a.txt\n",
		sumOf("x")[:60] + "  a.txt\n",
		sumOf("x") + "\n",
		sumOf("x") + "  ../outside\n",
	} {
		d := t.TempDir()
		writeTree(t, d, map[string]string{"SHA256SUMS": bad})
		if _, err := Verify(d, nil, nil); err == nil || !strings.Contains(err.Error(), "SHA256SUMS:1") {
			t.Errorf("list %q: error %v, want one naming SHA256SUMS:1", bad, err)
		}
	}
	if checks, err := Verify(t.TempDir(), nil, nil); err != nil || len(checks) != 0 {
		t.Errorf("Verify of a directory without lists = %v, %v", checks, err)
	}
	// Declared sums: the files present that no list names are checked,
	// absent ones are not; a listed file is checked once, against its list.
	declared := map[string]string{"a.txt": sumOf("other"), "sub/e.txt": sumOf("echo"), "sub/f.txt": sumOf("fox"), "x/absent": sumOf("x")}
	writeTree(t, dir, map[string]string{"sub/e.txt": "echo", "sub/f.txt": "wolf"})
	checks, err = Verify(dir, declared, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]string{}
	for _, c := range checks {
		rel, _ := filepath.Rel(dir, c.File)
		got[filepath.ToSlash(rel)] = c.Status
	}
	want["sub/e.txt"], want["sub/f.txt"] = StatusOK, StatusMismatch
	if fmt.Sprint(got) != fmt.Sprint(want) || len(checks) != 6 {
		t.Errorf("Verify with declared sums = %v (%d checks), want %v", got, len(checks), want)
	}
}

func TestVerifySharedData(t *testing.T) {
	dir := requireData(t)
	if testing.Short() {
		t.Skip("hashing the data directory; skipped in -short mode")
	}
	checks, err := Verify(dir, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) < 20 {
		t.Errorf("%d files checked, want the 21 of the shared SHA256SUMS", len(checks))
	}
	for _, c := range checks {
		if c.Status != StatusOK {
			t.Errorf("%s: %s", c.File, c.Status)
		}
	}
}

// TestCatalogProgressOrder: the progress lines come in the jobs' order,
// however long each job takes.
func TestCatalogProgressOrder(t *testing.T) {
	var jobs []CatalogJob
	var want []string
	for i := range 8 {
		what := fmt.Sprintf("job %d", i)
		want = append(want, "reading "+what)
		// The first jobs take longest: finishing order reversed.
		jobs = append(jobs, CatalogJob{what, func() []Entry {
			time.Sleep(time.Duration(8-i) * 5 * time.Millisecond)
			return []Entry{{Dataset: what}}
		}})
	}
	ls := []Lister{{Dataset: "fake", Files: func(string) []CatalogJob { return jobs }}}
	for range 3 {
		var got []string
		entries, err := Catalog(t.TempDir(), ls, func(m string) { got = append(got, m) })
		if err != nil || len(entries) != 8 || entries[0].Dataset != "job 0" {
			t.Fatalf("%v, %v", entries, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("progress %q, want %q", got, want)
		}
	}
}
