// Package site renders a report as a static web site of plain HTML, SVG
// figures and one style sheet, which links to nothing outside itself:
//
//   - index.html: the tables of methods side by side, per scenario and
//     data set (experiment.Report.Comparisons), the unfinished and damaged
//     runs and the notes;
//   - targets/SCENARIO-DATASET-TARGET.html: a target's accuracy curves
//     (figures.Accuracy of its rows) beside the table of its rows, and its
//     unfinished runs with their epoch and the time left;
//   - runs/NAME.html: one run's identity, settings, config file, result,
//     environment and epoch log;
//   - figures.html: the figures given in Options.
//
// Every number of a row shown in a table carries its row's key (RowKey) in
// a data-row attribute, the name of its field in `wadn report --json`
// (mean, std, n, published, accuracy with data-seed, alpha_error,
// largest_drop) in data-field, and its full-precision value in
// data-value, for a program to read the pages.
//
// A Site renders its files when asked (File) or all at once (Write);
// Handler serves them over HTTP, collected anew as runs come.
package site

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
)

// Options are what a site shows besides the report.
type Options struct {
	// Figures are the paper's figures, shown on the figures page, each
	// as the SVG file figures/NAME.svg.
	Figures []figures.Figure
	// Generated is when the report was read from the run directories,
	// said at the foot of every page; zero says nothing.
	Generated time.Time
}

// ErrNotFound is returned by File for a path that is not one of the
// site's.
var ErrNotFound = errors.New("no such file in the site")

// Site is the web site of one report. Its files are rendered when asked
// for, from the report and, for a run's page, the run's config file; a
// Site is safe for concurrent use.
type Site struct {
	rep     *experiment.Report
	opt     Options
	files   map[string]func() ([]byte, error) // by path
	targets []*target
	runs    map[string]string // run directory -> its page's path
	figs    []string          // the paths of the figures of opt
}

// target is one target of a data set in one scenario: its page, and the
// rows and unfinished runs it shows.
type target struct {
	Scenario, Dataset, Name string
	Page                    string // its page's path
	Figure                  string // its accuracy figure's path; "" when no run has an epoch log
	Rows                    []*experiment.Row
	Pending                 []*experiment.Pending
}

// New returns the site of rep: its paths are fixed now, its files
// rendered from rep when asked for, so rep must not change while the site
// is in use.
func New(rep *experiment.Report, opt Options) *Site {
	s := &Site{rep: rep, opt: opt, files: map[string]func() ([]byte, error){}, runs: map[string]string{}}
	used := map[string]bool{}
	// unique returns a path in dir for the name made of parts, with ext,
	// that no other file of the site has.
	unique := func(dir, ext string, parts ...string) string {
		base := fileSafe(strings.Join(parts, "-"))
		p := path.Join(dir, base+ext)
		for i := 2; used[p]; i++ {
			p = path.Join(dir, fmt.Sprintf("%s-%d%s", base, i, ext))
		}
		used[p] = true
		return p
	}
	for _, p := range []string{"index.html", "figures.html", "style.css", "favicon.svg"} {
		used[p] = true
	}
	s.files["index.html"] = s.index
	s.files["figures.html"] = s.figures
	s.files["style.css"] = func() ([]byte, error) { return assets.ReadFile("assets/style.css") }
	s.files["favicon.svg"] = func() ([]byte, error) { return assets.ReadFile("assets/favicon.svg") }
	for _, f := range opt.Figures {
		svg, p := f.SVG, unique("figures", ".svg", f.Name)
		s.files[p] = func() ([]byte, error) { return svg, nil }
		s.figs = append(s.figs, p)
	}
	byKey := map[[3]string]*target{}
	targetOf := func(sc, ds, name string) *target {
		k := [3]string{sc, ds, name}
		if t, ok := byKey[k]; ok {
			return t
		}
		t := &target{Scenario: sc, Dataset: ds, Name: name}
		byKey[k] = t
		s.targets = append(s.targets, t)
		return t
	}
	for _, r := range rep.Rows {
		t := targetOf(r.Scenario, r.Dataset, r.Target)
		t.Rows = append(t.Rows, r)
	}
	for _, p := range rep.Pending {
		t := targetOf(p.Spec.Scenario.String(), p.Spec.Dataset.Name, p.Spec.Target)
		t.Pending = append(t.Pending, p)
	}
	slices.SortStableFunc(s.targets, func(a, b *target) int {
		return strings.Compare(a.Scenario+"\x00"+a.Dataset+"\x00"+a.Name, b.Scenario+"\x00"+b.Dataset+"\x00"+b.Name)
	})
	for _, t := range s.targets {
		t.Page = unique("targets", ".html", t.Scenario, t.Dataset, t.Name)
		s.files[t.Page] = func() ([]byte, error) { return s.targetPage(t) }
		if logged(t.Rows) {
			t.Figure = unique("targets", ".svg", t.Scenario, t.Dataset, t.Name, "accuracy")
			s.files[t.Figure] = func() ([]byte, error) { return s.accuracy(t) }
		}
		for _, r := range t.Rows {
			for _, run := range r.Runs() {
				p := unique("runs", ".html", run.Record.Identity.Name())
				s.runs[run.Dir] = p
				s.files[p] = func() ([]byte, error) { return s.runPage(t, r, run, nil) }
			}
		}
		for _, pend := range t.Pending {
			p := unique("runs", ".html", pend.Record.Identity.Name())
			s.runs[pend.Dir] = p
			s.files[p] = func() ([]byte, error) { return s.runPage(t, nil, nil, pend) }
		}
	}
	return s
}

