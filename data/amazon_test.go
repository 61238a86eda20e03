package data

import (
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

var amazonTotals = map[string]int{"books": 6465, "dvd": 5586, "electronics": 7681, "kitchen": 7945}

var embeddedOnce = sync.OnceValues(LoadAmazonEmbedded)

func embedded(t testing.TB) []Domain {
	t.Helper()
	ds, err := embeddedOnce()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func TestAmazonEmbeddedCounts(t *testing.T) {
	ds := embedded(t)
	if len(ds) != 4 {
		t.Fatalf("%d domains, want 4", len(ds))
	}
	for i, d := range ds {
		if d.Name != AmazonDomains[i] || d.Dataset != "amazon" {
			t.Errorf("domain %d is %s/%s, want amazon/%s", i, d.Dataset, d.Name, AmazonDomains[i])
		}
		if d.Train.Len() != 2000 || d.Train.Len()+d.Test.Len() != amazonTotals[d.Name] {
			t.Errorf("%s: %d train + %d test, want 2000 + %d", d.Name, d.Train.Len(), d.Test.Len(), amazonTotals[d.Name]-2000)
		}
		if h := d.Train.Histogram(); !slices.Equal(h, []int{1000, 1000}) {
			t.Errorf("%s train histogram %v, want balanced", d.Name, h)
		}
		for _, s := range []*Split{&d.Train, &d.Test} {
			if err := s.Validate(); err != nil {
				t.Errorf("%s: %v", d.Name, err)
			}
			if s.Sparse.Cols != AmazonFeatures {
				t.Errorf("%s: %d columns", d.Name, s.Sparse.Cols)
			}
			// About 1.5% of the 5000 features are non-zero.
			if avg := float64(s.Sparse.NNZ()) / float64(s.Len()); avg < 40 || avg > 150 {
				t.Errorf("%s: %.1f non-zeros per review", d.Name, avg)
			}
		}
	}
}

func requireData(t *testing.T) string {
	t.Helper()
	dir, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	return dir
}

func sameDomains(t *testing.T, what string, a, b []Domain) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d vs %d domains", what, len(a), len(b))
	}
	for i := range a {
		for _, p := range []struct {
			name string
			x, y *Split
		}{{"train", &a[i].Train, &b[i].Train}, {"test", &a[i].Test, &b[i].Test}} {
			if a[i].Name != b[i].Name || !p.x.Sparse.Equal(p.y.Sparse) || !slices.Equal(p.x.Y, p.y.Y) {
				t.Errorf("%s: domain %s %s differs", what, a[i].Name, p.name)
			}
		}
	}
}

func TestAmazonEmbeddedEqualsFiles(t *testing.T) {
	dir := requireData(t)
	files, err := LoadAmazon(dir)
	if err != nil {
		t.Fatal(err)
	}
	sameDomains(t, "embedded vs svmlight", embedded(t), files)
}

func TestAmazonNPZEqualsSVMLight(t *testing.T) {
	dir := requireData(t)
	files, err := LoadAmazon(dir)
	if err != nil {
		t.Fatal(err)
	}
	npz, err := LoadAmazonNPZ(filepath.Join(dir, AmazonNPZ))
	if err != nil {
		t.Fatal(err)
	}
	sameDomains(t, "npz vs svmlight", npz, files)
}

func TestAmazonMissingFiles(t *testing.T) {
	_, err := LoadAmazon(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "books_train.svmlight") || !strings.Contains(err.Error(), "want the svmlight files") {
		t.Fatalf("LoadAmazon(empty dir) = %v, want an error naming the expected files", err)
	}
	if _, err := LoadAmazonNPZ(filepath.Join(t.TempDir(), "amazon.npz")); err == nil {
		t.Fatal("LoadAmazonNPZ of a missing file succeeded")
	}
}

func TestEmbeddedChecksum(t *testing.T) {
	if err := checkSum(amazonBlob, amazonBlobSum); err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(amazonBlob)
	bad[len(bad)/2] ^= 1
	err := checkSum(bad, amazonBlobSum)
	if !errors.Is(err, errEmbedded) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("checkSum of a damaged blob = %v", err)
	}
	if err := checkSum(amazonBlob, ""); !errors.Is(err, errEmbedded) {
		t.Fatalf("checkSum without a sum = %v", err)
	}
}

func toyAmazon() []Domain {
	m := smallCSR()
	return []Domain{{Dataset: "amazon", Name: "x",
		Train: Split{Sparse: m, Y: []int{1, 0, 1}, NumClasses: 2},
		Test:  Split{Sparse: m.SelectRows([]int{2}), Y: []int{0}, NumClasses: 2}}}
}

