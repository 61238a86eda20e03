package site

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
	"github.com/wadn-go/wadn/wadn/method"
)

// assets are the templates, the style sheet and the icon.
//
//go:embed assets
var assets embed.FS

// funcs are the templates' functions: numbers as the report's Markdown
// writes them (f2, f3, signed) and in full precision for data-value (full),
// times, and RowKey.
var funcs = template.FuncMap{
	"f2":     func(v float64) string { return fmt.Sprintf("%.2f", v) },
	"f3":     func(v float64) string { return fmt.Sprintf("%.3f", v) },
	"signed": func(v float64) string { return fmt.Sprintf("%+.2f", v) },
	"full":   func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) },
	"when":   when,
	"key":    RowKey,
}

// when writes a time to the second in this machine's time zone, named.
func when(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05 MST") }

// templates holds a template per kind of page, each the base page around
// its content.
var templates = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"index", "target", "run", "figures"} {
		out[name] = template.Must(template.New("base.html").Funcs(funcs).ParseFS(assets, "assets/base.html", "assets/"+name+".html"))
	}
	return out
}()

// page is what the base template reads: the page's title, the way back to
// the site's root from its directory, the links above its title and the
// page's own view, which its content template reads as .View.
type page struct {
	Title      string
	Root       string // "" for a page at the root, "../" for one below
	Crumbs     []link
	Unfinished int
	Generated  string
	View       any
}

// link is a titled href.
type link struct{ Text, Href string }

