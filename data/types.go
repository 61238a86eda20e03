package data

import (
	"fmt"
	"slices"
)

// CSR is a sparse matrix in compressed sparse row form. Row i holds the
// entries ColIdx[k], Val[k] for RowPtr[i] <= k < RowPtr[i+1], with ColIdx
// ascending within a row. The field names match the autodiff sparse type so a
// CSR converts to it without copying.
type CSR struct {
	Rows, Cols int
	RowPtr     []int     // len Rows+1, RowPtr[0] = 0, RowPtr[Rows] = len(ColIdx)
	ColIdx     []int32   // column of each stored entry
	Val        []float32 // value of each stored entry
}

// NNZ returns the number of stored entries.
func (m *CSR) NNZ() int { return len(m.ColIdx) }

// Row returns the column indices and values of row i. The slices alias m.
func (m *CSR) Row(i int) ([]int32, []float32) {
	lo, hi := m.RowPtr[i], m.RowPtr[i+1]
	return m.ColIdx[lo:hi], m.Val[lo:hi]
}

// Validate reports the first structural inconsistency of m: lengths that do not
// agree, row pointers that decrease, or columns out of range or not ascending.
func (m *CSR) Validate() error {
	if m.Rows < 0 || m.Cols < 0 {
		return fmt.Errorf("csr: negative shape %dx%d", m.Rows, m.Cols)
	}
	if len(m.RowPtr) != m.Rows+1 {
		return fmt.Errorf("csr: len(RowPtr) = %d, want Rows+1 = %d", len(m.RowPtr), m.Rows+1)
	}
	if len(m.ColIdx) != len(m.Val) {
		return fmt.Errorf("csr: len(ColIdx) = %d but len(Val) = %d", len(m.ColIdx), len(m.Val))
	}
	if m.RowPtr[0] != 0 || m.RowPtr[m.Rows] != len(m.ColIdx) {
		return fmt.Errorf("csr: RowPtr spans [%d, %d], want [0, %d]", m.RowPtr[0], m.RowPtr[m.Rows], len(m.ColIdx))
	}
	for i := 0; i < m.Rows; i++ {
		lo, hi := m.RowPtr[i], m.RowPtr[i+1]
		if hi < lo {
			return fmt.Errorf("csr: row %d: RowPtr decreases from %d to %d", i, lo, hi)
		}
		prev := int32(-1)
		for k := lo; k < hi; k++ {
			c := m.ColIdx[k]
			if c <= prev || int(c) >= m.Cols {
				return fmt.Errorf("csr: row %d: column %d after %d (want ascending, below %d)", i, c, prev, m.Cols)
			}
			prev = c
		}
	}
	return nil
}

// SelectRows returns a new matrix made of the given rows of m, in that order.
// Rows may repeat.
func (m *CSR) SelectRows(rows []int) *CSR {
	return m.GatherRows(rows, nil)
}

// GatherRows writes the given rows of m into dst, reusing its slices, and
// returns dst; a nil dst allocates a new matrix. It is the batch-assembly
// path: with a dst kept across steps it allocates only while the batch grows.
func (m *CSR) GatherRows(rows []int, dst *CSR) *CSR {
	if dst == nil {
		dst = new(CSR)
	}
	nnz := 0
	for _, r := range rows {
		nnz += m.RowPtr[r+1] - m.RowPtr[r]
	}
	dst.Rows, dst.Cols = len(rows), m.Cols
	dst.RowPtr = resize(dst.RowPtr, len(rows)+1)
	dst.ColIdx = resize(dst.ColIdx, nnz)
	dst.Val = resize(dst.Val, nnz)
	k := 0
	dst.RowPtr[0] = 0
	for i, r := range rows {
		lo, hi := m.RowPtr[r], m.RowPtr[r+1]
		copy(dst.ColIdx[k:], m.ColIdx[lo:hi])
		copy(dst.Val[k:], m.Val[lo:hi])
		k += hi - lo
		dst.RowPtr[i+1] = k
	}
	return dst
}

