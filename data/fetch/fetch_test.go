package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves files by path, supporting Range requests (http.ServeContent),
// and can cut the next responses of a path part way or ignore Range.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	files   map[string][]byte
	cut     map[string]int // path -> responses still to cut
	cutAt   int            // bytes sent before a cut
	noRange bool
	ranges  []string // Range headers received, in order
	hits    int
}

func newServer(t *testing.T, files map[string][]byte) *server {
	s := &server{files: files, cut: map[string]int{}, cutAt: 1000}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits++
	s.ranges = append(s.ranges, r.Header.Get("Range"))
	b, ok := s.files[r.URL.Path]
	cut := s.cut[r.URL.Path] > 0
	if cut {
		s.cut[r.URL.Path]--
	}
	noRange := s.noRange
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if noRange {
		r.Header.Del("Range")
	}
	if cut {
		// Promise the whole rest, send cutAt bytes, drop the connection.
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b[:s.cutAt])
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
}

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

func fileOf(path string, b []byte, urls ...string) File {
	return File{Path: path, URLs: urls, Size: int64(len(b)), SHA256: sha(b)}
}

func TestFetchResumeTamper(t *testing.T) {
	good := payload(50000)
	tampered := append([]byte(nil), good...)
	tampered[30000] ^= 1
	srv := newServer(t, map[string][]byte{"/good/a.bin": good, "/bad/a.bin": tampered})
	ctx := context.Background()
	// fetchGood gets a.bin from urls into a new directory and checks that
	// it arrived intact.
	fetchGood := func(t *testing.T, opt Options, urls ...string) {
		t.Helper()
		dir := t.TempDir()
		if err := Get(ctx, dir, Dataset{Name: "x", Files: []File{fileOf("a.bin", good, urls...)}}, opt); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "a.bin")); !bytes.Equal(got, good) {
			t.Fatal("the fetched file differs")
		}
	}

	t.Run("fetch", func(t *testing.T) {
		dir := t.TempDir()
		var progress bytes.Buffer
		d := Dataset{Name: "x", Files: []File{fileOf("sub/a.bin", good, srv.URL+"/good/a.bin")}}
		if err := Get(ctx, dir, d, Options{Progress: &progress}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, "sub", "a.bin"))
		if err != nil || !bytes.Equal(got, good) {
			t.Fatalf("fetched file differs: %v", err)
		}
		sums, _ := os.ReadFile(filepath.Join(dir, "sub", SumsFile))
		if string(sums) != sha(good)+"  a.bin\n" {
			t.Errorf("SHA256SUMS = %q", sums)
		}
		if !strings.Contains(progress.String(), "100% [") || !strings.Contains(progress.String(), "sub/a.bin") {
			t.Errorf("no progress bar: %q", progress.String())
		}
		hits := srv.hits
		if err := Get(ctx, dir, d, Options{}); err != nil || srv.hits != hits {
			t.Errorf("second Get: %v, %d requests; want none", err, srv.hits-hits)
		}
	})

	t.Run("resume in the same call", func(t *testing.T) {
		srv.mu.Lock()
		srv.cut["/good/a.bin"], srv.ranges = 1, nil
		srv.mu.Unlock()
		fetchGood(t, Options{}, srv.URL+"/good/a.bin")
		if len(srv.ranges) != 2 || srv.ranges[0] != "" || srv.ranges[1] != "bytes=1000-" {
			t.Errorf("Range headers %q, want none then bytes=1000-", srv.ranges)
		}
	})

	t.Run("resume in a later call", func(t *testing.T) {
		dir := t.TempDir()
		srv.mu.Lock()
		srv.cut["/good/a.bin"], srv.ranges = 1, nil
		srv.mu.Unlock()
		d := Dataset{Name: "x", Files: []File{fileOf("a.bin", good, srv.URL+"/good/a.bin")}}
		err := Get(ctx, dir, d, Options{Attempts: 1})
		if err == nil || !strings.Contains(err.Error(), "resumable from") {
			t.Fatalf("cut download: %v, want an error saying it can resume", err)
		}
		if st, err := os.Stat(filepath.Join(dir, "a.bin.part")); err != nil || st.Size() != 1000 {
			t.Fatalf("partial file: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "a.bin")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatal("a cut download reached its destination")
		}
		if err := Get(ctx, dir, d, Options{Attempts: 1}); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "a.bin")); !bytes.Equal(got, good) {
			t.Fatal("resumed file differs")
		}
		if srv.ranges[len(srv.ranges)-1] != "bytes=1000-" {
			t.Errorf("Range headers %q, want the last from byte 1000", srv.ranges)
		}
	})

	t.Run("server without ranges", func(t *testing.T) {
		srv.mu.Lock()
		srv.cut["/good/a.bin"], srv.noRange = 1, true
		srv.mu.Unlock()
		defer func() { srv.noRange = false }()
		fetchGood(t, Options{}, srv.URL+"/good/a.bin")
	})

	t.Run("tampered refused", func(t *testing.T) {
		dir := t.TempDir()
		d := Dataset{Name: "x", Files: []File{fileOf("a.bin", good, srv.URL+"/bad/a.bin")}}
		err := Get(ctx, dir, d, Options{})
		if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), "a.bin") || !strings.Contains(err.Error(), "want "+sha(good)) {
			t.Fatalf("tampered file: %v", err)
		}
		for _, p := range []string{"a.bin", "a.bin.part"} {
			if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s left behind after a tampered download", p)
			}
		}
	})

	t.Run("next mirror", func(t *testing.T) {
		fetchGood(t, Options{}, srv.URL+"/missing/a.bin", srv.URL+"/bad/a.bin", srv.URL+"/good/a.bin")
	})

	t.Run("mirror option first", func(t *testing.T) {
		fetchGood(t, Options{Mirrors: []string{srv.URL + "/good/"}}, "http://127.0.0.1:1/unreachable")
		// With MirrorsOnly a failing mirror is not followed by the file's
		// own URLs (here a good one on the same server).
		srv.mu.Lock()
		srv.ranges = nil
		srv.mu.Unlock()
		d := Dataset{Name: "x", Files: []File{fileOf("a.bin", good, srv.URL+"/good/a.bin")}}
		err := Get(ctx, t.TempDir(), d, Options{Mirrors: []string{srv.URL + "/missing/"}, MirrorsOnly: true})
		if err == nil || len(srv.ranges) != 1 {
			t.Errorf("MirrorsOnly: %v after %d requests; want a failure after the mirror's one", err, len(srv.ranges))
		}
	})

	t.Run("md5 and no checksum", func(t *testing.T) {
		dir := t.TempDir()
		m := md5.Sum(good)
		d := Dataset{Name: "x", Files: []File{{Path: "a.bin", URLs: []string{srv.URL + "/good/a.bin"}, MD5: hex.EncodeToString(m[:])}}}
		if err := Get(ctx, dir, d, Options{}); err != nil {
			t.Fatal(err)
		}
		d.Files[0].MD5 = ""
		if err := Get(ctx, t.TempDir(), d, Options{}); err == nil || !strings.Contains(err.Error(), "no published checksum") {
			t.Errorf("file without a checksum: %v", err)
		}
		if err := Get(ctx, dir, Dataset{Name: "y", Note: "none known"}, Options{}); err == nil || !strings.Contains(err.Error(), "none known") {
			t.Errorf("data set without files: %v", err)
		}
	})
}

