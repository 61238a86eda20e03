package figures

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	plotpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ramp is a colour map that runs through colours at given values, linearly
// between them in sRGB; its Min and Max are its first and last values.
type ramp struct {
	at    []float64 // ascending, at least two
	col   []color.RGBA
	alpha float64
}

// sequential returns the ramp from near white at lo to deep blue at hi.
func sequential(lo, hi float64) *ramp {
	return &ramp{at: []float64{lo, (lo + hi) / 2, hi}, alpha: 1,
		col: []color.RGBA{{0xf7, 0xfb, 0xff, 0xff}, {0x6b, 0xae, 0xd6, 0xff}, {0x08, 0x30, 0x6b, 0xff}}}
}

// diverging returns the ramp from blue at lo through near white at mid to
// red at hi (lo < mid < hi).
func diverging(lo, mid, hi float64) *ramp {
	return &ramp{at: []float64{lo, mid, hi}, alpha: 1,
		col: []color.RGBA{{0x21, 0x66, 0xac, 0xff}, {0xf7, 0xf7, 0xf7, 0xff}, {0xb2, 0x18, 0x2b, 0xff}}}
}

// At returns the colour of v, an error outside [Min, Max].
func (r *ramp) At(v float64) (color.Color, error) {
	if !(v >= r.Min() && v <= r.Max()) {
		return nil, fmt.Errorf("colour map: %v outside [%v, %v]", v, r.Min(), r.Max())
	}
	i := 1
	for i < len(r.at)-1 && v > r.at[i] {
		i++
	}
	f := (v - r.at[i-1]) / (r.at[i] - r.at[i-1])
	mix := func(a, b uint8) uint8 { return uint8(math.Round(float64(a) + f*(float64(b)-float64(a)))) }
	a, b := r.col[i-1], r.col[i]
	return color.NRGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), uint8(math.Round(255 * r.alpha))}, nil
}

// Min returns the value of the first colour.
func (r *ramp) Min() float64 { return r.at[0] }

// Max returns the value of the last colour.
func (r *ramp) Max() float64 { return r.at[len(r.at)-1] }

// SetMin moves the first colour to v, the others kept in proportion.
func (r *ramp) SetMin(v float64) { r.rescale(v, r.Max()) }

// SetMax moves the last colour to v, the others kept in proportion.
func (r *ramp) SetMax(v float64) { r.rescale(r.Min(), v) }

func (r *ramp) rescale(lo, hi float64) {
	olo, ohi := r.Min(), r.Max()
	for i, v := range r.at {
		r.at[i] = lo + (v-olo)/(ohi-olo)*(hi-lo)
	}
}

// Alpha returns the opacity of the colours.
func (r *ramp) Alpha() float64 { return r.alpha }

// SetAlpha sets the opacity of the colours, in [0, 1].
func (r *ramp) SetAlpha(a float64) { r.alpha = a }

// Palette returns n colours at even steps from Min to Max.
func (r *ramp) Palette(n int) plotpalette.Palette {
	cols := make([]color.Color, n)
	for i := range cols {
		v := r.Min() + (r.Max()-r.Min())*float64(i)/float64(max(n-1, 1))
		cols[i], _ = r.At(min(v, r.Max()))
	}
	return colours(cols)
}

// colours is a palette.Palette.
type colours []color.Color

// Colors returns the colours.
func (c colours) Colors() []color.Color { return c }

// onColour returns the colour of text written on a ground of colour c:
// white on a dark ground, black on a light one.
func onColour(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	if 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) < 0.5*0xffff {
		return color.White
	}
	return color.Black
}

// cells is the grid of a heat map: v[r][c] is the value of column c in row
// r, row 0 at the bottom; column c is at x0+c, row r at r.
type cells struct {
	v  [][]float64
	x0 float64
}

// Dims returns the columns and rows.
func (g cells) Dims() (c, r int) { return len(g.v[0]), len(g.v) }

// Z returns the value of column c in row r; NaN outside the grid.
func (g cells) Z(c, r int) float64 {
	if r < 0 || r >= len(g.v) || c < 0 || c >= len(g.v[r]) {
		return math.NaN()
	}
	return g.v[r][c]
}

// X returns the position of column c.
func (g cells) X(c int) float64 { return g.x0 + float64(c) }

// Y returns the position of row r.
func (g cells) Y(r int) float64 { return float64(r) }

// noValue is the colour of a heat map's cell without a value.
var noValue = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}

// heat is a heat map: the cells of a grid as rectangles in the colours of
// a ramp, a cell without a value (NaN) in noValue, or left out when blank
// is set. Each cell reaches a hair into the next cell at its right and
// above it, so that no seam shows between neighbours.
type heat struct {
	g     cells
	m     *ramp
	blank bool
}

