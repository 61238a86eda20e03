package site

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// stored are runs stored under results/amazon: two methods on two targets
// of the UDA scenario, two seeds each, and one run of the limited one.
var stored = []string{
	"amazon-books-uda-wadn-seed0-6c64aeb40abb",
	"amazon-books-uda-wadn-seed1-783e7a3929eb",
	"amazon-books-uda-source-seed0-cb0032bab832",
	"amazon-books-uda-source-seed1-3cb37a00a162",
	"amazon-dvd-uda-source-seed0-73477f28a3c1",
	"amazon-dvd-uda-source-seed1-2b80647b2a36",
	"amazon-kitchen-limited-wadn-seed0-4529bb53a17e",
}

// copyStored copies the stored runs named into dir and returns their
// directories there.
func copyStored(t *testing.T, dir string, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		src := filepath.Join("..", "..", "..", "results", "amazon", n)
		run := filepath.Join(dir, n)
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range experiment.StoredFiles {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(run, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, run)
	}
	return out
}

// unfinish makes the run in dir unfinished, with the first epochs of its
// epoch log and then part of the next line: it returns the removed result
// and the whole log, to finish it again.
func unfinish(t *testing.T, dir string, epochs int) (result, log []byte) {
	t.Helper()
	var err error
	if result, err = os.ReadFile(filepath.Join(dir, experiment.ResultFile)); err != nil {
		t.Fatal(err)
	}
	if log, err = os.ReadFile(filepath.Join(dir, trainer.LogFile)); err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(log, []byte("\n"))
	part := append(bytes.Join(lines[:epochs], nil), lines[epochs][:len(lines[epochs])/2]...)
	if err := os.WriteFile(filepath.Join(dir, trainer.LogFile), part, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, experiment.ResultFile)); err != nil {
		t.Fatal(err)
	}
	return result, log
}

// tagRE finds the start tags that carry attributes; attrRE their
// attributes.
var (
	tagRE  = regexp.MustCompile(`<[a-zA-Z][a-zA-Z0-9]*\s[^>]*>`)
	attrRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9-]*)="([^"]*)"`)
)

// attrs returns the attributes of every start tag of page that has any,
// unescaped.
func attrs(page []byte) []map[string]string {
	var out []map[string]string
	for _, tag := range tagRE.FindAll(page, -1) {
		m := map[string]string{}
		for _, a := range attrRE.FindAllSubmatch(tag, -1) {
			m[string(a[1])] = html.UnescapeString(string(a[2]))
		}
		out = append(out, m)
	}
	return out
}

// jsonRows returns the rows of rep as WriteJSON writes them, by RowKey.
func jsonRows(t *testing.T, rep *experiment.Report) map[string]map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, r := range doc.Rows {
		k := strings.Join([]string{r["dataset"].(string), r["scenario"].(string), r["method"].(string), r["target"].(string), r["label"].(string)}, "|")
		out[k] = r
	}
	return out
}

// fieldValue returns the value of a number's field in a JSON row: seed
// picks the seed's accuracy.
func fieldValue(row map[string]any, field, seed string) (float64, bool) {
	if field == "accuracy" {
		for i, s := range row["seeds"].([]any) {
			if strconv.FormatFloat(s.(float64), 'f', -1, 64) == seed {
				return row["accuracy"].([]any)[i].(float64), true
			}
		}
		return 0, false
	}
	v, ok := row[field].(float64)
	return v, ok
}

