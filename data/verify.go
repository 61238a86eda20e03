package data

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SumsFile is the name of the checksum lists that [Verify] checks, in the
// format of sha256sum: "<64 hex digits>  <path relative to the list>" per line.
const SumsFile = "SHA256SUMS"

// Check statuses reported by [Verify].
const (
	StatusOK       = "ok"
	StatusMismatch = "mismatch"
	StatusMissing  = "missing"
	StatusError    = "error" // the file exists but could not be read
)

// Check is the outcome of checking one listed file.
type Check struct {
	File   string `json:"file"`   // path as listed, joined to the list's folder
	Status string `json:"status"` // StatusOK, StatusMismatch, StatusMissing or StatusError
	Want   string `json:"want"`   // listed SHA-256, hex
	Got    string `json:"got,omitempty"`
	Err    string `json:"error,omitempty"`
}

// Verify finds every SHA256SUMS file under dir and checks the files each one
// lists, then the files of declared (SHA-256 by path relative to dir, the
// data set registry's) that dir holds and no list names. It returns one
// Check per file, lists first in list order, then the declared files by
// path, and an error only for an unreadable directory or a malformed list
// (with its line). A declared file that is absent is not checked. progress,
// if not nil, is called before each file is hashed with its index, the
// number of files and the path.
func Verify(dir string, declared map[string]string, progress func(i, n int, file string)) ([]Check, error) {
	var lists []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == SumsFile {
			lists = append(lists, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	type item struct{ path, want string }
	var items []item
	for _, l := range lists {
		entries, err := readSums(l)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			items = append(items, item{filepath.Join(filepath.Dir(l), filepath.FromSlash(e[1])), e[0]})
		}
	}
	listed := map[string]bool{}
	for _, it := range items {
		listed[filepath.Clean(it.path)] = true
	}
	var paths []string
	for p := range declared {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if _, err := os.Stat(full); err == nil && !listed[filepath.Clean(full)] {
			items = append(items, item{full, declared[p]})
		}
	}
	out := make([]Check, len(items))
	for i, it := range items {
		if progress != nil {
			progress(i, len(items), it.path)
		}
		c := Check{File: it.path, Want: it.want}
		got, err := fileSHA256(it.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.Status = StatusMissing
		case err != nil:
			c.Status, c.Err = StatusError, err.Error()
		case got == it.want:
			c.Status, c.Got = StatusOK, got
		default:
			c.Status, c.Got = StatusMismatch, got
		}
		out[i] = c
	}
	return out, nil
}

// readSums parses a sha256sum list into (hex sum, path) pairs.
func readSums(path string) ([][2]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	defer f.Close()
	var out [][2]string
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		sum, name, ok := strings.Cut(t, " ")
		name = strings.TrimPrefix(strings.TrimPrefix(name, " "), "*") // text or binary mode marker
		if _, err := hex.DecodeString(sum); !ok || err != nil || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("verify: %s:%d: want \"<64 hex digits>  <file>\", got %q", path, line, t)
		}
		if filepath.IsAbs(name) || strings.Contains("/"+filepath.ToSlash(name)+"/", "/../") {
			return nil, fmt.Errorf("verify: %s:%d: file %q leaves the list's folder", path, line, name)
		}
		out = append(out, [2]string{strings.ToLower(sum), name})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("verify: %s:%d: %w", path, line+1, err)
	}
	return out, nil
}
