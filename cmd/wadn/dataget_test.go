package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/datadir"
)

// TestDataGetLocalMirror runs "wadn data get amazon" against a local
// server holding the shared Amazon files (whose SHA-256 sums are the
// published ones): it fetches them, resumes one after a cut connection, and
// refuses a tampered one, naming it. No request leaves the machine: the
// local server is given with --mirror and is tried first.
func TestDataGetLocalMirror(t *testing.T) {
	shared, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	var mu sync.Mutex
	cut := map[string]bool{}    // paths whose next response is cut
	tamper := map[string]bool{} // paths served with one byte changed
	var ranges []string         // Range headers of kitchen_test requests
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(shared, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		c, tp := cut[r.URL.Path], tamper[r.URL.Path]
		cut[r.URL.Path] = false
		if strings.HasSuffix(r.URL.Path, "kitchen_test.svmlight") {
			ranges = append(ranges, r.Header.Get("Range"))
		}
		mu.Unlock()
		if tp {
			b = bytes.Clone(b)
			b[len(b)/2] ^= 1
		}
		if c {
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			w.WriteHeader(http.StatusOK)
			w.Write(b[:len(b)/3])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler)
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	defer srv.Close()
	// --mirror-only keeps the published mirrors out: a failure of the
	// local server must not send the test to the internet.
	t.Run("fetch and resume", func(t *testing.T) {
		dir := t.TempDir()
		mu.Lock()
		cut["/amazon/kitchen_test.svmlight"] = true
		mu.Unlock()
		code, out, errOut := runArgs(t, "", "data", "get", "amazon", "--data", dir, "--mirror", srv.URL, "--mirror-only")
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, errOut)
		}
		if !strings.Contains(out, "amazon: 8 files in place") || !strings.Contains(errOut, "amazon/kitchen_test.svmlight 100%") {
			t.Errorf("stdout %q, stderr:\n%s", out, errOut)
		}
		if len(ranges) != 2 || ranges[0] != "" || !strings.HasPrefix(ranges[1], "bytes=") {
			t.Errorf("kitchen_test requests with Range %q: want a full one, then a resume", ranges)
		}
		// The fetched directory loads strictly, against the SHA256SUMS the
		// fetch recorded in amazon/.
		if _, err := os.Stat(filepath.Join(dir, "amazon", "SHA256SUMS")); err != nil {
			t.Error(err)
		}
		if ds, err := data.LoadAmazon(dir); err != nil || len(ds) != 4 {
			t.Errorf("loading the fetched data: %v", err)
		}
	})
	t.Run("tampered refused", func(t *testing.T) {
		dir := t.TempDir()
		mu.Lock()
		tamper["/amazon/books_test.svmlight"] = true
		mu.Unlock()
		defer func() { tamper["/amazon/books_test.svmlight"] = false }()
		code, _, errOut := runArgs(t, "", "data", "get", "amazon", "--data", dir, "--mirror", srv.URL, "--mirror-only")
		if code != 1 || !strings.Contains(errOut, "amazon/books_test.svmlight") || !strings.Contains(errOut, "want fe4605c7") {
			t.Fatalf("exit %d, want 1 naming books_test and its SHA-256\n%s", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "amazon", "books_test.svmlight")); err == nil {
			t.Error("the tampered file reached the data directory")
		}
	})
}