// TestSite renders the site of stored runs and an unfinished one and
// checks every page: each link and image within the site, fragment
// included; each number of a row against the report's JSON, which every
// row's mean reaches; the unfinished run's epoch and time left; no
// reference outside the site.
func TestSite(t *testing.T) {
	dir := t.TempDir()
	runs := copyStored(t, dir, stored...)
	unfinish(t, runs[1], 3)
	rep, err := experiment.Scan(experiment.Filter{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	fig := figures.Figure{Name: "fig 2/a", Title: "Figure <2>", Caption: "a & b", SVG: []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>`)}
	s := New(rep, Options{Figures: []figures.Figure{fig, fig}})
	paths := s.Paths()
	for _, want := range []string{"index.html", "figures.html", "style.css", "favicon.svg", "figures/fig_2_a.svg", "figures/fig_2_a-2.svg",
		"targets/uda-amazon-books.html", "targets/uda-amazon-books-accuracy.svg", "targets/uda-amazon-dvd.html", "targets/limited-amazon-kitchen.html",
		"runs/" + filepath.Base(runs[0]) + ".html", "runs/" + filepath.Base(runs[1]) + ".html"} {
		if !slices.Contains(paths, want) {
			t.Errorf("the site has no %s; it has %q", want, paths)
		}
	}
	if n := len(paths); n != 4+2+3*2+len(stored) {
		t.Errorf("%d files, want %d: %q", n, 4+2+3*2+len(stored), paths)
	}
	rows := jsonRows(t, rep)
	reached := map[string]bool{} // the rows whose mean a page shows
	ids := map[string]map[string]bool{}
	type ref struct{ page, target string }
	var refs []ref
	for _, p := range paths {
		b, mediaType, err := s.File(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if mediaType != MediaType(p) || len(b) == 0 {
			t.Errorf("%s: %d bytes of %s", p, len(b), mediaType)
		}
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		if bytes.Contains(b, []byte("http://")) || bytes.Contains(b, []byte("https://")) || bytes.Contains(b, []byte("<script")) {
			t.Errorf("%s refers outside the site, or holds a script", p)
		}
		ids[p] = map[string]bool{}
		for _, a := range attrs(b) {
			if id, ok := a["id"]; ok {
				ids[p][id] = true
			}
			for _, at := range []string{"href", "src"} {
				if v, ok := a[at]; ok {
					refs = append(refs, ref{p, v})
				}
			}
			field, ok := a["data-field"]
			if !ok {
				continue
			}
			got, err := strconv.ParseFloat(a["data-value"], 64)
			if err != nil {
				t.Errorf("%s: %s of %q: data-value %q", p, field, a["data-row"], a["data-value"])
				continue
			}
			switch field {
			case "unfinished":
				if int(got) != rep.Unfinished || rep.Unfinished != 1 {
					t.Errorf("%s: %v unfinished, the report %d, want 1", p, got, rep.Unfinished)
				}
				continue
			case "average":
				continue // TestAverages
			}
			row, ok := rows[a["data-row"]]
			if !ok {
				t.Errorf("%s: %s of row %q, which the report does not have", p, field, a["data-row"])
				continue
			}
			want, ok := fieldValue(row, field, a["data-seed"])
			if !ok || got != want {
				t.Errorf("%s: %s (seed %q) of %s is %v, the report's JSON %v (%v)", p, field, a["data-seed"], a["data-row"], got, want, ok)
			}
			if field == "mean" {
				reached[a["data-row"]] = true
			}
		}
	}
	for k := range rows {
		if !reached[k] {
			t.Errorf("no page shows the mean of row %s", k)
		}
	}
	for _, r := range refs {
		target, frag, _ := strings.Cut(r.target, "#")
		if strings.Contains(target, ":") || strings.HasPrefix(target, "/") {
			t.Errorf("%s: %q is not a relative link within the site", r.page, r.target)
			continue
		}
		p := r.page
		if target != "" {
			p = path.Join(path.Dir(r.page), target)
		}
		if !slices.Contains(paths, p) {
			t.Errorf("%s: %q leads to %s, not a file of the site", r.page, r.target, p)
		}
		if frag != "" && !ids[p][frag] {
			t.Errorf("%s: %q: %s has no id %q", r.page, r.target, p, frag)
		}
	}
	target, _, _ := s.File("targets/uda-amazon-books.html")
	run, _, _ := s.File("runs/" + filepath.Base(runs[1]) + ".html")
	for _, c := range []struct {
		page []byte
		want string
	}{
		{target, `<td class="num">3 / 50</td>`},
		{target, "min"}, // the time left
		{run, "Unfinished: 3 of 50 epochs logged, about "},
		{run, "No epoch logged yet."}, // not so: it has 3
	} {
		if has := bytes.Contains(c.page, []byte(c.want)); has == (c.want == "No epoch logged yet.") {
			t.Errorf("the page holds %q: %v", c.want, has)
		}
	}
	figs, _, _ := s.File("figures.html")
	if !bytes.Contains(figs, []byte("Figure &lt;2&gt;")) || !bytes.Contains(figs, []byte("a &amp; b")) {
		t.Errorf("the figures page does not show the figures' titles and captions, escaped:\n%s", figs)
	}
	if _, _, err := s.File("../index.html"); err == nil {
		t.Error("File of ../index.html: no error")
	}
}

// TestAverages: the average of each column of the index's tables is the
// mean, over its targets, of the rows' means, as the Markdown has it.
func TestAverages(t *testing.T) {
	dir := t.TempDir()
	copyStored(t, dir, stored...)
	rep, err := experiment.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	index, _, err := New(rep, Options{}).File("index.html")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range attrs(index) {
		if a["data-field"] != "average" {
			continue
		}
		n++
		var means []float64
		for _, r := range rep.Rows {
			if r.Dataset+"|"+r.Scenario == a["data-group"] && r.Method+"|"+r.Label == a["data-column"] {
				means = append(means, r.Mean)
			}
		}
		want, _ := experiment.MeanStd(means)
		if got, err := strconv.ParseFloat(a["data-value"], 64); err != nil || got != want || len(means) == 0 {
			t.Errorf("average of %s in %s: %v (%v), want %v over %d rows", a["data-column"], a["data-group"], got, err, want, len(means))
		}
	}
	if n != 3 { // uda: wadn, source; limited: wadn
		t.Errorf("%d averages, want 3", n)
	}
	var md bytes.Buffer
	if err := rep.WriteComparison(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"uda, amazon", "limited, amazon"} {
		if !bytes.Contains(index, []byte(want)) || !bytes.Contains(md.Bytes(), []byte(want)) {
			t.Errorf("%q is not a table of both the Markdown and the index", want)
		}
	}
}

// TestEscaping: names read from a run's record reach the pages escaped
// and the file names made safe.
func TestEscaping(t *testing.T) {
	dir := t.TempDir()
	run := copyStored(t, dir, stored[2])[0]
	var rec experiment.Record
	b, err := os.ReadFile(filepath.Join(run, experiment.RunFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	evil := `<script>x</script>/../"a"`
	rec.Identity.Target = evil
	rec.Key = rec.Identity.Key()
	if b, err = json.Marshal(&rec); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, experiment.RunFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := experiment.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := New(rep, Options{})
	for _, p := range s.Paths() {
		for _, seg := range strings.Split(p, "/") {
			if strings.HasPrefix(seg, ".") || strings.ContainsAny(seg, `<>"\\`) || strings.Count(p, "/") > 1 {
				t.Errorf("unsafe path %q", p)
			}
		}
		page, _, err := s.File(p)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(page, []byte("<script")) {
			t.Errorf("%s holds the name unescaped", p)
		}
		if strings.HasSuffix(p, ".html") && p != "figures.html" && !bytes.Contains(page, []byte("&lt;script&gt;")) {
			t.Errorf("%s does not show the name, escaped", p)
		}
	}
}

