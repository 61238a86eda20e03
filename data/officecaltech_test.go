package data

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// officeCaltechEditions are the domains' rows, as the data set registry
// declares them.
var officeCaltechEditions = map[string][]Edition{
	"amazon": {{Train: 958}}, "webcam": {{Train: 295}}, "dslr": {{Train: 157}}, "caltech": {{Train: 1123}},
}

// TestOfficeCaltechEmbedded reads the embedded copy and checks the release
// as its README describes it: the rows and class counts of every domain,
// labels sorted, and features preprocessed (every column of mean 0 and
// population standard deviation 1 over its domain, or all 0).
func TestOfficeCaltechEmbedded(t *testing.T) {
	ds, err := LoadOfficeCaltech("", nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hists := map[string][]int{
		"amazon":  {92, 82, 94, 99, 100, 100, 99, 100, 94, 98},
		"webcam":  {29, 21, 31, 27, 27, 30, 43, 30, 27, 30},
		"dslr":    {12, 21, 12, 13, 10, 24, 22, 12, 8, 23},
		"caltech": {151, 110, 100, 138, 85, 128, 133, 94, 87, 97},
	}
	if len(ds) != 4 {
		t.Fatalf("%d domains", len(ds))
	}
	for i, d := range ds {
		if d.Name != OfficeCaltechDomains[i] || d.Dataset != "office-caltech" || d.Test.Len() != 0 {
			t.Errorf("domain %d: %s/%s with %d test rows", i, d.Dataset, d.Name, d.Test.Len())
		}
		if err := d.Train.Validate(); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		if h := d.Train.Histogram(); !slices.Equal(h, hists[d.Name]) {
			t.Errorf("%s: classes %v, want %v", d.Name, h, hists[d.Name])
		}
		if !slices.IsSorted(d.Train.Y) {
			t.Errorf("%s: labels not sorted as the release stores them", d.Name)
		}
		n, x := d.Train.Len(), d.Train.Dense.X
		constant := 0
		for j := 0; j < OfficeCaltechFeatures; j++ {
			var s, ss float64
			for i := 0; i < n; i++ {
				v := float64(x[i*OfficeCaltechFeatures+j])
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: feature (%d, %d) = %v", d.Name, i, j, v)
				}
				s += v
				ss += v * v
			}
			mean := s / float64(n)
			sd := math.Sqrt(ss/float64(n) - mean*mean)
			switch {
			case ss == 0:
				constant++
			case math.Abs(mean) > 1e-5 || math.Abs(sd-1) > 1e-4:
				t.Errorf("%s: column %d has mean %g and sd %g, want 0 and 1", d.Name, j, mean, sd)
			}
		}
		if constant > 20 {
			t.Errorf("%s: %d constant columns", d.Name, constant)
		}
	}
	// The embedded copy is the data directory's, to the bit.
	shared := requireData(t)
	fs, err := LoadOfficeCaltech(shared, []string{"dslr", "caltech"}, LoadOptions{Editions: officeCaltechEditions})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range fs {
		e := ds[slices.Index(OfficeCaltechDomains, d.Name)]
		if !slices.Equal(d.Train.Dense.X, e.Train.Dense.X) || !slices.Equal(d.Train.Y, e.Train.Y) || len(d.Unverified) != 0 {
			t.Errorf("domain %d (%s): the data directory's differs from the embedded copy", i, d.Name)
		}
	}
}

// TestOfficeCaltechPreprocess checks the release's preprocessing on three
// rows worked by hand: each row divided by its sum, each column z-scored
// with the population standard deviation, constant columns 0.
func TestOfficeCaltechPreprocess(t *testing.T) {
	const k = OfficeCaltechFeatures
	counts := make([]float64, 3*k)
	counts[0], counts[1] = 1, 3       // 0.25, 0.75
	counts[k], counts[k+1] = 2, 2     // 0.5, 0.5
	counts[2*k], counts[2*k+1] = 0, 4 // 0, 1
	counts[5], counts[k+5], counts[2*k+5] = 0, 0, 0
	x, err := OfficeCaltechPreprocess(counts, 3)
	if err != nil {
		t.Fatal(err)
	}
	z := math.Sqrt(1.5) // 0.25 / sqrt(0.125/3)
	want := map[[2]int]float64{{0, 0}: 0, {1, 0}: z, {2, 0}: -z, {0, 1}: 0, {1, 1}: -z, {2, 1}: z}
	for i := 0; i < 3; i++ {
		for j := 0; j < k; j++ {
			w := want[[2]int{i, j}] // 0 for the constant columns
			if got := float64(x[i*k+j]); math.Abs(got-w) > 1e-6 {
				t.Errorf("x[%d, %d] = %v, want %v", i, j, got, w)
			}
		}
	}
	counts[2*k+1] = 0
	if _, err := OfficeCaltechPreprocess(counts, 3); err == nil || !strings.Contains(err.Error(), "row 3 has no visual word") {
		t.Errorf("a row of zeros: %v", err)
	}
	if _, err := OfficeCaltechPreprocess(counts[:k], 3); err == nil {
		t.Error("too few counts accepted")
	}
}