// Equal reports whether m and o have the same shape and the same entries.
func (m *CSR) Equal(o *CSR) bool {
	if m.Rows != o.Rows || m.Cols != o.Cols || len(m.RowPtr) != len(o.RowPtr) || len(m.ColIdx) != len(o.ColIdx) || len(m.Val) != len(o.Val) {
		return false
	}
	for i := range m.RowPtr {
		if m.RowPtr[i] != o.RowPtr[i] {
			return false
		}
	}
	for i := range m.ColIdx {
		if m.ColIdx[i] != o.ColIdx[i] || m.Val[i] != o.Val[i] {
			return false
		}
	}
	return true
}

func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// Dense is a set of N dense samples of equal shape, stored sample after
// sample in row-major order (CHW for images).
//
// The values are held in exactly one of two forms. Features such as the
// Office-Home ResNet-50 vectors are float32 in X. Images are bytes in Pix and
// their value is float32(Pix[k])*Scale, so that a digits domain takes a
// quarter of the memory; grey-level images (Grey set) keep one plane per
// sample that stands for every channel. [Dense.Gather] and [Dense.Row]
// convert on the fly and [Dense.Float32] converts once. Code that reads X
// directly must call Float32 first when Pix is set.
type Dense struct {
	N     int
	Shape []int     // per sample, e.g. [3 32 32] or [2048]
	X     []float32 // N*Dim() values, or nil when Pix holds the samples
	Pix   []uint8   // N*Dim() bytes (N*Dim()/Shape[0] if Grey), or nil
	Scale float32   // value of one Pix unit: 1 for raw 0-255 pixels, 1/255 for [0,1]
	// Grey says that Pix holds one plane per sample, repeated into all
	// Shape[0] channels (MNIST and USPS given as 3x32x32).
	Grey bool
}

// Dim returns the number of values per sample, the product of Shape.
func (d *Dense) Dim() int {
	n := 1
	for _, s := range d.Shape {
		n *= s
	}
	return n
}

// stored returns the number of Pix bytes per sample.
func (d *Dense) stored() int {
	if d.Grey && len(d.Shape) > 0 && d.Shape[0] > 0 {
		return d.Dim() / d.Shape[0]
	}
	return d.Dim()
}

// Row writes sample i as float32 into dst (grown if needed) and returns it.
func (d *Dense) Row(i int, dst []float32) []float32 {
	return d.row(i, dst, d.levels())
}

// levels returns the value of each of the 256 pixel levels,
// float32(p)*Scale, or nil when Pix is not set.
func (d *Dense) levels() *[256]float32 {
	if d.Pix == nil {
		return nil
	}
	var lv [256]float32
	for p := range lv {
		lv[p] = float32(p) * d.Scale
	}
	return &lv
}

// row is Row with the levels of Pix (levels, nil when Pix is not set).
// Looking the values up gives the bits of converting them one by one.
func (d *Dense) row(i int, dst []float32, lv *[256]float32) []float32 {
	dim := d.Dim()
	dst = resize(dst, dim)
	if lv == nil {
		copy(dst, d.X[i*dim:(i+1)*dim])
		return dst
	}
	st := d.stored()
	src := d.Pix[i*st : (i+1)*st]
	out := dst[:len(src)]
	for k, p := range src {
		out[k] = lv[p]
	}
	for off := st; off < dim; off += st {
		copy(dst[off:off+st], dst[:st])
	}
	return dst
}

// Gather writes the given samples as float32, one after another, into dst
// (grown if needed) and returns it: a batch of len(rows) samples of Shape.
func (d *Dense) Gather(rows []int, dst []float32) []float32 {
	dim := d.Dim()
	dst = resize(dst, len(rows)*dim)
	lv := d.levels()
	for j, r := range rows {
		d.row(r, dst[j*dim:(j+1)*dim], lv)
	}
	return dst
}

// Float32 returns d with its values in X. A Dense already in X is returned
// unchanged; one in Pix is converted into a new Dense.
func (d *Dense) Float32() *Dense {
	if d.Pix == nil {
		return d
	}
	dim := d.Dim()
	x := make([]float32, d.N*dim)
	lv := d.levels()
	for i := 0; i < d.N; i++ {
		d.row(i, x[i*dim:(i+1)*dim], lv)
	}
	return &Dense{N: d.N, Shape: append([]int(nil), d.Shape...), X: x}
}

