package kernel

import (
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProfileGemms checks the records of the profile of the products: one
// a shape, entry point and element type, the calls counted on every
// goroutine, nothing for the products that need no multiplication or that
// run while the profile is off, the longest first, and a fresh start at
// each call.
func TestProfileGemms(t *testing.T) {
	defer ProfileGemms(false)
	const m, n, k = 5, 7, 3
	a, b := make([]float32, m*k), make([]float32, k*n)
	var p PackedA[float32]
	PackA(&p, true, m, k, 1, a, m)
	ProfileGemms(false)
	Gemm(false, false, m, n, k, 1, a, k, b, n, 0, make([]float32, m*n), n) // off: not recorded
	ProfileGemms(true)
	var wg sync.WaitGroup
	for range 3 { // three goroutines, each with its own C
		wg.Go(func() {
			c := make([]float32, m*n)
			Gemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
			GemmSerial(true, true, m, n, k, 1, a, m, b, k, 1, c, n)
			GemmPacked(&p, false, n, b, n, 0, c, n)
			Gemm(false, false, m, n, 0, 1, a, 1, b, n, 0, c, n) // k 0: nothing to multiply
			Gemm(false, false, m, n, k, 0, a, k, b, n, 1, c, n) // alpha 0: likewise
		})
	}
	wg.Wait()
	c := make([]float32, 2*n)
	Gemm(false, true, 2, n, k, 1, a, k, b, k, 0, c, n)
	a64, b64 := make([]float64, m*k), make([]float64, k*n)
	Gemm(false, false, m, n, k, 1, a64, k, b64, n, 0, make([]float64, m*n), n)
	got := ProfileGemms(true)
	want := map[GemmShape]int64{
		{m, n, k, false, false, EntryGemm, false}:   3,
		{m, n, k, true, true, EntrySerial, false}:   3,
		{m, n, k, false, false, EntryPacked, false}: 3,
		{2, n, k, false, true, EntryGemm, false}:    1,
		{m, n, k, false, false, EntryGemm, true}:    1,
	}
	calls := map[GemmShape]int64{}
	for i, r := range got {
		calls[r.GemmShape] = r.Calls
		if r.Seconds <= 0 {
			t.Errorf("%+v: %g seconds, want a positive time", r.GemmShape, r.Seconds)
		}
		if i > 0 && r.Seconds > got[i-1].Seconds {
			t.Errorf("record %d (%g s) is longer than record %d (%g s)", i, r.Seconds, i-1, got[i-1].Seconds)
		}
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls by shape (-want +got):\n%s", diff)
	}
	if again := ProfileGemms(false); len(again) != 0 {
		t.Errorf("a second call returned %d records, want none (the records start again)", len(again))
	}
	Gemm(false, false, m, n, k, 1, a, k, b, n, 0, make([]float32, m*n), n)
	if off := ProfileGemms(false); len(off) != 0 {
		t.Errorf("with the profile off: %d records, want none", len(off))
	}
}

// TestGemmShapeFlops checks a shape's operation count and the entry points'
// names.
func TestGemmShapeFlops(t *testing.T) {
	for _, tc := range []struct {
		s     GemmShape
		flops float64
		name  string
	}{
		{GemmShape{M: 2, N: 3, K: 4, Entry: EntryGemm}, 48, "Gemm"},
		{GemmShape{M: 80, N: 2304, K: 512, Entry: EntrySerial}, 2 * 80 * 2304 * 512, "GemmSerial"},
		{GemmShape{M: 1, N: 1, K: 1, Entry: EntryPacked}, 2, "GemmPacked"},
	} {
		if got := tc.s.Flops(); got != tc.flops {
			t.Errorf("%+v: Flops() = %g, want %g", tc.s, got, tc.flops)
		}
		if got := tc.s.Entry.String(); got != tc.name {
			t.Errorf("%+v: entry %q, want %q", tc.s, got, tc.name)
		}
	}
}
