// Package safetensors reads and writes float32 and float64 tensors in the
// safetensors format, the weight format of the Hugging Face ecosystem that
// PyTorch users load with safetensors.torch.load_file.
//
// # Format
//
// A file is
//
//	header size  uint64, little-endian: N
//	header       N bytes of UTF-8 JSON, padded with spaces
//	data         the tensors' bytes, one after the other
//
// The header is one JSON object with, per tensor,
//
//	"NAME": {"dtype": "F32", "shape": [d0, d1, ...], "data_offsets": [BEGIN, END]}
//
// where BEGIN and END delimit the tensor's bytes in the data section
// (little-endian IEEE 754 values in row-major order), and an optional
// "__metadata__" object of string values.
//
// Write is deterministic: tensors are laid out in the order of their names,
// the header's keys are sorted and the header is padded to a multiple of
// eight bytes, so the same tensors and metadata always give the same bytes.
// Read is strict: it refuses a header that is not one JSON object, a
// repeated name, an unknown field, a dtype other than F32 and F64, a shape
// whose size disagrees with the offsets, and offsets that overlap, leave a
// hole or do not end with the file; every error names the input and the
// byte offset or the tensor concerned.
package safetensors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

// MaxHeader is the largest header Read accepts, in bytes (the limit of the
// reference implementation).
const MaxHeader = 100 << 20

// metadataKey is the header entry that holds the metadata.
const metadataKey = "__metadata__"

// File is the content of a safetensors file: named tensors (float32 or
// float64, see checkpoint.Tensor) and string metadata.
type File struct {
	Tensors  []checkpoint.Tensor
	Metadata map[string]string
}

// ErrFormat is wrapped by every error Read returns for malformed input.
var ErrFormat = errors.New("safetensors: malformed file")

// entry is the header record of one tensor.
type entry struct {
	DType       string   `json:"dtype"`
	Shape       []int    `json:"shape"`
	DataOffsets [2]int64 `json:"data_offsets"`
}

// dtypeSize returns the bytes per element of a dtype this package reads.
func dtypeSize(dtype string) int {
	switch dtype {
	case "F32":
		return 4
	case "F64":
		return 8
	}
	return 0
}

// Write writes f to w in the safetensors format.
func Write(w io.Writer, f *File) error {
	ts := slices.Clone(f.Tensors)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	header := map[string]any{}
	var off int64
	for i, t := range ts {
		if t.Name == "" || t.Name == metadataKey {
			return fmt.Errorf("safetensors: tensor %d has the name %q", i, t.Name)
		}
		if i > 0 && ts[i-1].Name == t.Name {
			return fmt.Errorf("safetensors: tensor name %q used twice", t.Name)
		}
		if !utf8.ValidString(t.Name) {
			return fmt.Errorf("safetensors: tensor name %q is not UTF-8", t.Name)
		}
		n := 1
		for _, d := range t.Shape {
			if d < 0 {
				return fmt.Errorf("safetensors: tensor %q has shape %v", t.Name, t.Shape)
			}
			n *= d
		}
		if n != t.Len() {
			return fmt.Errorf("safetensors: tensor %q has shape %v but %d values", t.Name, t.Shape, t.Len())
		}
		dt, size := "F32", 4
		if t.F64 != nil {
			dt, size = "F64", 8
		}
		shape := t.Shape
		if shape == nil {
			shape = []int{}
		}
		end := off + int64(n*size)
		header[t.Name] = entry{DType: dt, Shape: shape, DataOffsets: [2]int64{off, end}}
		off = end
	}
	if len(f.Metadata) > 0 {
		for k, v := range f.Metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return fmt.Errorf("safetensors: metadata %q is not UTF-8", k)
			}
		}
		header[metadataKey] = f.Metadata
	}
	hb, err := json.Marshal(header)
	if err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hb)))
	bw.Write(n[:])
	bw.Write(hb)
	var buf [8]byte
	for _, t := range ts {
		for _, v := range t.F32 {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(v))
			bw.Write(buf[:4])
		}
		for _, v := range t.F64 {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
			bw.Write(buf[:])
		}
	}
	return bw.Flush()
}

// Save writes f to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func Save(path string, f *File) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = Write(tmp, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if cerr := tmp.Chmod(0o644); cerr != nil && runtime.GOOS != "windows" && runtime.GOOS != "plan9" {
		return cerr
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads the safetensors file at path.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return Read(bufio.NewReaderSize(fh, 1<<20), path)
}

// formatError returns an error wrapping ErrFormat that names the input.
func formatError(name string, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrFormat, name, fmt.Sprintf(format, args...))
}

