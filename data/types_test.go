package data

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// smallCSR is the 3x5 matrix
//
//	[1 0 0 2 0]
//	[0 0 0 0 0]
//	[0 3 4 0 5]
func smallCSR() *CSR {
	return &CSR{Rows: 3, Cols: 5, RowPtr: []int{0, 2, 2, 5}, ColIdx: []int32{0, 3, 1, 2, 4}, Val: []float32{1, 2, 3, 4, 5}}
}

func TestCSRValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(m *CSR)
		error string // substring, "" for valid
	}{
		{"valid", func(m *CSR) {}, ""},
		{"short RowPtr", func(m *CSR) { m.RowPtr = m.RowPtr[:3] }, "len(RowPtr)"},
		{"val length", func(m *CSR) { m.Val = m.Val[:4] }, "len(Val)"},
		{"end pointer", func(m *CSR) { m.RowPtr[3] = 4 }, "spans"},
		{"decreasing", func(m *CSR) { m.RowPtr[2] = 1 }, "decreases"},
		{"unsorted", func(m *CSR) { m.ColIdx[2], m.ColIdx[3] = 2, 1 }, "ascending"},
		{"column out of range", func(m *CSR) { m.ColIdx[4] = 5 }, "below 5"},
		{"repeated column", func(m *CSR) { m.ColIdx[3] = 1 }, "ascending"},
	} {
		m := smallCSR()
		tc.edit(m)
		err := m.Validate()
		switch {
		case tc.error == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.error != "" && (err == nil || !strings.Contains(err.Error(), tc.error)):
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.error)
		}
	}
}

