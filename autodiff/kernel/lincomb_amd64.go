//go:build !purego

package kernel

// The AVX2 linear-combination kernels. Slice lengths are multiples of 4 (8
// for blend32AVX2) and equal; each is specified by its Go twin in lincomb.go.

// comb3AVX2 is comb3Go(d, r0, r1, r2, *c).
//
//go:noescape
func comb3AVX2(d, r0, r1, r2 []float64, c *[3]float64)

// comb3To32AVX2 is comb3To32Go(d, r0, r1, r2, *c).
//
//go:noescape
func comb3To32AVX2(d []float32, r0, r1, r2 []float64, c *[3]float64)

// addScaledAVX2 is addScaledGo.
//
//go:noescape
func addScaledAVX2(d, x []float64, a float64)

// addWidenedAVX2 is addWidenedGo.
//
//go:noescape
func addWidenedAVX2(d []float64, x []float32)

// blend32AVX2 is blend32Go, on lengths that are multiples of 8.
//
//go:noescape
func blend32AVX2(d, x []float32, r, q float32)

// filterTransformAVX2 is filterTransformGo(u, stride, gv, 0, 4*groups, gm)
// with gm holding a rows.
//
//go:noescape
func filterTransformAVX2(u *float32, stride int, gv *float64, groups int, gm *float64, a int)

// filterTransformAdjAVX2 is filterTransformAdjGo(out, dus, stride, 0,
// 4*groups, gm) with gm holding a rows, for one partial sum (dus[0] at du0,
// du1 nil) or two.
//
//go:noescape
func filterTransformAdjAVX2(out *float32, du0, du1 *float32, stride, groups int, gm *float64, a int)

// filterTransformAVX512 is filterTransformAVX2 over 2*pairs groups, two at
// a time in AVX-512F.
//
//go:noescape
func filterTransformAVX512(u *float32, stride int, gv *float64, pairs int, gm *float64, a int)

// filterTransformAdjAVX512 is filterTransformAdjAVX2 over 2*pairs groups,
// two at a time in AVX-512F.
//
//go:noescape
func filterTransformAdjAVX512(out *float32, du0, du1 *float32, stride, pairs int, gm *float64, a int)
