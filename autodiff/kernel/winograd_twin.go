package kernel

// Pure-Go twins of the Winograd assembly. Each doc comment is the
// specification of the assembly routine of the same stem; products by 2, 4
// and 8 are exact, and the explicit float32 conversions keep a compiler from
// fusing a product into the addition that follows, so the twins round
// exactly where the assembly does.

// winoBT is the one-dimensional input transform r = Bᵀ d of F(4x4, 3x3):
//
//	t0 = d4 - 4*d2; t1 = d3 - 4*d1; r1 = t0 + t1; r2 = t0 - t1
//	t2 = d4 - d2;   t3 = d3 - d1;   r3 = t2 + 2*t3; r4 = t2 - 2*t3
//	r0 = (4*d0 + d4) - 5*d2;        r5 = (4*d1 + d5) - 5*d3
//
// Each output goes through at most 2 roundings.
func winoBT(d0, d1, d2, d3, d4, d5 float32) (r0, r1, r2, r3, r4, r5 float32) {
	q1 := float32(4 * d1)
	t0 := d4 - float32(4*d2)
	t1 := d3 - q1
	r1, r2 = t0+t1, t0-t1
	t2 := d4 - d2
	t3 := d3 - d1
	t3 += t3
	r3, r4 = t2+t3, t2-t3
	r0 = (float32(4*d0) + d4) - float32(5*d2)
	r5 = (q1 + d5) - float32(5*d3)
	return
}

// winoB is the one-dimensional adjoint of winoBT, x = B v:
//
//	p = v2 - v1; q = v4 - v3; s = v1 + v2; t = v3 + v4
//	x0 = 4*v0; x1 = (4*p + 2*q) + 4*v5; x2 = -((5*v0 + 4*s) + t)
//	x3 = -((p + 2*q) + 5*v5); x4 = (v0 + s) + t; x5 = v5
//
// Each output goes through at most 3 roundings.
func winoB(v0, v1, v2, v3, v4, v5 float32) (x0, x1, x2, x3, x4, x5 float32) {
	p := v2 - v1
	q := v4 - v3
	q += q
	s := v1 + v2
	t := v3 + v4
	x0 = float32(4 * v0)
	x1 = (float32(4*p) + q) + float32(4*v5)
	x2 = -((float32(5*v0) + float32(4*s)) + t)
	x3 = -((p + q) + float32(5*v5))
	x4 = (v0 + s) + t
	x5 = v5
	return
}

// winoAT is the one-dimensional output transform y = Aᵀ m:
//
//	s = m1 + m2; d = m1 - m2; u = m3 + m4; v = m3 - m4
//	y0 = (m0 + s) + u; y1 = d + 2*v; y2 = s + 4*u; y3 = (d + 8*v) + m5
//
// Each output goes through at most 3 roundings.
func winoAT(m0, m1, m2, m3, m4, m5 float32) (y0, y1, y2, y3 float32) {
	s := m1 + m2
	d := m1 - m2
	u := m3 + m4
	v := m3 - m4
	y0 = (m0 + s) + u
	y1 = d + (v + v)
	y2 = s + float32(4*u)
	y3 = (d + float32(8*v)) + m5
	return
}

// winoA is the one-dimensional adjoint of winoAT, m = A y:
//
//	e = y0 + y2; o = y1 + y3; f = y0 + 4*y2; g = 2*y1 + 8*y3
//	m0 = y0; m1 = e + o; m2 = e - o; m3 = f + g; m4 = f - g; m5 = y3
//
// Each output goes through at most 2 roundings.
func winoA(y0, y1, y2, y3 float32) (m0, m1, m2, m3, m4, m5 float32) {
	e := y0 + y2
	o := y1 + y3
	f := y0 + float32(4*y2)
	g := (y1 + y1) + float32(8*y3)
	return y0, e + o, e - o, f + g, f - g, y3
}

