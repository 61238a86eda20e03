package data

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/wadn-go/wadn/data/svmlight"
)

// Amazon reviews: four product domains of Blitzer et al.'s sentiment data in
// the 5000-feature bag-of-words form of Chen et al. (mSDA). Every domain has
// 2000 balanced training reviews and a test set; the labels -1 (negative) and
// +1 (positive) become the classes 0 and 1.
const (
	// AmazonFeatures is the number of features (columns) of every review.
	AmazonFeatures = 5000
	// AmazonClasses is the number of classes: 0 negative, 1 positive.
	AmazonClasses = 2
)

// AmazonDomains lists the Amazon domains in the order of the data sets'
// files and of the offsets in amazon.npz.
var AmazonDomains = []string{"books", "dvd", "electronics", "kitchen"}

// AmazonDir is the folder of a data directory holding the svmlight files
// <domain>_train.svmlight and <domain>_test.svmlight.
const AmazonDir = "amazon"

// AmazonNPZ is the path, within a data directory, of the Amazon data in the
// numpy layout read by the MDAN, DARN and WADN code.
const AmazonNPZ = "formats/amazon.npz"

// LoadAmazon returns the four Amazon domains, in the order of AmazonDomains.
// With dir == "" it decodes the copy embedded in the binary; otherwise it
// reads the svmlight files under dir/amazon and refuses files that differ
// from the published data set (see [LoadOptions]).
func LoadAmazon(dir string) ([]Domain, error) {
	return LoadAmazonWith(dir, LoadOptions{})
}

// LoadAmazonWith is LoadAmazon with the integrity checks set by opt.
func LoadAmazonWith(dir string, opt LoadOptions) ([]Domain, error) {
	if dir == "" {
		return LoadAmazonEmbedded()
	}
	return loadAmazonSVMLight(filepath.Join(dir, AmazonDir), opt)
}

// LoadAmazonSVMLight reads the domains from <domain>_train.svmlight and
// <domain>_test.svmlight in folder, checking the rows of every file and
// the SHA256SUMS lists of folder and of the folder above it. The eight
// files are read concurrently.
func LoadAmazonSVMLight(folder string) ([]Domain, error) {
	return loadAmazonSVMLight(folder, LoadOptions{})
}

func loadAmazonSVMLight(folder string, opt LoadOptions) ([]Domain, error) {
	out := make([]Domain, len(AmazonDomains))
	errs := make([]error, len(AmazonDomains)*3)
	done := make(chan struct{})
	checks := make([]*checker, len(AmazonDomains))
	for i, name := range AmazonDomains {
		out[i] = Domain{Dataset: "amazon", Name: name}
		checks[i] = newChecker(opt)
		for j, part := range []string{"train", "test"} {
			go func() {
				defer func() { done <- struct{}{} }()
				split := &out[i].Train
				if j == 1 {
					split = &out[i].Test
				}
				path := amazonFile(folder, name, part)
				wait := checks[i].sum(path)
				var err error
				*split, err = readAmazonSplit(path)
				errs[3*i+j] = errors.Join(wait(), err)
			}()
		}
	}
	for range len(AmazonDomains) * 2 {
		<-done
	}
	for i, name := range AmazonDomains {
		if errs[3*i] == nil && errs[3*i+1] == nil {
			errs[3*i+2] = checks[i].counts(&out[i], amazonFile(folder, name, "train"), amazonFile(folder, name, "test"))
		}
		checks[i].finish(&out[i])
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func amazonFile(folder, domain, part string) string {
	return filepath.Join(folder, domain+"_"+part+".svmlight")
}

func readAmazonSplit(path string) (Split, error) {
	d, err := svmlight.ReadFile(path, svmlight.Options{IndexBase: 0, NumCols: AmazonFeatures})
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Split{}, fmt.Errorf("amazon: %w (want the svmlight files <domain>_{train,test}.svmlight of %v in %s)", err, AmazonDomains, filepath.Dir(path))
		}
		return Split{}, fmt.Errorf("amazon: %w", err)
	}
	y := make([]int, d.Rows)
	for i, l := range d.Labels {
		switch l {
		case -1:
			y[i] = 0
		case 1:
			y[i] = 1
		default:
			return Split{}, fmt.Errorf("amazon: %s: row %d has label %v, want -1 or +1", path, i+1, l)
		}
	}
	m := &CSR{Rows: d.Rows, Cols: d.Cols, RowPtr: d.RowPtr, ColIdx: d.ColIdx, Val: d.Val}
	return Split{Sparse: m, Y: y, NumClasses: AmazonClasses}, nil
}
