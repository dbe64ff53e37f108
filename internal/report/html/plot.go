// This file draws the page's plots with gonum/plot as SVG: the convergence of a
// block's estimate (FreqSys, Fig. 2b) and the histogram of a fragment's times.

package html

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"regexp"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of a plot; the page scales it to its column.
var (
	plotWidth  = vg.Points(340)
	plotHeight = vg.Points(210)
)

// logTrialsFrom is the number of trials from which the convergence plot's trial axis
// is logarithmic: the series is sampled at 1.5 % steps, so a log axis spaces it
// evenly.
const logTrialsFrom = 300

var (
	estimateColor = color.NRGBA{R: 0xb2, G: 0x18, B: 0x2b, A: 0xff}
	bandColor     = color.NRGBA{R: 0xfd, G: 0xae, B: 0x6b, A: 0x70}
	finalColor    = color.NRGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
	decidedColor  = color.NRGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0xff}
	barColor      = color.NRGBA{R: 0x9e, G: 0xca, B: 0xe1, A: 0xff}
	cutColor      = color.NRGBA{R: 0xd7, G: 0x30, B: 0x27, A: 0xff}
	computedColor = color.NRGBA{R: 0x1a, G: 0x98, B: 0x50, A: 0x50}
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font} {
		f.Variant, f.Size = "Sans", vg.Points(10)
	}
	for _, f := range []*font.Font{&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		f.Variant, f.Size = "Sans", vg.Points(8)
	}
	p.Add(plotter.NewGrid())
	return p
}