// winogradInGo is winogradInAVX2 and the definition of WinogradIn: for each
// tile and lane, winoBT on the six columns of the 6x6 tile, then on the six
// rows of the result.
func winogradInGo(dst []float32, stride int, src []float32, row, tiles int) {
	var d, c [6][6]float32
	for t := 0; t < tiles; t++ {
		for l := 0; l < Lanes; l++ {
			for i := range 6 {
				for j := range 6 {
					d[i][j] = src[i*row+Lanes*(4*t+j)+l]
				}
			}
			for j := range 6 {
				c[0][j], c[1][j], c[2][j], c[3][j], c[4][j], c[5][j] = winoBT(d[0][j], d[1][j], d[2][j], d[3][j], d[4][j], d[5][j])
			}
			for a := range 6 {
				r := &c[a]
				v0, v1, v2, v3, v4, v5 := winoBT(r[0], r[1], r[2], r[3], r[4], r[5])
				o := 6*a*stride + Lanes*t + l
				dst[o], dst[o+stride], dst[o+2*stride] = v0, v1, v2
				dst[o+3*stride], dst[o+4*stride], dst[o+5*stride] = v3, v4, v5
			}
		}
	}
}

// winogradInAdjGo is winogradInAdjAVX2 and the definition of WinogradInAdj:
// for each tile in order and each lane, winoB on the six columns of the
// transformed tile, then on the six rows of the result, each value then
// added to its pixel.
func winogradInAdjGo(dst []float32, row int, src []float32, stride, tiles int) {
	var v, c [6][6]float32
	for t := 0; t < tiles; t++ {
		for l := 0; l < Lanes; l++ {
			for a := range 6 {
				for b := range 6 {
					v[a][b] = src[(6*a+b)*stride+Lanes*t+l]
				}
			}
			for b := range 6 {
				c[0][b], c[1][b], c[2][b], c[3][b], c[4][b], c[5][b] = winoB(v[0][b], v[1][b], v[2][b], v[3][b], v[4][b], v[5][b])
			}
			for i := range 6 {
				r := &c[i]
				x0, x1, x2, x3, x4, x5 := winoB(r[0], r[1], r[2], r[3], r[4], r[5])
				o := i*row + Lanes*4*t + l
				dst[o] += x0
				dst[o+Lanes] += x1
				dst[o+2*Lanes] += x2
				dst[o+3*Lanes] += x3
				dst[o+4*Lanes] += x4
				dst[o+5*Lanes] += x5
			}
		}
	}
}

// winogradOutGo is winogradOutAVX2 and the definition of WinogradOut: for
// each tile and lane, winoAT on the six columns of the transformed tile,
// then on the four rows of the result, then bias added.
func winogradOutGo(dst []float32, row int, src []float32, stride, tiles int, bias float32) {
	var m [6][6]float32
	var c [4][6]float32
	for t := 0; t < tiles; t++ {
		for l := 0; l < Lanes; l++ {
			for a := range 6 {
				for b := range 6 {
					m[a][b] = src[(6*a+b)*stride+Lanes*t+l]
				}
			}
			for b := range 6 {
				c[0][b], c[1][b], c[2][b], c[3][b] = winoAT(m[0][b], m[1][b], m[2][b], m[3][b], m[4][b], m[5][b])
			}
			for i := range 4 {
				r := &c[i]
				y0, y1, y2, y3 := winoAT(r[0], r[1], r[2], r[3], r[4], r[5])
				o := i*row + Lanes*4*t + l
				dst[o] = y0 + bias
				dst[o+Lanes] = y1 + bias
				dst[o+2*Lanes] = y2 + bias
				dst[o+3*Lanes] = y3 + bias
			}
		}
	}
}

// winogradOutAdjGo is winogradOutAdjAVX2 and the definition of
// WinogradOutAdj: for each tile and lane, winoA on the four columns of the
// 4x4 block, then on the six rows of the result.
func winogradOutAdjGo(dst []float32, stride int, src []float32, row, tiles int) {
	var y [4][4]float32
	var c [6][4]float32
	for t := 0; t < tiles; t++ {
		for l := 0; l < Lanes; l++ {
			for i := range 4 {
				for j := range 4 {
					y[i][j] = src[i*row+Lanes*(4*t+j)+l]
				}
			}
			for j := range 4 {
				c[0][j], c[1][j], c[2][j], c[3][j], c[4][j], c[5][j] = winoA(y[0][j], y[1][j], y[2][j], y[3][j])
			}
			for a := range 6 {
				r := &c[a]
				m0, m1, m2, m3, m4, m5 := winoA(r[0], r[1], r[2], r[3])
				o := 6*a*stride + Lanes*t + l
				dst[o], dst[o+stride], dst[o+2*stride] = m0, m1, m2
				dst[o+3*stride], dst[o+4*stride], dst[o+5*stride] = m3, m4, m5
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
