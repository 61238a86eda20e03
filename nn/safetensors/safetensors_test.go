package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wadn-go/wadn/autodiff/checkpoint"
)

func sample() *File {
	return &File{
		Tensors: []checkpoint.Tensor{
			{Name: "z.weight", Shape: []int{2, 3}, F32: []float32{1, -2, 3.5, float32(math.Inf(1)), 0, -0.25}},
			{Name: "a.bias", Shape: []int{2}, F64: []float64{math.Pi, -1e-300}},
			{Name: "scalar", Shape: []int{}, F32: []float32{7}},
			{Name: "empty", Shape: []int{0, 4}, F32: []float32{}},
		},
		Metadata: map[string]string{"format": "pt", "note": "<&> ünïcode"},
	}
}

func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, sample()); err != nil {
		t.Fatal(err)
	}
	if n := binary.LittleEndian.Uint64(b.Bytes()); n%8 != 0 {
		t.Errorf("header of %d bytes, want a multiple of 8", n)
	}
	got, err := Read(bytes.NewReader(b.Bytes()), "mem")
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	byName := map[string]checkpoint.Tensor{}
	for _, t := range got.Tensors {
		byName[t.Name] = t
	}
	for _, w := range want.Tensors {
		g := byName[w.Name]
		if !cmp.Equal(g.Shape, w.Shape) || g.DType() != w.DType() || g.Len() != w.Len() ||
			!cmp.Equal(g.F32, w.F32, cmp.Comparer(func(a, b float32) bool { return math.Float32bits(a) == math.Float32bits(b) })) ||
			!cmp.Equal(g.F64, w.F64) {
			t.Errorf("tensor %s: got %+v, want %+v", w.Name, g, w)
		}
	}
	if !cmp.Equal(got.Metadata, want.Metadata) {
		t.Errorf("metadata %v, want %v", got.Metadata, want.Metadata)
	}
	// The same content in another order gives the same bytes.
	rev := sample()
	for i, j := 0, len(rev.Tensors)-1; i < j; i, j = i+1, j-1 {
		rev.Tensors[i], rev.Tensors[j] = rev.Tensors[j], rev.Tensors[i]
	}
	var b2 bytes.Buffer
	if err := Write(&b2, rev); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), b2.Bytes()) {
		t.Error("the same tensors in another order gave other bytes")
	}
	// And what was read writes back to the same bytes.
	var b3 bytes.Buffer
	if err := Write(&b3, got); err != nil || !bytes.Equal(b.Bytes(), b3.Bytes()) {
		t.Errorf("write(read(file)) differs from file: %v", err)
	}
}

// TestGoldenBytes pins the layout: header size, sorted JSON, space padding
// and little-endian data, as the format's description gives them.
func TestGoldenBytes(t *testing.T) {
	f := &File{Tensors: []checkpoint.Tensor{{Name: "a", Shape: []int{2}, F32: []float32{1, -2}}}}
	var b bytes.Buffer
	if err := Write(&b, f); err != nil {
		t.Fatal(err)
	}
	header := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	for len(header)%8 != 0 {
		header += " "
	}
	want := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	want = append(want, header...)
	want = append(want, 0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0)
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("got\n%q\nwant\n%q", b.Bytes(), want)
	}
}

func TestReadRejects(t *testing.T) {
	file := func(header string, data ...byte) []byte {
		b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
		return append(append(b, header...), data...)
	}
	four := []byte{0, 0, 0x80, 0x3f}
	for _, tc := range []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "header size"},
		{"huge header", binary.LittleEndian.AppendUint64(nil, MaxHeader+1), "header size"},
		{"short header", append(binary.LittleEndian.AppendUint64(nil, 100), "{}"...), "100-byte header"},
		{"not an object", file(`[1]`), "not a JSON object"},
		{"trailing text", file(`{} x`), "after the object"},
		{"repeated name", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, four...), "appears twice"},
		{"unknown field", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}}`, four...), "unknown field"},
		{"missing shape", file(`{"a":{"dtype":"F32","data_offsets":[0,4]}}`, four...), "want dtype, shape"},
		{"bf16", file(`{"a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}}`, four...), `dtype "BF16"`},
		{"size mismatch", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, four...), "needs 8"},
		{"hole", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, append(four, four...)...), "starts at data offset 4, want 0"},
		{"overlap", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, append(four, four...)...), "want 4"},
		{"truncated data", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, four...), "holds 4 bytes, the header describes 8"},
		{"trailing data", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, append(four, 1)...), "after the last tensor"},
		{"negative dim", file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`), "shape [-1]"},
		{"empty name", file(`{"":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, four...), "empty name"},
		{"bad metadata", file(`{"__metadata__":{"a":1}}`), "__metadata__"},
		{"claims a terabyte", file(`{"a":{"dtype":"F64","shape":[131072,1048576],"data_offsets":[0,1099511627776]}}`, four...), "holds 4 bytes"},
	} {
		_, err := Read(bytes.NewReader(tc.in), "in.safetensors")
		if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "in.safetensors") {
			t.Errorf("%s: %v, want an ErrFormat naming the input and saying %q", tc.name, err, tc.want)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    File
	}{
		{"shape and data disagree", File{Tensors: []checkpoint.Tensor{{Name: "a", Shape: []int{3}, F32: []float32{1}}}}},
		{"repeated name", File{Tensors: []checkpoint.Tensor{{Name: "a", Shape: []int{1}, F32: []float32{1}}, {Name: "a", Shape: []int{1}, F32: []float32{1}}}}},
		{"metadata name", File{Tensors: []checkpoint.Tensor{{Name: "__metadata__", Shape: []int{1}, F32: []float32{1}}}}},
		{"bad UTF-8 metadata", File{Metadata: map[string]string{"a": "\xff"}}},
	} {
		if err := Write(&bytes.Buffer{}, &tc.f); err == nil {
			t.Errorf("%s: written", tc.name)
		}
	}
}

func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := Save(path, sample()); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil || len(f.Tensors) != 4 {
		t.Fatalf("%d tensors, %v", len(f.Tensors), err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func FuzzRead(f *testing.F) {
	var b bytes.Buffer
	Write(&b, sample())
	f.Add(b.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		got, err := Read(bytes.NewReader(in), "fuzz")
		if err != nil {
			return
		}
		var out bytes.Buffer
		if err := Write(&out, got); err != nil {
			t.Fatalf("a file that reads does not write: %v", err)
		}
		again, err := Read(bytes.NewReader(out.Bytes()), "again")
		if err != nil || len(again.Tensors) != len(got.Tensors) {
			t.Fatalf("written file does not read back: %v", err)
		}
	})
}
