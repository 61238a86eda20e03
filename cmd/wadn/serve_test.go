package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wadn-go/wadn/internal/rawhttp"
)

// storedSweep are runs stored under results/amazon, a small sweep: two
// methods on two targets, two seeds each.
var storedSweep = []string{
	"amazon-books-uda-wadn-seed0-6c64aeb40abb",
	"amazon-books-uda-wadn-seed1-783e7a3929eb",
	"amazon-books-uda-source-seed0-cb0032bab832",
	"amazon-books-uda-source-seed1-3cb37a00a162",
	"amazon-dvd-uda-wadn-seed0-15ed35e99025",
	"amazon-dvd-uda-wadn-seed1-c1c23c985339",
	"amazon-dvd-uda-source-seed0-73477f28a3c1",
	"amazon-dvd-uda-source-seed1-2b80647b2a36",
}

// TestReportHTML: wadn report --html writes the site of the runs the
// filters take into a directory it creates, replacing the files of the
// same names and leaving others, and prints the report as without it.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	copyRuns(t, dir, storedSweep...)
	out := filepath.Join(t.TempDir(), "new", "site")
	code, stdout, stderr := runArgs(t, "", "report", "--html", out, "--method", "wadn", dir)
	if code != 0 || !strings.Contains(stdout, "| uda | amazon | wadn | books | 2 |") || !strings.Contains(stderr, "files of the web site written to "+out) {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		name  string
		there bool
	}{
		{"index.html", true}, {"style.css", true}, {"figures.html", true},
		{"targets/uda-amazon-books.html", true}, {"targets/uda-amazon-dvd-accuracy.svg", true},
		{"runs/" + storedSweep[0] + ".html", true},
		{"runs/" + storedSweep[2] + ".html", false}, // a source run: --method wadn
	} {
		if _, err := os.Stat(filepath.Join(out, c.name)); (err == nil) != c.there {
			t.Errorf("%s: %v; want there %v", c.name, err, c.there)
		}
	}
	index := filepath.Join(out, "index.html")
	mine := filepath.Join(out, "mine.txt")
	for _, f := range []string{index, mine} {
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runArgs(t, "", "report", dir, "--json", "--html", out); code != 0 {
		t.Fatalf("again: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(index); !bytes.Contains(b, []byte("<h1>Results</h1>")) {
		t.Errorf("index.html not replaced: %q", b)
	}
	if b, _ := os.ReadFile(mine); string(b) != "old" {
		t.Errorf("another file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", storedSweep[2]+".html")); err != nil {
		t.Errorf("without --method, the source runs' pages: %v", err)
	}
	if code, _, stderr := runArgs(t, "", "report", "--html", mine, dir); code != 1 || !strings.Contains(stderr, "mine.txt") {
		t.Errorf("--html onto a file: exit %d, %s; want 1 naming it", code, stderr)
	}
}

// lockedBuffer is a bytes.Buffer that a command writes while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// urlRE finds the address wadn serve prints.
var urlRE = regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/`)

// startServe starts wadn serve with args in this process and returns the
// address it prints and a function that stops it, returning its exit
// status and how long it took to.
func startServe(t *testing.T, args ...string) (addr string, stop func() (int, time.Duration)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stderr lockedBuffer
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr}
	done := make(chan int, 1)
	go func() { done <- runMain(ctx, e, append([]string{"serve"}, args...)) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m := urlRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case code := <-done:
			cancel()
			t.Fatalf("wadn serve ended, exit %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("wadn serve printed no address in 30 s: %s", stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr, func() (int, time.Duration) {
		start := time.Now()
		cancel()
		select {
		case code := <-done:
			return code, time.Since(start)
		case <-time.After(10 * time.Second):
			t.Fatal("wadn serve still running 10 s after its context ended")
			return 0, 0
		}
	}
}

// TestServe: wadn serve on a port of the loopback answers the site's
// pages, refuses paths out of it and methods other than GET and HEAD,
// follows a run as it finishes, and stops within a second.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	copyRuns(t, dir, storedSweep...)
	run := filepath.Join(dir, storedSweep[1])
	result, err := os.ReadFile(filepath.Join(run, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(run, "result.json"))
	addr, stop := startServe(t, "--addr", "127.0.0.1:0", "--refresh", "0", dir)
	for _, c := range []struct {
		method, target string
		status         int
		body           string
	}{
		{"GET", "/", 200, "<h1>Results</h1>"},
		{"HEAD", "/index.html", 200, ""},
		{"GET", "/targets/uda-amazon-books.html", 200, "Unfinished runs"},
		{"GET", "/runs/" + storedSweep[1] + ".html", 200, "Unfinished: 50 of 50 epochs logged"},
		{"POST", "/", 405, ""},
		{"GET", "/../../../etc/passwd", 400, ""},
		{"GET", "/%2e%2e/%2e%2e/etc/passwd", 400, ""},
		{"GET", "/runs/%2E%2E/%2E%2E/etc/passwd", 400, ""},
		{"GET", "//etc/passwd", 400, ""},
		{"GET", "/etc/passwd", 404, ""},
		{"GET", "/" + storedSweep[0] + "/run.json", 404, ""},
	} {
		status, body := rawGet(t, addr, c.method, c.target)
		if status != c.status || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %d, want %d with %q; body %.300q", c.method, c.target, status, c.status, c.body, body)
		}
	}
	if err := os.WriteFile(filepath.Join(run, "result.json"), result, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, body := rawGet(t, addr, "GET", "/targets/uda-amazon-books.html"); strings.Contains(body, "Unfinished runs") || !strings.Contains(body, `data-field="n" data-value="2"`) {
		t.Errorf("the run finished, and its target's page says otherwise:\n%s", body)
	}
	code, took := stop()
	if code != 0 || took > time.Second {
		t.Errorf("stopped: exit %d after %v; want 0 within a second", code, took)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("%s still takes connections", addr)
	}
}

// rawGet sends a request line as it is and returns the status and body.
func rawGet(t *testing.T, addr, method, target string) (int, string) {
	t.Helper()
	code, body, err := rawhttp.Do(addr, method, target, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// TestServeUsage: wadn serve refuses no directory, a negative refresh and
// an unknown filter's value before it listens, and a directory that is not
// there.
func TestServeUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "want at least one directory"},
		{[]string{"--refresh", "-1s", dir}, 2, "--refresh -1s"},
		{[]string{"--method", "nope", dir}, 2, `wadn serve: --method: unknown method "nope"`},
		{[]string{"--addr", "127.0.0.1:0", filepath.Join(dir, "none")}, 1, "none"},
		{[]string{"--addr", "no-such-host.invalid:x", dir}, 1, "wadn serve: "},
	} {
		code, _, stderr := runArgs(t, "", append([]string{"serve"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("wadn serve %q: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}