func targz(t *testing.T, entries map[string]string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestUnpack(t *testing.T) {
	good := targz(t, map[string]string{"set/labels.txt": "a.png 1\n", "./set/imgs/a.png": "png"})
	evil := targz(t, map[string]string{"../evil.txt": "x"})
	srv := newServer(t, map[string][]byte{"/good.tar.gz": good, "/evil.tar.gz": evil})
	dir := t.TempDir()
	f := fileOf("downloads/set.tar.gz", good, srv.URL+"/good.tar.gz")
	f.Unpack, f.Creates = TarGz, []string{"set/labels.txt"}
	if err := Get(context.Background(), dir, Dataset{Name: "set", Files: []File{f}}, Options{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "set", "imgs", "a.png")); err != nil || string(b) != "png" {
		t.Errorf("unpacked file: %q %v", b, err)
	}
	f.Creates = []string{"set/other.txt"}
	if err := Get(context.Background(), dir, Dataset{Name: "set", Files: []File{f}}, Options{}); err == nil || !strings.Contains(err.Error(), "gave no set/other.txt") {
		t.Errorf("archive without the expected file: %v", err)
	}
	e := fileOf("downloads/evil.tar.gz", evil, srv.URL+"/evil.tar.gz")
	e.Unpack = TarGz
	if err := Get(context.Background(), dir, Dataset{Name: "evil", Files: []File{e}}, Options{}); err == nil || !strings.Contains(err.Error(), "leaves the data directory") {
		t.Errorf("archive entry outside the directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "evil.txt")); err == nil {
		t.Error("an entry was written outside the data directory")
	}
}