// SelectRows returns a new Dense made of the given samples of d, in that
// order, in the same storage form.
func (d *Dense) SelectRows(rows []int) *Dense {
	out := &Dense{N: len(rows), Shape: append([]int(nil), d.Shape...), Scale: d.Scale, Grey: d.Grey}
	if d.Pix != nil {
		st := d.stored()
		out.Pix = make([]uint8, len(rows)*st)
		for j, r := range rows {
			copy(out.Pix[j*st:], d.Pix[r*st:(r+1)*st])
		}
		return out
	}
	dim := d.Dim()
	out.X = make([]float32, len(rows)*dim)
	for j, r := range rows {
		copy(out.X[j*dim:], d.X[r*dim:(r+1)*dim])
	}
	return out
}

// Validate reports whether the storage of d agrees with N and Shape.
func (d *Dense) Validate() error {
	if d.N < 0 {
		return fmt.Errorf("dense: negative N %d", d.N)
	}
	if len(d.Shape) == 0 {
		return fmt.Errorf("dense: no shape")
	}
	for _, s := range d.Shape {
		if s <= 0 {
			return fmt.Errorf("dense: shape %v has a non-positive extent", d.Shape)
		}
	}
	switch {
	case (d.X == nil) == (d.Pix == nil) && d.N > 0:
		return fmt.Errorf("dense: exactly one of X (len %d) and Pix (len %d) must hold the values", len(d.X), len(d.Pix))
	case d.Pix != nil && len(d.Pix) != d.N*d.stored():
		return fmt.Errorf("dense: len(Pix) = %d, want %d (grey %v)", len(d.Pix), d.N*d.stored(), d.Grey)
	case d.Pix == nil && len(d.X) != d.N*d.Dim():
		return fmt.Errorf("dense: len(X) = %d, want N*Dim = %d", len(d.X), d.N*d.Dim())
	case d.Grey && d.Pix == nil:
		return fmt.Errorf("dense: Grey set for float values")
	}
	return nil
}

// Split is a labelled set of samples: exactly one of Sparse and Dense holds
// the inputs, Y the class of each sample in [0, NumClasses).
type Split struct {
	Sparse     *CSR   // sparse inputs (Amazon), or nil
	Dense      *Dense // dense inputs (digits, features), or nil
	Y          []int  // class of each sample
	NumClasses int
}

// Len returns the number of samples.
func (s *Split) Len() int { return len(s.Y) }

// Select returns the split made of the given rows of s, in that order.
func (s *Split) Select(rows []int) Split {
	out := Split{NumClasses: s.NumClasses, Y: make([]int, len(rows))}
	for j, r := range rows {
		out.Y[j] = s.Y[r]
	}
	if s.Sparse != nil {
		out.Sparse = s.Sparse.SelectRows(rows)
	}
	if s.Dense != nil {
		out.Dense = s.Dense.SelectRows(rows)
	}
	return out
}