// TestWrite: Write writes every file, creating the directories, replaces
// the files of the same names and leaves the others.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	copyStored(t, dir, stored[:2]...)
	rep, err := experiment.Collect(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "a", "site")
	if err := os.MkdirAll(filepath.Join(out, "targets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"index.html": "old", "other.txt": "mine", "targets/x.html": "mine"} {
		if err := os.WriteFile(filepath.Join(out, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := New(rep, Options{})
	wrote, err := s.Write(out)
	if err != nil || !slices.Equal(wrote, s.Paths()) {
		t.Fatalf("Write: %v, wrote %q; want %q", err, wrote, s.Paths())
	}
	for _, c := range []struct{ name, want string }{{"other.txt", "mine"}, {"targets/x.html", "mine"}} {
		if b, err := os.ReadFile(filepath.Join(out, c.name)); err != nil || string(b) != c.want {
			t.Errorf("%s: %q, %v; want it left as it was", c.name, b, err)
		}
	}
	for _, p := range wrote {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p)))
		want, _, _ := s.File(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: written %d bytes (%v), rendered %d", p, len(got), err, len(want))
		}
	}
}

// TestApprox: durations as the unfinished runs' time left shows them.
func TestApprox(t *testing.T) {
	for _, c := range []struct {
		sec  float64
		want string
	}{{0, "0 s"}, {44.6, "45 s"}, {60, "1 min 0 s"}, {725, "12 min 5 s"}, {3600, "1 h 0 min"}, {12030, "3 h 20 min"}} {
		if got := approx(time.Duration(c.sec * float64(time.Second))); got != c.want {
			t.Errorf("approx(%vs) = %q, want %q", c.sec, got, c.want)
		}
	}
}

// TestFileSafe: file names of any name, with nothing but letters, digits,
// dots, minus and underscores.
func TestFileSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"", "_"}, {"..", "_."}, {".a", "_a"}, {"a/b", "a_b"}, {"x y<z>", "x_y_z_"}, {"ok-1.2_x", "ok-1.2_x"}} {
		if got := fileSafe(c.in); got != c.want {
			t.Errorf("fileSafe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
