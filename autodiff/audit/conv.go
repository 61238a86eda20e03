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
// the direct path (im2col and Gemm) and on the Winograd F(4x4, 3x3) path,
// under each kernel implementation, against the convolution of the same
// float32 values computed exactly (in float64, whose rounding is far below
// float32's).
//
// The direct path must agree to 1e-5 of each element's natural scale, the
// sum of the absolute values of the products it adds (plus |bias|).
//
// The Winograd path must stay within the bound that follows from counting
// the roundings each value goes through (Higham's gamma_k = k u / (1 - k u),
// u = 2^-24, applied to the sum of the absolute values of the terms, each
// through the absolute values of the transform matrices):
//
//	|y - ŷ|  <= gamma(C+12)      * (|Aᵀ| [sum_c |U_c| ∘ (|Bᵀ| |d_c| |B|)] |A| + |b|)
//	|dx - dx̂| <= gamma(F+14)     * sum over the tiles covering the pixel of |B| [sum_f |U_f| ∘ (|A| |dy_f| |Aᵀ|)] |Bᵀ|
//	|dw - dŵ| <= gamma(N*tiles+10) * |Gᵀ| [sum over images and tiles of (|A| |dy| |Aᵀ|) ∘ (|Bᵀ| |d| |B|)] |G|
//
// with U = G g Gᵀ the exact transformed filter, C the input channels, F the
// filters, N the images and tiles the 4x4 output tiles of one image. The
// counts: the filter transform is rounded once; the input transform
// (package kernel's WinogradIn) takes at most 4 roundings, the output
// transform 6 and the bias 1; the product sums C terms (F for dx, N*tiles
// for dw); the adjoint transforms take 4 (WinogradOutAdj) and 6
// (WinogradInAdj), and a pixel of dx adds up to 4 overlapping tiles (3
// roundings); dw's filter transform adjoint is rounded once, with one more
// for its float64 arithmetic. The check reports the largest error as a
// fraction of its bound: above 1 it fails.

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
	x, w, b, dy           []float32
	y, dx, dw             []float64 // exact
	sy, sdx, sdw          []float64 // sums of |terms| of the direct convolution
	wy, wdx, wdw          []float64 // the Winograd bounds' scales (before gamma)
	oh, ow, tiles, th, tw int
}