// render executes the template kind on p.
func (s *Site) render(kind string, p page) ([]byte, error) {
	p.Unfinished = s.rep.Unfinished
	if !s.opt.Generated.IsZero() {
		p.Generated = when(s.opt.Generated)
	}
	var b bytes.Buffer
	if err := templates[kind].ExecuteTemplate(&b, "base", p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// indexView is the index page: the tables of methods side by side, the
// unfinished and damaged runs, the notes and the figures.
type indexView struct {
	Tables     []tableView
	Rows, Runs int
	Unfinished int
	Pending    []pendingView
	Damaged    []experiment.Damaged
	Notes      []string
	Figures    []link
	Targets    []link // the pages of targets without a finished run
}

// tableView is one experiment.Comparison as the index shows it.
type tableView struct {
	Scenario, Dataset string
	Columns           []experiment.Column
	Lines             []lineView
	Averages          []averageView
	Single, Starred   bool // a mean of one seed; a paper's average over other targets
}

// lineView is a target's line of a tableView.
type lineView struct {
	Target, Href string
	Cells        []cellView
}

// cellView is a cell of a lineView: a row, or none, and whether its mean
// is the best of the line.
type cellView struct {
	Row  *experiment.Row
	Href string // the row on its target's page
	Best bool
}

// averageView is a column's average: Group is "dataset|scenario", Column
// "method|label", for the data attributes.
type averageView struct {
	experiment.Average
	Group, Column string
}

// pendingView is an unfinished run as the index and its target's page
// list it.
type pendingView struct {
	Name, Scenario, Dataset, Target string
	TargetHref, Href                string
	Seed                            uint64
	Epoch, Epochs                   int
	Accuracy                        *float64 // at the last logged epoch
	Left                            string   // the time left, "" when unknown
	Logged                          string   // when the epoch log was last written, "" without one
}

func (s *Site) index() ([]byte, error) {
	v := indexView{Rows: len(s.rep.Rows), Unfinished: s.rep.Unfinished, Damaged: s.rep.Damaged, Notes: s.rep.Notes}
	pages := map[[3]string]*target{}
	for _, t := range s.targets {
		pages[[3]string{t.Scenario, t.Dataset, t.Name}] = t
		for _, p := range t.Pending {
			v.Pending = append(v.Pending, s.pendingView(t, p, ""))
		}
		if len(t.Rows) == 0 {
			v.Targets = append(v.Targets, link{fmt.Sprintf("%s (%s, %s)", t.Name, t.Scenario, t.Dataset), t.Page})
		}
	}
	for _, r := range s.rep.Rows {
		v.Runs += r.N
	}
	for _, c := range s.rep.Comparisons() {
		tv := tableView{Scenario: c.Scenario, Dataset: c.Dataset, Columns: c.Columns}
		for i, name := range c.Targets {
			t := pages[[3]string{c.Scenario, c.Dataset, name}]
			line := lineView{Target: name, Href: t.Page}
			best := math.Inf(-1)
			for _, r := range c.Cells[i] {
				if r != nil {
					best = max(best, r.Mean)
				}
			}
			for _, r := range c.Cells[i] {
				cell := cellView{Row: r}
				if r != nil {
					cell.Href = t.Page + "#" + anchor(t, r)
					cell.Best = r.Mean == best
					tv.Single = tv.Single || r.N < 2
				}
				line.Cells = append(line.Cells, cell)
			}
			tv.Lines = append(tv.Lines, line)
		}
		for j, a := range c.Averages {
			label := ""
			for i := range c.Targets {
				if r := c.Cells[i][j]; r != nil {
					label = r.Label
					break
				}
			}
			tv.Averages = append(tv.Averages, averageView{a, c.Dataset + "|" + c.Scenario, c.Columns[j].Method + "|" + label})
			tv.Starred = tv.Starred || (a.Paper != nil && !a.PaperCovered)
		}
		v.Tables = append(v.Tables, tv)
	}
	for i, f := range s.opt.Figures {
		v.Figures = append(v.Figures, link{headline(f), "figures.html#" + figureAnchor(i, f)})
	}
	return s.render("index", page{Title: "Results", View: v})
}

// anchor returns the id of row r on its target's page.
func anchor(t *target, r *experiment.Row) string {
	return "row-" + strconv.Itoa(slices.Index(t.Rows, r)+1)
}

// pendingView returns p, an unfinished run on t, as seen from a page at
// root.
func (s *Site) pendingView(t *target, p *experiment.Pending, root string) pendingView {
	v := pendingView{Name: pendingName(p), Scenario: t.Scenario, Dataset: t.Dataset, Target: t.Name,
		TargetHref: root + t.Page, Href: root + s.runs[p.Dir], Seed: p.Spec.Seed, Epoch: len(p.History), Epochs: p.Epochs()}
	if n := len(p.History); n > 0 {
		v.Accuracy = &p.History[n-1].Accuracy
	}
	if left, ok := p.Left(); ok {
		v.Left = approx(left)
	}
	if !p.Logged.IsZero() {
		v.Logged = when(p.Logged)
	}
	return v
}

// pendingName names an unfinished run's method as Row.Name names a row's.
func pendingName(p *experiment.Pending) string {
	name := p.Spec.Method.Title(p.Spec.Scenario)
	if l := p.Spec.Label(); l != "" {
		name += " [" + l + "]"
	}
	return name
}

// approx writes a duration to the second, in hours and minutes beyond an
// hour: "45 s", "12 min 5 s", "3 h 20 min".
func approx(d time.Duration) string {
	sec := int64(d.Round(time.Second) / time.Second)
	switch {
	case sec < 60:
		return fmt.Sprintf("%d s", sec)
	case sec < 3600:
		return fmt.Sprintf("%d min %d s", sec/60, sec%60)
	}
	return fmt.Sprintf("%d h %d min", sec/3600, sec%3600/60)
}

// targetView is a target's page: its figure, its rows and its unfinished
// runs.
type targetView struct {
	Scenario, Dataset, Name string
	Figure                  string // the accuracy figure's href, "" without one
	FigureAlt               string
	Rows                    []rowView
	Pending                 []pendingView
}

// rowView is a row of a target's page.
type rowView struct {
	*experiment.Row
	Anchor string
	Best   bool
	Seeds  []seedView
	Diff   *float64 // the mean less the paper's number
}

// seedView is one seed's run of a row.
type seedView struct {
	Seed     uint64
	Accuracy float64
	Href     string
}

func (s *Site) targetPage(t *target) ([]byte, error) {
	v := targetView{Scenario: t.Scenario, Dataset: t.Dataset, Name: t.Name}
	if t.Figure != "" {
		v.Figure = "../" + t.Figure
		v.FigureAlt = fmt.Sprintf("target accuracy over the epochs of every method on %s (%s, %s)", t.Name, t.Scenario, t.Dataset)
	}
	best := math.Inf(-1)
	for _, r := range t.Rows {
		best = max(best, r.Mean)
	}
	for _, r := range t.Rows {
		rv := rowView{Row: r, Anchor: anchor(t, r), Best: r.Mean == best}
		for i, run := range r.Runs() {
			rv.Seeds = append(rv.Seeds, seedView{r.Seeds[i], r.Accuracy[i], "../" + s.runs[run.Dir]})
		}
		if r.Published != nil {
			d := r.Mean - *r.Published
			rv.Diff = &d
		}
		v.Rows = append(v.Rows, rv)
	}
	for _, p := range t.Pending {
		v.Pending = append(v.Pending, s.pendingView(t, p, "../"))
	}
	return s.render("target", page{
		Title:  fmt.Sprintf("%s (%s, %s)", t.Name, t.Scenario, t.Dataset),
		Root:   "../",
		Crumbs: []link{{"Tables", "../index.html"}},
		View:   v,
	})
}

// accuracy draws the target accuracy of every row of t.
func (s *Site) accuracy(t *target) ([]byte, error) {
	svg, ok, err := figures.Accuracy(fmt.Sprintf("%s, %s, target %s", t.Scenario, t.Dataset, t.Name), t.Rows)
	if err == nil && !ok {
		err = fmt.Errorf("no epoch log to draw")
	}
	return svg, err
}

// runView is a run's page.
type runView struct {
	Name, Scenario, Dataset, Target string
	TargetHref                      string
	Key                             string // the row's key, "" for an unfinished run
	Row                             *experiment.Row
	Record                          *experiment.Record
	Dir                             string
	Settings                        []settingView
	Config, ConfigError             string
	Result                          *experiment.RunResult // nil: unfinished
	Environment                     []experiment.Environment
	Sources                         []sourceView
	History                         []method.EpochLog
	Epochs                          int    // the epochs setting
	Left                            string // an unfinished run's time left, "" when unknown
}

// settingView is one setting of a run, and its default.
type settingView struct {
	Name, Value, Default string
	Changed              bool
}

// sourceView is what a finished run made of a source: its weight, when
// the method weighs the sources, and the error of its final alpha, when
// the method estimates alpha.
type sourceView struct {
	Name       string
	Lambda     *float64
	AlphaError *float64
}

// runPage renders the page of run, a finished run of row r, or of p, an
// unfinished run; both on target t.
func (s *Site) runPage(t *target, r *experiment.Row, run *experiment.Finished, p *experiment.Pending) ([]byte, error) {
	v := runView{Scenario: t.Scenario, Dataset: t.Dataset, Target: t.Name, TargetHref: "../" + t.Page}
	var spec *experiment.Spec
	if run != nil {
		spec, v.Name, v.Key, v.Row = run.Spec, r.Name(), RowKey(r), r
		v.Record, v.Dir, v.Result, v.Environment, v.History = run.Record, run.Dir, run.Result, run.Result.Environment, run.History
		v.Sources = sources(r, run)
	} else {
		spec, v.Name = p.Spec, pendingName(p)
		v.Record, v.Dir, v.Environment, v.History = p.Record, p.Dir, p.Environment, p.History
		if left, ok := p.Left(); ok {
			v.Left = approx(left)
		}
	}
	v.Epochs = spec.Train.Epochs
	defaults := spec.Defaults().Values()
	values := spec.Values()
	for _, f := range spec.Fields() {
		v.Settings = append(v.Settings, settingView{f.Name, values[f.Name], defaults[f.Name], values[f.Name] != defaults[f.Name]})
	}
	b, err := os.ReadFile(filepath.Join(v.Dir, experiment.ConfigFile))
	if err != nil {
		v.ConfigError = err.Error()
	} else {
		v.Config = string(b)
	}
	title := fmt.Sprintf("%s on %s (%s, %s), seed %d", v.Name, t.Name, t.Scenario, t.Dataset, spec.Seed)
	return s.render("run", page{
		Title:  title,
		Root:   "../",
		Crumbs: []link{{"Tables", "../index.html"}, {fmt.Sprintf("%s (%s, %s)", t.Name, t.Scenario, t.Dataset), "../" + t.Page}},
		View:   v,
	})
}

// sources returns what a finished run made of each of its sources.
func sources(r *experiment.Row, run *experiment.Finished) []sourceView {
	weighs, estimates := r.WeighsSources(), r.EstimatesAlpha()
	res := run.Result
	var out []sourceView
	for i, name := range run.Record.Identity.Sources {
		sv := sourceView{Name: name}
		if weighs && i < len(res.Lambda) {
			sv.Lambda = &res.Lambda[i]
		}
		if estimates && i < len(res.Alpha) && i < len(res.TrueAlpha) && len(res.Alpha[i]) == len(res.TrueAlpha[i]) && len(res.Alpha[i]) > 0 {
			var e float64
			for k, a := range res.Alpha[i] {
				e += math.Abs(a - res.TrueAlpha[i][k])
			}
			e /= float64(len(res.Alpha[i]))
			sv.AlphaError = &e
		}
		out = append(out, sv)
	}
	return out
}

// figuresView is the figures page.
type figuresView struct {
	Figures []figureView
}

// figureView is one figure of the figures page.
type figureView struct {
	Anchor, Title, Caption, Src string
}

func (s *Site) figures() ([]byte, error) {
	var v figuresView
	for i, f := range s.opt.Figures {
		v.Figures = append(v.Figures, figureView{figureAnchor(i, f), headline(f), f.Caption, s.figs[i]})
	}
	return s.render("figures", page{Title: "Figures", View: v})
}

// figureAnchor is the id of the i-th figure on the figures page.
func figureAnchor(i int, f figures.Figure) string {
	return fmt.Sprintf("fig-%d-%s", i+1, fileSafe(f.Name))
}

// cmpOr returns the first of its arguments that is not "".
func cmpOr(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// headline returns the first line of a figure's title, which its drawing
// shows in full, or its name when it has none.
func headline(f figures.Figure) string {
	t, _, _ := strings.Cut(f.Title, "\n")
	return cmpOr(t, f.Name)
}
