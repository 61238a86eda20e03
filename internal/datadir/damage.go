package datadir

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// CopyAmazon copies the Amazon svmlight files of the data directory src
// into dst/amazon and, with sums, src's SHA256SUMS into dst, applying
// edits[name] to the content of the file called name (e.g.
// "kitchen_test.svmlight") on the way. It builds damaged data directories
// for the tests of strict loading.
func CopyAmazon(src, dst string, sums bool, edits map[string]func([]byte) []byte) error {
	from := filepath.Join(src, "amazon")
	names, err := filepath.Glob(filepath.Join(from, "*.svmlight"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("no svmlight files in %s (%v)", from, err)
	}
	if err := os.MkdirAll(filepath.Join(dst, "amazon"), 0o755); err != nil {
		return err
	}
	copyFile := func(from, to string, edit func([]byte) []byte) error {
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if edit != nil {
			b = edit(b)
		}
		return os.WriteFile(to, b, 0o644)
	}
	for _, p := range names {
		name := filepath.Base(p)
		if err := copyFile(p, filepath.Join(dst, "amazon", name), edits[name]); err != nil {
			return err
		}
	}
	if sums {
		return copyFile(filepath.Join(src, "SHA256SUMS"), filepath.Join(dst, "SHA256SUMS"), nil)
	}
	return nil
}

// KeepLines returns an edit that keeps the first n lines of a text file:
// a file cut at a line boundary.
func KeepLines(n int) func([]byte) []byte {
	return func(b []byte) []byte {
		off := 0
		for range n {
			i := bytes.IndexByte(b[off:], '\n')
			if i < 0 {
				return b
			}
			off += i + 1
		}
		return b[:off]
	}
}

// Empty is an edit that empties a file.
func Empty([]byte) []byte { return nil }
