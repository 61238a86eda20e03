//go:build !purego

package kernel

// The AVX2 Winograd kernels, each specified by its Go twin in
// winograd_twin.go. They take at least one tile (the interleaves at least 8
// offsets) and pointers to buffers that the exported kernels have checked.

// winogradIn4AVX2 is winogradInGo(F4x4, ...).
//
//go:noescape
func winogradIn4AVX2(dst *float32, stride int, src *float32, row int, tiles int)

// winogradInAdj4AVX2 is winogradInAdjGo(F4x4, ...).
//
//go:noescape
func winogradInAdj4AVX2(dst *float32, row int, src *float32, stride int, tiles int)

// winogradOut4AVX2 is winogradOutGo(F4x4, ...).
//
//go:noescape
func winogradOut4AVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32)

// winogradOutAdj4AVX2 is winogradOutAdjGo(F4x4, ...).
//
//go:noescape
func winogradOutAdj4AVX2(dst *float32, stride int, src *float32, row int, tiles int)

// winogradIn5AVX2 is winogradInGo(F5x5, ...).
//
//go:noescape
func winogradIn5AVX2(dst *float32, stride int, src *float32, row int, tiles int)

// winogradInAdj5AVX2 is winogradInAdjGo(F5x5, ...).
//
//go:noescape
func winogradInAdj5AVX2(dst *float32, row int, src *float32, stride int, tiles int)

// winogradOut5AVX2 is winogradOutGo(F5x5, ...).
//
//go:noescape
func winogradOut5AVX2(dst *float32, row int, src *float32, stride int, tiles int, bias float32)

// winogradOutAdj5AVX2 is winogradOutAdjGo(F5x5, ...).
//
//go:noescape
func winogradOutAdj5AVX2(dst *float32, stride int, src *float32, row int, tiles int)

// interleave8AVX2 is interleave8Go with 8 lanes for n >= 8 offsets.
//
//go:noescape
func interleave8AVX2(dst *float32, offs *int32, src *float32, stride int, n int)

// deinterleave8AVX2 is deinterleave8Go with 8 lanes for n >= 8 offsets.
//
//go:noescape
func deinterleave8AVX2(dst *float32, stride int, src *float32, offs *int32, n int)
