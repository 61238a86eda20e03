// Package mat reads numeric arrays from MATLAB level-5 MAT-files, the format
// of the SVHN and SynthDigits *_32x32.mat files.
//
// Both byte orders and both storage forms (plain and zlib-compressed
// miCOMPRESSED elements) are read. Only real, full numeric arrays are
// supported; a variable of any other kind (cell, struct, object, char, sparse,
// complex, function handle) is reported by name with an error wrapping
// ErrUnsupported. MAT-files of version 7.3 are HDF5 files and are rejected with
// an error that says so.
package mat

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"github.com/wadn-go/wadn/data/internal/bounded"
)

// Array is one numeric variable of a MAT-file. The elements are in the file's
// column-major (Fortran) order, untouched: element (i0, i1, ...) is at
// i0 + Dims[0]*(i1 + Dims[1]*(...)).
type Array struct {
	Name    string    // variable name
	Class   string    // MATLAB class: "double", "single", "int8", ..., "uint64", or "logical"
	Dims    []int     // dimensions, at least two
	Uint8   []uint8   // the elements, for classes "uint8" and "logical"
	Float64 []float64 // the elements, for every other class
}

// At returns element i (in the file's column-major order) as a float64,
// whichever of Uint8 and Float64 holds the elements.
func (a *Array) At(i int) float64 {
	if a.Uint8 != nil {
		return float64(a.Uint8[i])
	}
	return a.Float64[i]
}

// Limits on what a file may claim.
const (
	MaxDims     = 32                // most dimensions of one array
	MaxElemSize = math.MaxInt32 - 1 // most bytes of one element, after decompression
)

// ErrFormat is wrapped by errors that report a malformed file; ErrUnsupported
// (errors.ErrUnsupported) by those that report valid content this package
// does not read.
var (
	ErrFormat      = errors.New("malformed MAT-file")
	ErrUnsupported = errors.ErrUnsupported
)

// Error reports a problem at a byte offset of a named MAT-file. Inside a
// compressed element, Offset is that of the element in the file and Msg
// gives the offset within the decompressed data.
type Error struct {
	Name   string // the name given to Read, or the path given to ReadFile
	Offset int64  // byte offset in the file
	Var    string // variable concerned, if known
	Msg    string // what was wrong or expected
	Err    error  // ErrFormat, ErrUnsupported or the underlying I/O error
}

// Error formats the problem with the input name and its position.
func (e *Error) Error() string {
	if e.Var != "" {
		return fmt.Sprintf("mat: %s: offset %d: variable %q: %s", e.Name, e.Offset, e.Var, e.Msg)
	}
	return fmt.Sprintf("mat: %s: offset %d: %s", e.Name, e.Offset, e.Msg)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// MATLAB data types (the type field of an element tag).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
)

// typeSize is the element size of each numeric data type.
var typeSize = map[uint32]int{
	miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
	miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8,
}

// MATLAB array classes (the low byte of the array flags).
var classNames = [...]string{
	1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse", 6: "double", 7: "single",
	8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32", 13: "uint32",
	14: "int64", 15: "uint64", 16: "function handle", 17: "opaque",
}

// classRange is the range of integer classes; floating classes are absent.
var classRange = map[string][2]float64{
	"int8": {math.MinInt8, math.MaxInt8}, "uint8": {0, math.MaxUint8},
	"int16": {math.MinInt16, math.MaxInt16}, "uint16": {0, math.MaxUint16},
	"int32": {math.MinInt32, math.MaxInt32}, "uint32": {0, math.MaxUint32},
	"int64": {-1 << 53, 1 << 53}, "uint64": {0, 1 << 53},
	"logical": {0, 1},
}

const (
	flagComplex = 0x0800
	flagLogical = 0x0200
)

var hdf5Signature = []byte("\x89HDF\r\n\x1a\n")

