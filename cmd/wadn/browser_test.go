//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// chromiumBinary returns the Chromium to drive: $WADN_CHROMIUM, or
// chromium or chromium-browser on the PATH; "" when there is none.
func chromiumBinary() string {
	if p := os.Getenv("WADN_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// pageData is what the browser test reads of a page once it has loaded:
// its links, images, style sheets and numbers, as the DOM has them.
type pageData struct {
	Title   string   `json:"title"`
	Links   []string `json:"links"`
	Sheets  []string `json:"sheets"`
	Refs    []string `json:"refs"`   // every link element's: style sheets, icon
	Loaded  int      `json:"loaded"` // style sheets applied
	Objects []string `json:"objects"`
	Images  []struct {
		Src string `json:"src"`
		OK  bool   `json:"ok"`
	} `json:"images"`
	Numbers []struct {
		Row, Field, Seed, Value, Text, Group, Column string
	} `json:"numbers"`
	IDs    []string `json:"ids"`
	Width  int      `json:"width"`
	Height int      `json:"height"`
}

// readPage is the script that collects a pageData.
const readPage = `(() => {
	const d = (e, k) => e.dataset[k] || "";
	return {
		title: document.title,
		links: [...document.querySelectorAll("a[href]")].map(a => a.href),
		sheets: [...document.querySelectorAll("link[rel~=stylesheet]")].map(l => l.href),
		refs: [...document.querySelectorAll("link[href]")].map(l => l.href),
		loaded: document.styleSheets.length,
		objects: [...document.querySelectorAll("object[data], embed[src], iframe[src], use")].map(o => o.data || o.src || o.getAttribute("href") || ""),
		images: [...document.querySelectorAll("img")].map(i => ({src: i.currentSrc || i.src, ok: i.complete && i.naturalWidth > 0})),
		numbers: [...document.querySelectorAll("[data-field]")].map(e => ({Row: d(e, "row"), Field: d(e, "field"), Seed: d(e, "seed"), Value: d(e, "value"),
			Text: e.textContent, Group: d(e, "group"), Column: d(e, "column")})),
		ids: [...document.querySelectorAll("[id]")].map(e => e.id),
		width: document.documentElement.scrollWidth,
		height: document.documentElement.scrollHeight,
	};
})()`

// TestBrowser serves a small stored sweep, with a run unfinished, with
// wadn serve on the loopback, and loads every page of the site in headless
// Chromium, driven through the DevTools protocol. It fails on any console
// error, exception or failed load (page, style sheet, image), on a link
// within the site that does not answer 200 or whose fragment is no id of
// its page, on any reference outside the site, and on a number of a table
// that is not the one wadn report --json gives for the same directories.
// It saves a screenshot of each page into $WADN_SCREENSHOTS (default a
// temporary directory, removed). Without Chromium it skips, saying so.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wadn and starts a browser")
	}
	chromium := chromiumBinary()
	if chromium == "" {
		t.Skip("no Chromium: install Debian's chromium (apt-get install chromium) or set WADN_CHROMIUM to its binary")
	}
	shots := os.Getenv("WADN_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := wadnBinary(t)

	// The sweep: stored runs, two of another target in the limited
	// scenario, and a run stopped at its tenth epoch, its log's next line
	// half written.
	dir := t.TempDir()
	copyRuns(t, dir, storedSweep...)
	copyRuns(t, dir, "amazon-kitchen-limited-wadn-seed0-4529bb53a17e", "amazon-kitchen-limited-source-seed0-c9386fc63e63")
	copyRuns(t, dir, "amazon-kitchen-uda-wadn-seed2-3de6f37f9add")
	unfinished := filepath.Join(dir, "amazon-kitchen-uda-wadn-seed2-3de6f37f9add")
	log, err := os.ReadFile(filepath.Join(unfinished, trainer.LogFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(log, []byte("\n"))
	if err := os.WriteFile(filepath.Join(unfinished, trainer.LogFile), append(bytes.Join(lines[:10], nil), lines[10][:20]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(unfinished, experiment.ResultFile)); err != nil {
		t.Fatal(err)
	}

	// What wadn report says of them: the JSON, and the pages of the site.
	out, err := exec.Command(bin, "report", "--json", dir).Output()
	if err != nil {
		t.Fatalf("wadn report --json: %v", err)
	}
	var rep struct {
		Rows       []*experiment.Row `json:"rows"`
		Unfinished int               `json:"unfinished"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	rows := map[string]*experiment.Row{}
	for _, r := range rep.Rows {
		rows[strings.Join([]string{r.Dataset, r.Scenario, r.Method, r.Target, r.Label}, "|")] = r
	}
	static := t.TempDir()
	if b, err := exec.Command(bin, "report", "--html", static, dir).CombinedOutput(); err != nil {
		t.Fatalf("wadn report --html: %v\n%s", err, b)
	}
	var pages []string // the site's pages, as paths of the server
	filepath.WalkDir(static, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".html") {
			rel, _ := filepath.Rel(static, p)
			pages = append(pages, "/"+filepath.ToSlash(rel))
		}
		return nil
	})

	// wadn serve, on a free port of the loopback.
	serve := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", dir)
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	})
	origin, err := readLine(stderr, regexp.MustCompile(`http://127\.0\.0\.1:\d+`), 30*time.Second)
	if err != nil {
		t.Fatalf("wadn serve: %v", err)
	}

	page, stop := startChromium(t, chromium)
	defer stop()
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable", "Network.enable"} {
		if err := page.Call(m, nil, nil, 30*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if err := page.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil, 30*time.Second); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	visited := map[string]*pageData{}
	queue := []string{"/"}
	links := map[string][]string{} // a link within the site -> the pages that hold it
	reached := map[string]bool{}   // the rows whose mean a page shows
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if visited[p] != nil {
			continue
		}
		d := loadPage(t, page, origin, p, shots, len(visited))
		visited[p] = d
		if d == nil {
			continue
		}
		for _, l := range append(append(append([]string{}, d.Links...), d.Refs...), d.Objects...) {
			u, err := url.Parse(l)
			if err != nil || u.Scheme+"://"+u.Host != origin {
				t.Errorf("%s: %q is not within the site", p, l)
				continue
			}
			links[u.Path+fragment(u)] = append(links[u.Path+fragment(u)], p)
			if strings.HasSuffix(u.Path, ".html") || u.Path == "/" {
				queue = append(queue, u.Path)
			}
		}
		for _, img := range d.Images {
			if u, err := url.Parse(img.Src); err != nil || u.Scheme+"://"+u.Host != origin || !img.OK {
				t.Errorf("%s: the image %q is not within the site, or did not load", p, img.Src)
			}
		}
		if len(d.Sheets) == 0 || d.Loaded != len(d.Sheets) {
			t.Errorf("%s: %d of its %d style sheets applied", p, d.Loaded, len(d.Sheets))
		}
		checkNumbers(t, p, d, rows, rep.Unfinished, reached)
	}
	t.Logf("%d pages loaded and drawn in %v; screenshots in %s", len(visited), time.Since(start).Round(time.Millisecond), shots)

	for _, p := range pages {
		if visited[p] == nil && !(p == "/index.html" && visited["/"] != nil) {
			t.Errorf("the page %s of wadn report --html is not reached by the links of the served site", p)
		}
	}
	for p := range visited {
		if p != "/" && !slices.Contains(pages, p) {
			t.Errorf("the served page %s is not a page of wadn report --html", p)
		}
	}
	for k := range rows {
		if !reached[k] {
			t.Errorf("no page shows the mean of row %s", k)
		}
	}
	for l, from := range links {
		p, frag, _ := strings.Cut(l, "#")
		resp, err := http.Get(origin + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s, linked from %s: %s", p, from[0], resp.Status)
		}
		if p == "/" {
			p = "/index.html"
		}
		if frag != "" {
			d := visited[p]
			if p == "/index.html" && d == nil {
				d = visited["/"]
			}
			if d == nil || !slices.Contains(d.IDs, frag) {
				t.Errorf("%s, linked from %s: no element of id %q", l, from[0], frag)
			}
		}
	}
}

// fragment returns "#" and u's fragment, or "" without one.
func fragment(u *url.URL) string {
	if u.Fragment == "" {
		return ""
	}
	return "#" + u.Fragment
}

// readLine reads lines from r until one matches re and returns the match;
// the rest of r is read and dropped, so that its writer never blocks.
func readLine(r interface{ Read([]byte) (int, error) }, re *regexp.Regexp, timeout time.Duration) (string, error) {
	found := make(chan string, 1)
	var seen strings.Builder
	var mu sync.Mutex
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			mu.Lock()
			if seen.Len() < 1<<16 {
				seen.WriteString(sc.Text() + "\n")
			}
			mu.Unlock()
			if m := re.FindString(sc.Text()); m != "" {
				select {
				case found <- m:
				default:
				}
			}
		}
	}()
	select {
	case m := <-found:
		return m, nil
	case <-time.After(timeout):
		mu.Lock()
		defer mu.Unlock()
		return "", fmt.Errorf("no line matching %s in %v:\n%s", re, timeout, seen.String())
	}
}

// startChromium starts headless Chromium with a DevTools port and returns
// a connection to its page, and the function that ends the browser.
func startChromium(t *testing.T, bin string) (*cdpConn, func()) {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1",
		"--user-data-dir="+profile, "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio", "--hide-scrollbars", "--window-size=1280,900", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its helpers, ended with it
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
		})
	}
	t.Cleanup(stop)
	ws, err := readLine(stderr, regexp.MustCompile(`ws://127\.0\.0\.1:\d+/\S+`), time.Minute)
	if err != nil {
		stop()
		t.Fatalf("%s: %v", bin, err)
	}
	u, _ := url.Parse(ws)
	pageWS, err := pageTarget(u.Host)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	c, err := dialCDP(pageWS)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return c, func() { c.Close(); stop() }
}

