// Package checkpoint saves and loads a model's parameters together with its
// optimiser state and caller-chosen metadata, in a versioned, checksummed
// binary file that is replaced atomically.
//
// It holds plain named arrays and imports nothing else of the module, so
// that every layer that saves tensors can use it: optim writes its state as
// checkpoint tensors (optim.State.Tensors), wadn/trainer's Snapshot a model
// with its optimiser, and nn/safetensors reads and writes its tensors for
// PyTorch.
//
// # Format
//
// Version 1 of the format is, with every integer little-endian:
//
//	magic      8 bytes  "WADNCKPT"
//	version    uint32   1
//	meta       uint64 length, then that many bytes (opaque to this package)
//	optimStep  uint64
//	tensors    uint32 count, then that many tensors (the model)
//	optim      uint32 count, then that many tensors (the optimiser state)
//	checksum   uint32   CRC-32C (Castagnoli) of every byte before it
//
// and each tensor is
//
//	name       uint16 length, then that many bytes of UTF-8
//	dtype      uint8    1 float32, 2 float64
//	rank       uint8    at most MaxRank
//	shape      rank uint64 dimensions
//	data       the product of the dimensions times 4 or 8 bytes, IEEE 754 bit
//	           patterns in row-major order
//
// Reading checks every field as it goes and reports the first problem with
// the file name and byte offset. A corrupt length field never makes the
// reader allocate more than the bytes actually present (when the input size
// is known, more than that size): buffers grow only as data arrives.
package checkpoint

import (
	"errors"
	"fmt"
	"math"
)

// Version is the format version this package writes and reads.
const Version = 1

// Magic opens every checkpoint file.
const Magic = "WADNCKPT"

// Limits on the fields of a tensor.
const (
	MaxNameLen = math.MaxUint16 // bytes in a tensor name
	MaxRank    = 32             // dimensions of a tensor
)

// maxElems bounds the elements of one tensor so that its byte size fits an
// int on every platform.
const maxElems = math.MaxInt / 8

// Errors wrapped by the errors this package returns, for callers to test
// with errors.Is.
var (
	// ErrMagic reports input that does not start with Magic.
	ErrMagic = errors.New("not a checkpoint (wrong magic)")
	// ErrVersion reports a format version this package cannot read.
	ErrVersion = errors.New("unsupported format version")
	// ErrTruncated reports input that ends early, or a length field that
	// points past its end.
	ErrTruncated = errors.New("truncated")
	// ErrChecksum reports content whose CRC-32C differs from the stored one.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrCorrupt reports a field with an impossible value.
	ErrCorrupt = errors.New("corrupt field")
	// ErrMismatch reports tensors other than the ones Match expects.
	ErrMismatch = errors.New("tensors do not match the expected ones")
	// ErrInvalid reports a File that Write or Save cannot write.
	ErrInvalid = errors.New("invalid checkpoint contents")
)

// Tensor is a named array of float32 or float64 values in row-major order.
// Exactly one of F32 and F64 holds the data; a tensor with both nil is an
// empty float32 tensor. A zero-length Shape denotes a scalar (one element).
type Tensor struct {
	Name  string
	Shape []int
	F32   []float32
	F64   []float64
}

// DType returns "float32" or "float64", the element type of t's data.
func (t *Tensor) DType() string {
	if t.F64 != nil {
		return "float64"
	}
	return "float32"
}

// Len returns the number of elements in t's data.
func (t *Tensor) Len() int {
	if t.F64 != nil {
		return len(t.F64)
	}
	return len(t.F32)
}

// File is the content of a checkpoint: the model's tensors, the optimiser
// state as tensors with its step count, and metadata bytes that the caller
// defines (for example JSON with the epoch, the RNG state and the
// configuration).
type File struct {
	Version   int // format version; 0 when writing means Version
	Meta      []byte
	Tensors   []Tensor
	Optim     []Tensor
	OptimStep int

	name string // the file or stream name Read or Load was given, for errors
}

// Error describes a problem with a checkpoint: the file (or stream) name,
// the byte offset where it was found (-1 when none applies), and a sentinel
// error (ErrTruncated, ErrChecksum, ...) that Unwrap returns.
type Error struct {
	File   string
	Offset int64
	Err    error
	Detail string
}

// Error returns "checkpoint FILE: offset N: SENTINEL: DETAIL".
func (e *Error) Error() string {
	s := "checkpoint " + e.File
	if e.Offset >= 0 {
		s += fmt.Sprintf(": offset %d", e.Offset)
	}
	s += ": " + e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }

// numel returns the number of elements of a tensor of the given shape, or an
// error when a dimension is negative or the count exceeds maxElems.
func numel(shape []int) (int, error) {
	n := 1
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("dimension %d is negative (%d)", i, d)
		}
		if d != 0 && n > maxElems/d {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, maxElems)
		}
		n *= d
	}
	return n, nil
}
