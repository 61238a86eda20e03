package audit

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/wadn-go/wadn/autodiff"
	"github.com/wadn-go/wadn/autodiff/kernel"
)

// The float32 convolution checks: Conv2d's output and both gradients, on
// the direct path (im2col and Gemm) and on the Winograd paths F(4x4, 3x3)
// and F(5x5, 3x3), under each kernel implementation, against the
// convolution of the same float32 values computed exactly (in float64,
// whose rounding is far below float32's).
//
// The direct path must agree to 1e-5 of each element's natural scale, the
// sum of the absolute values of the products it adds (plus |bias|).
//
// A Winograd path must stay within the bound that follows from counting the
// roundings each value goes through (Higham's gamma_k = k u / (1 - k u),
// u = 2^-24, applied to the sum of the absolute values of the terms, each
// through the absolute values of the transform matrices), with the
// transforms' rounding counts r_in, r_inadj, r_out, r_outadj of
// kernel.WinogradTile.Roundings:
//
//	|y - ŷ|   <= gamma(C + r_in + r_out + 2)          * (|Aᵀ| [sum_c |U_c| ∘ (|Bᵀ| |d_c| |B|)] |A| + |b|)
//	|dx - dx̂| <= gamma(F + r_outadj + r_inadj + 4)   * sum over the tiles covering the pixel of |B| [sum_f |U_f| ∘ (|A| |dy_f| |Aᵀ|)] |Bᵀ|
//	|dw - dŵ| <= gamma(N*T + r_outadj + r_in + 2)    * |Gᵀ| [sum over images and tiles of (|A| |dy| |Aᵀ|) ∘ (|Bᵀ| |d| |B|)] |G|
//
// with U = G g Gᵀ the exact transformed filter, C the input channels, F the
// filters, N the images and T the output tiles of one image. Besides the
// transforms: the filter transform is rounded once (it is computed in
// float64); the products sum C terms (F for dx, N*T for dw, across the
// chunks); the bias adds one rounding; a pixel of dx adds up to 4
// overlapping tiles (3 roundings); dw's filter transform adjoint is rounded
// once, with one more allowed for its float64 arithmetic. For F(4x4, 3x3)
// (roundings 4, 6, 6, 4) that is gamma(C+12), gamma(F+14) and
// gamma(N*T+10); for F(5x5, 3x3) (6, 10, 8, 8) gamma(C+16), gamma(F+22) and
// gamma(N*T+16). The check reports the largest error as a fraction of its
// bound: above 1 it fails.

// Tolerances of the convolution checks.
const (
	tolConvDirect = 1e-5 // relative to the sum of |terms|
	tolConvBound  = 1    // fraction of the Winograd bound
	unitRoundoff  = 0x1p-24
)

// convCase is one geometry of the convolution checks: n images of c x h x w,
// f filters of 3 x 3, zero padding pad, stride 1.
type convCase struct{ n, c, h, w, f, pad int }

// convCases: the second layer of the digits extractor with fewer images
// and filters (a partial block of 8 images), a 7x7 layer with padding, and
// an odd shape with more padding.
var convCases = []convCase{
	{11, 64, 15, 15, 32, 0},
	{9, 32, 7, 7, 48, 1},
	{3, 16, 10, 9, 16, 2},
}

func (cs convCase) out() (oh, ow int) { return cs.h + 2*cs.pad - 2, cs.w + 2*cs.pad - 2 }

// convData holds the float32 inputs of one check and the exact results.
type convData struct {
	cs                    convCase
	tile                  kernel.WinogradTile // the Winograd scales' tile, 0 for none
	x, w, b, dy           []float32
	y, dx, dw             []float64 // exact
	sy, sdx, sdw          []float64 // sums of |terms| of the direct convolution
	wy, wdx, wdw          []float64 // the Winograd bounds' scales (before gamma)
	oh, ow, tiles, th, tw int
}

