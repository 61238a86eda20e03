package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Strict loading. The Load functions check what they read against the
// published data sets:
//
//   - the rows of every split against LoadOptions.Editions, the sizes of
//     the published forms of each domain, which the data set registry
//     (package wadn/dataset) declares;
//   - every file read (the PNG images of MNIST-M excepted) against the
//     SHA256SUMS lists in its folder and in the folder above it (the data
//     directory for the layout of package data), where a list names it.
//
// A difference refuses the load with an *IntegrityError naming the file and
// what was expected. LoadOptions.AllowUnverified accepts it instead, for data
// of one's own in a data set's layout, and records it in Domain.Unverified.
// The Read functions (ReadDigitsMat, ReadOfficeHomeNPZ) read one file of a
// layout and check its format only.
//
// A file's SHA-256 is computed beside its parsing, on another goroutine, and
// remembered for the life of the process (keyed by path, size and
// modification time), so loading the same data again costs no hashing.

// LoadOptions control the integrity checks of the Load functions.
type LoadOptions struct {
	// AllowUnverified accepts files whose rows differ from every published
	// form of the data set, or whose SHA-256 differs from a SHA256SUMS list
	// beside them. Each waived check is recorded in Domain.Unverified
	// instead of failing the load.
	AllowUnverified bool
	// Editions are the published forms of the domains, by domain name (the
	// data set registry's, package wadn/dataset). When set, a domain loaded
	// from files must have a form listed here: a name it lacks is refused
	// as well. Nil checks no rows.
	Editions map[string][]Edition
}

// ErrUnverified is wrapped by every *IntegrityError.
var ErrUnverified = errors.New("data differ from the published data set")

// IntegrityError reports a file that differs from the published data set:
// its rows or its SHA-256. It wraps ErrUnverified.
type IntegrityError struct {
	File    string // the file read
	Problem string // what differs from what was expected
}

// Error returns "FILE: PROBLEM".
func (e *IntegrityError) Error() string { return e.File + ": " + e.Problem }

// Unwrap returns ErrUnverified.
func (e *IntegrityError) Unwrap() error { return ErrUnverified }

// Edition is one published form of a domain: the rows of its splits.
type Edition struct {
	Train, Test int
	Note        string // which form, for domains published in several
}

// Unverified returns every waived check recorded in the domains, each
// prefixed with its domain; nil when every check passed.
func Unverified(ds []Domain) []string {
	var out []string
	for _, d := range ds {
		for _, u := range d.Unverified {
			out = append(out, d.Dataset+"/"+d.Name+": "+u)
		}
	}
	return out
}

// checker performs the checks of one domain's load.
type checker struct {
	opt    LoadOptions
	mu     sync.Mutex
	waived []string
}

func newChecker(opt LoadOptions) *checker { return &checker{opt: opt} }

// fail returns e, or records it and returns nil when checks may be waived.
func (c *checker) fail(e *IntegrityError) error {
	if !c.opt.AllowUnverified {
		return e
	}
	c.mu.Lock()
	c.waived = append(c.waived, e.Error())
	c.mu.Unlock()
	return nil
}

// finish stores the waived checks in d.
func (c *checker) finish(d *Domain) {
	c.mu.Lock()
	d.Unverified = append(d.Unverified, c.waived...)
	c.mu.Unlock()
}

// sum starts checking path against the SHA256SUMS lists of its folder and
// of the folder above it, and returns a function that waits for the outcome.
func (c *checker) sum(path string) (wait func() error) {
	done := make(chan error, 1)
	go func() { done <- c.checkSum(path) }()
	return func() error { return <-done }
}

func (c *checker) checkSum(path string) error {
	dir := filepath.Dir(path)
	for _, folder := range []string{dir, filepath.Dir(dir)} {
		list := filepath.Join(folder, SumsFile)
		rel, err := filepath.Rel(folder, path)
		if err != nil {
			continue
		}
		want, ok, err := listedSum(list, filepath.ToSlash(rel))
		if err != nil {
			return c.fail(&IntegrityError{File: path, Problem: fmt.Sprintf("cannot check it: %v", err)})
		}
		if !ok {
			continue
		}
		got, err := cachedSHA256(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // the parser reports the missing file
			}
			return err
		}
		if got != want {
			return c.fail(&IntegrityError{File: path, Problem: fmt.Sprintf("SHA-256 %s, but %s lists %s (the file is damaged or not the one listed)", got, list, want)})
		}
	}
	return nil
}

