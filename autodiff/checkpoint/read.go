package checkpoint

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"unicode/utf8"
)

// Load reads the checkpoint file at path. Besides the checks of Read it
// rejects bytes after the checksum, and it uses the file size to reject a
// length field that points past the end before allocating anything for it.
func Load(path string) (*File, error) {
	fd, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	d := newDecoder(bufio.NewReaderSize(fd, 1<<20), path, st.Size())
	f, err := d.file()
	if err != nil {
		return nil, err
	}
	if d.off != st.Size() {
		return nil, d.fail(d.off, ErrCorrupt, "%d bytes after the checksum", st.Size()-d.off)
	}
	return f, nil
}

// Read reads one checkpoint from r, which it does not read past; name is
// used in errors. When r has a Len method (as *bytes.Reader and
// *strings.Reader do) Read uses it to bound every length field. Read does
// not buffer r: wrap an unbuffered reader in a bufio.Reader.
func Read(r io.Reader, name string) (*File, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		size = int64(l.Len())
	}
	return newDecoder(r, name, size).file()
}

// decoder reads little-endian fields, keeping the offset and the CRC of
// everything read.
type decoder struct {
	r    io.Reader
	name string
	size int64 // bytes in the input, or -1 when unknown
	off  int64
	crc  uint32
	buf  []byte // scratch for data, at most chunk bytes
}

// chunk is how many bytes of tensor data or metadata are read at a time, and
// so how far ahead of the data actually present a buffer may grow.
const chunk = 1 << 20

func newDecoder(r io.Reader, name string, size int64) *decoder {
	return &decoder{r: r, name: name, size: size}
}

func (d *decoder) fail(off int64, err error, format string, args ...any) error {
	return &Error{File: d.name, Offset: off, Err: err, Detail: fmt.Sprintf(format, args...)}
}

// read fills p, or reports what was being read and how much was missing.
func (d *decoder) read(p []byte, what string) error {
	n, err := io.ReadFull(d.r, p)
	d.crc = crc32.Update(d.crc, castagnoli, p[:n])
	d.off += int64(n)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return d.fail(d.off, ErrTruncated, "reading %s: input ends %d bytes short", what, len(p)-n)
	case err != nil:
		return d.fail(d.off, err, "reading %s", what)
	}
	return nil
}

// need checks that n more bytes can be present before anything is
// allocated for them.
func (d *decoder) need(n uint64, what string) error {
	if d.size >= 0 && n > uint64(d.size-d.off) {
		return d.fail(d.off, ErrTruncated, "%s needs %d bytes, %d remain", what, n, d.size-d.off)
	}
	return nil
}

func (d *decoder) u8(what string) (uint8, error) {
	var b [1]byte
	err := d.read(b[:], what)
	return b[0], err
}

func (d *decoder) u16(what string) (uint16, error) {
	var b [2]byte
	err := d.read(b[:], what)
	return binary.LittleEndian.Uint16(b[:]), err
}

func (d *decoder) u32(what string) (uint32, error) {
	var b [4]byte
	err := d.read(b[:], what)
	return binary.LittleEndian.Uint32(b[:]), err
}

func (d *decoder) u64(what string) (uint64, error) {
	var b [8]byte
	err := d.read(b[:], what)
	return binary.LittleEndian.Uint64(b[:]), err
}

// blob reads n bytes, growing the result only as bytes arrive.
func (d *decoder) blob(n uint64, what string) ([]byte, error) {
	if err := d.need(n, what); err != nil {
		return nil, err
	}
	if n > math.MaxInt {
		return nil, d.fail(d.off, ErrCorrupt, "%s of %d bytes", what, n)
	}
	out := make([]byte, 0, min(n, chunk))
	for rest := int(n); rest > 0; {
		k := min(rest, chunk)
		out = append(out, make([]byte, k)...)
		if err := d.read(out[len(out)-k:], what); err != nil {
			return nil, err
		}
		rest -= k
	}
	return out, nil
}

// scratch returns the scratch buffer resized to n bytes (n <= chunk).
func (d *decoder) scratch(n int) []byte {
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	return d.buf[:n]
}