func newConvData(cs convCase, tile kernel.WinogradTile, r *rand.Rand) *convData {
	d := &convData{cs: cs, tile: tile}
	d.oh, d.ow = cs.out()
	d.x = normals(r, cs.n*cs.c*cs.h*cs.w, 1)
	d.w = normals(r, cs.f*cs.c*9, 1/math.Sqrt(float64(9*cs.c)))
	d.b = normals(r, cs.f, 0.1)
	d.dy = normals(r, cs.n*cs.f*d.oh*d.ow, 1)
	d.exact()
	if tile != 0 {
		d.winogradScales()
	}
	return d
}

// at returns x[n, c, iy, ix] of an n x c x h x w array, 0 outside the plane.
func at(v []float32, c, h, w, n, ci, iy, ix int) float64 {
	if iy < 0 || iy >= h || ix < 0 || ix >= w {
		return 0
	}
	return float64(v[((n*c+ci)*h+iy)*w+ix])
}

// exact computes the direct convolution and both gradients in float64, and
// the sums of the absolute values of their terms.
func (d *convData) exact() {
	cs := d.cs
	n, c, h, w, f, pad := cs.n, cs.c, cs.h, cs.w, cs.f, cs.pad
	oh, ow := d.oh, d.ow
	d.y, d.sy = make([]float64, n*f*oh*ow), make([]float64, n*f*oh*ow)
	d.dx, d.sdx = make([]float64, n*c*h*w), make([]float64, n*c*h*w)
	d.dw, d.sdw = make([]float64, f*c*9), make([]float64, f*c*9)
	for in := 0; in < n; in++ {
		for fi := 0; fi < f; fi++ {
			for oy := 0; oy < oh; oy++ {
				for ox := 0; ox < ow; ox++ {
					o := ((in*f+fi)*oh+oy)*ow + ox
					y, s := float64(d.b[fi]), math.Abs(float64(d.b[fi]))
					g := float64(d.dy[o])
					for ci := 0; ci < c; ci++ {
						for i := 0; i < 3; i++ {
							iy := oy + i - pad
							for j := 0; j < 3; j++ {
								ix := ox + j - pad
								xv := at(d.x, c, h, w, in, ci, iy, ix)
								k := (fi*c+ci)*9 + 3*i + j
								wv := float64(d.w[k])
								y += wv * xv
								s += math.Abs(wv * xv)
								d.dw[k] += g * xv
								d.sdw[k] += math.Abs(g * xv)
								if iy >= 0 && iy < h && ix >= 0 && ix < w {
									p := ((in*c+ci)*h+iy)*w + ix
									d.dx[p] += g * wv
									d.sdx[p] += math.Abs(g * wv)
								}
							}
						}
					}
					d.y[o], d.sy[o] = y, s
				}
			}
		}
	}
}

// absMats returns the element-wise absolute values of Bᵀ, G and Aᵀ of t.
func absMats(t kernel.WinogradTile) (bt, g, at [][]float64) {
	bt, g, at = t.Matrices()
	for _, m := range [][][]float64{bt, g, at} {
		for i := range m {
			for j := range m[i] {
				m[i][j] = math.Abs(m[i][j])
			}
		}
	}
	return bt, g, at
}

