package autodiff

import (
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
		u := make([]float32, pos*f*c)
		dus := [][]float32{make([]float32, pos*f*c), make([]float32, pos*f*c)}
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