// svgOf renders a plot as an SVG element for inline use: the XML prolog and comments
// are dropped.
func svgOf(p *plot.Plot, class string) ([]byte, error) {
	c := vgsvg.New(plotWidth, plotHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	if i := bytes.Index(out, []byte("<svg")); i >= 0 {
		out = out[i:]
	}
	out = comment().ReplaceAll(out, nil)
	out = bytes.Replace(out, []byte("<svg"), []byte(`<svg class="`+class+`" role="img"`), 1)
	return sizeRE().ReplaceAll(out, []byte(`$1="100%"`)), nil
}

// sizeRE matches the fixed width of the plot's root element; the page sizes it.
var sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(width)="[0-9.]+pt"`) })

// convergencePlot draws a block's estimate and its γ interval against the number of
// trials, with the final estimate dashed and, for a converged block, the trial at
// which it converged dotted.
func convergencePlot(title string, b *Block) ([]byte, error) {
	if len(b.Series) == 0 {
		return nil, nil
	}
	p := newPlot(title, "trials", "estimate e(b)")
	last := b.Series[len(b.Series)-1]
	mean := make(plotter.XYs, 0, len(b.Series))
	var upper, lower plotter.XYs
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range b.Series {
		x := float64(pt.N)
		mean = append(mean, plotter.XY{X: x, Y: pt.Mean})
		lo, hi := pt.Mean, pt.Mean
		if !math.IsNaN(pt.HalfWidth) {
			lo, hi = pt.Mean-pt.HalfWidth, pt.Mean+pt.HalfWidth
			upper = append(upper, plotter.XY{X: x, Y: hi})
			lower = append(lower, plotter.XY{X: x, Y: lo})
		}
		// The first trials' intervals are wide: they do not set the scale.
		if pt.N >= 3 || last.N < 3 {
			ylo, yhi = min(ylo, lo), max(yhi, hi)
		}
	}
	if len(upper) >= 2 {
		ring := append(plotter.XYs{}, upper...)
		for i := len(lower) - 1; i >= 0; i-- {
			ring = append(ring, lower[i])
		}
		band, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, err
		}
		band.Color = bandColor
		band.LineStyle.Width = 0
		p.Add(band)
		p.Legend.Add("γ interval", band)
	}
	line, err := plotter.NewLine(mean)
	if err != nil {
		return nil, err
	}
	line.Color = estimateColor
	line.Width = vg.Points(1.5)
	p.Add(line)
	p.Legend.Add("estimate", line)
	first := float64(b.Series[0].N)
	final, err := plotter.NewLine(plotter.XYs{{X: first, Y: last.Mean}, {X: float64(last.N), Y: last.Mean}})
	if err != nil {
		return nil, err
	}
	final.Color = finalColor
	final.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(final)
	pad := (yhi - ylo) * 0.08
	if pad == 0 || math.IsNaN(pad) || math.IsInf(pad, 0) {
		pad = math.Max(math.Abs(last.Mean)*0.1, 0.5)
	}
	if !math.IsInf(ylo, 0) {
		p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
	}
	if b.DecidedAt > 0 {
		d, err := plotter.NewLine(plotter.XYs{{X: float64(b.DecidedAt), Y: p.Y.Min}, {X: float64(b.DecidedAt), Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		d.Color = decidedColor
		d.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(d)
		p.Legend.Add(fmt.Sprintf("converged @%d", b.DecidedAt), d)
	}
	if last.N >= logTrialsFrom {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.X.Min = first
	if last.N > b.Series[0].N {
		p.X.Max = float64(last.N)
	} else {
		p.X.Max = first + 1
	}
	p.Legend.Top = true
	return svgOf(p, "plot convergence")
}

// timeUnit picks the unit in which times around x (ns) are printed.
func timeUnit(x float64) (div float64, unit string) {
	switch x = math.Abs(x); {
	case x >= 1e9:
		return 1e9, "s"
	case x >= 1e6:
		return 1e6, "ms"
	case x >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// dur prints a time in ns with 4 significant digits in a fitting unit: "848.9 µs".
func dur(ns float64) string {
	div, unit := timeUnit(ns)
	return num(ns/div) + " " + unit
}

// thresholdOnScale reports whether a fragment's cut threshold is a time on the
// scale of its kept samples (the largest kept sample is below it). The total of a
// composition is cut on another quantity, its residual.
func (t *Timing) thresholdOnScale() bool {
	h := t.Histogram
	return t.Threshold != nil && len(h.Edges) > 0 && *t.Threshold >= h.Edges[len(h.Edges)-1]
}

// timingPlot draws a fragment's histogram of kept times (Sturges bins), the interval
// of its mean shaded, the mean as a line, the cut threshold dashed and the cut
// outliers as crosses on the axis, and the computed interval, if any, in green. The
// time axis spans the kept samples and the threshold; outliers beyond it are drawn
// at its right end.
func timingPlot(t *Timing) ([]byte, error) {
	h := t.Histogram
	if len(h.Counts) == 0 || len(h.Edges) != len(h.Counts)+1 {
		return nil, nil
	}
	lo, hi := h.Edges[0], h.Edges[len(h.Edges)-1]
	if t.thresholdOnScale() {
		hi = max(hi, *t.Threshold)
	}
	if c := t.Computed; c != nil {
		lo, hi = min(lo, c.Mean-c.HalfWidth), max(hi, c.Mean+c.HalfWidth)
	}
	pad := (hi - lo) * 0.05
	if pad <= 0 {
		pad = math.Max(math.Abs(lo)*0.01, 1)
	}
	lo, hi = lo-pad, hi+pad
	div, unit := timeUnit(hi)
	x := func(ns float64) float64 { return ns / div }
	p := newPlot(t.Name, "time ("+unit+")", "samples")
	top := 0
	for _, c := range h.Counts {
		top = max(top, c)
	}
	vline := func(at float64, c color.Color, dashes []vg.Length) (*plotter.Line, error) {
		l, err := plotter.NewLine(plotter.XYs{{X: x(at), Y: 0}, {X: x(at), Y: float64(top)}})
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = c, dashes
		p.Add(l)
		return l, nil
	}
	band := func(from, to float64, c color.Color, label string) error {
		if !(to > from) {
			return nil
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: x(from), Y: 0}, {X: x(to), Y: 0}, {X: x(to), Y: float64(top)}, {X: x(from), Y: float64(top)}})
		if err != nil {
			return err
		}
		poly.Color = c
		poly.LineStyle.Width = 0
		p.Add(poly)
		p.Legend.Add(label, poly)
		return nil
	}
	if ilo, ihi, ok := t.interval(); ok {
		if err := band(ilo, ihi, bandColor, fmt.Sprintf("mean, %.3g%% interval", 100*t.Confidence)); err != nil {
			return nil, err
		}
	}
	if c := t.Computed; c != nil {
		if err := band(c.Mean-c.HalfWidth, c.Mean+c.HalfWidth, computedColor, "computed"); err != nil {
			return nil, err
		}
		if _, err := vline(c.Mean, decidedColor, nil); err != nil {
			return nil, err
		}
	}
	var bins []plotter.HistogramBin
	for i, c := range h.Counts {
		bins = append(bins, plotter.HistogramBin{Min: x(h.Edges[i]), Max: x(h.Edges[i+1]), Weight: float64(c)})
	}
	width := bins[0].Max - bins[0].Min
	if width <= 0 {
		// All kept times equal: one bar of a visible width.
		w := x(pad)
		bins[0].Min, bins[0].Max, width = bins[0].Min-w/2, bins[0].Min+w/2, w
	}
	hist := &plotter.Histogram{Bins: bins, Width: width, FillColor: barColor, LineStyle: plotter.DefaultLineStyle}
	hist.LineStyle.Width = vg.Points(0.5)
	p.Add(hist)
	if t.Mean != nil {
		if _, err := vline(*t.Mean, estimateColor, nil); err != nil {
			return nil, err
		}
	}
	if t.thresholdOnScale() {
		th, err := vline(*t.Threshold, cutColor, []vg.Length{vg.Points(4), vg.Points(3)})
		if err != nil {
			return nil, err
		}
		p.Legend.Add("cut threshold", th)
	}
	if len(t.Cut) > 0 {
		pts := make(plotter.XYs, len(t.Cut))
		beyond := 0
		for i, c := range t.Cut {
			if c > hi {
				c, beyond = hi, beyond+1
			}
			pts[i] = plotter.XY{X: x(max(c, lo)), Y: 0}
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = cutColor
		s.GlyphStyle.Shape = draw.CrossGlyph{}
		s.GlyphStyle.Radius = vg.Points(3)
		p.Add(s)
		label := fmt.Sprintf("cut outliers (%d)", len(t.Cut))
		if beyond > 0 {
			label = fmt.Sprintf("cut outliers (%d, %d beyond the axis)", len(t.Cut), beyond)
		}
		p.Legend.Add(label, s)
	}
	p.X.Min, p.X.Max = x(lo), x(hi)
	p.Y.Min = 0
	p.Legend.Top = true
	return svgOf(p, "plot histogram")
}