// winogradScales computes the scales of the Winograd bounds (see the top of
// this file) tile by tile, as the Winograd path cuts the planes.
func (d *convData) winogradScales() {
	cs := d.cs
	n, c, h, w, f, pad := cs.n, cs.c, cs.h, cs.w, cs.f, cs.pad
	m, a := d.tile.Outputs(), d.tile.Size()
	P := a * a
	d.th, d.tw = (d.oh+m-1)/m, (d.ow+m-1)/m
	d.tiles = d.th * d.tw
	T := d.tiles
	absBT, absG, absAT := absMats(d.tile)
	_, G, _ := d.tile.Matrices()
	// |U| for every filter: |G g Gᵀ|, exact.
	absU := make([]float64, f*c*P)
	for k := 0; k < f*c; k++ {
		t := make([][3]float64, a)
		for p := 0; p < a; p++ {
			for j := 0; j < 3; j++ {
				for i := 0; i < 3; i++ {
					t[p][j] += G[p][i] * float64(d.w[9*k+3*i+j])
				}
			}
		}
		for p := 0; p < a; p++ {
			for q := 0; q < a; q++ {
				var s float64
				for j := 0; j < 3; j++ {
					s += t[p][j] * G[q][j]
				}
				absU[k*P+a*p+q] = math.Abs(s)
			}
		}
	}
	// |Bᵀ| |d| |B| for every image, channel and tile; |A| |dy| |Aᵀ| for
	// every image, filter and tile.
	absV := make([]float64, n*c*T*P)
	tile := make([][]float64, a)
	for i := range tile {
		tile[i] = make([]float64, a)
	}
	for in := 0; in < n; in++ {
		for ci := 0; ci < c; ci++ {
			for t := 0; t < T; t++ {
				y0, x0 := m*(t/d.tw)-pad, m*(t%d.tw)-pad
				for i := 0; i < a; i++ {
					for j := 0; j < a; j++ {
						tile[i][j] = math.Abs(at(d.x, c, h, w, in, ci, y0+i, x0+j))
					}
				}
				sandwich(absV[((in*c+ci)*T+t)*P:], absBT, tile, absBT)
			}
		}
	}
	absDM := make([]float64, n*f*T*P)
	absA := transposed(absAT)
	ytile := make([][]float64, m)
	for i := range ytile {
		ytile[i] = make([]float64, m)
	}
	for in := 0; in < n; in++ {
		for fi := 0; fi < f; fi++ {
			for t := 0; t < T; t++ {
				y0, x0 := m*(t/d.tw), m*(t%d.tw)
				for i := 0; i < m; i++ {
					for j := 0; j < m; j++ {
						ytile[i][j] = math.Abs(at(d.dy, f, d.oh, d.ow, in, fi, y0+i, x0+j))
					}
				}
				sandwich(absDM[((in*f+fi)*T+t)*P:], absA, ytile, absA)
			}
		}
	}
	// Output: |Aᵀ| [sum_c |U| ∘ |V|] |A| + |b|.
	d.wy = make([]float64, n*f*d.oh*d.ow)
	z := make([]float64, P)
	for in := 0; in < n; in++ {
		for fi := 0; fi < f; fi++ {
			for t := 0; t < T; t++ {
				clear(z)
				for ci := 0; ci < c; ci++ {
					u := absU[(fi*c+ci)*P:]
					v := absV[((in*c+ci)*T+t)*P:]
					for k := range z {
						z[k] += u[k] * v[k]
					}
				}
				y0, x0 := m*(t/d.tw), m*(t%d.tw)
				for i := 0; i < m && y0+i < d.oh; i++ {
					for j := 0; j < m && x0+j < d.ow; j++ {
						d.wy[((in*f+fi)*d.oh+y0+i)*d.ow+x0+j] = bilinear(absAT[i], z, absAT[j]) + math.Abs(float64(d.b[fi]))
					}
				}
			}
		}
	}
	// Input gradient: per tile |B| [sum_f |U| ∘ |dM|] |Bᵀ|, added over the
	// tiles that cover each pixel.
	d.wdx = make([]float64, n*c*h*w)
	absB := transposed(absBT)
	for in := 0; in < n; in++ {
		for ci := 0; ci < c; ci++ {
			for t := 0; t < T; t++ {
				clear(z)
				for fi := 0; fi < f; fi++ {
					u := absU[(fi*c+ci)*P:]
					dm := absDM[((in*f+fi)*T+t)*P:]
					for k := range z {
						z[k] += u[k] * dm[k]
					}
				}
				y0, x0 := m*(t/d.tw)-pad, m*(t%d.tw)-pad
				for i := 0; i < a; i++ {
					for j := 0; j < a; j++ {
						iy, ix := y0+i, x0+j
						if iy < 0 || iy >= h || ix < 0 || ix >= w {
							continue
						}
						d.wdx[((in*c+ci)*h+iy)*w+ix] += bilinear(absB[i], z, absB[j])
					}
				}
			}
		}
	}
	// Filter gradient: |Gᵀ| [sum over images and tiles of |dM| ∘ |V|] |G|.
	d.wdw = make([]float64, f*c*9)
	absGT := transposed(absG)
	for fi := 0; fi < f; fi++ {
		for ci := 0; ci < c; ci++ {
			clear(z)
			for in := 0; in < n; in++ {
				for t := 0; t < T; t++ {
					dm := absDM[((in*f+fi)*T+t)*P:]
					v := absV[((in*c+ci)*T+t)*P:]
					for k := range z {
						z[k] += dm[k] * v[k]
					}
				}
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					d.wdw[(fi*c+ci)*9+3*i+j] = bilinear(absGT[i], z, absGT[j])
				}
			}
		}
	}
}