func newConvData(cs convCase, r *rand.Rand) *convData {
	d := &convData{cs: cs}
	d.oh, d.ow = cs.out()
	d.x = normals(r, cs.n*cs.c*cs.h*cs.w, 1)
	d.w = normals(r, cs.f*cs.c*9, 1/math.Sqrt(float64(9*cs.c)))
	d.b = normals(r, cs.f, 0.1)
	d.dy = normals(r, cs.n*cs.f*d.oh*d.ow, 1)
	d.exact()
	d.winogradScales()
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

// absMats returns the element-wise absolute values of Bᵀ, G and Aᵀ.
func absMats() (bt [6][6]float64, g [6][3]float64, at [4][6]float64) {
	bt, g, at = kernel.WinogradMatrices()
	for i := range bt {
		for j := range bt[i] {
			bt[i][j] = math.Abs(bt[i][j])
		}
	}
	for i := range g {
		for j := range g[i] {
			g[i][j] = math.Abs(g[i][j])
		}
	}
	for i := range at {
		for j := range at[i] {
			at[i][j] = math.Abs(at[i][j])
		}
	}
	return bt, g, at
}

// winogradScales computes the scales of the Winograd bounds (see the top of
// this file) tile by tile, as the Winograd path cuts the planes.
func (d *convData) winogradScales() {
	cs := d.cs
	n, c, h, w, f, pad := cs.n, cs.c, cs.h, cs.w, cs.f, cs.pad
	d.th, d.tw = (d.oh+3)/4, (d.ow+3)/4
	d.tiles = d.th * d.tw
	T := d.tiles
	absBT, absG, absAT := absMats()
	_, G, _ := kernel.WinogradMatrices()
	// |U| for every filter: |G g Gᵀ|, exact.
	absU := make([]float64, f*c*36)
	for k := 0; k < f*c; k++ {
		var t [6][3]float64
		for a := 0; a < 6; a++ {
			for j := 0; j < 3; j++ {
				for i := 0; i < 3; i++ {
					t[a][j] += G[a][i] * float64(d.w[9*k+3*i+j])
				}
			}
		}
		for a := 0; a < 6; a++ {
			for b := 0; b < 6; b++ {
				var s float64
				for j := 0; j < 3; j++ {
					s += t[a][j] * G[b][j]
				}
				absU[k*36+6*a+b] = math.Abs(s)
			}
		}
	}
	// |Bᵀ| |d| |B| for every image, channel and tile; |A| |dy| |Aᵀ| for
	// every image, filter and tile.
	absV := make([]float64, n*c*T*36)
	for in := 0; in < n; in++ {
		for ci := 0; ci < c; ci++ {
			for t := 0; t < T; t++ {
				y0, x0 := 4*(t/d.tw)-pad, 4*(t%d.tw)-pad
				var tile [6][6]float64
				for i := 0; i < 6; i++ {
					for j := 0; j < 6; j++ {
						tile[i][j] = math.Abs(at(d.x, c, h, w, in, ci, y0+i, x0+j))
					}
				}
				sandwich66(absV[((in*c+ci)*T+t)*36:], &absBT, &tile)
			}
		}
	}
	absDM := make([]float64, n*f*T*36)
	for in := 0; in < n; in++ {
		for fi := 0; fi < f; fi++ {
			for t := 0; t < T; t++ {
				y0, x0 := 4*(t/d.tw), 4*(t%d.tw)
				var tile [4][4]float64
				for i := 0; i < 4; i++ {
					for j := 0; j < 4; j++ {
						tile[i][j] = math.Abs(at(d.dy, f, d.oh, d.ow, in, fi, y0+i, x0+j))
					}
				}
				// |A| |dy| |Aᵀ|: |A| is |Aᵀ| transposed.
				for a := 0; a < 6; a++ {
					for b := 0; b < 6; b++ {
						var s float64
						for i := 0; i < 4; i++ {
							for j := 0; j < 4; j++ {
								s += absAT[i][a] * tile[i][j] * absAT[j][b]
							}
						}
						absDM[((in*f+fi)*T+t)*36+6*a+b] = s
					}
				}
			}
		}
	}
	// Output: |Aᵀ| [sum_c |U| ∘ |V|] |A| + |b|.
	d.wy = make([]float64, n*f*d.oh*d.ow)
	for in := 0; in < n; in++ {
		for fi := 0; fi < f; fi++ {
			for t := 0; t < T; t++ {
				var z [36]float64
				for ci := 0; ci < c; ci++ {
					u := absU[(fi*c+ci)*36:]
					v := absV[((in*c+ci)*T+t)*36:]
					for k := range z {
						z[k] += u[k] * v[k]
					}
				}
				y0, x0 := 4*(t/d.tw), 4*(t%d.tw)
				for i := 0; i < 4 && y0+i < d.oh; i++ {
					for j := 0; j < 4 && x0+j < d.ow; j++ {
						var s float64
						for a := 0; a < 6; a++ {
							for b := 0; b < 6; b++ {
								s += absAT[i][a] * z[6*a+b] * absAT[j][b]
							}
						}
						d.wy[((in*f+fi)*d.oh+y0+i)*d.ow+x0+j] = s + math.Abs(float64(d.b[fi]))
					}
				}
			}
		}
	}
	// Input gradient: per tile |B| [sum_f |U| ∘ |dM|] |Bᵀ|, added over the
	// tiles that cover each pixel.
	d.wdx = make([]float64, n*c*h*w)
	for in := 0; in < n; in++ {
		for ci := 0; ci < c; ci++ {
			for t := 0; t < T; t++ {
				var z [36]float64
				for fi := 0; fi < f; fi++ {
					u := absU[(fi*c+ci)*36:]
					m := absDM[((in*f+fi)*T+t)*36:]
					for k := range z {
						z[k] += u[k] * m[k]
					}
				}
				y0, x0 := 4*(t/d.tw)-pad, 4*(t%d.tw)-pad
				for i := 0; i < 6; i++ {
					for j := 0; j < 6; j++ {
						iy, ix := y0+i, x0+j
						if iy < 0 || iy >= h || ix < 0 || ix >= w {
							continue
						}
						var s float64
						for a := 0; a < 6; a++ {
							for b := 0; b < 6; b++ {
								s += absBT[a][i] * z[6*a+b] * absBT[b][j]
							}
						}
						d.wdx[((in*c+ci)*h+iy)*w+ix] += s
					}
				}
			}
		}
	}
	// Filter gradient: |Gᵀ| [sum over images and tiles of |dM| ∘ |V|] |G|.
	d.wdw = make([]float64, f*c*9)
	for fi := 0; fi < f; fi++ {
		for ci := 0; ci < c; ci++ {
			var z [36]float64
			for in := 0; in < n; in++ {
				for t := 0; t < T; t++ {
					m := absDM[((in*f+fi)*T+t)*36:]
					v := absV[((in*c+ci)*T+t)*36:]
					for k := range z {
						z[k] += m[k] * v[k]
					}
				}
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					var s float64
					for a := 0; a < 6; a++ {
						for b := 0; b < 6; b++ {
							s += absG[a][i] * z[6*a+b] * absG[b][j]
						}
					}
					d.wdw[(fi*c+ci)*9+3*i+j] = s
				}
			}
		}
	}
}

