// Package figures draws a report's runs. Write draws each row of a report
// (a method with one settings label on one target, over its seeds) over
// its epochs: the target accuracy, the sources' weights lambda and, per
// source, the label ratios alpha beside the true ones. Paper draws the
// figures of the WADN paper that the runs allow, as SVG and PNG (Figure).
// Every curve is the mean over the seeds with a band from the lowest to the
// highest seed.
package figures

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/method"
)

// palette holds ten colours told apart in print and by most colour-blind
// readers (Tableau 10); a series beyond the tenth reuses them with dashes.
var palette = []color.RGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// maxClasses is the most classes an alpha panel draws one by one; beyond,
// it draws each source's error against the true ratios instead.
const maxClasses = 10 // len(palette)

// Write draws every row of rep into dir, an SVG file a row for its
// accuracy, and for its lambda and its alpha when the row's method weighs
// its sources (Row.WeighsSources) and estimates alpha (Row.EstimatesAlpha),
// and returns their names.
func Write(dir string, rep *experiment.Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, row := range rep.Rows {
		runs, err := histories(row)
		if err != nil {
			return files, err
		}
		if len(runs) == 0 {
			continue
		}
		base := fmt.Sprintf("%s-%s-%s-%s", row.Dataset, row.Target, row.Scenario, row.Method)
		if row.Label != "" {
			base += "-" + fileSafe(row.Label)
		}
		title := fmt.Sprintf("%s %s, %s, target %s", row.Name(), row.Scenario, row.Dataset, row.Target)
		for _, f := range []struct {
			suffix string
			draw   func(string, string, []seedRun) error
			drawn  bool
		}{{"accuracy", accuracyPlot, true}, {"lambda", lambdaPlot, row.WeighsSources()}, {"alpha", alphaPlot, row.EstimatesAlpha()}} {
			if !f.drawn {
				continue // flat lines at the sources' shares or the true ratios
			}
			name := filepath.Join(dir, base+"-"+f.suffix+".svg")
			if err := f.draw(name, title, runs); err != nil {
				return files, fmt.Errorf("%s: %w", name, err)
			}
			files = append(files, name)
		}
	}
	return files, nil
}

// Figure is one drawn figure: an SVG document and a PNG image of it, with
// the name of the files they are written to (without extension), its title
// and a caption saying what it shows.
type Figure struct {
	Name    string
	Title   string
	Caption string
	SVG     []byte
	PNG     []byte
}

// Write writes the figure into dir as NAME.svg and NAME.png, and returns
// their paths.
func (f Figure) Write(dir string) ([]string, error) {
	var files []string
	for _, out := range []struct {
		ext string
		b   []byte
	}{{".svg", f.SVG}, {".png", f.PNG}} {
		name := filepath.Join(dir, f.Name+out.ext)
		if err := os.WriteFile(name, out.b, 0o644); err != nil {
			return files, err
		}
		files = append(files, name)
	}
	return files, nil
}

// Accuracy draws the target accuracy over the epochs of every row of rows
// (methods, or one method's settings labels, on one target) in one panel:
// per row the mean over its seeds as a line and the range from the lowest
// to the highest seed as a band, every row in the legend by its name
// (Row.Name). Rows without an epoch log are left out; ok is false when
// none has one.
func Accuracy(title string, rows []*experiment.Row) (svg []byte, ok bool, err error) {
	p := newPlot("", "epoch", "target accuracy (%)")
	var bands []band
	seeds := 0
	for i, row := range rows {
		runs, err := histories(row)
		if err != nil {
			return nil, false, err
		}
		if len(runs) == 0 {
			continue
		}
		b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) { return r.hist[e].Accuracy, true })
		if !ok {
			continue
		}
		b.name, b.col = row.Name(), palette[i%len(palette)]
		if i >= len(palette) {
			b.dashed = true
		}
		bands = append(bands, b)
		seeds = max(seeds, len(runs))
	}
	if len(bands) == 0 {
		return nil, false, nil
	}
	legend, err := addBands(p, bands)
	if err != nil {
		return nil, false, err
	}
	svg, err = render(fmt.Sprintf("%s\ntarget accuracy, mean and range over the seeds (up to %d)", title, seeds), []*plot.Plot{p}, legend)
	return svg, err == nil, err
}