// loadPage loads the page at p of the site at origin, fails t for every
// console error, exception and failed or unanswered load it caused,
// saves its screenshot as shots/NN-NAME.png and returns what its DOM
// holds; nil when it did not load.
func loadPage(t *testing.T, c *cdpConn, origin, p, shots string, n int) *pageData {
	t.Helper()
	from := len(c.Events(0))
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := c.Call("Page.navigate", map[string]string{"url": origin + p}, &nav, 30*time.Second); err != nil || nav.ErrorText != "" {
		t.Errorf("%s: %v %s", p, err, nav.ErrorText)
		return nil
	}
	if err := c.WaitEvent(from, "Page.loadEventFired", 30*time.Second); err != nil {
		t.Errorf("%s: %v", p, err)
		return nil
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	if err := c.Call("Runtime.evaluate", map[string]any{"expression": readPage, "returnByValue": true}, &res, 30*time.Second); err != nil || res.ExceptionDetails != nil {
		t.Errorf("%s: reading the page: %v %s", p, err, res.ExceptionDetails)
		return nil
	}
	d := new(pageData)
	if err := json.Unmarshal(res.Result.Value, d); err != nil {
		t.Errorf("%s: %v", p, err)
		return nil
	}
	if d.Title == "" {
		t.Errorf("%s: no title", p)
	}
	var shot struct {
		Data string `json:"data"`
	}
	clip := map[string]any{"x": 0, "y": 0, "width": max(d.Width, 1280), "height": min(max(d.Height, 900), 12000), "scale": 1}
	if err := c.Call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true, "clip": clip}, &shot, time.Minute); err != nil {
		t.Errorf("%s: %v", p, err)
	} else if png, err := base64.StdEncoding.DecodeString(shot.Data); err != nil {
		t.Errorf("%s: screenshot: %v", p, err)
	} else {
		name := strings.NewReplacer("/", "_", ".html", "").Replace(strings.TrimPrefix(p, "/"))
		if name == "" {
			name = "index"
		}
		if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%02d-%s.png", n, name)), png, 0o644); err != nil {
			t.Error(err)
		}
	}
	for _, e := range c.Events(from) {
		if msg, bad := browserError(e); bad {
			t.Errorf("%s: %s", p, msg)
		}
	}
	return d
}