// sandwich66 sets dst[6a+b] to (L X Lᵀ)[a][b] for 6x6 matrices.
func sandwich66(dst []float64, l, x *[6][6]float64) {
	var t [6][6]float64
	for a := 0; a < 6; a++ {
		for j := 0; j < 6; j++ {
			for i := 0; i < 6; i++ {
				t[a][j] += l[a][i] * x[i][j]
			}
		}
	}
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			var s float64
			for j := 0; j < 6; j++ {
				s += t[a][j] * l[b][j]
			}
			dst[6*a+b] = s
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

// convCheck runs Conv2d with algorithm alg under implementation impl on
// every case and returns the worst error: for the direct path relative to
// the sum of |terms|, for the Winograd path as a fraction of its bound.
func convCheck(alg autodiff.ConvAlgorithm, impl string, r *rand.Rand) (float64, string, error) {
	var total worst
	var parts []string
	for _, cs := range convCases {
		d := newConvData(cs, r)
		var y, dx, dw []float32
		var runErr error
		if err := under(impl, func() { y, dx, dw, runErr = d.run(alg) }); err != nil {
			return 0, "", err
		}
		if runErr != nil {
			return 0, "", runErr
		}
		var wy, wdx, wdw worst
		if alg == autodiff.ConvDirect {
			convWorst(&wy, "y", y, d.y, d.sy, 1)
			convWorst(&wdx, "dx", dx, d.dx, d.sdx, 1)
			convWorst(&wdw, "dw", dw, d.dw, d.sdw, 1)
		} else {
			convWorst(&wy, "y", y, d.y, d.wy, gamma(cs.c+12))
			convWorst(&wdx, "dx", dx, d.dx, d.wdx, gamma(cs.f+14))
			convWorst(&wdw, "dw", dw, d.dw, d.wdw, gamma(cs.n*d.tiles+10))
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
// direct path to within 1e-5 of the sum of |terms|, and the Winograd path
// within its error bound.
func ConvChecks() []Check {
	avail := kernel.Available()
	var out []Check
	for _, alg := range []autodiff.ConvAlgorithm{autodiff.ConvDirect, autodiff.ConvWinograd} {
		for _, impl := range append(slices.Clone(simdImpls), "go") {
			c := Check{Op: "Conv2d/" + alg.String(), Kind: impl + " vs float64"}
			if alg == autodiff.ConvDirect {
				c.Tol = tolConvDirect
				c.Notes = "y, dx, dw; error relative to the sum of |terms|"
			} else {
				c.Tol = tolConvBound
				c.Notes = "y, dx, dw; error as a fraction of the Winograd bound"
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
