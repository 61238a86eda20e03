package site

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wadn-go/wadn/internal/rawhttp"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// requests are the requests a Handler answers, by the request line's
// method and target, with the status each must get and, for a 200, a
// text the body holds ("" for none: HEAD).
var requests = []struct {
	method, target string
	status         int
	body           string
}{
	{"GET", "/", 200, "<h1>Results</h1>"},
	{"GET", "/index.html", 200, "<h1>Results</h1>"},
	{"HEAD", "/", 200, ""},
	{"GET", "/style.css", 200, "font-variant-numeric"},
	{"GET", "/targets/uda-amazon-books.html", 200, "books (uda, amazon)"},
	{"GET", "/targets/uda-amazon-books-accuracy.svg", 200, "<svg"},
	{"GET", "/index.html?x=1#y", 200, "<h1>Results</h1>"},
	{"GET", "/figures.html", 200, `<img src="figures/paper.svg" alt="The paper&#39;s">`},
	{"GET", "/figures/paper.svg", 200, "<svg"},
	{"POST", "/", 405, ""},
	{"PUT", "/index.html", 405, ""},
	{"DELETE", "/index.html", 405, ""},
	{"OPTIONS", "/", 405, ""},
	{"GET", "/../../../../etc/passwd", 400, ""},
	{"GET", "/..", 400, ""},
	{"GET", "/%2e%2e/%2e%2e/etc/passwd", 400, ""},
	{"GET", "/%2E%2E/index.html", 400, ""},
	{"GET", "/targets/../index.html", 400, ""},
	{"GET", "/targets/%2e%2e/%2e%2e/etc/passwd", 400, ""},
	{"GET", "/targets/./uda-amazon-books.html", 400, ""},
	{"GET", "/..%2f..%2fetc%2fpasswd", 400, ""},
	{"GET", "/targets%2fuda-amazon-books.html", 400, ""},
	{"GET", "//etc/passwd", 400, ""},
	{"GET", "/%2fetc%2fpasswd", 400, ""},
	{"GET", "/..\\..\\etc\\passwd", 400, ""},
	{"GET", "/%5c..%5cetc", 400, ""},
	{"GET", "/index.html%00", 400, ""},
	{"GET", "/etc/passwd", 404, ""},
	{"GET", "/run.json", 404, ""},
	{"GET", "/targets/", 400, ""},
	{"GET", "/targets", 404, ""},
	{"GET", "/runs/nothing.html", 404, ""},
}

// newHandler returns a Handler of the runs under dir, read at every
// request, with a figure.
func newHandler(dir string) *Handler {
	return &Handler{
		Collect: func() (*experiment.Report, error) { return experiment.Scan(experiment.Filter{}, dir) },
		Figures: func(*experiment.Report) ([]figures.Figure, error) {
			return []figures.Figure{{Name: "paper", Title: "The paper's", SVG: []byte("<svg></svg>")}}, nil
		},
	}
}

// TestHandler sends each of requests to a Handler, through
// httptest.NewRequest and through a real listener as raw request lines,
// which no client cleans.
func TestHandler(t *testing.T) {
	dir := t.TempDir()
	copyStored(t, dir, stored...)
	h := newHandler(dir)
	for _, r := range requests {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(r.method, r.target, nil))
		if w.Code != r.status || !strings.Contains(w.Body.String(), r.body) {
			t.Errorf("%s %s: %d, want %d with %q; body %.200q", r.method, r.target, w.Code, r.status, r.body, w.Body.String())
		}
		if r.status == 405 && w.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", r.method, r.target, w.Header().Get("Allow"))
		}
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, r := range requests {
		status, body := rawRequest(t, srv.Listener.Addr().String(), r.method, r.target)
		if status != r.status || !strings.Contains(body, r.body) || (r.method == "HEAD" && body != "") {
			t.Errorf("over the wire, %s %s: %d, want %d with %q; body %.200q", r.method, r.target, status, r.status, r.body, body)
		}
	}
}

