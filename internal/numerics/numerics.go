// Package numerics selects how floating-point results are computed across the
// project: the default mode, fastest on each machine, or the reference mode,
// which gives the same bits on every GOOS/GOARCH.
//
// In the reference mode every computation on the training path follows one
// specified order of operations, each operation rounded to its type:
//
//   - no fused multiply-add: every product is rounded before it is added
//     (Go code writes T(x*y) + z, which the compiler may not fuse);
//   - sums run in a fixed order that depends on the lengths only, never on
//     the thread count, the vector width or the implementation (see package
//     kernel for the order of each kernel);
//   - exp, log, tanh and pow are the portable functions of this package
//     (Exp, Log, Tanh, Pow in the reference mode), written with explicit
//     roundings, instead of package math, whose functions run assembly on
//     some architectures and are fused differently on others; square roots
//     are IEEE-exact everywhere and stay math.Sqrt.
//
// The mode is process-wide. Set it before building models and optimizers and
// do not change it while kernels run.
package numerics

import (
	"fmt"
	"sync/atomic"
)

// Mode is a numerics mode.
type Mode int32

const (
	// Default computes with the fastest kernels of the machine: fused
	// multiply-adds where the CPU has them, SIMD reductions, math's
	// functions. Results are deterministic on one machine and thread count
	// but differ in the last bits between machines.
	Default Mode = iota
	// Reference computes every result in one specified order with explicit
	// roundings, so that training gives the same bits on every platform.
	Reference
)

var modeNames = [...]string{Default: "default", Reference: "reference"}

// String returns "default" or "reference".
func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int32(m))
}

// Parse returns the mode named s ("default" or "reference").
func Parse(s string) (Mode, error) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), nil
		}
	}
	return Default, fmt.Errorf("numerics: unknown mode %q (want default or reference)", s)
}

// MarshalText encodes the mode as its name.
func (m Mode) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(modeNames) {
		return nil, fmt.Errorf("numerics: invalid mode %d", int32(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText decodes a mode name written by MarshalText.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

var current atomic.Int32

// Get returns the mode in use.
func Get() Mode { return Mode(current.Load()) }

// IsReference reports whether the reference mode is in use.
func IsReference() bool { return current.Load() == int32(Reference) }

// Set selects the mode and returns the previous one. It panics on a value
// that is not a Mode constant. It must not race with running computations.
func Set(m Mode) (previous Mode) {
	if m < 0 || int(m) >= len(modeNames) {
		panic(fmt.Sprintf("numerics: invalid mode %d", int32(m)))
	}
	return Mode(current.Swap(int32(m)))
}