// seedRun is one seed's epoch log with its sources and true ratios.
type seedRun struct {
	sources []string
	hist    []method.EpochLog
	truth   [][]float64
}

// histories reads the epoch logs of a row's runs.
func histories(row *experiment.Row) ([]seedRun, error) {
	var out []seedRun
	for _, r := range row.Runs() {
		h, err := r.EpochLog()
		if err != nil {
			return nil, err
		}
		if len(h) > 0 {
			out = append(out, seedRun{sources: r.Record.Identity.Sources, hist: h, truth: r.Result.TrueAlpha})
		}
	}
	return out, nil
}

// band is one series over the epochs: the mean over the seeds and the
// lowest and highest seed; or, reference set, a dashed constant line at
// value over the epochs of mean.
type band struct {
	name         string
	mean, lo, hi []float64
	// x are the positions of the values along x; nil: the epochs 1, 2, ...
	x         []float64
	col       color.RGBA
	dashed    bool        // the mean's line dashed: a series beyond the palette's colours
	dashes    []vg.Length // the mean's line's dashes, when set (else dashed's)
	points    bool        // a mark at every value of the mean
	reference bool
	value     float64
}

// at returns the position along x of the band's e-th value.
func (b band) at(e int) float64 {
	if b.x != nil {
		return b.x[e]
	}
	return float64(e + 1)
}

// seriesOf returns the band of value(run, epoch) over the runs' common
// epochs; ok false when a run lacks the value.
func seriesOf(runs []seedRun, value func(r seedRun, e int) (float64, bool)) (b band, ok bool) {
	n := len(runs[0].hist)
	for _, r := range runs {
		n = min(n, len(r.hist))
	}
	for e := range n {
		var vs []float64
		for _, r := range runs {
			v, ok := value(r, e)
			if !ok {
				return b, false
			}
			vs = append(vs, v)
		}
		b.push(vs)
	}
	return b, n > 0
}

// push appends to b a point of the values vs (at least one): their mean,
// lowest and highest.
func (b *band) push(vs []float64) {
	var s float64
	for _, v := range vs {
		s += v
	}
	b.mean = append(b.mean, s/float64(len(vs)))
	b.lo = append(b.lo, slices.Min(vs))
	b.hi = append(b.hi, slices.Max(vs))
}

func accuracyPlot(name, title string, runs []seedRun) error {
	b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) { return r.hist[e].Accuracy, true })
	if !ok {
		return nil
	}
	b.col = palette[0]
	p := newPlot("", "epoch", "target accuracy (%)")
	if _, err := addBands(p, []band{b}); err != nil {
		return err
	}
	return save(name, fmt.Sprintf("%s\ntarget accuracy, mean and range over %d seeds", title, len(runs)), []*plot.Plot{p}, nil)
}

func lambdaPlot(name, title string, runs []seedRun) error {
	var bands []band
	for t, src := range runs[0].sources {
		b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) {
			if t >= len(r.hist[e].Lambda) {
				return 0, false
			}
			return r.hist[e].Lambda[t], true
		})
		if ok {
			b.name, b.col = src, palette[t%len(palette)]
			bands = append(bands, b)
		}
	}
	p := newPlot("", "epoch", "lambda (source weight)")
	legend, err := addBands(p, bands)
	if err != nil {
		return err
	}
	return save(name, fmt.Sprintf("%s\nlambda per source, mean and range over %d seeds", title, len(runs)), []*plot.Plot{p}, legend)
}