// rawRequest sends one request line as it is to addr and returns the
// response's status and body.
func rawRequest(t *testing.T, addr, method, target string) (int, string) {
	t.Helper()
	code, body, err := rawhttp.Do(addr, method, target, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return code, body
}

// TestHandlerFollowsRuns: pages served while runs are written show an
// unfinished run with its epoch and time left, through a line half
// written, then the run finished; a run whose record appears alone, and
// a directory that holds no run at all, break no page.
func TestHandlerFollowsRuns(t *testing.T) {
	dir := t.TempDir()
	runs := copyStored(t, dir, stored[0], stored[1])
	result, log := unfinish(t, runs[1], 3)
	h := newHandler(dir)
	h.Refresh = time.Hour // the cached report until the test moves time
	srv := httptest.NewServer(h)
	defer srv.Close()
	get := func(p string) string {
		t.Helper()
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", p, resp.StatusCode, b)
		}
		return string(b)
	}
	expire := func() {
		h.mu.Lock()
		h.at = time.Time{}
		h.mu.Unlock()
	}
	target := "/targets/uda-amazon-books.html"
	run := "/runs/" + filepath.Base(runs[1]) + ".html"
	for i, step := range []struct {
		name   string
		change func()
		want   []string
		not    []string
	}{
		{"three epochs and part of a line", func() {}, []string{`<td class="num">3 / 50</td>`, "Unfinished runs", ` data-field="n" data-value="1"`}, nil},
		{"cached", func() {
			lines := strings.SplitAfter(string(log), "\n")
			os.WriteFile(filepath.Join(runs[1], trainer.LogFile), []byte(strings.Join(lines[:7], "")+lines[7][:5]), 0o644)
		}, []string{`<td class="num">3 / 50</td>`}, nil},
		{"seven epochs", expire, []string{`<td class="num">7 / 50</td>`}, []string{`<td class="num">3 / 50</td>`}},
		{"finished", func() {
			os.WriteFile(filepath.Join(runs[1], trainer.LogFile), log, 0o644)
			os.WriteFile(filepath.Join(runs[1], experiment.ResultFile), result, 0o644)
			expire()
		}, []string{` data-field="n" data-value="2"`}, []string{"Unfinished runs", " / 50</td>"}},
		{"a record alone", func() {
			other := copyStored(t, t.TempDir(), stored[2])[0]
			fresh := filepath.Join(dir, filepath.Base(other))
			os.MkdirAll(fresh, 0o755)
			b, _ := os.ReadFile(filepath.Join(other, experiment.RunFile))
			os.WriteFile(filepath.Join(fresh, experiment.RunFile), b, 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a run"), 0o644)
			expire()
		}, []string{` data-field="n" data-value="2"`, `<td class="num">0 / 50</td>`}, nil},
	} {
		step.change()
		page := get(target)
		for _, w := range step.want {
			if !strings.Contains(page, w) {
				t.Errorf("step %d, %s: the target's page lacks %q", i, step.name, w)
			}
		}
		for _, w := range step.not {
			if strings.Contains(page, w) {
				t.Errorf("step %d, %s: the target's page holds %q", i, step.name, w)
			}
		}
		get("/")
		get(run)
		get("/targets/uda-amazon-books-accuracy.svg")
	}
	if page := get("/"); !strings.Contains(page, `<a href="#unfinished">1 unfinished</a>`) {
		t.Errorf("the index does not count the run whose record alone is written:\n%s", page)
	}
}

// TestHandlerEmpty: a directory without a finished run is served, saying
// so; one that is not there is a 500 saying why.
func TestHandlerEmpty(t *testing.T) {
	dir := t.TempDir()
	w := httptest.NewRecorder()
	newHandler(dir).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 200 || !strings.Contains(w.Body.String(), "No finished run yet.") {
		t.Errorf("an empty directory: %d %s", w.Code, w.Body)
	}
	w = httptest.NewRecorder()
	newHandler(filepath.Join(dir, "none")).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != 500 || !strings.Contains(w.Body.String(), "none") {
		t.Errorf("a directory that is not there: %d %s", w.Code, w.Body)
	}
}