// ReadFile reads every variable of the MAT-file at path.
func ReadFile(path string) (map[string]*Array, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads every variable of a level-5 MAT-file from r, keyed by name. The
// name is used in error messages only.
func Read(r io.Reader, name string) (map[string]*Array, error) {
	var hdr [128]byte
	n, err := io.ReadFull(r, hdr[:])
	if bytes.HasPrefix(hdr[:n], hdf5Signature) {
		return nil, &Error{Name: name, Msg: "HDF5 file: MAT-files of version 7.3 (HDF5) are not supported; save with -v7 or scipy.io.savemat", Err: ErrUnsupported}
	}
	if err != nil {
		return nil, ioError(name, int64(n), err, "the 128-byte header")
	}
	text := hdr[:116]
	if bytes.HasPrefix(text, []byte("MATLAB 7.3")) || bytes.Contains(text, []byte("MATLAB 7.3 MAT-file")) {
		return nil, &Error{Name: name, Msg: "MAT-file version 7.3 is HDF5, which is not supported; save with -v7 or scipy.io.savemat", Err: ErrUnsupported}
	}
	if !bytes.HasPrefix(text, []byte("MATLAB")) {
		return nil, &Error{Name: name, Msg: fmt.Sprintf("header text %q does not start with \"MATLAB\": not a level-5 MAT-file (level-4 files are not supported)", clip(text, 20)), Err: ErrFormat}
	}
	var order binary.ByteOrder
	switch string(hdr[126:128]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		return nil, &Error{Name: name, Offset: 126, Msg: fmt.Sprintf("endian indicator %q, want \"IM\" or \"MI\"", hdr[126:128]), Err: ErrFormat}
	}
	if v := order.Uint16(hdr[124:]); v != 0x0100 {
		if v == 0x0200 {
			return nil, &Error{Name: name, Offset: 124, Msg: "version 0x0200: MAT-file version 7.3 is HDF5, which is not supported", Err: ErrUnsupported}
		}
		return nil, &Error{Name: name, Offset: 124, Msg: fmt.Sprintf("version 0x%04x, want 0x0100", v), Err: ErrFormat}
	}

	rd := &reader{r: r, name: name, order: order, off: 128}
	out := make(map[string]*Array)
	for {
		a, err := rd.element()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if _, dup := out[a.Name]; dup {
			return nil, &Error{Name: name, Offset: rd.start, Var: a.Name, Msg: "variable appears twice", Err: ErrFormat}
		}
		out[a.Name] = a
	}
}

func ioError(name string, off int64, err error, what string) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &Error{Name: name, Offset: off, Msg: "file ends inside " + what, Err: ErrFormat}
	}
	return &Error{Name: name, Offset: off, Msg: fmt.Sprintf("reading %s: %v", what, err), Err: err}
}

// reader walks the top-level elements of a MAT-file.
type reader struct {
	r     io.Reader
	name  string
	order binary.ByteOrder
	off   int64 // bytes consumed so far
	start int64 // offset of the current element's tag
}

// element reads the next top-level element; it returns io.EOF at a clean end.
func (rd *reader) element() (*Array, error) {
	rd.start = rd.off
	var tag [8]byte
	n, err := io.ReadFull(rd.r, tag[:])
	rd.off += int64(n)
	if n == 0 && err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, ioError(rd.name, rd.off, err, "an element tag")
	}
	typ, size := rd.order.Uint32(tag[:]), rd.order.Uint32(tag[4:])
	if size > MaxElemSize {
		return nil, &Error{Name: rd.name, Offset: rd.start, Msg: fmt.Sprintf("element of %d bytes exceeds the limit of %d", size, MaxElemSize), Err: ErrFormat}
	}
	switch typ {
	case miMATRIX:
		data, err := bounded.ReadN(rd.r, int(size))
		rd.off += int64(len(data))
		if err != nil {
			return nil, ioError(rd.name, rd.off, err, fmt.Sprintf("a matrix element of %d bytes starting at offset %d", size, rd.start))
		}
		p := &parser{name: rd.name, order: rd.order, b: data, base: rd.start + 8, fileOff: -1}
		a, err := p.matrix()
		if err != nil {
			return nil, err
		}
		if pad := (8 - size%8) % 8; pad != 0 {
			// Tolerate a missing pad at the very end of the file.
			k, _ := io.ReadFull(rd.r, make([]byte, pad))
			rd.off += int64(k)
		}
		return a, nil
	case miCOMPRESSED:
		return rd.compressed(int64(size))
	default:
		return nil, &Error{Name: rd.name, Offset: rd.start, Msg: fmt.Sprintf("top-level element of type %d, want %d (miMATRIX) or %d (miCOMPRESSED)", typ, miMATRIX, miCOMPRESSED), Err: ErrFormat}
	}
}

