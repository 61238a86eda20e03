//go:build !purego

package autodiff

import (
	"golang.org/x/sys/cpu"

	"github.com/wadn-go/wadn/autodiff/kernel"
)

// haveMaxPoolAVX2 reports CPU support for maxPool2x2AVX2.
var haveMaxPoolAVX2 = cpu.X86.HasAVX2

// maxPool2x2AVX2 is maxPool2x2Go(rows, w, off, 0, dst[:8*groups], di) in
// AVX2 for float32 rows, eight windows at a time, where r0 and r1 point at
// rows[0] and rows[w], the two input rows, and dst and di at the outputs.
// Unlike maxPool2x2Go it stops at the first group of eight windows that
// holds a NaN, and so returns a multiple of eight.
//
//go:noescape
func maxPool2x2AVX2(r0, r1, dst *float32, di *int32, groups, off, w int) int

// maxPool2x2AVX4 is maxPool2x2AVX2 for one group of four windows, in
// 128-bit registers: it returns 4, or 0 when the group holds a NaN.
//
//go:noescape
func maxPool2x2AVX4(r0, r1, dst *float32, di *int32, off, w int) int

// maxPool2x2PlanesAVX2 is maxPool2x2PlanesGo for float32 planes.
//
//go:noescape
func maxPool2x2PlanesAVX2(src, dst *float32, idx *int32, planes, h, w, oh, ow int) int

// useMaxPoolAsm reports whether maxPool2x2Row may call maxPool2x2AVX2: the
// CPU has AVX2 and package kernel is not restricted to Go.
func useMaxPoolAsm() bool { return haveMaxPoolAVX2 && kernel.Impl() != "go" }

// unpool2x2AVX2 is unpool2x2Go(r0[:w], r1[:w], gv, x, idx, 0, 8*groups,
// off, w) for float32, eight windows at a time: r0 and r1 point at the two
// rows, gv and x (nil: no mask) at the windows' values and outputs, idx at
// their positions.
//
//go:noescape
func unpool2x2AVX2(r0, r1, gv, x *float32, idx *int32, groups, off, w int)

// unpool2x2PlaneAVX2 is unpool2x2AVX2 on every row pair of a plane d of
// 2*oh rows of w = 2*ow values, ow at least 8: the windows of each row in
// groups of eight, the last group overlapping the one before when ow is
// not a multiple of eight (its windows written twice, with the same
// values). gv, x (nil: no mask) and idx hold the oh*ow windows.
//
//go:noescape
func unpool2x2PlaneAVX2(d, gv, x *float32, idx *int32, oh, ow, w int)

// poolLanes2x2AVX2 is poolLanes2x2Go(dst, idx, stride, src, win, n, 8,
// relu != 0) for n >= 8 windows, eight at a time (the last eight
// overlapping the eight before, whose values they write again).
//
//go:noescape
func poolLanes2x2AVX2(dst *float32, idx *int32, stride int, src *float32, win *int32, n int, relu int)

// unpoolLanes2x2AVX2 is unpoolLanes2x2Go(dst, win, n, gv, x, idx, stride,
// 8) for n >= 8 windows (x nil: no mask), eight at a time (the last eight
// overlapping the eight before, whose values they write again).
//
//go:noescape
func unpoolLanes2x2AVX2(dst *float32, win *int32, n int, gv, x *float32, idx *int32, stride int)
