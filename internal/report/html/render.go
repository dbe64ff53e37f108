// This file writes the page: the template, the graphs and plots, the inlined style
// and script, and the page's data as JSON.

package html

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"
)

var (
	//go:embed assets/page.tmpl
	pageTemplate string
	//go:embed assets/page.css
	pageCSS string
	//go:embed assets/page.js
	pageJS string
)

// DefaultMaxPlots bounds the convergence plots of one page, which take a few
// kilobytes each.
const DefaultMaxPlots = 2000

// Options tune Write.
type Options struct {
	// Dot is the path of Graphviz's dot; "" looks it up in $PATH. When it cannot run,
	// the page says so and lists every function's blocks instead of drawing them.
	Dot string
	// MaxPlots bounds the number of convergence plots; 0 means DefaultMaxPlots.
	MaxPlots int
	// Warn, when not nil, is told what the page could not do (no Graphviz), so that
	// the command says it on stderr as well as on the page.
	Warn func(msg string)
}

// DataID is the id of the <script type="application/json"> element that holds the
// page's data.
const DataID = "fragprof-data"

// tmpl is the page's template, parsed on first use: parsing it at start-up cost
// every run of fragprof, most of which write no page, about 3,000 allocations.
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"num":   num,
		"dur":   dur,
		"lines": linesText,
		"pct":   func(x float64) string { return fmt.Sprintf("%.3g%%", 100*x) },
		"signed": func(x float64) string {
			return fmt.Sprintf("%+g", round4(x))
		},
		"fill": fillOf,
		"heatCell": func(c string, heat float64) template.CSS {
			if !validColor(c) {
				return ""
			}
			return template.CSS("background:" + c + ";color:" + textColor(heat))
		},
		"safeColor": func(c string) template.CSS {
			if !validColor(c) {
				return "transparent"
			}
			return template.CSS(c)
		},
		"deref":  func(x *float64) float64 { return *x },
		"mul100": func(x float64) float64 { return 100 * x },
		"join":   func(s []string) string { return strings.Join(s, " ") },
		"blockLabel": func(v *view, ref string) string {
			var fi, b int
			if _, err := fmt.Sscanf(ref, "f%d-b%d", &fi, &b); err == nil {
				if blk := v.ref(fi, b); blk != nil {
					return blk.Label
				}
			}
			return ref
		},
	}).Parse(pageTemplate))
})

// view is what the template reads.
type view struct {
	*Page
	Data   template.JS // the page as JSON; see Write
	Style  template.CSS
	Script template.JS
	Notes  []string // what the machine could not draw (no dot, too many plots)
	Views  []*funcView
	Timing []timingView
}

type funcView struct {
	*Func
	Index  int
	SVG    template.HTML // nil: listed instead of drawn
	Blocks []*blockView
}

type blockView struct {
	*Block
	Func     *Func
	Text     string // value ± half-width
	StateTxt string
	Rows     []Row
	Preds    []edgeView
	Succs    []edgeView
	Plot     template.HTML
	PlotNote string
	Calls    string // value per call
}

type edgeView struct {
	Ref, Label, Kind, Value, Prob string
}

type timingView struct {
	*Timing
	Plot    template.HTML
	OnScale bool // the threshold is a time on the samples' scale
}