// compressed reads one miCOMPRESSED element of size bytes: a zlib stream
// holding exactly one miMATRIX element.
func (rd *reader) compressed(size int64) (*Array, error) {
	lr := &io.LimitedReader{R: rd.r, N: size}
	fail := func(msg string, err error) error {
		return &Error{Name: rd.name, Offset: rd.start, Msg: "compressed element: " + msg, Err: err}
	}
	zr, err := zlib.NewReader(lr)
	if err != nil {
		if lr.N > 0 && (err == io.EOF || err == io.ErrUnexpectedEOF) {
			rd.off += size - lr.N
			return nil, ioError(rd.name, rd.off, err, fmt.Sprintf("the compressed element of %d bytes starting at offset %d", size, rd.start))
		}
		return nil, fail("bad zlib header: "+err.Error(), ErrFormat)
	}
	var tag [8]byte
	if _, err := io.ReadFull(zr, tag[:]); err != nil {
		return nil, rd.zlibError(lr, size, err, "the tag of the compressed matrix")
	}
	typ, n := rd.order.Uint32(tag[:]), rd.order.Uint32(tag[4:])
	if typ != miMATRIX {
		return nil, fail(fmt.Sprintf("holds an element of type %d, want %d (miMATRIX)", typ, miMATRIX), ErrFormat)
	}
	if n > MaxElemSize {
		return nil, fail(fmt.Sprintf("matrix of %d bytes exceeds the limit of %d", n, MaxElemSize), ErrFormat)
	}
	data, err := bounded.ReadN(zr, int(n))
	if err != nil {
		return nil, rd.zlibError(lr, size, err, fmt.Sprintf("the compressed matrix of %d bytes (got %d)", n, len(data)))
	}
	// The stream must end here; reading to its end also checks its Adler-32.
	var one [1]byte
	if k, err := io.ReadFull(zr, one[:]); k > 0 {
		return nil, fail(fmt.Sprintf("unexpected data after the %d-byte matrix", n+8), ErrFormat)
	} else if err != io.EOF {
		return nil, rd.zlibError(lr, size, err, "the end of the zlib stream")
	}
	// Skip whatever follows the zlib stream inside the element.
	if _, err := io.Copy(io.Discard, lr); err != nil {
		rd.off += size - lr.N
		return nil, ioError(rd.name, rd.off, err, "a compressed element")
	}
	rd.off += size - lr.N
	if lr.N > 0 {
		return nil, ioError(rd.name, rd.off, io.ErrUnexpectedEOF, fmt.Sprintf("the compressed element of %d bytes starting at offset %d", size, rd.start))
	}
	p := &parser{name: rd.name, order: rd.order, b: data, base: 8, fileOff: rd.start}
	return p.matrix()
}

// zlibError reports a failure while decompressing: a file cut short, or a
// corrupt stream.
func (rd *reader) zlibError(lr *io.LimitedReader, size int64, err error, what string) error {
	if (err == io.EOF || err == io.ErrUnexpectedEOF) && lr.N > 0 {
		// The file itself ended before the element did.
		rd.off += size - lr.N
		return ioError(rd.name, rd.off, err, fmt.Sprintf("the compressed element of %d bytes starting at offset %d", size, rd.start))
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &Error{Name: rd.name, Offset: rd.start, Msg: "compressed element: zlib stream ends inside " + what, Err: ErrFormat}
	}
	return &Error{Name: rd.name, Offset: rd.start, Msg: fmt.Sprintf("compressed element: reading %s: %v", what, err), Err: ErrFormat}
}

