package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// sample returns a small file that exercises every kind of value the format
// must keep bit for bit: signed zeros, denormals, infinities, a NaN with a
// payload, a scalar, an empty float64 tensor and metadata.
func sample() *File {
	nan32 := math.Float32frombits(0x7fc01234)
	nan64 := math.Float64frombits(0xfff8000000abcdef)
	return &File{
		Meta: []byte(`{"epoch":3,"step":1200,"rng":"pcg:42:7"}`),
		Tensors: []Tensor{
			{Name: "fc1.weight", Shape: []int{2, 3}, F32: []float32{
				0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -1e-40, float32(math.Inf(1)), nan32}},
			{Name: "fc1.bias", Shape: []int{3}, F64: []float64{
				math.Copysign(0, -1), math.SmallestNonzeroFloat64, nan64}},
			{Name: "scale", Shape: []int{}, F32: []float32{2.5}},
			{Name: "empty", Shape: []int{0, 4}, F64: []float64{}},
			{Name: "ünïcode/名前", Shape: []int{1}, F32: []float32{math.MaxFloat32}},
		},
		Optim: []Tensor{
			{Name: "fc1.weight/step", Shape: []int{}, F64: []float64{7}},
			{Name: "fc1.weight/square_avg", Shape: []int{6}, F32: []float32{1, 2, 3, 4, 5, 6}},
		},
		OptimStep: 7,
	}
}

func encode(t testing.TB, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sameFile reports the first difference between two files, comparing float
// data by bit pattern.
func sameFile(a, b *File) error {
	if a.OptimStep != b.OptimStep || !bytes.Equal(a.Meta, b.Meta) {
		return fmt.Errorf("step/meta %d %q vs %d %q", a.OptimStep, a.Meta, b.OptimStep, b.Meta)
	}
	for _, sec := range [][2][]Tensor{{a.Tensors, b.Tensors}, {a.Optim, b.Optim}} {
		if len(sec[0]) != len(sec[1]) {
			return fmt.Errorf("%d vs %d tensors", len(sec[0]), len(sec[1]))
		}
		for i := range sec[0] {
			x, y := &sec[0][i], &sec[1][i]
			if x.Name != y.Name || !slices.Equal(x.Shape, y.Shape) || x.DType() != y.DType() || x.Len() != y.Len() {
				return fmt.Errorf("tensor %d: %q %v %s vs %q %v %s", i, x.Name, x.Shape, x.DType(), y.Name, y.Shape, y.DType())
			}
			if (x.F64 == nil) != (y.F64 == nil) {
				return fmt.Errorf("tensor %q: F64 nil %v vs %v", x.Name, x.F64 == nil, y.F64 == nil)
			}
			for j := range x.F32 {
				if math.Float32bits(x.F32[j]) != math.Float32bits(y.F32[j]) {
					return fmt.Errorf("tensor %q[%d]: %#x vs %#x", x.Name, j, math.Float32bits(x.F32[j]), math.Float32bits(y.F32[j]))
				}
			}
			for j := range x.F64 {
				if math.Float64bits(x.F64[j]) != math.Float64bits(y.F64[j]) {
					return fmt.Errorf("tensor %q[%d]: %#x vs %#x", x.Name, j, math.Float64bits(x.F64[j]), math.Float64bits(y.F64[j]))
				}
			}
		}
	}
	return nil
}

// onlyReader hides the Len method of a reader, so Read cannot know the size.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func TestRoundTrip(t *testing.T) {
	want := sample()
	raw := encode(t, want)
	for _, c := range []struct {
		name string
		r    io.Reader
	}{{"sized", bytes.NewReader(raw)}, {"stream", onlyReader{bytes.NewReader(raw)}}} {
		got, err := Read(c.r, c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := sameFile(want, got); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if got.Version != Version {
			t.Errorf("%s: version %d", c.name, got.Version)
		}
	}
	path := filepath.Join(t.TempDir(), "model.ckpt")
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameFile(want, got); err != nil {
		t.Error(err)
	}
	// Re-encoding what was read gives the same bytes: the encoding is
	// canonical.
	if again := encode(t, got); !bytes.Equal(again, raw) {
		t.Error("re-encoded file differs from the original bytes")
	}
	// Read consumes exactly one checkpoint.
	r := bytes.NewReader(append(slices.Clone(raw), "next"...))
	if _, err := Read(onlyReader{r}, "concat"); err != nil {
		t.Fatal(err)
	}
	if rest, _ := io.ReadAll(r); string(rest) != "next" {
		t.Errorf("Read left %q after the checkpoint, want %q", rest, "next")
	}
}

// TestTruncated cuts a small file at every offset; every prefix must be
// rejected as truncated, from a stream, a sized reader and a file.
func TestTruncated(t *testing.T) {
	raw := encode(t, sample())
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.ckpt")
	for n := range len(raw) {
		for _, r := range []io.Reader{bytes.NewReader(raw[:n]), onlyReader{bytes.NewReader(raw[:n])}} {
			_, err := Read(r, "cut")
			if !errors.Is(err, ErrTruncated) {
				t.Fatalf("prefix of %d of %d bytes: error %v, want ErrTruncated", n, len(raw), err)
			}
		}
		if err := os.WriteFile(path, raw[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path)
		if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), path) {
			t.Fatalf("file cut to %d bytes: error %v, want ErrTruncated naming %s", n, err, path)
		}
	}
}

