package data

import (
	"testing"
)

// TestChecksum checks that a domain's checksum is fixed by its contents
// alone and moves with any of them.
func TestChecksum(t *testing.T) {
	newDomain := func() *Domain {
		return &Domain{Dataset: "amazon", Name: "books",
			Train: Split{Sparse: &CSR{Rows: 2, Cols: 5, RowPtr: []int{0, 1, 3}, ColIdx: []int32{1, 0, 4}, Val: []float32{1, 2, 3}}, Y: []int{0, 1}, NumClasses: 2},
			Test:  Split{Dense: &Dense{N: 1, Shape: []int{3}, Pix: []uint8{1, 2, 3}, Scale: 1}, Y: []int{1}, NumClasses: 2}}
	}
	base := newDomain().Checksum()
	if len(base) != 64 || newDomain().Checksum() != base {
		t.Fatalf("checksum %q, again %q", base, newDomain().Checksum())
	}
	for name, change := range map[string]func(d *Domain){
		"name":      func(d *Domain) { d.Name = "dvd" },
		"label":     func(d *Domain) { d.Train.Y[1] = 0 },
		"value":     func(d *Domain) { d.Train.Sparse.Val[2] = 3.5 },
		"column":    func(d *Domain) { d.Train.Sparse.ColIdx[2] = 3 },
		"row split": func(d *Domain) { d.Train.Sparse.RowPtr[1] = 2 },
		"pixel":     func(d *Domain) { d.Test.Dense.Pix[0] = 9 },
		"scale":     func(d *Domain) { d.Test.Dense.Scale = 1.0 / 255 },
		"grey":      func(d *Domain) { d.Test.Dense.Grey = true },
		"floats":    func(d *Domain) { d.Test.Dense.Pix, d.Test.Dense.X = nil, []float32{1, 2, 3} },
		"classes":   func(d *Domain) { d.Test.NumClasses = 3 },
		"empty":     func(d *Domain) { d.Test = Split{} },
	} {
		d := newDomain()
		change(d)
		if d.Checksum() == base {
			t.Errorf("changing the %s left the checksum", name)
		}
	}
}