// alphaPlot draws a panel per source: the ratio of each class over the
// epochs with the true ratio as a dashed line of its colour, or, with more
// classes than colours, the source's mean absolute error against the true
// ratios. One legend, beside the panels, names the classes.
func alphaPlot(name, title string, runs []seedRun) error {
	if len(runs[0].sources) == 0 {
		return nil
	}
	var plots []*plot.Plot
	var legend []legendEntry
	for t, src := range runs[0].sources {
		K := 0
		if len(runs[0].hist[0].Alpha) > t {
			K = len(runs[0].hist[0].Alpha[t])
		}
		p := newPlot("source "+src, "epoch", "alpha(y) = T(y) / S(y)")
		var bands []band
		if K <= maxClasses {
			for k := range K {
				b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) {
					if t >= len(r.hist[e].Alpha) || k >= len(r.hist[e].Alpha[t]) {
						return 0, false
					}
					return r.hist[e].Alpha[t][k], true
				})
				if !ok {
					continue
				}
				b.name, b.col = fmt.Sprintf("class %d", k), palette[k]
				bands = append(bands, b)
				if truth, ok := meanTruth(runs, t, k); ok {
					bands = append(bands, band{name: fmt.Sprintf("class %d, true", k), col: palette[k], reference: true, value: truth, mean: b.mean})
				}
			}
		} else {
			p.Y.Label.Text = "mean |alpha - true ratio|"
			b, ok := seriesOf(runs, func(r seedRun, e int) (float64, bool) {
				if t >= len(r.hist[e].AlphaError) {
					return 0, false
				}
				return r.hist[e].AlphaError[t], true
			})
			if ok {
				b.name, b.col = "error", palette[0]
				bands = append(bands, b)
			}
		}
		entries, err := addBands(p, bands)
		if err != nil {
			return err
		}
		if t == 0 {
			legend = entries
		}
		plots = append(plots, p)
	}
	return save(name, fmt.Sprintf("%s\nalpha per source (dashed: the true ratios), mean and range over %d seeds", title, len(runs)), plots, legend)
}

// meanTruth returns the true ratio of class k of source t, averaged over the
// runs (each seed draws its own samples).
func meanTruth(runs []seedRun, t, k int) (float64, bool) {
	var s float64
	for _, r := range runs {
		if t >= len(r.truth) || k >= len(r.truth[t]) {
			return 0, false
		}
		s += r.truth[t][k]
	}
	return s / float64(len(runs)), true
}

// newPlot returns a plot with whole-epoch ticks on x and round ticks on y.
func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.X.Tick.Marker = plot.TickerFunc(epochTicks)
	p.Y.Tick.Marker = plot.TickerFunc(roundTicks)
	p.Add(plotter.NewGrid())
	return p
}