// transposed returns the transpose of m.
func transposed(m [][]float64) [][]float64 {
	out := make([][]float64, len(m[0]))
	for j := range out {
		out[j] = make([]float64, len(m))
		for i := range m {
			out[j][i] = m[i][j]
		}
	}
	return out
}

// bilinear returns l z rᵀ for vectors l and r of length a and z an a x a
// matrix stored by rows.
func bilinear(l, z, r []float64) float64 {
	a := len(l)
	var s float64
	for p := 0; p < a; p++ {
		if l[p] == 0 {
			continue
		}
		var row float64
		for q := 0; q < a; q++ {
			row += z[a*p+q] * r[q]
		}
		s += l[p] * row
	}
	return s
}

// sandwich sets dst[p*len(r)+q] to (L X Rᵀ)[p][q].
func sandwich(dst []float64, l, x, r [][]float64) {
	for p := range l {
		for q := range r {
			var s float64
			for i := range x {
				if l[p][i] == 0 {
					continue
				}
				var row float64
				for j := range x[i] {
					row += x[i][j] * r[q][j]
				}
				s += l[p][i] * row
			}
			dst[p*len(r)+q] = s
		}
	}
}

// gamma is Higham's gamma_k = k u / (1 - k u) for float32.
func gamma(k int) float64 {
	ku := float64(k) * unitRoundoff
	return ku / (1 - ku)
}

// run computes Conv2d of the case's inputs and its gradients in float32
// with the given algorithm under the current kernel implementation.
func (d *convData) run(alg autodiff.ConvAlgorithm) (y, dx, dw []float32, err error) {
	prev := autodiff.SetConvAlgorithm(alg)
	defer autodiff.SetConvAlgorithm(prev)
	cs := d.cs
	x := autodiff.New(slices.Clone(d.x), cs.n, cs.c, cs.h, cs.w).SetRequiresGrad(true)
	w := autodiff.New(slices.Clone(d.w), cs.f, cs.c, 3, 3).SetRequiresGrad(true)
	b := autodiff.New(slices.Clone(d.b), cs.f)
	out := autodiff.Conv2d(x, w, b, 1, cs.pad)
	seed := autodiff.New(slices.Clone(d.dy), out.Shape()...)
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out}, []*autodiff.Tensor[float32]{seed},
		[]*autodiff.Tensor[float32]{x, w}, false)
	if err != nil {
		return nil, nil, nil, err
	}
	return slices.Clone(out.Data()), slices.Clone(g[0].Data()), slices.Clone(g[1].Data()), nil
}

// convWorst compares got with the exact values want, each error as a
// fraction of scale[i]*k, and records the worst in w under name.
func convWorst(w *worst, name string, got []float32, want, scale []float64, k float64) {
	for i := range want {
		g := float64(got[i])
		e := relErr(g, want[i], scale[i]*k)
		if scale[i] == 0 && g == want[i] {
			e = 0
		}
		w.add(e, g, want[i], func() string { return fmt.Sprintf("%s[%d]", name, i) })
	}
}