// parser decodes one miMATRIX element held in memory.
type parser struct {
	name    string
	order   binary.ByteOrder
	b       []byte
	pos     int
	base    int64 // offset of b[0]: in the file, or in the decompressed data
	fileOff int64 // offset of the compressed element in the file, or -1
	varName string
}

func (p *parser) errorf(at int, err error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	off := p.base + int64(at)
	if p.fileOff >= 0 {
		msg = fmt.Sprintf("compressed element, decompressed byte %d: %s", off, msg)
		off = p.fileOff
	}
	return &Error{Name: p.name, Offset: off, Var: p.varName, Msg: msg, Err: err}
}

// sub reads the next sub-element, in full or small form.
func (p *parser) sub(what string) (typ uint32, data []byte, at int, err error) {
	at = p.pos
	if len(p.b)-p.pos < 8 {
		return 0, nil, at, p.errorf(at, ErrFormat, "matrix ends before its %s", what)
	}
	w := p.order.Uint32(p.b[p.pos:])
	if w>>16 != 0 { // small data element: size and type in one word, data in the next
		typ, n := w&0xffff, int(w>>16)
		if n > 4 {
			return 0, nil, at, p.errorf(at, ErrFormat, "small %s element claims %d bytes, at most 4 fit", what, n)
		}
		data = p.b[p.pos+4 : p.pos+4+n]
		p.pos += 8
		return typ, data, at, nil
	}
	n := p.order.Uint32(p.b[p.pos+4:])
	if uint64(n) > uint64(len(p.b)-p.pos-8) {
		return 0, nil, at, p.errorf(at, ErrFormat, "%s element of %d bytes overruns the matrix (%d bytes left)", what, n, len(p.b)-p.pos-8)
	}
	data = p.b[p.pos+8 : p.pos+8+int(n)]
	p.pos += 8 + int(n)
	if pad := (8 - int(n)%8) % 8; pad != 0 {
		p.pos = min(p.pos+pad, len(p.b))
	}
	return w, data, at, nil
}