// browserError says whether a DevTools event tells of something wrong: a
// console error or assertion, an exception, an error in the browser's
// log, a load that failed or was answered other than 200.
func browserError(e cdpMessage) (string, bool) {
	switch e.Method {
	case "Runtime.consoleAPICalled":
		var p struct {
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Type == "error" || p.Type == "assert" {
			return fmt.Sprintf("console.%s: %v", p.Type, p.Args), true
		}
	case "Runtime.exceptionThrown":
		return "exception: " + string(e.Params), true
	case "Log.entryAdded":
		var p struct {
			Entry struct {
				Level, Source, Text, URL string
			} `json:"entry"`
		}
		json.Unmarshal(e.Params, &p)
		if p.Entry.Level == "error" {
			return fmt.Sprintf("console (%s): %s %s", p.Entry.Source, p.Entry.Text, p.Entry.URL), true
		}
	case "Network.loadingFailed":
		var p struct {
			Type, ErrorText string
			Canceled        bool
			BlockedReason   string
		}
		json.Unmarshal(e.Params, &p)
		return fmt.Sprintf("a %s failed to load: %s %s", p.Type, p.ErrorText, p.BlockedReason), true
	case "Network.responseReceived":
		var p struct {
			Type     string
			Response struct {
				URL    string
				Status int
			}
		}
		json.Unmarshal(e.Params, &p)
		if p.Response.Status != http.StatusOK {
			return fmt.Sprintf("%s %s answered %d", p.Type, p.Response.URL, p.Response.Status), true
		}
	}
	return "", false
}

// checkNumbers checks each number of a page against the rows of wadn
// report --json, and the unfinished count; reached records the rows whose
// mean it shows. A number's text is its value rounded.
func checkNumbers(t *testing.T, p string, d *pageData, rows map[string]*experiment.Row, unfinished int, reached map[string]bool) {
	t.Helper()
	for _, num := range d.Numbers {
		got, err := strconv.ParseFloat(num.Value, 64)
		if err != nil {
			t.Errorf("%s: %s of %q: data-value %q", p, num.Field, num.Row, num.Value)
			continue
		}
		text := strings.Trim(strings.TrimSpace(num.Text), "()")
		if strings.HasPrefix(num.Field, "average") {
			text, _, _ = strings.Cut(text, " ")
		}
		if shown, err := strconv.ParseFloat(text, 64); num.Field != "unfinished" && (err != nil || math.Abs(shown-got) > 0.0051) {
			t.Errorf("%s: %s of %q shows %q for %v", p, num.Field, num.Row, num.Text, got)
		}
		var want float64
		ok := true
		switch num.Field {
		case "unfinished":
			want = float64(unfinished)
		case "average":
			var means []float64
			for _, r := range rows {
				if r.Dataset+"|"+r.Scenario == num.Group && r.Method+"|"+r.Label == num.Column {
					means = append(means, r.Mean)
				}
			}
			want, _ = experiment.MeanStd(means)
			ok = len(means) > 0
			if ok && math.Abs(got-want) <= 1e-12*math.Abs(want) {
				want = got // the same means, summed in another order
			}
		default:
			r := rows[num.Row]
			if r == nil {
				t.Errorf("%s: %s of row %q, which wadn report --json does not have", p, num.Field, num.Row)
				continue
			}
			want, ok = rowField(r, num.Field, num.Seed)
			if num.Field == "mean" {
				reached[num.Row] = true
			}
		}
		if !ok || got != want {
			t.Errorf("%s: %s (seed %q) of %q is %v; wadn report --json: %v (%v)", p, num.Field, num.Seed, num.Row+num.Column, got, want, ok)
		}
	}
}

// rowField returns a row's field as wadn report --json names it; seed
// picks the seed's accuracy.
func rowField(r *experiment.Row, field, seed string) (float64, bool) {
	switch field {
	case "mean":
		return r.Mean, true
	case "std":
		return r.Std, true
	case "n":
		return float64(r.N), true
	case "published":
		if r.Published != nil {
			return *r.Published, true
		}
	case "alpha_error":
		if r.AlphaError != nil {
			return *r.AlphaError, true
		}
	case "largest_drop":
		if r.Drop != nil {
			return *r.Drop, true
		}
	case "accuracy":
		for i, s := range r.Seeds {
			if strconv.FormatUint(s, 10) == seed {
				return r.Accuracy[i], true
			}
		}
	}
	return 0, false
}
