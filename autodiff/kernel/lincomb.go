package kernel

// Float64 kernels of short linear combinations, which the Winograd filter
// transforms apply to blocks of filters. Each doc comment gives the reference
// loop: the products are rounded before they are added (never a fused
// multiply-add) and the sums are taken left to right, so the AVX2 assembly and
// the Go loops give the same bits. All slices must have the same length or the
// kernel panics.

// asmLen returns how many leading elements of an n-element call the AVX2
// assembly takes (a multiple of 4; none when the assembly is not used); the
// Go twin takes the rest.
func asmLen(n int) int {
	if !useAsm32() {
		return 0
	}
	return n &^ 3
}

// Comb3 is
//
//	for k := range d { d[k] = c[0]*r0[k] + c[1]*r1[k] + c[2]*r2[k] }
func Comb3(d, r0, r1, r2 []float64, c [3]float64) {
	checkLen3(len(d), len(r0), len(r1))
	checkLen2(len(d), len(r2))
	n := asmLen(len(d))
	if n > 0 {
		comb3AVX2(d[:n], r0[:n], r1[:n], r2[:n], &c)
	}
	comb3Go(d[n:], r0[n:], r1[n:], r2[n:], c)
}

// Comb3To32 is
//
//	for k := range d { d[k] = float32(c[0]*r0[k] + c[1]*r1[k] + c[2]*r2[k]) }
func Comb3To32(d []float32, r0, r1, r2 []float64, c [3]float64) {
	checkLen3(len(d), len(r0), len(r1))
	checkLen2(len(d), len(r2))
	n := asmLen(len(d))
	if n > 0 {
		comb3To32AVX2(d[:n], r0[:n], r1[:n], r2[:n], &c)
	}
	comb3To32Go(d[n:], r0[n:], r1[n:], r2[n:], c)
}

// AddScaled is
//
//	for k, v := range x { d[k] += a * v }
func AddScaled(d, x []float64, a float64) {
	checkLen2(len(d), len(x))
	n := asmLen(len(d))
	if n > 0 {
		addScaledAVX2(d[:n], x[:n], a)
	}
	addScaledGo(d[n:], x[n:], a)
}

// AddWidened is
//
//	for k, v := range x { d[k] += float64(v) }
func AddWidened(d []float64, x []float32) {
	checkLen2(len(d), len(x))
	n := asmLen(len(d))
	if n > 0 {
		addWidenedAVX2(d[:n], x[:n])
	}
	addWidenedGo(d[n:], x[n:])
}

// Blend32 is
//
//	for k, v := range x { d[k] = float32(r*d[k]) + float32(q*v) }
//
// the float32 kernel of a moving average (d the average, x the new values):
// each product is rounded before the sum, never a fused multiply-add, so
// the AVX2 assembly and the Go loop give the same bits (a NaN stays a NaN,
// its payload aside).
func Blend32(d, x []float32, r, q float32) {
	checkLen2(len(d), len(x))
	n := 0
	if useAsm32() {
		n = len(d) &^ 7
	}
	if n > 0 {
		blend32AVX2(d[:n], x[:n], r, q)
	}
	blend32Go(d[n:], x[n:], r, q)
}

// blend32Go is blend32AVX2 and the twin of Blend32.
func blend32Go(d, x []float32, r, q float32) {
	for k, v := range x {
		d[k] = float32(r*d[k]) + float32(q*v)
	}
}

// comb3Go is comb3AVX2 and the twin of Comb3 (the conversions round each
// product, so that no compiler fuses a multiply and an add).
func comb3Go(d, r0, r1, r2 []float64, c [3]float64) {
	for k := range d {
		d[k] = float64(c[0]*r0[k]) + float64(c[1]*r1[k]) + float64(c[2]*r2[k])
	}
}

// comb3To32Go is comb3To32AVX2 and the twin of Comb3To32.
func comb3To32Go(d []float32, r0, r1, r2 []float64, c [3]float64) {
	for k := range d {
		d[k] = float32(float64(c[0]*r0[k]) + float64(c[1]*r1[k]) + float64(c[2]*r2[k]))
	}
}

// addScaledGo is addScaledAVX2 and the twin of AddScaled.
func addScaledGo(d, x []float64, a float64) {
	for k, v := range x {
		d[k] += float64(a * v)
	}
}

// addWidenedGo is addWidenedAVX2 and the twin of AddWidened.
func addWidenedGo(d []float64, x []float32) {
	for k, v := range x {
		d[k] += float64(v)
	}
}