// TestOfficeCaltechStrict damages a copy of the data directory's files and
// checks that each damage is refused with the file named: a changed byte
// against the folder's SHA256SUMS, a truncated file, a missing one.
func TestOfficeCaltechStrict(t *testing.T) {
	shared := requireData(t)
	src := filepath.Join(shared, OfficeCaltechDir)
	copyDir := func(t *testing.T, sums bool) string {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, OfficeCaltechDir), 0o755); err != nil {
			t.Fatal(err)
		}
		var list bytes.Buffer
		for _, d := range OfficeCaltechDomains {
			b, err := os.ReadFile(filepath.Join(src, OfficeCaltechFile(d)))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, OfficeCaltechDir, OfficeCaltechFile(d)), b, 0o644); err != nil {
				t.Fatal(err)
			}
			list.WriteString(OfficeCaltechSum(d) + "  " + OfficeCaltechFile(d) + "\n")
		}
		if sums {
			if err := os.WriteFile(filepath.Join(dir, OfficeCaltechDir, SumsFile), list.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	strict := LoadOptions{Editions: officeCaltechEditions}
	file := func(dir, d string) string { return filepath.Join(dir, OfficeCaltechDir, OfficeCaltechFile(d)) }
	edit := func(t *testing.T, path string, f func([]byte) []byte) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("intact, with sums", func(t *testing.T) {
		ds, err := LoadOfficeCaltech(copyDir(t, true), nil, strict)
		if err != nil || len(ds) != 4 || len(Unverified(ds)) != 0 {
			t.Fatalf("%d domains, %v, unverified %q", len(ds), err, Unverified(ds))
		}
	})
	t.Run("changed byte, with sums", func(t *testing.T) {
		dir := copyDir(t, true)
		edit(t, file(dir, "webcam"), func(b []byte) []byte { b[len(b)/2] ^= 1; return b })
		_, err := LoadOfficeCaltech(dir, nil, strict)
		var ie *IntegrityError
		if !errors.As(err, &ie) || ie.File != file(dir, "webcam") || !strings.Contains(err.Error(), "lists "+OfficeCaltechSum("webcam")) {
			t.Fatalf("%v", err)
		}
		ds, err := LoadOfficeCaltech(dir, []string{"webcam"}, LoadOptions{AllowUnverified: true, Editions: officeCaltechEditions})
		if err != nil && !strings.Contains(err.Error(), file(dir, "webcam")) {
			t.Fatalf("AllowUnverified: an error that does not name the file: %v", err)
		}
		if err == nil && (len(ds) != 1 || len(ds[0].Unverified) == 0) {
			t.Fatalf("AllowUnverified: %d domains, unverified %q", len(ds), Unverified(ds))
		}
	})
	t.Run("truncated", func(t *testing.T) {
		dir := copyDir(t, false)
		edit(t, file(dir, "dslr"), func(b []byte) []byte { return b[:len(b)/3] })
		_, err := LoadOfficeCaltech(dir, []string{"amazon", "dslr"}, strict)
		if err == nil || !strings.Contains(err.Error(), file(dir, "dslr")) {
			t.Fatalf("%v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		dir := copyDir(t, false)
		if err := os.Remove(file(dir, "caltech")); err != nil {
			t.Fatal(err)
		}
		_, err := LoadOfficeCaltech(dir, nil, strict)
		if err == nil || !strings.Contains(err.Error(), file(dir, "caltech")) || !strings.Contains(err.Error(), "Caltech10_SURF_L10.mat") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("unknown domain", func(t *testing.T) {
		_, err := LoadOfficeCaltech("", []string{"real"}, strict)
		if err == nil || !strings.Contains(err.Error(), `no domain "real"`) {
			t.Fatalf("%v", err)
		}
	})
}

// FuzzReadOfficeCaltech feeds the reader damaged MAT-files: it must return
// an error or a valid domain, never panic.
func FuzzReadOfficeCaltech(f *testing.F) {
	b, err := officeCaltechFS.ReadFile("embedded/office_caltech/" + OfficeCaltechFile("dslr"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:200])
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := readOfficeCaltech(bytes.NewReader(b), "fuzz.mat", "dslr")
		if err != nil {
			return
		}
		if err := d.Train.Validate(); err != nil {
			t.Fatalf("accepted an invalid domain: %v", err)
		}
	})
}
