//go:build !purego

package kernel

// fmaLoopAVX2 is fmaLoopGo(n, 8, 10) in AVX2+FMA.
//
//go:noescape
func fmaLoopAVX2(n int) float32

// fmaLoopAVX512 is fmaLoopGo(n, 16, 12) in AVX-512F.
//
//go:noescape
func fmaLoopAVX512(n int) float32
