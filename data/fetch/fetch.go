// Package fetch downloads the public data sets into a data directory, in
// the layout package data reads.
//
// Each data set is a list of files, each with mirrors tried in order and a
// published checksum; the data set registry (package wadn/dataset) declares
// every data set's. A file is downloaded into
// PATH.part beside its destination; an interrupted download is resumed from
// there with an HTTP Range request, in the same call (a few attempts per
// mirror) or a later one. The finished file is checked against its size and
// checksum before it is renamed into place: a file that does not match is
// removed and the next mirror tried, and no unverified byte ever reaches the
// destination. Archives are then unpacked into the data directory. The
// SHA-256 of every file placed is recorded in the SHA256SUMS of its folder,
// which package data checks at every load; a file found in place and
// verified is left as it is, its folder unwritten.
package fetch

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Unpack methods of a File.
const (
	// TarGz extracts a gzip'd tar archive into the data directory.
	TarGz = "tar.gz"
)

// File is one file of a data set.
type File struct {
	Path   string   // destination, relative to the data directory, slash-separated
	URLs   []string // mirrors, tried in order
	Size   int64    // bytes; 0 when not established
	SHA256 string   // hex; "" when no SHA-256 was established
	MD5    string   // hex; given only where no SHA-256 is published
	Source string   // who published the checksum
	// Unpack, when set, extracts the file (an archive) into the data
	// directory; Creates lists files the archive must hold, by which a
	// finished extraction is recognised.
	Unpack  string
	Creates []string
}

// Dataset is a data set "wadn data get" can fetch.
type Dataset struct {
	Name  string
	Files []File // empty when no public source could be established
	Note  string // provenance, licence, and what could not be established
}

// Options tune Get.
type Options struct {
	// Client makes the requests; nil means a client with a 30 s timeout
	// on connecting and on each response's headers.
	Client *http.Client
	// Mirrors are base URLs tried before a file's own URLs, each joined
	// with the file's Path (a local copy laid out like the data directory).
	Mirrors []string
	// MirrorsOnly skips the files' own URLs: only Mirrors are tried.
	MirrorsOnly bool
	// Attempts is how often one mirror is tried, resuming each time from
	// what has arrived; 0 means 3.
	Attempts int
	// Progress, when not nil, receives a progress bar per file (carriage
	// returns within a line, a newline when the file is done).
	Progress io.Writer
}

// ErrChecksum is wrapped by the errors of files whose size or checksum
// differ from the published ones.
var ErrChecksum = errors.New("checksum mismatch")

// Get fetches every file of d into the data directory dir, skipping files
// already in place with the right checksum, and unpacks archives. It
// returns the first file that no mirror could deliver intact.
func Get(ctx context.Context, dir string, d Dataset, opt Options) error {
	if len(d.Files) == 0 {
		return fmt.Errorf("fetch: %s: no public source: %s", d.Name, d.Note)
	}
	for _, f := range d.Files {
		if err := getFile(ctx, dir, f, opt); err != nil {
			return err
		}
		if f.Unpack != "" {
			if err := unpack(dir, f, opt.Progress); err != nil {
				return err
			}
		}
	}
	return nil
}

func getFile(ctx context.Context, dir string, f File, opt Options) error {
	if f.SHA256 == "" && f.MD5 == "" {
		return fmt.Errorf("fetch: %s: no published checksum: refusing an unverifiable download", f.Path)
	}
	dest := filepath.Join(dir, filepath.FromSlash(f.Path))
	if err := verify(dest, f); err == nil {
		report(opt.Progress, "%s: already in place, verified\n", f.Path)
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("fetch: %s exists but %v; remove it to fetch it again", dest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	client := opt.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, ResponseHeaderTimeout: 30 * time.Second, TLSHandshakeTimeout: 30 * time.Second,
		}}
	}
	attempts := opt.Attempts
	if attempts <= 0 {
		attempts = 3
	}
	var urls []string
	for _, m := range opt.Mirrors {
		urls = append(urls, strings.TrimSuffix(m, "/")+"/"+f.Path)
	}
	if !opt.MirrorsOnly {
		urls = append(urls, f.URLs...)
	}
	part := dest + ".part"
	var errs []error
	for _, u := range urls {
		var err error
		for a := 0; a < attempts; a++ {
			if err = ctx.Err(); err != nil {
				return err
			}
			var done bool
			done, err = download(ctx, client, u, part, f, opt.Progress)
			if done || errors.Is(err, errPermanent) {
				break
			}
		}
		if err == nil {
			err = verify(part, f)
			if err == nil {
				if err := os.Rename(part, dest); err != nil {
					return err
				}
				return recordSum(dest)
			}
			// A complete file that does not match: drop it, so that the
			// next mirror starts afresh.
			os.Remove(part)
			err = fmt.Errorf("%s from %s: %w", f.Path, u, err)
		}
		errs = append(errs, err)
	}
	return fmt.Errorf("fetch: %s: no mirror delivered it intact (%d tried):\n%w", f.Path, len(urls), errors.Join(errs...))
}

// errPermanent marks a failure that retrying the same URL will not mend.
var errPermanent = errors.New("not retried")