// counts checks the rows of d's splits, read from the files train and test
// ("" for a domain without a test split), against the options' Editions.
func (c *checker) counts(d *Domain, train, test string) error {
	if c.opt.Editions == nil {
		return nil
	}
	key := d.Dataset + "/" + d.Name
	eds := c.opt.Editions[d.Name]
	if len(eds) == 0 {
		return &IntegrityError{File: train, Problem: fmt.Sprintf("the registry gives no published size of a domain %s", key)}
	}
	n := [2]int{d.Train.Len(), d.Test.Len()}
	files := [2]string{train, test}
	for _, e := range eds {
		if e.Train == n[0] && e.Test == n[1] {
			return nil
		}
	}
	// Name the split that matches no edition, or the test split when each
	// matches one of a different edition.
	var errs []error
	for s, what := range []string{"training", "test"} {
		if files[s] == "" {
			continue
		}
		var forms []string
		match := false
		for _, e := range eds {
			want := [2]int{e.Train, e.Test}[s]
			match = match || want == n[s]
			f := fmt.Sprint(want)
			if e.Note != "" {
				f += " (" + e.Note + ")"
			}
			forms = append(forms, f)
		}
		if !match {
			errs = append(errs, c.fail(&IntegrityError{File: files[s], Problem: fmt.Sprintf("%d rows, but the %s %s split has %s",
				n[s], key, what, strings.Join(forms, " or "))}))
		}
	}
	if len(errs) == 0 {
		errs = append(errs, c.fail(&IntegrityError{File: files[1], Problem: fmt.Sprintf("%d rows, the test split of another form of %s than the %d rows of %s",
			n[1], key, n[0], files[0])}))
	}
	return errors.Join(errs...)
}

// fileKey identifies a version of a file for the caches.
type fileKey struct {
	path  string
	size  int64
	mtime time.Time
}

func keyOf(path string) (fileKey, error) {
	st, err := os.Stat(path)
	if err != nil {
		return fileKey{}, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return fileKey{abs, st.Size(), st.ModTime()}, nil
}

// Process-wide caches: the SHA-256 of files already hashed and the parsed
// SHA256SUMS lists, each by fileKey.
var (
	sumCache  sync.Map // fileKey -> string
	listCache sync.Map // fileKey -> sumsList
)

type sumsList struct {
	sums map[string]string
	err  error
}

// listedSum returns the SHA-256 that the list at path gives for name, and
// whether it gives one; a missing list gives none.
func listedSum(path, name string) (string, bool, error) {
	k, err := keyOf(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	v, ok := listCache.Load(k)
	if !ok {
		l := sumsList{sums: map[string]string{}}
		entries, err := readSums(path)
		l.err = err
		for _, e := range entries {
			l.sums[filepath.ToSlash(filepath.Clean(filepath.FromSlash(e[1])))] = e[0]
		}
		v, _ = listCache.LoadOrStore(k, l)
	}
	l := v.(sumsList)
	if l.err != nil {
		return "", false, l.err
	}
	s, ok := l.sums[name]
	return s, ok, nil
}

// cachedSHA256 returns the hex SHA-256 of the file at path, hashing it only
// if this version of it has not been hashed before.
func cachedSHA256(path string) (string, error) {
	k, err := keyOf(path)
	if err != nil {
		return "", err
	}
	if v, ok := sumCache.Load(k); ok {
		return v.(string), nil
	}
	s, err := fileSHA256(path)
	if err != nil {
		return "", err
	}
	sumCache.Store(k, s)
	return s, nil
}

// resetSumCache forgets every remembered SHA-256 (for benchmarks of a first
// load).
func resetSumCache() {
	sumCache.Clear()
	listCache.Clear()
}

// fileSHA256 returns the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, make([]byte, 1<<20)); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
