package checkpoint

import (
	"bytes"
	"testing"
)

// FuzzRead feeds arbitrary bytes to Read. It must never panic; whatever it
// accepts must re-encode to exactly the input (the encoding is canonical),
// and a stream of unknown size must be judged like a sized one.
func FuzzRead(f *testing.F) {
	f.Add(encode(f, sample()))
	f.Add(encode(f, &File{}))
	f.Add(encode(f, &File{Meta: []byte("{}"), Optim: []Tensor{{Name: "x/step", Shape: []int{}, F64: []float64{3}}}}))
	f.Add([]byte(Magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Read(bytes.NewReader(data), "fuzz")
		_, err2 := Read(onlyReader{bytes.NewReader(data)}, "fuzz")
		if (err == nil) != (err2 == nil) {
			t.Fatalf("sized reader: %v; stream: %v", err, err2)
		}
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Write(&buf, got); err != nil {
			t.Fatalf("re-encoding an accepted file: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("re-encoded %d bytes differ from the %d accepted", buf.Len(), len(data))
		}
	})
}