// Read reads a safetensors file from r; name is used in error messages. The
// data section is read as it arrives, so a header that claims more data than
// the input holds fails without allocating that much.
func Read(r io.Reader, name string) (*File, error) {
	var nb [8]byte
	if _, err := io.ReadFull(r, nb[:]); err != nil {
		return nil, formatError(name, "offset 0: the 8-byte header size: %v", err)
	}
	hn := binary.LittleEndian.Uint64(nb[:])
	if hn < 2 || hn > MaxHeader {
		return nil, formatError(name, "offset 0: header size %d, want 2..%d", hn, MaxHeader)
	}
	var hb bytes.Buffer
	if _, err := io.CopyN(&hb, r, int64(hn)); err != nil {
		return nil, formatError(name, "offset 8: the %d-byte header: %v", hn, err)
	}
	entries, order, meta, err := parseHeader(hb.Bytes())
	if err != nil {
		return nil, formatError(name, "header at offset 8: %v", err)
	}
	// Check the offsets: sorted by start, they must tile [0, end).
	byStart := slices.Clone(order)
	sort.SliceStable(byStart, func(i, j int) bool {
		return entries[byStart[i]].DataOffsets[0] < entries[byStart[j]].DataOffsets[0]
	})
	var end int64
	for _, n := range byStart {
		e := entries[n]
		size := dtypeSize(e.DType)
		if size == 0 {
			return nil, formatError(name, "tensor %q has dtype %q; this reader takes F32 and F64", n, e.DType)
		}
		count := int64(1)
		for _, d := range e.Shape {
			if d < 0 || (d > 0 && count > math.MaxInt64/8/int64(d)) {
				return nil, formatError(name, "tensor %q has shape %v", n, e.Shape)
			}
			count *= int64(d)
		}
		b, c := e.DataOffsets[0], e.DataOffsets[1]
		if b != end {
			return nil, formatError(name, "tensor %q starts at data offset %d, want %d (the data must be contiguous, without overlaps or holes)", n, b, end)
		}
		if c-b != count*int64(size) {
			return nil, formatError(name, "tensor %q spans data offsets [%d, %d), %d bytes, but its shape %v of %s needs %d", n, b, c, c-b, e.Shape, e.DType, count*int64(size))
		}
		end = c
	}
	var data bytes.Buffer
	if got, err := io.CopyN(&data, r, end); err != nil {
		return nil, formatError(name, "offset %d: the data section holds %d bytes, the header describes %d: %v", 8+int64(hn)+got, got, end, err)
	}
	var extra [1]byte
	if k, _ := io.ReadFull(r, extra[:]); k > 0 {
		return nil, formatError(name, "offset %d: bytes after the last tensor", 8+int64(hn)+end)
	}
	f := &File{Metadata: meta}
	buf := data.Bytes()
	for _, n := range order {
		e := entries[n]
		raw := buf[e.DataOffsets[0]:e.DataOffsets[1]]
		t := checkpoint.Tensor{Name: n, Shape: slices.Clone(e.Shape)}
		if e.DType == "F64" {
			t.F64 = make([]float64, len(raw)/8)
			for i := range t.F64 {
				t.F64[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
			}
		} else {
			t.F32 = make([]float32, len(raw)/4)
			for i := range t.F32 {
				t.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		}
		f.Tensors = append(f.Tensors, t)
	}
	return f, nil
}

// parseHeader decodes the header object, refusing repeated keys and
// unknown fields, and returns the tensor entries with their names in file
// order and the metadata.
func parseHeader(h []byte) (map[string]entry, []string, map[string]string, error) {
	if !utf8.Valid(h) {
		return nil, nil, nil, errors.New("not UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(h))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, nil, errors.New("not a JSON object")
	}
	entries := map[string]entry{}
	var order []string
	var meta map[string]string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, nil, err
		}
		key := tok.(string)
		if key == "" {
			return nil, nil, nil, errors.New("a tensor has an empty name")
		}
		if seen[key] {
			return nil, nil, nil, fmt.Errorf("key %q appears twice", key)
		}
		seen[key] = true
		if key == metadataKey {
			if err := dec.Decode(&meta); err != nil {
				return nil, nil, nil, fmt.Errorf("%s: %v", metadataKey, err)
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, nil, fmt.Errorf("tensor %q: %v", key, err)
		}
		var e entry
		ed := json.NewDecoder(bytes.NewReader(raw))
		ed.DisallowUnknownFields()
		if err := ed.Decode(&e); err != nil {
			return nil, nil, nil, fmt.Errorf("tensor %q: %v", key, err)
		}
		if e.DType == "" || e.Shape == nil {
			return nil, nil, nil, fmt.Errorf("tensor %q: want dtype, shape and data_offsets", key)
		}
		entries[key] = e
		order = append(order, key)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, nil, err
	}
	if rest := bytes.TrimRight(h[dec.InputOffset():], " "); len(rest) > 0 {
		return nil, nil, nil, fmt.Errorf("%q after the object", rest[:min(len(rest), 20)])
	}
	return entries, order, meta, nil
}
