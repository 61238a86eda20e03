//go:build !amd64 || purego

package kernel

// Without assembly only the "go" implementation exists.
const (
	haveAVX2   = false
	haveAVX512 = false
)

func kernel8x48() asmKernel { return nil }
func kernel6x16() asmKernel { return nil }

func kernel6x16Ref() asmKernel { return nil }

func addTile(dst []float32, ldd int, src []float32, lds int, rows, cols int, beta float32) {
	addTileGo(dst, ldd, src, lds, rows, cols, beta)
}

func transpose8(dst *float32, ds int, src *float32, ss int, kb int, scale float32) {
	transpose8Go(dst, ds, src, ss, kb, scale)
}

func kernel8x24() asmKernel64 { return nil }
func kernel6x8() asmKernel64  { return nil }

func packRows8(dst *float32, src *float32, ss int, kb int, panels int, w8 int, scale float32) {
	packRows8Go(dst, src, ss, kb, panels, w8, scale)
}

func packA6(dst *float32, src *float32, lda int, kb int, scale float32) {
	packA6Go(dst, src, lda, kb, scale)
}

func packA6T(dst *float32, src *float32, lda int, kb int, scale float32) {
	packA6TGo(dst, src, lda, kb, scale)
}

func stridedKernels512() []stridedKernel  { return nil }
func stridedKernelsAVX2() []stridedKernel { return nil }

func rowKernel512() rowKernel  { return nil }
func rowKernelAVX2() rowKernel { return nil }