// addBands draws each band's range as a light polygon and its mean as a
// line, and returns a legend entry per named band.
func addBands(p *plot.Plot, bands []band) ([]legendEntry, error) {
	var legend []legendEntry
	for _, b := range bands {
		n := len(b.mean)
		if n == 0 {
			continue
		}
		if b.reference {
			xy := plotter.XYs{{X: 1, Y: b.value}, {X: float64(max(n, 2)), Y: b.value}}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width, l.Dashes = b.col, vg.Points(1), []vg.Length{vg.Points(4), vg.Points(3)}
			p.Add(l)
			if b.name != "" {
				legend = append(legend, legendEntry{b.name, l})
			}
			continue
		}
		if n > 1 && !slices.Equal(b.lo, b.hi) {
			poly := make(plotter.XYs, 0, 2*n)
			for e := range n {
				poly = append(poly, plotter.XY{X: b.at(e), Y: b.lo[e]})
			}
			for e := n - 1; e >= 0; e-- {
				poly = append(poly, plotter.XY{X: b.at(e), Y: b.hi[e]})
			}
			pg, err := plotter.NewPolygon(poly)
			if err != nil {
				return nil, err
			}
			pg.Color = color.NRGBA{R: b.col.R, G: b.col.G, B: b.col.B, A: 0x30}
			pg.LineStyle.Width = 0
			p.Add(pg)
		}
		xy := make(plotter.XYs, n)
		for e := range n {
			xy[e] = plotter.XY{X: b.at(e), Y: b.mean[e]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = b.col, vg.Points(1.5)
		if b.dashed {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(2)}
		}
		if b.dashes != nil {
			l.Dashes = b.dashes
		}
		var thumb plot.Thumbnailer = l
		p.Add(l)
		if b.points {
			pts.Color, pts.Radius, pts.Shape = b.col, vg.Points(3), draw.CircleGlyph{}
			p.Add(pts)
			thumb = lineAndPoints{l, pts}
		}
		if b.name != "" {
			legend = append(legend, legendEntry{b.name, thumb})
		}
	}
	return legend, nil
}

// lineAndPoints is the legend's thumbnail of a line with marks.
type lineAndPoints struct {
	l   *plotter.Line
	pts *plotter.Scatter
}

// Thumbnail draws the line, and a mark on it.
func (t lineAndPoints) Thumbnail(c *draw.Canvas) {
	t.l.Thumbnail(c)
	t.pts.Thumbnail(c)
}

// legendEntry is a named series and the line that draws it.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// titleRoom is how much wider than its font's measure the canvas is for a
// title: the SVG names Liberation Serif, and a viewer without it draws the
// text in a font up to a quarter wider.
const titleRoom = 1.25

// save draws the plots side by side under the title, with the legend
// entries in a column of their own at the right, and writes them as SVG to
// name.
func save(name, title string, plots []*plot.Plot, legend []legendEntry) error {
	svg, err := render(title, plots, legend)
	if err != nil {
		return err
	}
	return os.WriteFile(name, svg, 0o644)
}

// render draws the plots side by side under the title, with the legend
// entries in a column of their own at the right, as an SVG document.
func render(title string, plots []*plot.Plot, legend []legendEntry) ([]byte, error) {
	return layout{title: title, panels: [][]*plot.Plot{plots}, legend: legend}.drawing().svg()
}

// The sizes of a figure's parts.
const (
	panelW, panelH = 11 * vg.Centimeter, 10 * vg.Centimeter // a panel, unless its layout says otherwise
	minTitleH      = 1.6 * vg.Centimeter                    // the band of the title, at least
	legendW        = 4.5 * vg.Centimeter                    // the legend's column, at least
	barW           = 2.8 * vg.Centimeter                    // a colour bar's column
)

// layout is the arrangement of a figure: the title over rows of panels, and
// at the right a column with the legend entries and, under them, a colour
// bar.
type layout struct {
	title  string
	panels [][]*plot.Plot // rows of panels, all as long; a nil panel leaves its tile empty
	legend []legendEntry
	bar    *plot.Plot // the colour bar's plot, nil for none
	// panelW and panelH are a panel's size; zero: panelW and panelH.
	panelW, panelH vg.Length
}

// drawing lays l out on a canvas as wide as its panels, its legend's
// column and its title need.
func (l layout) drawing() drawing {
	pw, ph := cmp.Or(l.panelW, panelW), cmp.Or(l.panelH, panelH)
	cols := 0
	for _, row := range l.panels {
		cols = max(cols, len(row))
	}
	key := plot.New()
	key.HideAxes()
	key.Legend.Top, key.Legend.Left = true, true
	side := vg.Length(0)
	for _, e := range l.legend {
		key.Legend.Add(e.name, e.thumb)
		// The entry's text, its thumbnail and the space around them.
		side = max(side, legendW, key.Legend.TextStyle.Width(e.name)+key.Legend.ThumbnailWidth+vg.Centimeter)
	}
	if l.bar != nil {
		side = max(side, barW)
	}
	head := plot.New()
	head.Title.Text = l.title
	titleH := max(minTitleH, head.Title.TextStyle.Height(l.title)+0.9*vg.Centimeter)
	// As wide as the title, whose lines would be clipped otherwise, with
	// room for a viewer's wider font where it lacks the one named.
	w := max(vg.Length(cols)*pw+side, titleRoom*head.Title.TextStyle.Width(l.title)+vg.Centimeter)
	h := vg.Length(len(l.panels))*ph + titleH
	return drawing{w: w, h: h, draw: func(dc draw.Canvas) {
		head.HideAxes()
		head.Draw(draw.Crop(dc, 0, 0, h-titleH, 0))
		area := draw.Crop(dc, 0, 0, 0, -titleH)
		if side > 0 {
			column := draw.Crop(area, w-side, 0, 0, 0)
			if len(l.legend) > 0 {
				key.Draw(column)
			}
			if l.bar != nil {
				top := vg.Centimeter / 2
				if len(l.legend) > 0 {
					top = (area.Max.Y - area.Min.Y) / 2
				}
				l.bar.Draw(draw.Crop(column, 0, -vg.Centimeter/2, vg.Centimeter, -top))
			}
			area = draw.Crop(area, 0, -side, 0, 0)
		}
		if cols == 0 {
			return
		}
		// PadLeft keeps the whole height of the font of the y axes' labels,
		// not only their letters, on the canvas.
		tiles := draw.Tiles{Rows: len(l.panels), Cols: cols, PadX: vg.Centimeter / 2, PadY: vg.Centimeter / 2, PadLeft: vg.Points(3), PadRight: vg.Centimeter / 4}
		canvases := plot.Align(l.panels, tiles, area)
		for i, row := range l.panels {
			for j, p := range row {
				if p != nil {
					p.Draw(canvases[i][j])
				}
			}
		}
	}}
}

// drawing is a figure laid out: its size, and how it draws itself on a
// canvas of that size.
type drawing struct {
	w, h vg.Length
	draw func(draw.Canvas)
}

// pngDPI is the resolution of the PNG figures: a 30 cm figure is about
// 1800 pixels wide.
const pngDPI = 150

// svg returns the drawing as an SVG document.
func (d drawing) svg() ([]byte, error) {
	c := vgsvg.New(d.w, d.h)
	d.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// png returns the drawing as a PNG image of pngDPI on a white ground.
func (d drawing) png() ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(d.w, d.h), vgimg.UseDPI(pngDPI))
	d.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// figure returns the figure of the drawing d, in both forms.
func (d drawing) figure(name, title, caption string) (Figure, error) {
	f := Figure{Name: name, Title: title, Caption: caption}
	var err error
	if f.SVG, err = d.svg(); err != nil {
		return f, err
	}
	f.PNG, err = d.png()
	return f, err
}

// roundTicks returns major ticks at whole multiples of a round step (1, 2,
// 2.5 or 5 times a power of ten) within [lo, hi], about five of them, each
// labelled with the digits the step needs.
func roundTicks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)}}
	}
	step := roundStep((hi - lo) / 5)
	digits := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	if m := step / math.Pow10(-digits); math.Abs(m-math.Round(m)) > 1e-9 {
		digits++ // 2.5 x 10^k needs one digit more
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i*step + 0 // not -0
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', digits, 64)})
	}
	return ticks
}

// roundStep returns the least of 1, 2, 2.5, 5 times a power of ten that is
// at least x.
func roundStep(x float64) float64 {
	p := math.Pow10(int(math.Floor(math.Log10(x))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

// epochTicks returns major ticks at whole epochs, 1, 2 or 5 times a power
// of ten apart, at most seven of them, each epoch labelled once.
func epochTicks(lo, hi float64) []plot.Tick {
	step := niceStep(math.Max(hi-lo, 1))
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		if v >= 1 || lo < 1 {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmt.Sprint(int(math.Round(v)))})
		}
	}
	return ticks
}

// niceStep returns the least of 1, 2, 5, 10, 20, 50, ... that splits span
// into at most six steps.
func niceStep(span float64) float64 {
	for p := 1.0; ; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if m*p*6 >= span {
				return m * p
			}
		}
	}
}

// fileSafe returns s with every character other than a letter, digit, dot
// or minus replaced by '_', for a file name.
func fileSafe(s string) string {
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '-':
			return c
		}
		return '_'
	}, s)
}
