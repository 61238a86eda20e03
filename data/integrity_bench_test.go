package data

import (
	"path/filepath"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

// The load benchmarks of amazon_test.go and digits_test.go hash each file
// once per process (the first iteration); these measure a first load in a
// process, every iteration hashing every file, and the hashing alone.

func BenchmarkLoadAmazonSVMLightCold(b *testing.B) {
	dir, ok := datadir.Find()
	if !ok {
		b.Skip(datadir.SkipReason)
	}
	for i := 0; i < b.N; i++ {
		resetSumCache()
		if _, err := LoadAmazon(dir); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadDigitsCold(b *testing.B) {
	dir, ok := datadir.Find()
	if !ok {
		b.Skip(datadir.SkipReason)
	}
	for i := 0; i < b.N; i++ {
		resetSumCache()
		if _, err := LoadDigitDomains(dir, realDigitNames, DigitsOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSHA256Amazon hashes the eight Amazon files one after the other.
func BenchmarkSHA256Amazon(b *testing.B) {
	dir, ok := datadir.Find()
	if !ok {
		b.Skip(datadir.SkipReason)
	}
	files, _ := filepath.Glob(filepath.Join(dir, AmazonDir, "*.svmlight"))
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			if _, err := fileSHA256(f); err != nil {
				b.Fatal(err)
			}
		}
	}
}
