//go:build !purego

package kernel

// The AVX2 Winograd kernels, each specified by its Go twin in
// winograd_twin.go. They take at least one tile (the interleaves at least 8
// offsets) and pointers to buffers that the exported kernels have checked.

// winogradInAVX2 is winogradInGo.
//
//go:noescape
func winogradInAVX2(dst *float32, stride int, src *float32, row int, tiles int)

// winogradInAdjAVX2 is winogradInAdjGo.
//
//go:noescape
func winogradInAdjAVX2(dst *float32, row int, src *float32, stride int, tiles int)

// winogradOutAVX2 is winogradOutGo.
//
//go:noescape
func winogradOutAVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32)

// winogradOutAdjAVX2 is winogradOutAdjGo.
//
//go:noescape
func winogradOutAdjAVX2(dst *float32, stride int, src *float32, row int, tiles int)

// interleave8AVX2 is interleave8Go with 8 lanes for n >= 8 offsets.
//
//go:noescape
func interleave8AVX2(dst *float32, offs *int32, src *float32, stride int, n int)

// deinterleave8AVX2 is deinterleave8Go with 8 lanes for n >= 8 offsets.
//
//go:noescape
func deinterleave8AVX2(dst *float32, stride int, src *float32, offs *int32, n int)