func (p *parser) matrix() (*Array, error) {
	// Array flags.
	typ, flags, at, err := p.sub("array flags")
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(flags) != 8 {
		return nil, p.errorf(at, ErrFormat, "array flags of type %d and %d bytes, want type %d (miUINT32) and 8 bytes", typ, len(flags), miUINT32)
	}
	fw := p.order.Uint32(flags)
	classID := fw & 0xff
	// Dimensions.
	typ, dimb, at, err := p.sub("dimensions")
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(dimb)%4 != 0 || len(dimb) < 8 || len(dimb) > 4*MaxDims {
		return nil, p.errorf(at, ErrFormat, "dimensions element of type %d and %d bytes, want type %d (miINT32) holding 2..%d values", typ, len(dimb), miINT32, MaxDims)
	}
	dims := make([]int, len(dimb)/4)
	total := 1
	for i := range dims {
		d := int32(p.order.Uint32(dimb[4*i:]))
		if d < 0 {
			return nil, p.errorf(at, ErrFormat, "dimension %d is %d", i, d)
		}
		if d > 0 && total > MaxElemSize/int(d) {
			return nil, p.errorf(at, ErrFormat, "dimensions hold more than %d elements", MaxElemSize)
		}
		dims[i] = int(d)
		total *= int(d)
	}
	// Name.
	typ, nameb, at, err := p.sub("name")
	if err != nil {
		return nil, err
	}
	if (typ != miINT8 && typ != miUTF8) || len(nameb) == 0 || !utf8.Valid(nameb) || bytes.IndexByte(nameb, 0) >= 0 {
		return nil, p.errorf(at, ErrFormat, "variable name of type %d and %d bytes, want non-empty text of type %d (miINT8)", typ, len(nameb), miINT8)
	}
	p.varName = string(nameb)
	// Class.
	if int(classID) >= len(classNames) || classNames[classID] == "" {
		return nil, p.errorf(0, ErrFormat, "unknown array class %d", classID)
	}
	class := classNames[classID]
	if _, numeric := classRange[class]; !numeric && class != "double" && class != "single" {
		return nil, p.errorf(0, ErrUnsupported, "%s arrays are not supported, only real numeric arrays", class)
	}
	if fw&flagComplex != 0 {
		return nil, p.errorf(0, ErrUnsupported, "complex %s arrays are not supported, only real numeric arrays", class)
	}
	if fw&flagLogical != 0 {
		if class != "uint8" {
			return nil, p.errorf(0, ErrFormat, "logical flag on a %s array", class)
		}
		class = "logical"
	}
	// Real part.
	typ, data, at, err := p.sub("real part")
	if err != nil {
		return nil, err
	}
	size, ok := typeSize[typ]
	if !ok {
		return nil, p.errorf(at, ErrFormat, "real part of type %d, want a numeric type", typ)
	}
	if len(data) != total*size {
		return nil, p.errorf(at, ErrFormat, "real part holds %d bytes, want %d for %v elements of %d bytes", len(data), total*size, dims, size)
	}
	if p.pos < len(p.b) {
		return nil, p.errorf(p.pos, ErrFormat, "%d unexpected bytes after the real part", len(p.b)-p.pos)
	}
	a := &Array{Name: p.varName, Class: class, Dims: dims}
	if (class == "uint8" || class == "logical") && typ == miUINT8 {
		a.Uint8 = data[:len(data):len(data)]
		if class == "logical" {
			for i, v := range a.Uint8 {
				if v > 1 {
					return nil, p.errorf(at, ErrFormat, "logical element %d is %d", i, v)
				}
			}
		}
		return a, nil
	}
	vals, bad := p.decode(typ, data, total)
	if bad >= 0 {
		return nil, p.errorf(at, ErrFormat, "element %d does not fit a float64 exactly", bad)
	}
	if rg, isInt := classRange[class]; isInt {
		for i, v := range vals {
			if v != math.Trunc(v) || v < rg[0] || v > rg[1] {
				return nil, p.errorf(at, ErrFormat, "element %d is %v, outside the %s range", i, v, class)
			}
		}
	}
	if class == "uint8" || class == "logical" {
		a.Uint8 = make([]uint8, total)
		for i, v := range vals {
			a.Uint8[i] = uint8(v)
		}
		return a, nil
	}
	a.Float64 = vals
	return a, nil
}

// decode converts n stored elements of type typ to float64. It returns the
// index of the first 64-bit integer whose magnitude exceeds 2**53, where
// float64 stops being exact, or -1.
func (p *parser) decode(typ uint32, b []byte, n int) ([]float64, int) {
	out := make([]float64, n)
	o := p.order
	switch typ {
	case miINT8:
		for i := range out {
			out[i] = float64(int8(b[i]))
		}
	case miUINT8:
		for i := range out {
			out[i] = float64(b[i])
		}
	case miINT16:
		for i := range out {
			out[i] = float64(int16(o.Uint16(b[2*i:])))
		}
	case miUINT16:
		for i := range out {
			out[i] = float64(o.Uint16(b[2*i:]))
		}
	case miINT32:
		for i := range out {
			out[i] = float64(int32(o.Uint32(b[4*i:])))
		}
	case miUINT32:
		for i := range out {
			out[i] = float64(o.Uint32(b[4*i:]))
		}
	case miSINGLE:
		for i := range out {
			out[i] = float64(math.Float32frombits(o.Uint32(b[4*i:])))
		}
	case miDOUBLE:
		for i := range out {
			out[i] = math.Float64frombits(o.Uint64(b[8*i:]))
		}
	case miINT64:
		for i := range out {
			v := int64(o.Uint64(b[8*i:]))
			if v > 1<<53 || v < -1<<53 {
				return nil, i
			}
			out[i] = float64(v)
		}
	case miUINT64:
		for i := range out {
			v := o.Uint64(b[8*i:])
			if v > 1<<53 {
				return nil, i
			}
			out[i] = float64(v)
		}
	}
	return out, -1
}

func clip(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