// hair is how far a heat map's cell reaches into its neighbours.
const hair = vg.Length(0.5)

// colour returns the colour of the cell at column c in row r; ok is false
// for a cell left out.
func (h *heat) colour(c, r int) (col color.Color, ok bool) {
	v := h.g.Z(c, r)
	if math.IsNaN(v) {
		return noValue, !h.blank
	}
	col, _ = h.m.At(min(max(v, h.m.Min()), h.m.Max()))
	return col, true
}

// Plot draws the cells.
func (h *heat) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	cols, rows := h.g.Dims()
	for r := range rows {
		for col := range cols {
			fill, ok := h.colour(col, r)
			if !ok {
				continue
			}
			x0, x1 := trX(h.g.X(col)-0.5), trX(h.g.X(col)+0.5)
			y0, y1 := trY(h.g.Y(r)-0.5), trY(h.g.Y(r)+0.5)
			if _, next := h.colour(col+1, r); col+1 < cols && next {
				x1 += hair
			}
			if _, next := h.colour(col, r+1); r+1 < rows && next {
				y1 += hair
			}
			var pa vg.Path
			pa.Move(vg.Point{X: x0, Y: y0})
			pa.Line(vg.Point{X: x1, Y: y0})
			pa.Line(vg.Point{X: x1, Y: y1})
			pa.Line(vg.Point{X: x0, Y: y1})
			pa.Close()
			c.SetColor(fill)
			c.Fill(pa)
		}
	}
}

// DataRange returns the extent of the cells.
func (h *heat) DataRange() (xmin, xmax, ymin, ymax float64) {
	cols, rows := h.g.Dims()
	return h.g.X(0) - 0.5, h.g.X(cols-1) + 0.5, h.g.Y(0) - 0.5, h.g.Y(rows-1) + 0.5
}

// cellFontSize is the size of the values written in the cells of a heat
// map: apart from the tick labels' 10 points.
const cellFontSize = 9

// cellLabels returns the texts written at the centres of g's cells, each
// in the colour that reads on its cell's (m's colour of the value, or
// noValue); a cell whose text is "" gets none.
func cellLabels(g cells, m *ramp, label func(c, r int) string) (*plotter.Labels, error) {
	var xys plotter.XYLabels
	var styles []text.Style
	cols, rows := g.Dims()
	for r := range rows {
		for c := range cols {
			l := label(c, r)
			if l == "" {
				continue
			}
			var ground color.Color = noValue
			if v := g.Z(c, r); !math.IsNaN(v) {
				ground, _ = m.At(min(max(v, m.Min()), m.Max()))
			}
			xys.XYs = append(xys.XYs, plotter.XY{X: g.X(c), Y: g.Y(r)})
			xys.Labels = append(xys.Labels, l)
			styles = append(styles, text.Style{Font: font.From(plot.DefaultFont, vg.Points(cellFontSize)), Handler: plot.DefaultTextHandler,
				Color: onColour(ground), XAlign: draw.XCenter, YAlign: draw.YCenter})
		}
	}
	if len(xys.Labels) == 0 {
		return nil, errors.New("no cell has a text")
	}
	l, err := plotter.NewLabels(xys)
	if err != nil {
		return nil, err
	}
	l.TextStyle = styles
	return l, nil
}

// colourBar returns the plot of a vertical colour bar of m, its values
// named by label, its ticks round.
func colourBar(m *ramp, label string) *plot.Plot {
	p := plot.New()
	p.HideX()
	p.Y.Label.Text = label
	p.Y.Tick.Marker = plot.TickerFunc(roundTicks)
	p.Add(&ramps{m: m, steps: 128})
	return p
}

// ramps draws a vertical colour bar of m as steps filled rectangles from
// its least to its greatest value, over x in [0, 1]: shapes, not an
// image, since a viewer keeps an embedded image's proportions and would
// draw a bar one pixel wide as a thin line.
type ramps struct {
	m     *ramp
	steps int
}

// Plot implements plot.Plotter.
func (b *ramps) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	lo, hi := b.m.Min(), b.m.Max()
	d := (hi - lo) / float64(b.steps)
	x0, x1 := trX(0), trX(1)
	for i := range b.steps {
		v := lo + d*(float64(i)+0.5)
		col, err := b.m.At(v)
		if err != nil {
			continue
		}
		// Each step overlaps the next by a little, so that no seam of the
		// background shows between them.
		y0, y1 := trY(lo+d*float64(i)), trY(min(hi, lo+d*float64(i+1)+d/4))
		c.FillPolygon(col, c.ClipPolygonY([]vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}))
	}
}

// DataRange implements plot.DataRanger.
func (b *ramps) DataRange() (xmin, xmax, ymin, ymax float64) {
	return 0, 1, b.m.Min(), b.m.Max()
}
