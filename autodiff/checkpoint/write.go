package checkpoint

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"unicode/utf8"
)

// castagnoli is the CRC-32C table.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Save writes f to path atomically: it writes a temporary file in the same
// directory, flushes it to stable storage, and renames it over path. On any
// error path is left as it was and the temporary file is removed. A new file
// gets mode 0644; a replaced one keeps its mode.
func Save(path string, f *File) error {
	return save(path, f, nil)
}

// save is Save with a hook that wraps the temporary file's writer, so tests
// can make writing fail part way.
func save(path string, f *File, wrap func(io.Writer) io.Writer) (err error) {
	if err := f.validate(path); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return &Error{File: path, Offset: -1, Err: ErrInvalid, Detail: "exists and is not a regular file"}
		}
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	var w io.Writer = bw
	if wrap != nil {
		w = wrap(bw)
	}
	if err = Write(w, f); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("checkpoint %s: writing %s: %w", path, tmp.Name(), err)
	}
	if cerr := tmp.Chmod(mode); cerr != nil && runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		return fmt.Errorf("checkpoint %s: %w", path, cerr)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("checkpoint %s: syncing %s: %w", path, tmp.Name(), err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("checkpoint %s: closing %s: %w", path, tmp.Name(), err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir flushes the directory entry of a rename to stable storage where the
// system allows it. Some systems and file systems cannot sync a directory;
// the rename has then been made as durable as they permit, so errors are
// ignored.
func syncDir(dir string) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// Write writes f to w in the checkpoint format. It checks f first and
// writes nothing, returning an error wrapping ErrInvalid, when f is nil, has
// a version other than 0 or Version or a negative OptimStep, or holds a
// tensor whose name is empty, longer than MaxNameLen or not UTF-8, repeats
// another name of its section, has both F32 and F64 data, has a negative
// dimension or more than MaxRank of them, or whose data length differs from
// the product of its shape.
func Write(w io.Writer, f *File) error {
	if err := f.validate("(writing)"); err != nil {
		return err
	}
	e := encoder{w: w, buf: make([]byte, 0, 64<<10)}
	e.bytes([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(f.Meta)))
	e.bytes(f.Meta)
	e.u64(uint64(f.OptimStep))
	for _, sec := range [][]Tensor{f.Tensors, f.Optim} {
		e.u32(uint32(len(sec)))
		for i := range sec {
			e.tensor(&sec[i])
		}
	}
	e.flush()
	if e.err != nil {
		return e.err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], e.crc)
	if _, err := w.Write(sum[:]); err != nil {
		return fmt.Errorf("checkpoint: writing checksum: %w", err)
	}
	return nil
}

// validate checks everything Write relies on, reporting problems against
// the given name.
func (f *File) validate(name string) error {
	bad := func(format string, args ...any) error {
		return &Error{File: name, Offset: -1, Err: ErrInvalid, Detail: fmt.Sprintf(format, args...)}
	}
	if f == nil {
		return bad("nil *File")
	}
	if f.Version != 0 && f.Version != Version {
		return bad("version %d; this package writes version %d", f.Version, Version)
	}
	if f.OptimStep < 0 {
		return bad("optimizer step %d is negative", f.OptimStep)
	}
	for _, sec := range []struct {
		what string
		ts   []Tensor
	}{{"model", f.Tensors}, {"optimizer", f.Optim}} {
		if int64(len(sec.ts)) > math.MaxUint32 {
			return bad("%d %s tensors; at most %d fit", len(sec.ts), sec.what, uint32(math.MaxUint32))
		}
		seen := make(map[string]bool, len(sec.ts))
		for i := range sec.ts {
			t := &sec.ts[i]
			if err := checkName(t.Name); err != nil {
				return bad("%s tensor %d: %v", sec.what, i, err)
			}
			if seen[t.Name] {
				return bad("%s tensor %q appears twice", sec.what, t.Name)
			}
			seen[t.Name] = true
			if t.F32 != nil && t.F64 != nil {
				return bad("%s tensor %q holds both float32 and float64 data", sec.what, t.Name)
			}
			if len(t.Shape) > MaxRank {
				return bad("%s tensor %q has rank %d; at most %d", sec.what, t.Name, len(t.Shape), MaxRank)
			}
			n, err := numel(t.Shape)
			if err != nil {
				return bad("%s tensor %q: %v", sec.what, t.Name, err)
			}
			if t.Len() != n {
				return bad("%s tensor %q: shape %v holds %d elements, data has %d", sec.what, t.Name, t.Shape, n, t.Len())
			}
		}
	}
	return nil
}

// checkName reports whether s can be a tensor name.
func checkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("empty name")
	case len(s) > MaxNameLen:
		return fmt.Errorf("name of %d bytes; at most %d", len(s), MaxNameLen)
	case !utf8.ValidString(s):
		return fmt.Errorf("name %q is not valid UTF-8", s)
	}
	return nil
}

// encoder writes little-endian fields through a buffer, keeping the CRC of
// everything written. After the first write error it writes nothing more.
type encoder struct {
	w   io.Writer
	buf []byte
	crc uint32
	err error
}

func (e *encoder) flush() {
	if e.err != nil || len(e.buf) == 0 {
		return
	}
	e.crc = crc32.Update(e.crc, castagnoli, e.buf)
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = fmt.Errorf("checkpoint: writing: %w", err)
	}
	e.buf = e.buf[:0]
}

// room flushes the buffer when fewer than n bytes are free.
func (e *encoder) room(n int) {
	if cap(e.buf)-len(e.buf) < n {
		e.flush()
	}
}

func (e *encoder) u8(v uint8)   { e.room(1); e.buf = append(e.buf, v) }
func (e *encoder) u16(v uint16) { e.room(2); e.buf = binary.LittleEndian.AppendUint16(e.buf, v) }
func (e *encoder) u32(v uint32) { e.room(4); e.buf = binary.LittleEndian.AppendUint32(e.buf, v) }
func (e *encoder) u64(v uint64) { e.room(8); e.buf = binary.LittleEndian.AppendUint64(e.buf, v) }

func (e *encoder) bytes(b []byte) {
	for len(b) > 0 && e.err == nil {
		e.room(1)
		n := copy(e.buf[len(e.buf):cap(e.buf)], b)
		e.buf = e.buf[:len(e.buf)+n]
		b = b[n:]
	}
}

func (e *encoder) tensor(t *Tensor) {
	e.u16(uint16(len(t.Name)))
	e.bytes([]byte(t.Name))
	if t.F64 != nil {
		e.u8(dtypeF64)
	} else {
		e.u8(dtypeF32)
	}
	e.u8(uint8(len(t.Shape)))
	for _, d := range t.Shape {
		e.u64(uint64(d))
	}
	for x := t.F32; len(x) > 0 && e.err == nil; {
		e.room(4)
		k := min(len(x), (cap(e.buf)-len(e.buf))/4)
		for _, v := range x[:k] {
			e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(v))
		}
		x = x[k:]
	}
	for x := t.F64; len(x) > 0 && e.err == nil; {
		e.room(8)
		k := min(len(x), (cap(e.buf)-len(e.buf))/8)
		for _, v := range x[:k] {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
		}
		x = x[k:]
	}
}

// Element type codes.
const (
	dtypeF32 = 1
	dtypeF64 = 2
)