// winogradGammas returns the gamma factors of the bounds of y, dx and dw
// for tile t (see the top of this file).
func winogradGammas(t kernel.WinogradTile, cs convCase, tiles int) (gy, gdx, gdw float64) {
	in, inAdj, out, outAdj := t.Roundings()
	return gamma(cs.c + in + out + 2), gamma(cs.f + outAdj + inAdj + 4), gamma(cs.n*tiles + outAdj + in + 2)
}

// convTile returns the Winograd tile of an algorithm, 0 for direct.
func convTile(alg autodiff.ConvAlgorithm) kernel.WinogradTile {
	switch alg {
	case autodiff.ConvWinograd4:
		return kernel.F4x4
	case autodiff.ConvWinograd5:
		return kernel.F5x5
	}
	return 0
}

// convCheck runs Conv2d with algorithm alg under implementation impl on
// every case and returns the worst error: for the direct path relative to
// the sum of |terms|, for a Winograd path as a fraction of its bound.
func convCheck(alg autodiff.ConvAlgorithm, impl string, r *rand.Rand) (float64, string, error) {
	var total worst
	var parts []string
	tile := convTile(alg)
	for _, cs := range convCases {
		d := newConvData(cs, tile, r)
		var y, dx, dw []float32
		var runErr error
		if err := under(impl, func() { y, dx, dw, runErr = d.run(alg) }); err != nil {
			return 0, "", err
		}
		if runErr != nil {
			return 0, "", runErr
		}
		var wy, wdx, wdw worst
		if tile == 0 {
			convWorst(&wy, "y", y, d.y, d.sy, 1)
			convWorst(&wdx, "dx", dx, d.dx, d.sdx, 1)
			convWorst(&wdw, "dw", dw, d.dw, d.sdw, 1)
		} else {
			gy, gdx, gdw := winogradGammas(tile, cs, d.tiles)
			convWorst(&wy, "y", y, d.y, d.wy, gy)
			convWorst(&wdx, "dx", dx, d.dx, d.wdx, gdx)
			convWorst(&wdw, "dw", dw, d.dw, d.wdw, gdw)
		}
		parts = append(parts, fmt.Sprintf("%dx%dx%dx%d f%d pad%d: y %.3g dx %.3g dw %.3g",
			cs.n, cs.c, cs.h, cs.w, cs.f, cs.pad, wy.err, wdx.err, wdw.err))
		for _, w := range []*worst{&wy, &wdx, &wdw} {
			if w.err > total.err || math.IsNaN(w.err) {
				total = *w
				total.where = fmt.Sprintf("%v %s", cs, w.where)
			}
		}
	}
	if total.where != "" {
		parts = append(parts, fmt.Sprintf("worst at %s: %.9g, exact %.9g", total.where, total.got, total.want))
	}
	return total.err, strings.Join(parts, "; "), nil
}

