package data

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/wadn-go/wadn/data/mat"
)

// Office-Caltech10 (Gong et al., CVPR 2012), the GFK release: the ten object
// classes shared by Caltech-256 and the Office domains amazon, webcam and
// dslr, each image an 800-bin histogram of SURF visual words. One MAT-file
// per domain holds fts (N x 800 counts, uint8 elements of a double array)
// and labels (N x 1, 1..10); there is no test split.
const (
	// OfficeCaltechFeatures is the length of one histogram.
	OfficeCaltechFeatures = 800
	// OfficeCaltechClasses is the number of object classes.
	OfficeCaltechClasses = 10
	// OfficeCaltechDir is the folder of a data directory holding the
	// MAT-files.
	OfficeCaltechDir = "office_caltech"
)

// OfficeCaltechDomains lists the domains: amazon, webcam, dslr and caltech.
var OfficeCaltechDomains = []string{"amazon", "webcam", "dslr", "caltech"}

// OfficeCaltechFile returns the name of the MAT-file of a domain within
// OfficeCaltechDir: <domain>_SURF_L10.mat, Caltech10_SURF_L10.mat for
// caltech.
func OfficeCaltechFile(domain string) string {
	if domain == "caltech" {
		return "Caltech10_SURF_L10.mat"
	}
	return domain + "_SURF_L10.mat"
}

// officeCaltechSums are the SHA-256 sums of the release's MAT-files (those of
// the shared data's SHA256SUMS, and of the copies embedded in the binary).
var officeCaltechSums = map[string]string{
	"amazon":  "df32548b994e18d364c99e1f317e1fae100597259f0423a41b90f4f68187bb1f",
	"webcam":  "a6a9c78b4b7181dfbb58bcfd351d4ebd737f171c31247b8884948aa156d3f700",
	"dslr":    "44d673c68e1d07b837893aa74dba3b986e4a6cc3fd66f0dd357683bdef059216",
	"caltech": "4f9334c8ced489d5054de97a5fd51a61f017f3bcd1f38c9a85c6d78cb9d7bda5",
}

// OfficeCaltechSum returns the published SHA-256 of a domain's MAT-file.
func OfficeCaltechSum(domain string) string { return officeCaltechSums[domain] }

//go:embed embedded/office_caltech/*.mat
var officeCaltechFS embed.FS

