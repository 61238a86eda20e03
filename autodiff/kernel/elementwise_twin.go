package kernel

import "math"

// Pure-Go twins of the AVX2 element-wise kernels. Each doc comment is the
// specification of the assembly routine of the same stem; the assembly takes
// slices whose length is a multiple of 8, the twins any length.

// binary32Go is addAVX2, subAVX2, mulAVX2 or divAVX2 by op:
//
//	for i := range dst { dst[i] = a[i] op b[i] }
func binary32Go(op binaryOp, dst, a, b []float32) { binaryGo(op, dst, a, b) }

// addScalar32Go is addScalarAVX2:
//
//	for i, v := range x { dst[i] = v + s }
func addScalar32Go(dst, x []float32, s float32) {
	for i, v := range x {
		dst[i] = v + s
	}
}

// scale32Go is scaleAVX2:
//
//	for i, v := range x { dst[i] = alpha * v }
func scale32Go(dst, x []float32, alpha float32) {
	for i, v := range x {
		dst[i] = alpha * v
	}
}

// axpy32Go is axpyAVX2 (which fuses the multiply and add):
//
//	for i, v := range x { y[i] += alpha * v }
func axpy32Go(alpha float32, x, y []float32) {
	for i, v := range x {
		y[i] = float32(math.FMA(float64(alpha), float64(v), float64(y[i])))
	}
}

// dot32Go is dotAVX2 up to the order of summation:
//
//	for i, v := range x { s += v * y[i] }
func dot32Go(x, y []float32) float32 {
	var s float32
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// sum32Go is sumAVX2 up to the order of summation:
//
//	for _, v := range x { s += v }
func sum32Go(x []float32) float32 {
	var s float32
	for _, v := range x {
		s += v
	}
	return s
}

// sumLanes8Go is SumLanes8 without assembly: each lane's plane summed in
// order, as sumBlock sums it under the "go" implementation.
func sumLanes8Go(dst, src []float32, offs []int32, lanes int) {
	for l := 0; l < lanes; l++ {
		var s float32
		for _, o := range offs {
			s += src[int(o)+l]
		}
		dst[l] = s
	}
}

// sumLanes8Twin is sumLanes8AVX2 in Go, the order of sumAVX2 spelled out
// for one lane's plane x of n values: 32 partial sums, x[p] added into
// a[p%32] for p below n&^31, then into a[p%8] up to n&^7; then
//
//	d[k] = (a[k] + a[8+k]) + (a[16+k] + a[24+k])    (k < 8)
//	e[k] = d[k] + d[k+4]                            (k < 4)
//	s = (e[0] + e[2]) + (e[1] + e[3])
//
// and the last n%8 values added to s in order.
func sumLanes8Twin(dst, src []float32, offs []int32) {
	n := len(offs)
	v, r32 := n&^7, n&^31
	for l := 0; l < Lanes; l++ {
		var a [32]float32
		for p := 0; p < v; p++ {
			x := src[int(offs[p])+l]
			if p < r32 {
				a[p%32] += x
			} else {
				a[p%8] += x
			}
		}
		var d [8]float32
		for k := range d {
			d[k] = (a[k] + a[8+k]) + (a[16+k] + a[24+k])
		}
		var e [4]float32
		for k := range e {
			e[k] = d[k] + d[k+4]
		}
		s := (e[0] + e[2]) + (e[1] + e[3])
		for p := v; p < n; p++ {
			s += src[int(offs[p])+l]
		}
		dst[l] = s
	}
}

// max32Go is maxAVX2 (x not empty): the largest element, NaN if any is NaN.
//
//	m := x[0]; for _, v := range x { m = max(m, v) }
func max32Go(x []float32) float32 {
	m := x[0]
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// relu32Go is reluAVX2:
//
//	for i, v := range x { if v < 0 { v = 0 }; dst[i] = v }
func relu32Go(dst, x []float32) {
	for i, v := range x {
		if v < 0 {
			v = 0
		}
		dst[i] = v
	}
}

// exp32Go is expAVX2:
//
//	for i, v := range x { dst[i] = expPoly32(v) }
func exp32Go(dst, x []float32) {
	for i, v := range x {
		dst[i] = expPoly32(v)
	}
}

// expPoly32 approximates e**x in float32 arithmetic, step for step as expAVX2:
// clamp x to [-104, 89]; n = round(x*log2(e)); r = x - n*ln2 with ln2 split
// into an exact high part and a low correction (|r| <= ln2/2); p = the degree-7
// Taylor polynomial of e**r by Horner's rule with fused multiply-adds (its
// truncation error is below 5e-9 relative); the result is p * 2**(n/2) *
// 2**(n-n/2), two factors so that subnormal results and the overflow to +Inf
// come out of the float multiplication itself. NaN is returned unchanged.
//
// The tests bound the error at 2 ulp of math.Exp for results in the normal
// range; +Inf gives +Inf, -Inf and x < -103.98 give 0, x > 88.73 gives +Inf.
func expPoly32(x float32) float32 {
	if x != x {
		return x
	}
	xc := min(max(x, -104), 89)
	n := float32(math.RoundToEven(float64(xc * math.Log2E)))
	fma := func(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }
	r := fma(-n, 0.693359375, xc)
	r = fma(-n, -2.12194440e-4, r)
	p := float32(1.0 / 5040)
	for _, c := range [...]float32{1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 0.5, 1, 1} {
		p = fma(p, r, c)
	}
	ni := int32(n)
	e1 := ni >> 1
	e2 := ni - e1
	s1 := math.Float32frombits(uint32(e1+127) << 23)
	s2 := math.Float32frombits(uint32(e2+127) << 23)
	return p * s1 * s2
}