// ConvChecks returns the float32 checks of Conv2d: for each kernel
// implementation (not applicable where the CPU or build lacks it) the
// direct path to within 1e-5 of the sum of |terms|, and the Winograd paths
// F(4x4, 3x3) and F(5x5, 3x3) within their error bounds.
func ConvChecks() []Check {
	avail := kernel.Available()
	var out []Check
	for _, alg := range []autodiff.ConvAlgorithm{autodiff.ConvDirect, autodiff.ConvWinograd4, autodiff.ConvWinograd5} {
		for _, impl := range append(slices.Clone(simdImpls), "go") {
			c := Check{Op: "Conv2d/" + alg.String(), Kind: impl + " vs float64"}
			if alg == autodiff.ConvDirect {
				c.Tol = tolConvDirect
				c.Notes = "y, dx, dw; error relative to the sum of |terms|"
			} else {
				c.Tol = tolConvBound
				c.Notes = "y, dx, dw; error as a fraction of the " + convTile(alg).String() + " bound"
			}
			if !slices.Contains(avail, impl) {
				c.NA = fmt.Sprintf("%s not available on this machine and build (available: %s)", impl, strings.Join(avail, ", "))
			} else {
				alg, impl := alg, impl
				c.Run = func(seed uint64) (float64, string, error) {
					return convCheck(alg, impl, rand.New(rand.NewPCG(seed, 4)))
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// MaxPoolChecks returns the float32 checks of MaxPool2d's kernels: for each
// implementation other than "go" (not applicable where the CPU or build
// lacks it), the pooled values, the chosen positions (through the gradient)
// and the gradient itself must have the bits of the "go" implementation,
// on planes with ties, signed zeros, infinities and NaNs.
func MaxPoolChecks() []Check {
	avail := kernel.Available()
	var out []Check
	for _, impl := range simdImpls {
		c := Check{Op: "MaxPool2d/float32", Kind: impl + " vs go", Tol: tolExact,
			Notes: "2x2 stride 2 and 3x3 stride 2, ceil and floor mode; values and gradient bits"}
		if !slices.Contains(avail, impl) {
			c.NA = fmt.Sprintf("%s not available on this machine and build (available: %s)", impl, strings.Join(avail, ", "))
		} else {
			impl := impl
			c.Run = func(seed uint64) (float64, string, error) {
				return maxPoolCompare(rand.New(rand.NewPCG(seed, 5)), impl)
			}
		}
		out = append(out, c)
	}
	return out
}

// maxPoolCompare runs MaxPool2d forward and backward in float32 under impl
// and under "go" and returns 0 when every value and gradient has the same
// bits (NaN matching NaN), +Inf otherwise.
func maxPoolCompare(r *rand.Rand, impl string) (float64, string, error) {
	ties := []float32{-2, -1, float32(math.Copysign(0, -1)), 0, 1, 2, float32(math.Inf(1)), float32(math.Inf(-1))}
	var w worst
	for _, s := range [][4]int{{3, 5, 30, 30}, {2, 7, 13, 13}, {4, 3, 5, 5}, {1, 2, 9, 16}, {2, 3, 3, 7}} {
		for _, k := range []int{2, 3} {
			for _, ceil := range []bool{true, false} {
				n := s[0] * s[1] * s[2] * s[3]
				x := make([]float32, n)
				for i := range x {
					x[i] = ties[r.IntN(len(ties))]
					if r.IntN(200) == 0 {
						x[i] = float32(math.NaN())
					}
				}
				var y, dx [2][]float32
				for j, im := range []string{impl, "go"} {
					var err error
					if e := under(im, func() { y[j], dx[j], err = maxPoolRun(x, s, k, ceil) }); e != nil {
						return 0, "", e
					}
					if err != nil {
						return 0, "", err
					}
				}
				for part, pair := range [][2][]float32{{y[0], y[1]}, {dx[0], dx[1]}} {
					for i := range pair[0] {
						g, x := float64(pair[0][i]), float64(pair[1][i])
						e := 0.0
						if math.Float64bits(g) != math.Float64bits(x) && !(g != g && x != x) {
							e = math.Inf(1)
						}
						w.add(e, g, x, func() string {
							return fmt.Sprintf("%v k%d ceil %v %s[%d]", s, k, ceil, []string{"y", "dx"}[part], i)
						})
					}
				}
			}
		}
	}
	return w.result()
}

// maxPoolRun returns MaxPool2d of x (shape s) with kernel and stride k
// (stride 2 for k = 3) and the gradient of the sum of its outputs times
// their positions' numbers.
func maxPoolRun(x []float32, s [4]int, k int, ceil bool) (y, dx []float32, err error) {
	tx := autodiff.New(slices.Clone(x), s[0], s[1], s[2], s[3]).SetRequiresGrad(true)
	out := autodiff.MaxPool2d(tx, k, 2, ceil)
	seed := make([]float32, out.Len())
	for i := range seed {
		seed[i] = float32(i%7) - 3
	}
	g, err := autodiff.Gradients([]*autodiff.Tensor[float32]{out},
		[]*autodiff.Tensor[float32]{autodiff.New(seed, out.Shape()...)}, []*autodiff.Tensor[float32]{tx}, false)
	if err != nil {
		return nil, nil, err
	}
	return slices.Clone(out.Data()), slices.Clone(g[0].Data()), nil
}
