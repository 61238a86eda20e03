package kernel

// Pure-Go twins of the two-dimensional Winograd kernels: each doc comment is
// the specification of the assembly routines of the same stem (one per tile
// size, winogradIn4AVX2 and winogradIn5AVX2 for winogradInGo, and so on).
// They apply the one-dimensional transforms of winograd_1d.go to the columns
// of a tile, then to the rows of the result, lane by lane.

// winogradInGo is winogradIn4AVX2 and winogradIn5AVX2 and the definition of
// WinogradIn: for each tile and lane, Bᵀ on the a columns of the a x a
// tile, then on the a rows of the result.
func winogradInGo(t WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
	f, m, a := winoTiles[t], t.Outputs(), t.Size()
	d, c, o := make([]float32, a), make([]float32, a*a), make([]float32, a)
	for k := 0; k < tiles; k++ {
		for l := 0; l < Lanes; l++ {
			for j := range a {
				for i := range a {
					d[i] = src[i*row+Lanes*(m*k+j)+l]
				}
				f.bt(d, o)
				for p := range a {
					c[p*a+j] = o[p]
				}
			}
			for p := range a {
				f.bt(c[p*a:(p+1)*a], o)
				for q := range a {
					dst[(a*p+q)*stride+Lanes*k+l] = o[q]
				}
			}
		}
	}
}

// winogradInAdjGo is winogradInAdj4AVX2 and winogradInAdj5AVX2 and the
// definition of WinogradInAdj: for each tile in order and each lane, B on
// the a columns of the transformed tile, then on the a rows of the result,
// each value then added to its pixel.
func winogradInAdjGo(t WinogradTile, dst []float32, row int, src []float32, stride, tiles int) {
	f, m, a := winoTiles[t], t.Outputs(), t.Size()
	v, c, o := make([]float32, a), make([]float32, a*a), make([]float32, a)
	for k := 0; k < tiles; k++ {
		for l := 0; l < Lanes; l++ {
			for q := range a {
				for p := range a {
					v[p] = src[(a*p+q)*stride+Lanes*k+l]
				}
				f.b(v, o)
				for i := range a {
					c[i*a+q] = o[i]
				}
			}
			for i := range a {
				f.b(c[i*a:(i+1)*a], o)
				for j := range a {
					dst[i*row+Lanes*(m*k+j)+l] += o[j]
				}
			}
		}
	}
}

// winogradOutGo is winogradOut4AVX2 and winogradOut5AVX2 and the definition
// of WinogradOut: for each tile and lane, Aᵀ on the a columns of the
// transformed tile, then on the m rows of the result, then bias added.
func winogradOutGo(t WinogradTile, dst []float32, row int, src []float32, stride, tiles int, bias float32) {
	f, m, a := winoTiles[t], t.Outputs(), t.Size()
	v, c, o := make([]float32, a), make([]float32, m*a), make([]float32, m)
	for k := 0; k < tiles; k++ {
		for l := 0; l < Lanes; l++ {
			for q := range a {
				for p := range a {
					v[p] = src[(a*p+q)*stride+Lanes*k+l]
				}
				f.at(v, o)
				for i := range m {
					c[i*a+q] = o[i]
				}
			}
			for i := range m {
				f.at(c[i*a:(i+1)*a], o)
				for j := range m {
					dst[i*row+Lanes*(m*k+j)+l] = o[j] + bias
				}
			}
		}
	}
}

// winogradOutAdjGo is winogradOutAdj4AVX2 and winogradOutAdj5AVX2 and the
// definition of WinogradOutAdj: for each tile and lane, A on the m columns
// of the m x m block, then on the a rows of the result.
func winogradOutAdjGo(t WinogradTile, dst []float32, stride int, src []float32, row, tiles int) {
	f, m, a := winoTiles[t], t.Outputs(), t.Size()
	y, c, o := make([]float32, m), make([]float32, a*m), make([]float32, a)
	for k := 0; k < tiles; k++ {
		for l := 0; l < Lanes; l++ {
			for j := range m {
				for i := range m {
					y[i] = src[i*row+Lanes*(m*k+j)+l]
				}
				f.a(y, o)
				for p := range a {
					c[p*m+j] = o[p]
				}
			}
			for p := range a {
				f.a(c[p*m:(p+1)*m], o)
				for q := range a {
					dst[(a*p+q)*stride+Lanes*k+l] = o[q]
				}
			}
		}
	}
}

// interleave8Go is interleave8AVX2 (which takes lanes == 8 and at least 8
// offsets) and the definition of Interleave8.
func interleave8Go(dst []float32, offs []int32, src []float32, stride, lanes int) {
	for p, o := range offs {
		d := dst[o : o+Lanes]
		for l := range d {
			if l < lanes {
				d[l] = src[l*stride+p]
			} else {
				d[l] = 0
			}
		}
	}
}

// deinterleave8Go is deinterleave8AVX2 (which takes lanes == 8 and at least
// 8 offsets) and the definition of Deinterleave8.
func deinterleave8Go(dst []float32, stride int, src []float32, offs []int32, lanes int) {
	for p, o := range offs {
		s := src[o : o+Lanes]
		for l := 0; l < lanes; l++ {
			dst[l*stride+p] = s[l]
		}
	}
}
