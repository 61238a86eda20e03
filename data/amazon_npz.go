package data

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wadn-go/wadn/data/npy"
)

// AmazonTrainRows is the number of training rows that lead every domain in
// amazon.npz (and fill each <domain>_train.svmlight).
const AmazonTrainRows = 2000

// LoadAmazonNPZ reads the Amazon domains from the numpy archive used by the
// MDAN, DARN and WADN code: the transposed count matrix as coordinates
// (xx_data values, xx_row feature indices, xx_col sample indices, xx_shape =
// [features, samples]), the labels yy (-1/+1) and offset, the first row of
// each domain in the order of AmazonDomains plus the total. The first
// AmazonTrainRows rows of a domain are its train split, the rest its test
// split. The rows of every domain and the SHA256SUMS lists of the file's
// folder and of the folder above it are checked as by LoadAmazon.
func LoadAmazonNPZ(path string) ([]Domain, error) {
	return LoadAmazonNPZWith(path, LoadOptions{})
}

// LoadAmazonNPZWith is LoadAmazonNPZ with the integrity checks set by opt.
func LoadAmazonNPZWith(path string, opt LoadOptions) ([]Domain, error) {
	c := newChecker(opt)
	wait := c.sum(path)
	ds, err := readAmazonNPZ(path)
	if err := errors.Join(wait(), err); err != nil {
		return nil, err
	}
	var errs []error
	for i := range ds {
		dc := newChecker(opt)
		errs = append(errs, dc.counts(&ds[i], path, path))
		c.finish(&ds[i])
		dc.finish(&ds[i])
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return ds, nil
}

func readAmazonNPZ(path string) ([]Domain, error) {
	arrs, err := npy.ReadNPZ(path)
	if err != nil {
		return nil, fmt.Errorf("amazon: %w", err)
	}
	get := func(name string) ([]int64, error) {
		a := arrs[name]
		if a == nil {
			return nil, fmt.Errorf("amazon: %s: no array %q", path, name)
		}
		v, err := a.Int64()
		if err != nil {
			return nil, fmt.Errorf("amazon: %s: %s: %w", path, name, err)
		}
		return v, nil
	}
	shape, err := get("xx_shape")
	if err != nil {
		return nil, err
	}
	if len(shape) != 2 || shape[0] != AmazonFeatures || shape[1] < 0 {
		return nil, fmt.Errorf("amazon: %s: xx_shape = %v, want [%d samples]", path, shape, AmazonFeatures)
	}
	nSamples := int(shape[1])
	feat, err := get("xx_row")
	if err != nil {
		return nil, err
	}
	sample, err := get("xx_col")
	if err != nil {
		return nil, err
	}
	yy, err := get("yy")
	if err != nil {
		return nil, err
	}
	offset, err := get("offset")
	if err != nil {
		return nil, err
	}
	da := arrs["xx_data"]
	if da == nil {
		return nil, fmt.Errorf("amazon: %s: no array %q", path, "xx_data")
	}
	vals, err := da.Float64()
	if err != nil {
		return nil, fmt.Errorf("amazon: %s: xx_data: %w", path, err)
	}
	if len(feat) != len(vals) || len(sample) != len(vals) {
		return nil, fmt.Errorf("amazon: %s: xx_data, xx_row, xx_col have %d, %d, %d elements, want equal", path, len(vals), len(feat), len(sample))
	}
	if len(yy) != nSamples {
		return nil, fmt.Errorf("amazon: %s: %d labels for %d samples", path, len(yy), nSamples)
	}
	if len(offset) != len(AmazonDomains)+1 || offset[0] != 0 || offset[len(offset)-1] != int64(nSamples) {
		return nil, fmt.Errorf("amazon: %s: offset = %v, want %d ascending entries from 0 to %d", path, offset, len(AmazonDomains)+1, nSamples)
	}

	// Coordinates to CSR over samples: count, prefix-sum, scatter, then sort
	// each row by column.
	m := &CSR{Rows: nSamples, Cols: AmazonFeatures, RowPtr: make([]int, nSamples+1)}
	for k, s := range sample {
		if s < 0 || s >= int64(nSamples) || feat[k] < 0 || feat[k] >= AmazonFeatures {
			return nil, fmt.Errorf("amazon: %s: entry %d at (feature %d, sample %d) outside [%d %d]", path, k, feat[k], s, AmazonFeatures, nSamples)
		}
		m.RowPtr[s+1]++
	}
	for i := 0; i < nSamples; i++ {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	m.ColIdx = make([]int32, len(vals))
	m.Val = make([]float32, len(vals))
	next := slices.Clone(m.RowPtr[:nSamples])
	for k, s := range sample {
		p := next[s]
		next[s]++
		m.ColIdx[p], m.Val[p] = int32(feat[k]), float32(vals[k])
	}
	for i := 0; i < nSamples; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		sortRow(m.ColIdx[lo:hi], m.Val[lo:hi])
		for k := lo + 1; k < hi; k++ {
			if m.ColIdx[k] == m.ColIdx[k-1] {
				return nil, fmt.Errorf("amazon: %s: sample %d has feature %d twice", path, i, m.ColIdx[k])
			}
		}
	}
	y := make([]int, nSamples)
	for i, l := range yy {
		switch l {
		case -1:
			y[i] = 0
		case 1:
			y[i] = 1
		default:
			return nil, fmt.Errorf("amazon: %s: yy[%d] = %d, want -1 or +1", path, i, l)
		}
	}
	all := Split{Sparse: m, Y: y, NumClasses: AmazonClasses}
	out := make([]Domain, len(AmazonDomains))
	for i, name := range AmazonDomains {
		lo, hi := int(offset[i]), int(offset[i+1])
		if hi-lo < AmazonTrainRows {
			return nil, fmt.Errorf("amazon: %s: domain %s has %d rows, want at least %d", path, name, hi-lo, AmazonTrainRows)
		}
		out[i] = Domain{Dataset: "amazon", Name: name,
			Train: all.Select(span(lo, lo+AmazonTrainRows)),
			Test:  all.Select(span(lo+AmazonTrainRows, hi)),
		}
	}
	return out, nil
}

func span(lo, hi int) []int {
	s := make([]int, hi-lo)
	for i := range s {
		s[i] = lo + i
	}
	return s
}

// sortRow sorts one row's entries by column (insertion sort: rows are short
// and usually nearly sorted).
func sortRow(idx []int32, val []float32) {
	for i := 1; i < len(idx); i++ {
		c, v := idx[i], val[i]
		j := i
		for j > 0 && idx[j-1] > c {
			idx[j], val[j] = idx[j-1], val[j-1]
			j--
		}
		idx[j], val[j] = c, v
	}
}