// TestByteFlips changes every byte of a small file in three ways; each
// change must be rejected with an error naming the input.
func TestByteFlips(t *testing.T) {
	raw := encode(t, sample())
	for i := range raw {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			b := slices.Clone(raw)
			b[i] ^= mask
			for _, r := range []io.Reader{bytes.NewReader(b), onlyReader{bytes.NewReader(b)}} {
				_, err := Read(r, "flipped")
				var ce *Error
				if !errors.As(err, &ce) || ce.File != "flipped" {
					t.Fatalf("byte %d ^ %#x: error %v, want a *checkpoint.Error naming the input", i, mask, err)
				}
			}
		}
	}
}

// TestSpecificErrors checks the sentinel and offset for each kind of damage.
func TestSpecificErrors(t *testing.T) {
	raw := encode(t, sample())
	set := func(off int, v ...byte) []byte {
		b := slices.Clone(raw)
		copy(b[off:], v)
		return b
	}
	u64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	metaLen := len(sample().Meta)
	firstTensor := 8 + 4 + 8 + metaLen + 8 + 4 // offset of the first tensor record
	// First tensor: name length, "fc1.weight" (10 bytes), dtype, rank, dims.
	dtypeOff := firstTensor + 2 + 10
	dimOff := dtypeOff + 2
	cases := []struct {
		name   string
		data   []byte
		want   error
		offset int64
	}{
		{"magic", set(0, 'X'), ErrMagic, 0},
		{"version", set(8, 2), ErrVersion, 8},
		{"checksum", set(len(raw)-1, raw[len(raw)-1]^1), ErrChecksum, int64(len(raw) - 4)},
		{"data bit", set(dimOff+16, raw[dimOff+16]^4), ErrChecksum, int64(len(raw) - 4)},
		{"dtype", set(dtypeOff, 9), ErrCorrupt, int64(dtypeOff)},
		{"rank", set(dtypeOff+1, 200), ErrCorrupt, int64(dtypeOff + 1)},
		{"huge meta length", set(12, u64(1<<62)...), ErrTruncated, 20},
		{"huge dimension", set(dimOff, u64(1<<62)...), ErrCorrupt, int64(dimOff)},
		{"dimension overflow", set(dimOff, u64(maxElems/2+1)...), ErrCorrupt, int64(dimOff + 16)},
		{"empty name", set(firstTensor, 0, 0), ErrCorrupt, int64(firstTensor)},
		{"bad utf-8", set(firstTensor+2, 0xff), ErrCorrupt, int64(firstTensor + 2)},
		{"duplicate name", set(firstTensor+2, []byte("fc1.bias\x00\x00")...), ErrChecksum, int64(len(raw) - 4)},
	}
	for _, c := range cases {
		_, err := Read(bytes.NewReader(c.data), "damaged.ckpt")
		var ce *Error
		if !errors.Is(err, c.want) || !errors.As(err, &ce) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
			continue
		}
		if ce.Offset != c.offset || !strings.Contains(err.Error(), "damaged.ckpt") || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", c.offset)) {
			t.Errorf("%s: error %q, want offset %d and the file name", c.name, err, c.offset)
		}
	}
	// Trailing bytes are rejected by Load.
	path := filepath.Join(t.TempDir(), "trailing.ckpt")
	if err := os.WriteFile(path, append(slices.Clone(raw), 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "1 bytes after the checksum") {
		t.Errorf("trailing byte: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.ckpt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestDuplicateOnRead checks that a well-formed file with two tensors of one
// name (which Write refuses to make) is rejected.
func TestDuplicateOnRead(t *testing.T) {
	f := &File{Tensors: []Tensor{{Name: "a", Shape: []int{}, F32: []float32{1}}, {Name: "b", Shape: []int{}, F32: []float32{2}}}}
	raw := encode(t, f)
	i := bytes.LastIndexByte(raw[:len(raw)-4], 'b')
	raw[i] = 'a'
	binary.LittleEndian.PutUint32(raw[len(raw)-4:], crcOf(raw[:len(raw)-4]))
	if _, err := Read(bytes.NewReader(raw), "dup"); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"a" appears twice`) {
		t.Errorf("duplicate tensor: %v", err)
	}
}

func crcOf(b []byte) uint32 {
	var e encoder
	e.crc = 0
	e.buf = b
	e.w = io.Discard
	e.flush()
	return e.crc
}

// TestNoHugeAllocation checks that corrupt length fields on a stream of
// unknown size cost memory in proportion to the bytes present, not to the
// lengths claimed.
func TestNoHugeAllocation(t *testing.T) {
	raw := encode(t, sample())
	metaHuge := slices.Clone(raw)
	binary.LittleEndian.PutUint64(metaHuge[12:], 1<<50)
	dimHuge := encode(t, &File{Tensors: []Tensor{{Name: "w", Shape: []int{1}, F64: []float64{1}}}})
	off := 8 + 4 + 8 + 8 + 4 + 2 + 1 + 2
	binary.LittleEndian.PutUint64(dimHuge[off:], 1<<58)
	countHuge := encode(t, &File{})
	binary.LittleEndian.PutUint32(countHuge[8+4+8+8:], math.MaxUint32)
	for name, b := range map[string][]byte{"meta": metaHuge, "dim": dimHuge, "count": countHuge} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Read(onlyReader{bytes.NewReader(b)}, name)
		runtime.ReadMemStats(&after)
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: error %v, want a *checkpoint.Error", name, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 8<<20 {
			t.Errorf("%s: reading %d bytes allocated %d bytes", name, len(b), got)
		}
	}
}

func TestWriteInvalid(t *testing.T) {
	f32 := func(n int) []float32 { return make([]float32, n) }
	cases := []struct {
		name string
		f    *File
	}{
		{"nil", nil},
		{"version", &File{Version: 2}},
		{"negative step", &File{OptimStep: -1}},
		{"empty name", &File{Tensors: []Tensor{{Name: "", Shape: []int{1}, F32: f32(1)}}}},
		{"bad utf-8", &File{Tensors: []Tensor{{Name: "\xff", Shape: []int{1}, F32: f32(1)}}}},
		{"long name", &File{Tensors: []Tensor{{Name: strings.Repeat("x", MaxNameLen+1), Shape: []int{1}, F32: f32(1)}}}},
		{"duplicate", &File{Optim: []Tensor{{Name: "a", Shape: []int{1}, F32: f32(1)}, {Name: "a", Shape: []int{1}, F32: f32(1)}}}},
		{"both types", &File{Tensors: []Tensor{{Name: "a", Shape: []int{1}, F32: f32(1), F64: []float64{1}}}}},
		{"shape vs data", &File{Tensors: []Tensor{{Name: "a", Shape: []int{2, 2}, F32: f32(3)}}}},
		{"scalar without data", &File{Tensors: []Tensor{{Name: "a", Shape: []int{}}}}},
		{"negative dimension", &File{Tensors: []Tensor{{Name: "a", Shape: []int{-1, -1}, F32: f32(1)}}}},
		{"rank", &File{Tensors: []Tensor{{Name: "a", Shape: make([]int, MaxRank+1)}}}},
		{"overflow", &File{Tensors: []Tensor{{Name: "a", Shape: []int{1 << 20, 1 << 20, 1 << 20}}}}},
	}
	for _, c := range cases {
		var buf bytes.Buffer
		err := Write(&buf, c.f)
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", c.name, err)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written for an invalid file", c.name, buf.Len())
		}
	}
}

func TestMatch(t *testing.T) {
	raw := encode(t, sample())
	f, err := Read(bytes.NewReader(raw), "run7.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	exact := []Tensor{
		{Name: "scale", Shape: []int{}},
		{Name: "fc1.bias", Shape: []int{3}, F64: []float64{}},
		{Name: "fc1.weight", Shape: []int{2, 3}},
		{Name: "empty", Shape: []int{0, 4}},
		{Name: "ünïcode/名前", Shape: []int{1}},
	}
	if err := f.Match(exact); err != nil {
		t.Fatalf("exact expectation: %v", err)
	}
	with := func(i int, t Tensor) []Tensor {
		e := slices.Clone(exact)
		e[i] = t
		return e
	}
	cases := []struct {
		name     string
		expected []Tensor
		says     []string
	}{
		{"shape", with(2, Tensor{Name: "fc1.weight", Shape: []int{3, 2}}), []string{`"fc1.weight" has shape [2 3], want [3 2]`}},
		{"dtype", with(1, Tensor{Name: "fc1.bias", Shape: []int{3}, F32: []float32{}}), []string{`"fc1.bias" is float64, want float32`}},
		{"renamed", with(0, Tensor{Name: "gain", Shape: []int{}}), []string{`missing tensor "gain"`, `unexpected tensor "scale"`}},
		{"missing", append(slices.Clone(exact), Tensor{Name: "fc2.weight", Shape: []int{1}}), []string{`missing tensor "fc2.weight"`}},
		{"unexpected", exact[1:], []string{`unexpected tensor "scale"`}},
	}
	for _, c := range cases {
		err := f.Match(c.expected)
		if !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "run7.ckpt") {
			t.Errorf("%s: error %v, want ErrMismatch naming run7.ckpt", c.name, err)
			continue
		}
		for _, s := range c.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not say %q", c.name, err, s)
			}
		}
	}
}

// failAfter lets n bytes through, then fails.
type failAfter struct {
	w io.Writer
	n int
}

var errDisk = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errDisk
	}
	f.n -= len(p)
	return f.w.Write(p)
}

// TestAtomicSave checks that a failing write leaves the old file as it was
// and no temporary file behind, and that a successful one replaces it.
func TestAtomicSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.ckpt")
	old := &File{Meta: []byte("old"), Tensors: []Tensor{{Name: "w", Shape: []int{2}, F32: []float32{1, 2}}}}
	if err := Save(path, old); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	oldBytes, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	big := sample()
	big.Tensors = append(big.Tensors, Tensor{Name: "big", Shape: []int{1 << 19}, F32: make([]float32, 1<<19)})
	size := len(encode(t, big))
	for _, n := range []int{0, 1, 100, size / 2, size - 4, size - 1} {
		err := save(path, big, func(w io.Writer) io.Writer { return &failAfter{w: w, n: n} })
		if !errors.Is(err, errDisk) || !strings.Contains(err.Error(), path) {
			t.Errorf("failing after %d bytes: error %v, want errDisk naming the file", n, err)
		}
		checkUnchanged(t, dir, path, oldBytes)
	}
	// An invalid file is refused before anything is written.
	if err := Save(path, &File{Version: 9}); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid file: %v", err)
	}
	checkUnchanged(t, dir, path, oldBytes)
	// A successful save replaces the file and keeps its mode.
	if err := Save(path, big); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sameFile(big, got); err != nil {
		t.Error(err)
	}
	if st, err := os.Stat(path); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o600) {
		t.Errorf("mode after replacing a 0600 file: %v, %v", st.Mode(), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries after saving, want 1", len(entries))
	}
	// A directory that does not exist is an error naming the path.
	bad := filepath.Join(dir, "no", "such", "dir", "m.ckpt")
	if err := Save(bad, old); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("save into a missing directory: %v", err)
	}
}

func checkUnchanged(t *testing.T, dir, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("old file changed by a failed save (err %v)", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("directory holds %v after a failed save, want only %s", names, filepath.Base(path))
	}
}
