package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// Checksum returns the SHA-256, in hex, of the domain's contents as loaded:
// both splits' inputs (sparse or dense, with their shape and pixel scale)
// and labels, with the domain's name. Two loads of the same data give the
// same checksum whatever file format they came from; any change of a value
// or a label changes it.
func (d *Domain) Checksum() string {
	h := sha256.New()
	writeString(h, d.Dataset)
	writeString(h, d.Name)
	for _, s := range []*Split{&d.Train, &d.Test} {
		s.hash(h)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (s *Split) hash(h hash.Hash) {
	writeInts(h, int64(s.NumClasses), int64(len(s.Y)))
	b := make([]byte, 0, 8*len(s.Y))
	for _, y := range s.Y {
		b = binary.LittleEndian.AppendUint64(b, uint64(y))
	}
	h.Write(b)
	switch {
	case s.Sparse != nil:
		m := s.Sparse
		writeString(h, "csr")
		writeInts(h, int64(m.Rows), int64(m.Cols))
		b = b[:0]
		for _, p := range m.RowPtr {
			b = binary.LittleEndian.AppendUint64(b, uint64(p))
		}
		for _, c := range m.ColIdx {
			b = binary.LittleEndian.AppendUint32(b, uint32(c))
		}
		for _, v := range m.Val {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		h.Write(b)
	case s.Dense != nil:
		d := s.Dense
		writeString(h, "dense")
		writeInts(h, int64(d.N), int64(len(d.Shape)))
		for _, v := range d.Shape {
			writeInts(h, int64(v))
		}
		grey := int64(0)
		if d.Grey {
			grey = 1
		}
		writeInts(h, grey, int64(math.Float32bits(d.Scale)))
		if d.Pix != nil {
			writeString(h, "pix")
			h.Write(d.Pix)
		} else {
			writeString(h, "x")
			b = b[:0]
			for _, v := range d.X {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
			}
			h.Write(b)
		}
	default:
		writeString(h, "none")
	}
}

func writeString(h hash.Hash, s string) {
	writeInts(h, int64(len(s)))
	h.Write([]byte(s))
}

func writeInts(h hash.Hash, v ...int64) {
	var b [8]byte
	for _, x := range v {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
}