// LoadOfficeCaltech returns the named Office-Caltech10 domains (nil: all
// four, in the order of OfficeCaltechDomains), preprocessed as
// [OfficeCaltechPreprocess] does. With dir == "" it reads the copy embedded
// in the binary; otherwise dir/office_caltech, checking every file's rows and
// SHA-256 as opt says.
func LoadOfficeCaltech(dir string, names []string, opt LoadOptions) ([]Domain, error) {
	if names == nil {
		names = OfficeCaltechDomains
	}
	out := make([]Domain, len(names))
	for i, name := range names {
		if officeCaltechSums[name] == "" {
			return nil, fmt.Errorf("office-caltech: no domain %q (want one of %v)", name, OfficeCaltechDomains)
		}
		var err error
		if dir == "" {
			out[i], err = loadOfficeCaltechEmbedded(name)
		} else {
			out[i], err = loadOfficeCaltechFile(filepath.Join(dir, OfficeCaltechDir, OfficeCaltechFile(name)), name, opt)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func loadOfficeCaltechEmbedded(name string) (Domain, error) {
	path := "embedded/office_caltech/" + OfficeCaltechFile(name)
	b, err := officeCaltechFS.ReadFile(path)
	if err != nil {
		return Domain{}, fmt.Errorf("%w: %v", errEmbedded, err)
	}
	if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != officeCaltechSums[name] {
		return Domain{}, fmt.Errorf("%w: %s: SHA-256 %x, want %s", errEmbedded, path, got, officeCaltechSums[name])
	}
	return readOfficeCaltech(bytes.NewReader(b), "embedded "+OfficeCaltechFile(name), name)
}

func loadOfficeCaltechFile(path, name string, opt LoadOptions) (Domain, error) {
	c := newChecker(opt)
	wait := c.sum(path)
	f, err := os.Open(path)
	if err != nil {
		werr := wait()
		return Domain{}, errors.Join(werr, fmt.Errorf("office-caltech: %w%s", err, missingHint(err, "the GFK release's "+OfficeCaltechFile(name)+" in "+filepath.Dir(path))))
	}
	defer f.Close()
	d, err := readOfficeCaltech(f, path, name)
	if werr := wait(); werr != nil {
		return d, werr
	}
	if err != nil {
		return d, err
	}
	err = c.counts(&d, path, "")
	c.finish(&d)
	return d, err
}

// OfficeCaltechLabels reads only the labels of one domain's MAT-file
// (classes 0..9).
func OfficeCaltechLabels(path string) ([]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("office-caltech: %w", err)
	}
	defer f.Close()
	_, y, err := readOfficeCaltechRaw(f, path)
	return y, err
}

func readOfficeCaltech(r io.Reader, path, name string) (Domain, error) {
	d := Domain{Dataset: "office-caltech", Name: name}
	counts, y, err := readOfficeCaltechRaw(r, path)
	if err != nil {
		return d, err
	}
	x, err := OfficeCaltechPreprocess(counts, len(y))
	if err != nil {
		return d, fmt.Errorf("office-caltech: %s: %w", path, err)
	}
	d.Train = Split{Dense: &Dense{N: len(y), Shape: []int{OfficeCaltechFeatures}, X: x}, Y: y, NumClasses: OfficeCaltechClasses}
	d.Test = Split{NumClasses: OfficeCaltechClasses}
	return d, nil
}

// readOfficeCaltechRaw returns the counts, row-major N x 800, and the labels
// 0..9 of a MAT-file: fts holds non-negative integer counts.
func readOfficeCaltechRaw(r io.Reader, path string) ([]float64, []int, error) {
	vars, err := mat.Read(r, path)
	if err != nil {
		return nil, nil, fmt.Errorf("office-caltech: %w", err)
	}
	fts, lab := vars["fts"], vars["labels"]
	if fts == nil || lab == nil {
		return nil, nil, fmt.Errorf("office-caltech: %s: want variables fts and labels, found %d variables", path, len(vars))
	}
	if fts.Class == "logical" || len(fts.Dims) != 2 || fts.Dims[1] != OfficeCaltechFeatures {
		return nil, nil, fmt.Errorf("office-caltech: %s: fts is %s %v, want counts [N %d]", path, fts.Class, fts.Dims, OfficeCaltechFeatures)
	}
	n := fts.Dims[0]
	if n == 0 {
		return nil, nil, fmt.Errorf("office-caltech: %s: fts has no rows", path)
	}
	if len(lab.Dims) != 2 || lab.Dims[0]*lab.Dims[1] != n || (lab.Dims[0] != n && lab.Dims[1] != n) {
		return nil, nil, fmt.Errorf("office-caltech: %s: labels have shape %v, want [%d 1]", path, lab.Dims, n)
	}
	y := make([]int, n)
	for i := range y {
		l := lab.At(i)
		if l != math.Trunc(l) || l < 1 || l > OfficeCaltechClasses {
			return nil, nil, fmt.Errorf("office-caltech: %s: label %v of row %d, want 1..%d", path, l, i+1, OfficeCaltechClasses)
		}
		y[i] = int(l) - 1
	}
	// Column-major fts(i, j) sits at i + n*j. The release stores the
	// counts as uint8 elements of a double array; either class is read.
	counts := make([]float64, n*OfficeCaltechFeatures)
	for j := 0; j < OfficeCaltechFeatures; j++ {
		for i := 0; i < n; i++ {
			v := fts.At(j*n + i)
			if !(v >= 0) || v != math.Trunc(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("office-caltech: %s: fts(%d, %d) = %v, want a count", path, i+1, j+1, v)
			}
			counts[i*OfficeCaltechFeatures+j] = v
		}
	}
	return counts, y, nil
}

// OfficeCaltechPreprocess turns the n rows of SURF counts (row-major, 800 a
// row, non-negative) into the features a network is fed, as the release advises: each row
// divided by its sum, then each column z-scored over the rows given, with
// the population standard deviation (a column that does not vary becomes
// 0). The arithmetic is float64, the result float32. A row whose counts sum
// to 0 is refused.
func OfficeCaltechPreprocess(counts []float64, n int) ([]float32, error) {
	const k = OfficeCaltechFeatures
	if len(counts) != n*k {
		return nil, fmt.Errorf("%d counts for %d rows of %d", len(counts), n, k)
	}
	v := make([]float64, n*k)
	for i := 0; i < n; i++ {
		row := counts[i*k : (i+1)*k]
		var s float64
		for _, c := range row {
			s += c
		}
		if s == 0 {
			return nil, fmt.Errorf("row %d has no visual word (its counts sum to 0)", i+1)
		}
		for j, c := range row {
			v[i*k+j] = c / s
		}
	}
	out := make([]float32, n*k)
	for j := 0; j < k; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += v[i*k+j]
		}
		mean /= float64(n)
		var ss float64
		for i := 0; i < n; i++ {
			d := v[i*k+j] - mean
			ss += d * d
		}
		sd := math.Sqrt(ss / float64(n))
		for i := 0; i < n; i++ {
			if sd > 0 {
				out[i*k+j] = float32((v[i*k+j] - mean) / sd)
			}
		}
	}
	return out, nil
}