func TestCSRGatherRows(t *testing.T) {
	m := smallCSR()
	got := m.SelectRows([]int{2, 0, 2, 1})
	want := &CSR{Rows: 4, Cols: 5, RowPtr: []int{0, 3, 5, 8, 8},
		ColIdx: []int32{1, 2, 4, 0, 3, 1, 2, 4}, Val: []float32{3, 4, 5, 1, 2, 3, 4, 5}}
	if !got.Equal(want) {
		t.Fatalf("SelectRows = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	// Reusing dst: a smaller batch fits in the same arrays.
	colPtr := &got.ColIdx[0]
	m.GatherRows([]int{0}, got)
	if got.Rows != 1 || got.NNZ() != 2 || &got.ColIdx[0] != colPtr {
		t.Fatalf("GatherRows into a reused CSR: rows %d nnz %d, reused %v", got.Rows, got.NNZ(), &got.ColIdx[0] == colPtr)
	}
}

// TestDenseLevels checks Row, Gather and Float32 on every pixel level
// against float32(p)*Scale, bit for bit, at the scales the loaders use and
// an odd one, in colour and in grey.
func TestDenseLevels(t *testing.T) {
	pix := make([]uint8, 2*256)
	for p := range 256 {
		pix[p], pix[511-p] = uint8(p), uint8(p)
	}
	for _, scale := range []float32{1, 1.0 / 255, 0.5, 0.0123} {
		for _, grey := range []bool{false, true} {
			d := &Dense{N: 2, Shape: []int{1, 16, 16}, Pix: pix, Scale: scale, Grey: grey}
			if grey {
				d.Shape = []int{2, 16, 16}
			}
			want := func(i, k int) float32 { return float32(pix[i*256+k%256]) * scale }
			check := func(what string, got []float32, i int) {
				t.Helper()
				for k, v := range got {
					if math.Float32bits(v) != math.Float32bits(want(i, k)) {
						t.Fatalf("scale %v grey %v: %s value %d = %v, want %v", scale, grey, what, k, v, want(i, k))
					}
				}
			}
			check("Row", d.Row(1, nil), 1)
			g := d.Gather([]int{1, 0}, nil)
			check("Gather", g[:d.Dim()], 1)
			check("Gather", g[d.Dim():], 0)
			f := d.Float32()
			check("Float32", f.X[:d.Dim()], 0)
			check("Float32", f.X[d.Dim():], 1)
		}
	}
}

// TestGatherAllocs checks that gathering pixel samples into a buffer large
// enough allocates nothing: a training step gathers every batch, and the
// table of levels stays on the stack.
func TestGatherAllocs(t *testing.T) {
	d := &Dense{N: 4, Shape: []int{3, 8, 8}, Pix: make([]uint8, 4*192), Scale: 1.0 / 255}
	dst := make([]float32, 2*192)
	if n := testing.AllocsPerRun(100, func() { d.Gather([]int{1, 3}, dst) }); n != 0 {
		t.Errorf("Gather into a buffer of the batch's size: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(100, func() { d.Row(1, dst) }); n != 0 {
		t.Errorf("Row into a buffer of the sample's size: %v allocations, want 0", n)
	}
}

func TestDenseForms(t *testing.T) {
	pix := &Dense{N: 3, Shape: []int{2, 2}, Pix: []uint8{0, 1, 2, 3, 10, 20, 30, 40, 255, 0, 255, 0}, Scale: 0.5}
	x := pix.Float32()
	if x.Pix != nil || len(x.X) != 12 || x.X[5] != 10 || x.X[8] != 127.5 {
		t.Fatalf("Float32 = %+v", x)
	}
	if x.Float32() != x {
		t.Error("Float32 of a float Dense is not the same Dense")
	}
	for _, d := range []*Dense{pix, x} {
		if err := d.Validate(); err != nil {
			t.Fatal(err)
		}
		got := d.Gather([]int{2, 0}, nil)
		want := []float32{127.5, 0, 127.5, 0, 0, 0.5, 1, 1.5}
		if !slices.Equal(got, want) {
			t.Errorf("Gather = %v, want %v", got, want)
		}
		s := d.SelectRows([]int{1})
		if (s.Pix == nil) != (d.Pix == nil) || !slices.Equal(s.Row(0, nil), []float32{5, 10, 15, 20}) {
			t.Errorf("SelectRows changed the storage or the values: %+v", s)
		}
	}
	grey := &Dense{N: 2, Shape: []int{3, 1, 2}, Pix: []uint8{1, 2, 3, 4}, Scale: 1, Grey: true}
	if err := grey.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := grey.Gather([]int{1}, nil); !slices.Equal(got, []float32{3, 4, 3, 4, 3, 4}) {
		t.Errorf("grey Gather = %v, want the plane in all three channels", got)
	}
	if sel := grey.SelectRows([]int{1, 1}); !sel.Grey || !slices.Equal(sel.Pix, []uint8{3, 4, 3, 4}) {
		t.Errorf("grey SelectRows = %+v", sel)
	}
	if f := grey.Float32(); len(f.X) != 12 || f.X[11] != 4 || f.Grey {
		t.Errorf("grey Float32 = %+v", f)
	}
	for _, tc := range []struct {
		name string
		d    Dense
	}{
		{"grey length", Dense{N: 1, Shape: []int{3, 2}, Pix: []uint8{1, 2, 3, 4, 5, 6}, Grey: true}},
		{"grey floats", Dense{N: 1, Shape: []int{1}, X: []float32{1}, Grey: true}},
		{"both", Dense{N: 1, Shape: []int{2}, X: []float32{1, 2}, Pix: []uint8{1, 2}}},
		{"neither", Dense{N: 1, Shape: []int{2}}},
		{"short", Dense{N: 2, Shape: []int{2}, X: []float32{1, 2}}},
		{"zero extent", Dense{N: 1, Shape: []int{0}, X: []float32{}}},
	} {
		if err := tc.d.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", tc.name, tc.d)
		}
	}
}

func TestSplit(t *testing.T) {
	s := Split{Sparse: smallCSR(), Y: []int{1, 0, 1}, NumClasses: 3}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if h := s.Histogram(); !slices.Equal(h, []int{1, 2, 0}) {
		t.Errorf("Histogram = %v", h)
	}
	sub := s.Select([]int{2, 1})
	if !slices.Equal(sub.Y, []int{1, 0}) || sub.Sparse.Rows != 2 || sub.Sparse.NNZ() != 3 || sub.NumClasses != 3 {
		t.Errorf("Select = %+v", sub)
	}
	bad := []Split{
		{Sparse: smallCSR(), Y: []int{0, 1}, NumClasses: 2},
		{Sparse: smallCSR(), Y: []int{0, 1, 2}, NumClasses: 2},
		{Y: []int{0}, NumClasses: 1},
		{Sparse: smallCSR(), Dense: &Dense{N: 3, Shape: []int{1}, X: []float32{1, 2, 3}}, Y: []int{0, 0, 0}, NumClasses: 1},
	}
	for i, b := range bad {
		if err := b.Validate(); err == nil {
			t.Errorf("bad split %d accepted", i)
		}
	}
}