// Render returns the page Write writes.
func Render(p *Page, o Options) ([]byte, error) {
	var buf bytes.Buffer
	if err := Write(&buf, p, o); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes p as one self-contained HTML page: styles, script, graphs and plots are
// inlined, and nothing is fetched when it is viewed. The graphs are drawn by running
// dot; without it the page says so and lists the blocks.
//
// Every text of the page is escaped by html/template. The graphs' SVG comes from dot,
// which escapes the labels it is given (and cleanSVG checks it holds drawing elements
// only); the plots' from gonum/plot, which escapes its text; the data is JSON from
// encoding/json, which writes <, > and & as \u003c, \u003e and \u0026, so no
// "</script>" can end its element early.
func Write(w io.Writer, p *Page, o Options) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	v := &view{Page: p, Data: template.JS(data), Style: template.CSS(pageCSS), Script: template.JS(pageJS)}
	graphs, err := p.drawGraphs(o.Dot)
	if err != nil {
		v.Notes = append(v.Notes, err.Error())
		graphs = make([][]byte, len(p.Funcs))
		if o.Warn != nil {
			o.Warn(err.Error())
		}
	}
	maxPlots := o.MaxPlots
	if maxPlots <= 0 {
		maxPlots = DefaultMaxPlots
	}
	plots := 0
	rows := map[string][]Row{}
	for fi, f := range p.Funcs {
		fv := &funcView{Func: f, Index: fi}
		if graphs[fi] != nil {
			fv.SVG = template.HTML(graphs[fi])
		}
		for _, b := range f.Blocks {
			bv := &blockView{Block: b, Func: f, Text: p.valueText(b), StateTxt: stateText(b)}
			bv.Rows = p.blockRows(b, rows)
			for _, e := range f.Edges {
				if e.To == b.ID {
					bv.Preds = append(bv.Preds, p.edgeView(fi, e, e.From))
				}
				if e.From == b.ID {
					bv.Succs = append(bv.Succs, p.edgeView(fi, e, e.To))
				}
			}
			if f.Calls != nil && *f.Calls > 0 && b.Value != nil {
				bv.Calls = num(*b.Value / *f.Calls)
			}
			if len(b.Series) > 0 {
				if plots < maxPlots {
					svg, err := convergencePlot(fmt.Sprintf("%s · %s", f.Name, b.Label), b)
					if err != nil {
						return fmt.Errorf("convergence plot of %s %s: %w", f.Name, b.Label, err)
					}
					bv.Plot = template.HTML(svg)
					plots++
				} else {
					bv.PlotNote = fmt.Sprintf("not drawn: the page holds at most %d plots", maxPlots)
				}
			}
			fv.Blocks = append(fv.Blocks, bv)
		}
		v.Views = append(v.Views, fv)
	}
	if plots == maxPlots && plots > 0 {
		v.Notes = append(v.Notes, fmt.Sprintf("only the first %d convergence plots were drawn", maxPlots))
	}
	for i := range p.Timing {
		t := &p.Timing[i]
		svg, err := timingPlot(t)
		if err != nil {
			return fmt.Errorf("histogram of %s: %w", t.Name, err)
		}
		tv := timingView{Timing: t, OnScale: t.thresholdOnScale()}
		if svg != nil {
			tv.Plot = template.HTML(svg)
		}
		v.Timing = append(v.Timing, tv)
	}
	return tmpl().Execute(w, v)
}

func (p *Page) edgeView(fi int, e *Edge, other int) edgeView {
	f := p.Funcs[fi]
	ev := edgeView{Ref: f.Blocks[other].Ref, Label: f.Blocks[other].Label, Kind: e.Kind}
	if e.Kind == "case" {
		ev.Kind = "case " + e.Case
	}
	if e.Value != nil {
		ev.Value = num(*e.Value)
	}
	if e.Prob != nil {
		ev.Prob = num(*e.Prob)
	}
	return ev
}

// blockRows returns the source lines of a block, from its first to its last line;
// rows caches every file's rows.
func (p *Page) blockRows(b *Block, rows map[string][]Row) []Row {
	if len(b.Lines) == 0 {
		return nil
	}
	all, ok := rows[b.File]
	if !ok {
		for _, f := range p.Files {
			if f.Name == b.File {
				all = f.Rows()
			}
		}
		rows[b.File] = all
	}
	lo, hi := b.Lines[0], b.Lines[len(b.Lines)-1]
	i := sort.Search(len(all), func(i int) bool { return all[i].N >= lo })
	j := sort.Search(len(all), func(i int) bool { return all[i].N > hi })
	return all[i:j]
}

// fillOf returns the CSS background of a colour the page computed (#rrggbb); any
// other string gives no style.
func fillOf(c string) template.CSS {
	if !validColor(c) {
		return ""
	}
	return template.CSS("background:" + c)
}

func validColor(c string) bool {
	if len(c) != 7 || c[0] != '#' {
		return false
	}
	return strings.Trim(c[1:], "0123456789abcdef") == ""
}

// Data returns the JSON data embedded in a page that Write wrote.
func Data(page []byte) ([]byte, error) {
	start := []byte(`<script type="application/json" id="` + DataID + `">`)
	i := bytes.Index(page, start)
	if i < 0 {
		return nil, errors.New("html: no fragprof data in the page")
	}
	rest := page[i+len(start):]
	j := bytes.Index(rest, []byte("</script>"))
	if j < 0 {
		return nil, errors.New("html: the page's data is not terminated")
	}
	return rest[:j], nil
}
