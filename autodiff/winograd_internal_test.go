package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// BenchmarkWinoFilter times the filter transform and its adjoint (with two
// partial sums) of the Digits extractor's last layer, 256 x 128 filters.
func BenchmarkWinoFilter(b *testing.B) {
	const f, c = 256, 128
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tile := range []kernel.WinogradTile{kernel.F4x4, kernel.F5x5} {
		pos := tile.Size() * tile.Size()
		w := make([]float32, f*c*9)
		for i := range w {
			w[i] = rng.Float32() - 0.5
		}
		u := make([]float32, pos*winoUStride(f*c))
		dus := [][]float32{make([]float32, pos*winoUStride(f*c)), make([]float32, pos*winoUStride(f*c))}
		for _, du := range dus {
			for i := range du {
				du[i] = rng.Float32() - 0.5
			}
		}
		b.Run(tile.String()+"/forward", func(b *testing.B) {
			for b.Loop() {
				winoFilter(tile, u, w, f, c)
			}
		})
		b.Run(tile.String()+"/adjoint", func(b *testing.B) {
			for b.Loop() {
				winoFilterAdj(tile, w, dus, f*c)
			}
		})
	}
}

// TestConvKeptFilters checks that the input gradient computed from the
// transformed filters a forward pass kept has the bits of the one that
// transforms the filters again, on both tiles, that filters kept for
// another tile are not used, and that those kept are (zeros give a zero
// input gradient).
func TestConvKeptFilters(t *testing.T) {
	const n, c, h, f = 9, 16, 9, 20
	g, ok := newConvGeom(c, h, h, 3, 3, 1, 0)
	if !ok {
		t.Fatal("no geometry")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	fill := func(k int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = rng.Float32() - 0.5
		}
		return v
	}
	x, w, dy := fill(n*c*h*h), fill(f*c*9), fill(n*f*g.oh*g.ow)
	for _, tc := range []struct {
		alg  ConvAlgorithm
		keep kernel.WinogradTile // the tile the kept filters are for
		zero bool                // keep zeros instead of the filters' transform
	}{
		{ConvWinograd4, kernel.F4x4, false},
		{ConvWinograd5, kernel.F5x5, false},
		{ConvWinograd5, kernel.F4x4, false},
		{ConvWinograd5, kernel.F5x5, true},
	} {
		prev := SetConvAlgorithm(tc.alg)
		fu := keptFilters{tile: tc.keep, u: make([]float32, tc.keep.Size()*tc.keep.Size()*winoUStride(f*c))}
		want, got := make([]float32, len(x)), make([]float32, len(x))
		if !tc.zero {
			winoFilter(tc.keep, fu.u, w, f, c)
			convBackwardBias(&g, n, f, x, w, dy, want, nil, nil)
		}
		convBackwardKept(&g, n, f, x, w, dy, got, nil, nil, fu)
		SetConvAlgorithm(prev)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v, filters kept for %v: dx[%d] = %v, %v transforming again", tc.alg, tc.keep, i, got[i], want[i])
			}
		}
	}
}
