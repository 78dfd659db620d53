package sim

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Charts are PNG files by name, as an experiment writes them under --out.
// The names depend only on the experiment and the scenario's resource ids,
// never on the run, so that a script can find them.
type Charts map[string][]byte

// Series is one named row of values, one per group of a bar chart.
type Series struct {
	Name   string
	Values []float64
}

// Line is one named curve of a line chart.
type Line struct {
	Name   string
	X, Y   []float64
	Dashed bool
	// Points draws the values as marks, without a line between them.
	Points bool
}

// chartWidth and chartHeight are the size of every chart: 8 x 4.5 inches,
// 768 x 432 pixels at the PNG's 96 dpi.
const (
	chartWidth  = 8 * vg.Inch
	chartHeight = 4.5 * vg.Inch
)

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = separatedTicks{}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p
}

// separatedTicks are gonum's default ticks with thousands separators in
// the labels of whole numbers of 1,000 and more (12,000, not 12000).
type separatedTicks struct{}

func (separatedTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label != "" && math.Abs(t.Value) >= 1000 && t.Value == math.Trunc(t.Value) {
			ticks[i].Label = separated(int64(t.Value))
		}
	}
	return ticks
}

// separated writes n with a comma every three digits.
func separated(n int64) string {
	s := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return sign + b.String()
}

// png writes p as a PNG of width w, with room above the data for the
// legend (it sits at the top, where it would hide the tallest bars).
func png(p *plot.Plot, w vg.Length, legendRows int) ([]byte, error) {
	if span := p.Y.Max - p.Y.Min; span > 0 {
		p.Y.Max += span * (0.05 + 0.07*float64(legendRows))
	}
	wt, err := p.WriterTo(w, chartHeight, "png")
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// BarChart draws series side by side (or stacked) over named groups: the
// shape of the thesis's bar figures (seed 004 Fig. 7.5-7.12).
func BarChart(title, ylabel string, groups []string, series []Series, stacked bool) ([]byte, error) {
	p := newPlot(title, "", ylabel)
	n := max(len(series), 1)
	// bars of one group share 80% of the group's width on a chart that
	// widens with the groups
	width := chartWidth
	if len(groups) > 8 {
		width = vg.Length(len(groups)) * vg.Inch
	}
	groupW := (width - 1.2*vg.Inch) / vg.Length(max(len(groups), 1))
	barW := groupW * 0.8
	if !stacked {
		barW /= vg.Length(n)
	}
	var below *plotter.BarChart
	for i, s := range series {
		if len(s.Values) != len(groups) {
			return nil, fmt.Errorf("chart %q: series %q has %d values for %d groups", title, s.Name, len(s.Values), len(groups))
		}
		b, err := plotter.NewBarChart(plotter.Values(s.Values), barW)
		if err != nil {
			return nil, fmt.Errorf("chart %q, series %q: %w", title, s.Name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if stacked {
			if below != nil {
				b.StackOn(below)
			}
			below = b
		} else {
			b.Offset = barW * (vg.Length(i) - vg.Length(n-1)/2)
		}
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	p.NominalX(groups...)
	if len(groups) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
	}
	p.Y.Min = math.Min(p.Y.Min, 0)
	return png(p, width, len(series))
}

// LineChart draws the lines over a shared x axis.
func LineChart(title, xlabel, ylabel string, lines []Line) ([]byte, error) {
	p := newPlot(title, xlabel, ylabel)
	for i, l := range lines {
		if len(l.X) != len(l.Y) {
			return nil, fmt.Errorf("chart %q: line %q has %d x and %d y", title, l.Name, len(l.X), len(l.Y))
		}
		xys := make(plotter.XYs, len(l.X))
		for j := range l.X {
			xys[j] = plotter.XY{X: l.X[j], Y: l.Y[j]}
		}
		if l.Points {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("chart %q, points %q: %w", title, l.Name, err)
			}
			sc.Color = plotutil.Color(i)
			sc.Shape = plotutil.Shape(i)
			sc.Radius = vg.Points(4)
			p.Add(sc)
			p.Legend.Add(l.Name, sc)
			continue
		}
		ln, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %q, line %q: %w", title, l.Name, err)
		}
		ln.Color = plotutil.Color(i)
		ln.Width = vg.Points(1.5)
		if l.Dashed {
			ln.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(ln)
		p.Legend.Add(l.Name, ln)
	}
	return png(p, chartWidth, len(lines))
}

// fileSafe is a resource id or class name as it may appear in a chart's
// file name: letters, digits, '-' and '_', anything else '_'.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}