// logged reports whether a run of the rows has an epoch log of an epoch
// or more: then figures.Accuracy draws them.
func logged(rows []*experiment.Row) bool {
	for _, r := range rows {
		for _, run := range r.Runs() {
			if len(run.History) > 0 {
				return true
			}
		}
	}
	return false
}

// Paths returns the paths of the site's files, relative to its root,
// with "/" between directories, in name order.
func (s *Site) Paths() []string {
	out := make([]string, 0, len(s.files))
	for p := range s.files {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// File renders the file at path p (one of Paths) and returns it with its
// media type; ErrNotFound for any other path.
func (s *Site) File(p string) (content []byte, mediaType string, err error) {
	render, ok := s.files[p]
	if !ok {
		return nil, "", fmt.Errorf("%s: %w", p, ErrNotFound)
	}
	content, err = render()
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", p, err)
	}
	return content, MediaType(p), nil
}

// MediaType returns the media type of a site's file by its extension.
func MediaType(p string) string {
	switch path.Ext(p) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}

// Write renders every file of the site into dir, which it creates if need
// be, overwriting the files of the same paths and leaving any other file
// there as it is. It returns the paths written, as Paths gives them.
func (s *Site) Write(dir string) ([]string, error) {
	var done []string
	for _, p := range s.Paths() {
		b, _, err := s.File(p)
		if err != nil {
			return done, err
		}
		out := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return done, err
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return done, err
		}
		done = append(done, p)
	}
	return done, nil
}

// RowKey names a row in the data-row attributes of the pages: its data
// set, scenario, method, target and label, as `wadn report --json` gives
// them, joined by "|". No two rows of a report share one.
func RowKey(r *experiment.Row) string {
	return strings.Join([]string{r.Dataset, r.Scenario, r.Method, r.Target, r.Label}, "|")
}

// fileSafe returns s with every character other than an ASCII letter,
// digit, dot, minus or underscore replaced by '_', a leading dot too, and
// "" as "_": a file name, neither hidden nor "." nor "..".
func fileSafe(s string) string {
	s = strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-', c == '_':
			return c
		}
		return '_'
	}, s)
	if s == "" || s[0] == '.' {
		return "_" + strings.TrimPrefix(s, ".")
	}
	return s
}
