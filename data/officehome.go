package data

import (
	"fmt"
	"path/filepath"

	"github.com/wadn-go/wadn/data/npy"
)

// Office-Home as pre-extracted ResNet-50 features: 2048 float32 values per
// image, 65 classes, one archive per domain and no separate test split.
const (
	// OfficeHomeFeatures is the length of one feature vector.
	OfficeHomeFeatures = 2048
	// OfficeHomeClasses is the number of object classes.
	OfficeHomeClasses = 65
	// OfficeHomeDir is the folder of a data directory holding the archives
	// office_home_<domain>.npz.
	OfficeHomeDir = "office_home"
)

// OfficeHomeDomains lists the Office-Home domains: Art, Clipart, Product and
// Real World.
var OfficeHomeDomains = []string{"art", "clipart", "product", "real_world"}

// OfficeHomeFile returns the name of a domain's archive within
// OfficeHomeDir: office_home_<domain>.npz, the name the authors' code reads.
func OfficeHomeFile(domain string) string { return "office_home_" + domain + ".npz" }

// OfficeHomeLayout is the path pattern, within a data directory, of the
// layout-only archives (random values) used to test the reader.
const OfficeHomeLayout = "formats/office_home_%s.npz"

// LoadOfficeHome reads the domain called name from
// dir/office_home/office_home_<name>.npz. The real features are not in the
// shared data; the files formats/office_home_{art,clipart}.npz have their
// layout and are read by [ReadOfficeHomeNPZ].
func LoadOfficeHome(dir, name string) (Domain, error) {
	return LoadOfficeHomeWith(dir, name, LoadOptions{})
}

// LoadOfficeHomeWith is LoadOfficeHome with the integrity checks set by
// opt: the rows against opt.Editions and the SHA256SUMS lists of
// dir/office_home and dir.
func LoadOfficeHomeWith(dir, name string, opt LoadOptions) (Domain, error) {
	path := filepath.Join(dir, OfficeHomeDir, OfficeHomeFile(name))
	c := newChecker(opt)
	wait := c.sum(path)
	d, err := ReadOfficeHomeNPZ(path, name)
	if werr := wait(); werr != nil {
		return d, werr
	}
	if err != nil {
		return d, fmt.Errorf("%w%s", err, missingHint(err, path+", an archive with x (float32 N x 2048) and y (int64 N)"))
	}
	err = c.counts(&d, path, "")
	c.finish(&d)
	return d, err
}

// ReadOfficeHomeNPZ reads one domain's features: x, float32 N x 2048, and y,
// integer N with classes 0..64. Every sample goes to the Train split; Test is
// empty (the protocol tests on the target's training sample).
func ReadOfficeHomeNPZ(path, name string) (Domain, error) {
	d := Domain{Dataset: "office-home", Name: name}
	arrs, err := npy.ReadNPZ(path)
	if err != nil {
		return d, fmt.Errorf("office-home: %w", err)
	}
	xa, ya := arrs["x"], arrs["y"]
	if xa == nil || ya == nil {
		return d, fmt.Errorf("office-home: %s: want arrays x and y", path)
	}
	if len(xa.Shape) != 2 || xa.Shape[1] != OfficeHomeFeatures {
		return d, fmt.Errorf("office-home: %s: x has shape %v, want [N %d]", path, xa.Shape, OfficeHomeFeatures)
	}
	n := xa.Shape[0]
	if len(ya.Shape) != 1 || ya.Shape[0] != n {
		return d, fmt.Errorf("office-home: %s: y has shape %v, want [%d]", path, ya.Shape, n)
	}
	if xa.Fortran {
		return d, fmt.Errorf("office-home: %s: x is stored in Fortran order, want C order", path)
	}
	x, err := xa.Float32()
	if err != nil {
		return d, fmt.Errorf("office-home: %s: x: %w", path, err)
	}
	yv, err := ya.Int64()
	if err != nil {
		return d, fmt.Errorf("office-home: %s: y: %w", path, err)
	}
	y := make([]int, n)
	for i, c := range yv {
		if c < 0 || c >= OfficeHomeClasses {
			return d, fmt.Errorf("office-home: %s: y[%d] = %d, want 0..%d", path, i, c, OfficeHomeClasses-1)
		}
		y[i] = int(c)
	}
	for i, v := range x {
		if v != v || v > 3.4e38 || v < -3.4e38 {
			return d, fmt.Errorf("office-home: %s: x[%d, %d] = %v is not finite", path, i/OfficeHomeFeatures, i%OfficeHomeFeatures, v)
		}
	}
	d.Train = Split{Dense: &Dense{N: n, Shape: []int{OfficeHomeFeatures}, X: x}, Y: y, NumClasses: OfficeHomeClasses}
	d.Test = Split{NumClasses: OfficeHomeClasses}
	return d, nil
}
