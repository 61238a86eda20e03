//go:build !amd64 || purego

package kernel

// Without assembly only the Go loop runs; these are never called because
// haveAVX2 and haveAVX512 are false.

func fmaLoopAVX2(n int) float32   { panic("kernel: fmaLoopAVX2 without assembly") }
func fmaLoopAVX512(n int) float32 { panic("kernel: fmaLoopAVX512 without assembly") }