func TestAmazonCodecRoundTrip(t *testing.T) {
	in := toyAmazon()
	blob, err := encodeAmazon(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := decodeAmazon(blob)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
	// Every truncation and a few bit flips fail cleanly.
	for n := 0; n < len(blob); n++ {
		if _, err := decodeAmazon(blob[:n]); err == nil {
			t.Fatalf("decoding the first %d of %d bytes succeeded", n, len(blob))
		}
	}
	for _, tc := range []struct {
		name string
		edit func(d []Domain)
	}{
		{"fractional value", func(d []Domain) { d[0].Train.Sparse.Val[0] = 0.5 }},
		{"label 2", func(d []Domain) { d[0].Test.Y[0] = 2 }},
		{"dense split", func(d []Domain) {
			d[0].Test = Split{Dense: &Dense{N: 1, Shape: []int{1}, X: []float32{1}}, Y: []int{0}}
		}},
	} {
		d := toyAmazon()
		d[0].Train.Sparse = d[0].Train.Sparse.SelectRows([]int{0, 1, 2})
		tc.edit(d)
		if _, err := encodeAmazon(d); err == nil {
			t.Errorf("%s: encodeAmazon succeeded", tc.name)
		}
	}
}

func TestAmazonProtocol(t *testing.T) {
	ds := embedded(t)
	for _, target := range AmazonDomains {
		task, err := AmazonProtocol(UDA).BuildFor(ds, target, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range task.Sources {
			// 2000 drawn from the pooled rows, their negatives halved.
			h := s.Histogram()
			n0 := 2000 - h[1]
			if s.From != "pool" || h[0] != n0-int(math.Round(0.5*float64(n0))) || s.Len() != h[0]+h[1] || n0 < 800 || n0 > 1200 {
				t.Errorf("target %s: source %s from %s has %v (%d), want about [500 1000] from pool", target, s.Domain, s.From, h, s.Len())
			}
		}
		if task.TargetTrain.Len() != 2000 || task.TargetTest.Len() != amazonTotals[target]-2000 || task.EpochSteps(20) != 75 {
			t.Errorf("target %s: %d train, %d test, %d steps", target, task.TargetTrain.Len(), task.TargetTest.Len(), task.EpochSteps(20))
		}

		fixed := AmazonProtocol(UDA)
		fixed.Pool = false
		if task, err = fixed.BuildFor(ds, target, 1); err != nil {
			t.Fatal(err)
		}
		for _, s := range task.Sources {
			// The train rows: 1000 negatives halved, 1000 positives kept.
			if h := s.Histogram(); !slices.Equal(h, []int{500, 1000}) || s.Len() != 1500 {
				t.Errorf("fixed split, target %s: source %s has %v (%d), want [500 1000] (1500)", target, s.Domain, h, s.Len())
			}
		}
		if task.TargetTrain.Len() != 2000 || task.TargetTest.Len() != amazonTotals[target]-2000 || task.TargetTest.From != "test" {
			t.Errorf("fixed split, target %s: %d train, %d test from %s", target, task.TargetTrain.Len(), task.TargetTest.Len(), task.TargetTest.From)
		}
	}
	lim, err := AmazonProtocol(Limited).BuildFor(ds, "kitchen", 5)
	if err != nil {
		t.Fatal(err)
	}
	if lim.TargetTrain.Len() != 200 || lim.TargetTest.Len() != 1800 {
		t.Errorf("limited: %d labelled, %d test; want 200, 1800", lim.TargetTrain.Len(), lim.TargetTest.Len())
	}
	a, _ := AmazonProtocol(UDA).BuildFor(ds, "dvd", 11)
	b, _ := AmazonProtocol(UDA).BuildFor(ds, "dvd", 11)
	c, _ := AmazonProtocol(UDA).BuildFor(ds, "dvd", 12)
	if !slices.Equal(a.Sources[0].Rows, b.Sources[0].Rows) || slices.Equal(a.Sources[0].Rows, c.Sources[0].Rows) {
		t.Error("source rows: same seed must repeat, another seed must differ")
	}
}

func BenchmarkLoadAmazonEmbedded(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := LoadAmazonEmbedded(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadAmazonSVMLight(b *testing.B) {
	dir, ok := datadir.Find()
	if !ok {
		b.Skip(datadir.SkipReason)
	}
	for i := 0; i < b.N; i++ {
		if _, err := LoadAmazon(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadAmazonNPZ(b *testing.B) {
	dir, ok := datadir.Find()
	if !ok {
		b.Skip(datadir.SkipReason)
	}
	for i := 0; i < b.N; i++ {
		if _, err := LoadAmazonNPZ(filepath.Join(dir, AmazonNPZ)); err != nil {
			b.Fatal(err)
		}
	}
}