func (d *decoder) file() (*File, error) {
	var magic [len(Magic)]byte
	if err := d.read(magic[:], "magic"); err != nil {
		return nil, err
	}
	if string(magic[:]) != Magic {
		return nil, d.fail(0, ErrMagic, "file starts %q, want %q", magic[:], Magic)
	}
	v, err := d.u32("version")
	if err != nil {
		return nil, err
	}
	if v != Version {
		return nil, d.fail(d.off-4, ErrVersion, "version %d; this package reads version %d", v, Version)
	}
	f := &File{Version: int(v), name: d.name}
	mlen, err := d.u64("metadata length")
	if err != nil {
		return nil, err
	}
	if f.Meta, err = d.blob(mlen, "metadata"); err != nil {
		return nil, err
	}
	step, err := d.u64("optimizer step")
	if err != nil {
		return nil, err
	}
	if step > math.MaxInt {
		return nil, d.fail(d.off-8, ErrCorrupt, "optimizer step %d does not fit an int", step)
	}
	f.OptimStep = int(step)
	if f.Tensors, err = d.section("model"); err != nil {
		return nil, err
	}
	if f.Optim, err = d.section("optimizer"); err != nil {
		return nil, err
	}
	want := d.crc
	got, err := d.u32("checksum")
	if err != nil {
		return nil, err
	}
	if got != want {
		return nil, d.fail(d.off-4, ErrChecksum, "stored CRC-32C %#08x, content has %#08x", got, want)
	}
	return f, nil
}

// minTensorBytes is the size of the smallest tensor record, a float32 scalar
// with a one-byte name (a tensor with no elements needs a dimension of 8
// bytes): it bounds a count field by the bytes that remain.
const minTensorBytes = 2 + 1 + 1 + 1 + 4

func (d *decoder) section(what string) ([]Tensor, error) {
	n, err := d.u32(what + " tensor count")
	if err != nil {
		return nil, err
	}
	if err := d.need(uint64(n)*minTensorBytes, fmt.Sprintf("%d %s tensors", n, what)); err != nil {
		return nil, err
	}
	ts := make([]Tensor, 0, min(n, 1024))
	seen := make(map[string]bool, min(n, 1024))
	for i := range n {
		start := d.off
		t, err := d.tensor(fmt.Sprintf("%s tensor %d", what, i))
		if err != nil {
			return nil, err
		}
		if seen[t.Name] {
			return nil, d.fail(start, ErrCorrupt, "%s tensor %q appears twice", what, t.Name)
		}
		seen[t.Name] = true
		ts = append(ts, t)
	}
	return ts, nil
}

func (d *decoder) tensor(what string) (Tensor, error) {
	var t Tensor
	off := d.off
	nl, err := d.u16(what + " name length")
	if err != nil {
		return t, err
	}
	if nl == 0 {
		return t, d.fail(off, ErrCorrupt, "%s has an empty name", what)
	}
	name, err := d.blob(uint64(nl), what+" name")
	if err != nil {
		return t, err
	}
	if !utf8.Valid(name) {
		return t, d.fail(off+2, ErrCorrupt, "%s name %q is not valid UTF-8", what, name)
	}
	t.Name = string(name)
	what = fmt.Sprintf("tensor %q", t.Name)
	dt, err := d.u8(what + " dtype")
	if err != nil {
		return t, err
	}
	if dt != dtypeF32 && dt != dtypeF64 {
		return t, d.fail(d.off-1, ErrCorrupt, "%s: dtype code %d, want %d (float32) or %d (float64)", what, dt, dtypeF32, dtypeF64)
	}
	rank, err := d.u8(what + " rank")
	if err != nil {
		return t, err
	}
	if rank > MaxRank {
		return t, d.fail(d.off-1, ErrCorrupt, "%s: rank %d, at most %d", what, rank, MaxRank)
	}
	t.Shape = make([]int, rank)
	for i := range t.Shape {
		v, err := d.u64(what + " shape")
		if err != nil {
			return t, err
		}
		if v > maxElems {
			return t, d.fail(d.off-8, ErrCorrupt, "%s: dimension %d is %d, at most %d", what, i, v, maxElems)
		}
		t.Shape[i] = int(v)
	}
	n, err := numel(t.Shape)
	if err != nil {
		return t, d.fail(d.off, ErrCorrupt, "%s: %v", what, err)
	}
	size := 4
	if dt == dtypeF64 {
		size = 8
	}
	if err := d.need(uint64(n)*uint64(size), what+" data"); err != nil {
		return t, err
	}
	// Grow the data chunk by chunk so that a corrupt shape on a stream of
	// unknown length costs no more memory than the bytes that arrive.
	capHint := n
	if d.size < 0 {
		capHint = min(n, chunk/size)
	}
	if dt == dtypeF32 {
		t.F32 = make([]float32, 0, capHint)
	} else {
		t.F64 = make([]float64, 0, capHint)
	}
	for rest := n; rest > 0; {
		k := min(rest, chunk/size)
		b := d.scratch(k * size)
		if err := d.read(b, what+" data"); err != nil {
			return t, err
		}
		if dt == dtypeF32 {
			for j := 0; j < len(b); j += 4 {
				t.F32 = append(t.F32, math.Float32frombits(binary.LittleEndian.Uint32(b[j:])))
			}
		} else {
			for j := 0; j < len(b); j += 8 {
				t.F64 = append(t.F64, math.Float64frombits(binary.LittleEndian.Uint64(b[j:])))
			}
		}
		rest -= k
	}
	return t, nil
}