// concatSplits returns the samples of a followed by those of b, which must
// hold the same input form (sparse or dense), classes and sample shape; it
// reports the first difference. An empty split adds nothing.
func concatSplits(a, b *Split) (Split, error) {
	if b.Len() == 0 {
		return *a, nil
	}
	if a.Len() == 0 {
		return *b, nil
	}
	switch {
	case a.NumClasses != b.NumClasses:
		return Split{}, fmt.Errorf("%d classes against %d", a.NumClasses, b.NumClasses)
	case (a.Sparse != nil) != (b.Sparse != nil) || (a.Dense != nil) != (b.Dense != nil):
		return Split{}, fmt.Errorf("%s samples against %s", a.form(), b.form())
	case a.Dense != nil && !slices.Equal(a.Dense.Shape, b.Dense.Shape):
		return Split{}, fmt.Errorf("samples of shape %v against %v", a.Dense.Shape, b.Dense.Shape)
	}
	out := Split{NumClasses: a.NumClasses, Y: append(append(make([]int, 0, a.Len()+b.Len()), a.Y...), b.Y...)}
	if a.Sparse != nil && b.Sparse != nil {
		m := &CSR{Rows: a.Sparse.Rows + b.Sparse.Rows, Cols: max(a.Sparse.Cols, b.Sparse.Cols)}
		m.RowPtr = append(make([]int, 0, m.Rows+1), a.Sparse.RowPtr...)
		off := a.Sparse.RowPtr[a.Sparse.Rows]
		for _, p := range b.Sparse.RowPtr[1:] {
			m.RowPtr = append(m.RowPtr, off+p)
		}
		m.ColIdx = append(append(make([]int32, 0, len(a.Sparse.ColIdx)+len(b.Sparse.ColIdx)), a.Sparse.ColIdx...), b.Sparse.ColIdx...)
		m.Val = append(append(make([]float32, 0, len(a.Sparse.Val)+len(b.Sparse.Val)), a.Sparse.Val...), b.Sparse.Val...)
		out.Sparse = m
	}
	if a.Dense != nil && b.Dense != nil {
		da, db := a.Dense, b.Dense
		if (da.Pix == nil) != (db.Pix == nil) || da.Scale != db.Scale || da.Grey != db.Grey {
			da, db = da.Float32(), db.Float32()
		}
		d := &Dense{N: da.N + db.N, Shape: append([]int(nil), da.Shape...), Scale: da.Scale, Grey: da.Grey}
		if da.Pix != nil {
			d.Pix = append(append(make([]uint8, 0, len(da.Pix)+len(db.Pix)), da.Pix...), db.Pix...)
		} else {
			d.X = append(append(make([]float32, 0, len(da.X)+len(db.X)), da.X...), db.X...)
		}
		out.Dense = d
	}
	return out, nil
}

// form names the input form of s.
func (s *Split) form() string {
	switch {
	case s.Sparse != nil:
		return "sparse"
	case s.Dense != nil:
		return "dense"
	}
	return "no"
}

// Histogram returns the number of samples of each class.
func (s *Split) Histogram() []int {
	return histogram(s.Y, s.NumClasses)
}

func histogram(y []int, k int) []int {
	h := make([]int, k)
	for _, c := range y {
		if c >= 0 && c < k {
			h[c]++
		}
	}
	return h
}

// Validate reports the first inconsistency of s: no or two input forms, a
// row count that differs from len(Y), or a label out of range.
func (s *Split) Validate() error {
	switch {
	case s.Sparse != nil && s.Dense != nil:
		return fmt.Errorf("split: both Sparse and Dense are set")
	case s.Sparse != nil:
		if err := s.Sparse.Validate(); err != nil {
			return err
		}
		if s.Sparse.Rows != len(s.Y) {
			return fmt.Errorf("split: %d sparse rows but %d labels", s.Sparse.Rows, len(s.Y))
		}
	case s.Dense != nil:
		if err := s.Dense.Validate(); err != nil {
			return err
		}
		if s.Dense.N != len(s.Y) {
			return fmt.Errorf("split: %d dense samples but %d labels", s.Dense.N, len(s.Y))
		}
	case len(s.Y) > 0:
		return fmt.Errorf("split: %d labels but no inputs", len(s.Y))
	}
	for i, c := range s.Y {
		if c < 0 || c >= s.NumClasses {
			return fmt.Errorf("split: label %d of sample %d is outside [0, %d)", c, i, s.NumClasses)
		}
	}
	return nil
}

// Domain is one domain of a benchmark with its train and test splits. A data
// set without a test split (the Office-Home features) leaves Test empty.
type Domain struct {
	Dataset string // "amazon", "digits" or "office-home"
	Name    string // e.g. "books", "mnist", "synthgen", "art"
	Train   Split
	Test    Split
	// Unverified lists the integrity checks that failed and were waived
	// by LoadOptions.AllowUnverified (see LoadOptions.Editions), each naming the
	// file; empty when the data passed every check.
	Unverified []string
}