// download fetches u into part, resuming from part's size. It reports
// done when part holds the whole file as the server sees it.
func download(ctx context.Context, c *http.Client, u, part string, f File, progress io.Writer) (bool, error) {
	have := int64(0)
	if st, err := os.Stat(part); err == nil {
		have = st.Size()
	}
	if f.Size > 0 && have == f.Size {
		return true, nil
	}
	if f.Size > 0 && have > f.Size {
		os.Remove(part)
		have = 0
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return false, fmt.Errorf("%s: %w (%w)", u, err, errPermanent)
	}
	if have > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(have, 10)+"-")
	}
	resp, err := c.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	flags := os.O_WRONLY | os.O_CREATE
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		start, ok := rangeStart(resp.Header.Get("Content-Range"))
		if !ok || start != have {
			return false, fmt.Errorf("%s: asked for bytes from %d, got Content-Range %q (%w)", u, have, resp.Header.Get("Content-Range"), errPermanent)
		}
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		flags |= os.O_TRUNC // no range support: start again
		have = 0
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return true, nil // part already holds everything; verify decides
	default:
		return false, fmt.Errorf("%s: %s (%w)", u, resp.Status, errPermanent)
	}
	total := int64(-1)
	if resp.ContentLength >= 0 {
		total = have + resp.ContentLength
	}
	if f.Size > 0 && total > f.Size {
		return false, fmt.Errorf("%s: the server offers %d bytes, the file has %d (%w)", u, total, f.Size, errPermanent)
	}
	out, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return false, err
	}
	bar := newBar(progress, f.Path, have, max(total, f.Size))
	_, err = io.Copy(out, io.TeeReader(resp.Body, bar))
	bar.finish(err == nil)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w (resumable from %s)", u, err, part)
	}
	return true, nil
}

// rangeStart parses the first byte of a "bytes START-END/TOTAL" header.
func rangeStart(h string) (int64, bool) {
	s, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, false
	}
	s, _, ok = strings.Cut(s, "-")
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// verify checks the file at p against f's size and checksum.
func verify(p string, f File) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if f.Size > 0 && st.Size() != f.Size {
		return fmt.Errorf("%w: %d bytes, want %d", ErrChecksum, st.Size(), f.Size)
	}
	var h hash.Hash
	want, algo := f.SHA256, "SHA-256"
	if want != "" {
		h = sha256.New()
	} else {
		h, want, algo = md5.New(), f.MD5, "MD5"
	}
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	if _, err := io.Copy(h, in); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(want) {
		return fmt.Errorf("%w: %s %s, want %s (a damaged or tampered file)", ErrChecksum, algo, got, want)
	}
	return nil
}

// SumsFile is the checksum list recorded beside the files placed.
const SumsFile = "SHA256SUMS"

// recordSum adds the SHA-256 of the file at p to the SHA256SUMS of its
// folder, replacing an earlier line for the same name.
func recordSum(p string) error {
	in, err := os.Open(p)
	if err != nil {
		return err
	}
	h := sha256.New()
	_, err = io.Copy(h, in)
	in.Close()
	if err != nil {
		return err
	}
	list := filepath.Join(filepath.Dir(p), SumsFile)
	name := filepath.Base(p)
	lines := map[string]string{name: hex.EncodeToString(h.Sum(nil))}
	if b, err := os.ReadFile(list); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			sum, n, ok := strings.Cut(l, "  ")
			if ok && n != name {
				lines[n] = sum
			}
		}
	}
	names := make([]string, 0, len(lines))
	for n := range lines {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(lines[n] + "  " + n + "\n")
	}
	tmp := list + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, list)
}

// unpack extracts the archive f into dir unless every file of f.Creates is
// there already, and checks that they are there afterwards.
func unpack(dir string, f File, progress io.Writer) error {
	missing := func() []string {
		var m []string
		for _, c := range f.Creates {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(c))); err != nil {
				m = append(m, c)
			}
		}
		return m
	}
	if len(f.Creates) > 0 && len(missing()) == 0 {
		return nil
	}
	if f.Unpack != TarGz {
		return fmt.Errorf("fetch: %s: unknown unpack method %q", f.Path, f.Unpack)
	}
	archive := filepath.Join(dir, filepath.FromSlash(f.Path))
	report(progress, "unpacking %s into %s\n", f.Path, dir)
	if err := extractTarGz(archive, dir); err != nil {
		return fmt.Errorf("fetch: unpacking %s: %w", archive, err)
	}
	if m := missing(); len(m) > 0 {
		return fmt.Errorf("fetch: unpacking %s gave no %s (the archive's layout is not the expected one)", archive, strings.Join(m, ", "))
	}
	return nil
}

// extractTarGz writes the directories and regular files of a gzip'd tar
// archive under dir, refusing entries that would land outside it.
func extractTarGz(archive, dir string) error {
	in, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer in.Close()
	zr, err := gzip.NewReader(bufio.NewReader(in))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := path.Clean(strings.TrimPrefix(h.Name, "./"))
		if name == "." {
			continue
		}
		if !fs.ValidPath(name) {
			return fmt.Errorf("entry %q leaves the data directory", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		default:
			// Links and devices are not data: skipped.
		}
	}
}

func report(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}
