// Package html renders fragprof's results as one self-contained HTML page: per
// function the CFG drawn by Graphviz with blocks coloured by frequency, a panel with
// each block's numbers, source lines and convergence plot, the source files with
// per-line counts in the margin (like gcovr), the comparison with a base result, and
// timing histograms.
//
// A page is built in two steps. The builders (FromFreq, FromProfile, and Decode for
// any result file) compute a Page: the data the page shows, which is also embedded
// in it as JSON (<script type="application/json" id="fragprof-data">) so that scripts and tests can
// read it back. Write then draws it: it runs `dot -Tsvg` for the graphs, gonum/plot
// for the plots, and fills the template; it opens no file.
//
// This file defines the page's data and builds it from frequency estimates and
// counts.
package html

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/jsonerr"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

// Version is the version of the page's JSON data; it grows when fields change
// meaning (fields are only ever added otherwise).
const Version = 1

// The kinds of page.
const (
	KindFreq  = "freq"  // Monte Carlo estimates (fragprof freq)
	KindCount = "count" // exact counts (fragprof count, a profile file)
	KindCFG   = "cfg"   // structure only (fragprof cfg --format json)
	KindHot   = "hot"   // a hot CFG from sampling (fragprof hotcfg)
	KindTime  = "time"  // fragment times (fragprof time, fragprof compose)
)

// HotHeat is the heat from which a source line counts as hot and is highlighted.
const HotHeat = 0.75

// A Page is everything one report page shows. Its JSON form is embedded in the page.
type Page struct {
	Version int    `json:"version"`
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	// Unit says what a block's value is ("expected executions per run").
	Unit string `json:"unit"`
	// Runs is the number of runs summed into counts (count pages); values divided by
	// it are per run. 0 when the values are already per run (freq pages).
	Runs     int      `json:"runs,omitempty"`
	Summary  []Fact   `json:"summary"`
	Warnings []string `json:"warnings"`
	Scale    Scale    `json:"scale"`
	Funcs    []*Func  `json:"functions"`
	Files    []*File  `json:"files"`
	Base     *Base    `json:"base,omitempty"`
	Timing   []Timing `json:"timing,omitempty"`
}

// A Fact is one line of the page's summary: "trials: 31".
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Scale is the page's colour scale: logarithmic in 1 + value, from 0 (white-yellow)
// to Max (dark red), the same for every function so that colours compare across
// them. Heat h of value v is log(1+v) / log(1+Max).
type Scale struct {
	Max   float64 `json:"max"`
	Stops []Stop  `json:"stops"` // the legend
}

// A Stop is one swatch of the legend.
type Stop struct {
	Heat  float64 `json:"heat"`
	Value float64 `json:"value"`
	Color string  `json:"color"`
}

// A Func is one function's graph with its values.
type Func struct {
	report.JSONFuncID
	Calls  *float64 `json:"calls"` // the entry block's value; null without counts
	Blocks []*Block `json:"blocks"`
	Edges  []*Edge  `json:"edges"`
	// Compare is, with a base, how the function appears in it: "both", "not in base"
	// or "CFG differs" (then its blocks carry no differences).
	Compare string `json:"compare,omitempty"`
}

// A Block is one basic block.
type Block struct {
	report.JSONBlockID
	// Ref names the block in the page: "f0-b3" for block 3 of the first function.
	// Its graph node is #n-f0-b3 and its panel #d-f0-b3.
	Ref  string `json:"ref"`
	File string `json:"file"` // the file of Lines: the file of Start, or the function's
	report.JSONBlockSource
	// Value is the estimate e(b) (freq), the count (count) or the sampled count (hot);
	// null for a page of structure only.
	Value *float64 `json:"value"`
	// HalfWidth is the half-width of the γ interval of a freq estimate; null when
	// undefined (fewer than two trials).
	HalfWidth  *float64 `json:"halfwidth,omitempty"`
	State      string   `json:"state,omitempty"` // freq: converged, constant, inadequate, unconverged
	N          uint64   `json:"n,omitempty"`
	DecidedAt  uint64   `json:"decided_at,omitempty"`
	NeedTrials *float64 `json:"need_trials,omitempty"`
	Variance   *float64 `json:"variance,omitempty"`
	Heat       float64  `json:"heat"`
	Color      string   `json:"color"` // fill colour on the scale; grey for a block that never ran
	Diff       *Diff    `json:"diff,omitempty"`
	Series     []Point  `json:"series,omitempty"` // freq: the convergence of the estimate
}

// A Point is the estimate and its half-width after N trials (NaN where undefined).
type Point = montecarlo.Point

// An Edge is one edge with its value and probability.
type Edge struct {
	ID int `json:"id"`
	report.JSONEdgeID
	Value *float64 `json:"value"`
	// Prob is the edge's value over its source block's: the probability of taking it
	// when leaving the block. Null when the source never ran.
	Prob *float64 `json:"prob"`
}

// freqDoc mirrors the JSON of `fragprof freq --json` (report.JSONFreq), with
// half-widths that may be null.
type freqDoc struct {
	Trials    uint64               `json:"trials"`
	Seed      uint64               `json:"seed"`
	Eps       float64              `json:"eps"`
	RelEps    float64              `json:"rel_eps"`
	Gamma     float64              `json:"gamma"`
	Moment    string               `json:"berry_esseen"`
	Rule      string               `json:"rule"`
	Design    string               `json:"design"`
	Units     uint64               `json:"units"`
	Stopped   string               `json:"stopped"`
	Elapsed   float64              `json:"elapsed_s"`
	Inputs    []string             `json:"inputs"`
	Failures  []report.JSONFailure `json:"failures"`
	Counters  int                  `json:"counters"`
	Functions []funcDoc            `json:"functions"`
	States    map[string]int       `json:"states"`
}

// funcDoc is one function of any of the JSON documents the page reads: freq's, count's
// (and cfg's) and hotcfg's. Counts are read as floats (hotcfg's are estimates).
type funcDoc struct {
	report.JSONFuncID
	Blocks []blockDoc `json:"blocks"`
	Edges  []edgeDoc  `json:"edges"`
}

type blockDoc struct {
	report.JSONBlockID
	report.JSONBlockSource
	Count     *float64 `json:"count"`
	Mean      *float64 `json:"mean"`
	HalfWidth *float64 `json:"halfwidth"`
	Variance  *float64 `json:"variance"`
	N         uint64   `json:"n"`
	State     string   `json:"state"`
	DecidedAt uint64   `json:"decided_at"`
	NeedTrial *float64 `json:"need_trials"`
	Series    []Point  `json:"series"`
}

type edgeDoc struct {
	report.JSONEdgeID
	Count *float64 `json:"count"`
	Mean  *float64 `json:"mean"`
}

// countDoc mirrors `fragprof count --json` (report.JSONProgram), `cfg --format json`
// and the document of `fragprof hotcfg` (which adds instructions and sampled, and
// the graph by address).
type countDoc struct {
	Counters     int       `json:"counters"`
	Runs         int       `json:"runs"`
	Instructions *uint64   `json:"instructions"`
	Sampled      *uint64   `json:"sampled"`
	Functions    []funcDoc `json:"functions"`
	Graph        *struct {
		Instructions uint64 `json:"instructions"`
		Batches      int    `json:"batches"`
	} `json:"graph"`
}

// FromFreq builds the page of a frequency estimation. It goes through the estimation's
// JSON form (report.FreqJSON), so that the page of `freq --report` and that of
// `report` on the file `freq --json` wrote are the same.
func FromFreq(f *report.Freq, src report.Sources) (*Page, error) {
	data, err := json.Marshal(report.FreqJSON(f))
	if err != nil {
		return nil, err
	}
	return decodeFreq(data, src)
}

// FromProfile builds the page of a profile's counts (or of its structure alone when it
// has none), through its JSON form (report.JSON).
func FromProfile(p *profile.Profile, src report.Sources) (*Page, error) {
	data, err := json.Marshal(report.JSON(p))
	if err != nil {
		return nil, err
	}
	return decodeCount(data, src)
}

func decodeFreq(data []byte, src report.Sources) (*Page, error) {
	var d freqDoc
	if err := unmarshalOne(data, &d); err != nil {
		return nil, fmt.Errorf("reading estimates: %w", err)
	}
	p := &Page{Version: Version, Kind: KindFreq, Unit: "expected executions per run (e(b))"}
	prec := "±" + num(d.Eps)
	if d.Eps == 0 {
		prec = "±" + num(100*d.RelEps) + "% of the estimate"
	}
	p.fact("trials", strconv.FormatUint(d.Trials, 10))
	p.fact("precision", fmt.Sprintf("%s at γ = %s", prec, num(d.Gamma)))
	if d.Rule != "" {
		p.fact("stopping rule", d.Rule)
	}
	if d.Moment != "" {
		p.fact("Berry–Esseen moment", d.Moment)
	}
	if m, ok := strings.CutPrefix(d.Design, "latin:"); ok {
		p.fact("design", fmt.Sprintf("Latin hypercube units of %s trials (%d complete)", m, d.Units))
	} else if d.Design != "" {
		p.fact("design", d.Design+" trials")
	}
	p.fact("seed", strconv.FormatUint(d.Seed, 10))
	p.fact("stopped", d.Stopped)
	p.fact("elapsed", fmt.Sprintf("%.2f s", d.Elapsed))
	for _, in := range d.Inputs {
		p.fact("input", in)
	}
	if d.Counters > 0 {
		p.fact("counters", strconv.Itoa(d.Counters))
	}
	if len(d.States) > 0 {
		var parts []string
		for _, s := range []string{"converged", "constant", "unseen", "rare", "inadequate", "unconverged"} {
			if n := d.States[s]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		p.fact("blocks", strings.Join(parts, ", "))
	}
	if d.Moment == "signed" {
		p.warn("the signed third moment in the Berry–Esseen check reproduces the paper but is not rigorous")
	}
	if n := d.States["unconverged"]; n > 0 {
		p.warn(fmt.Sprintf("%d blocks did not converge within the budget (marked ✗ unconverged)", n))
	}
	if n := len(d.Failures); n > 0 {
		w := fmt.Sprintf("%d trials failed and were left out", n)
		if n <= 3 {
			var rs []string
			for _, f := range d.Failures {
				rs = append(rs, fmt.Sprintf("trial %d: %s", f.Trial, f.Reason))
			}
			w += " (" + strings.Join(rs, "; ") + ")"
		}
		p.warn(w)
	}
	for _, fd := range d.Functions {
		p.addFunc(fd, func(b blockDoc) *float64 { return b.Mean }, func(e edgeDoc) *float64 { return e.Mean })
	}
	p.finish(src)
	return p, nil
}

func decodeCount(data []byte, src report.Sources) (*Page, error) {
	var d countDoc
	if err := unmarshalOne(data, &d); err != nil {
		return nil, fmt.Errorf("reading counts: %w", err)
	}
	p := &Page{Version: Version, Kind: KindCount, Unit: "executions", Runs: d.Runs}
	switch {
	case d.Instructions != nil || d.Sampled != nil || d.Graph != nil:
		p.Kind, p.Unit, p.Runs = KindHot, "sampled executions (estimated)", 0
		if d.Sampled == nil {
			p.Unit = "executions" // an exact graph ('sample --exact')
		}
		insns, batches := d.Instructions, 0
		if d.Graph != nil {
			batches = d.Graph.Batches
			if insns == nil && d.Graph.Instructions > 0 {
				insns = &d.Graph.Instructions
			}
		}
		if insns != nil {
			p.fact("instructions", strconv.FormatUint(*insns, 10))
		}
		if d.Sampled != nil {
			p.fact("sampled", strconv.FormatUint(*d.Sampled, 10))
		}
		if batches > 0 {
			p.fact("batches", strconv.Itoa(batches))
		}
	case !hasCounts(d.Functions):
		p.Kind, p.Unit, p.Runs = KindCFG, "", 0
		p.warn("the file holds the program's structure only, without counts")
	default:
		if p.Runs > 1 {
			p.Unit = fmt.Sprintf("executions, summed over %d runs", p.Runs)
		}
		p.fact("runs", strconv.Itoa(max(d.Runs, 1)))
	}
	if d.Counters > 0 {
		p.fact("counters", strconv.Itoa(d.Counters))
	}
	for _, fd := range d.Functions {
		p.addFunc(fd, func(b blockDoc) *float64 { return b.Count }, func(e edgeDoc) *float64 { return e.Count })
	}
	p.finish(src)
	return p, nil
}

func hasCounts(fs []funcDoc) bool {
	for _, f := range fs {
		for _, b := range f.Blocks {
			if b.Count != nil {
				return true
			}
		}
	}
	return false
}

// unmarshalOne decodes data, rejecting trailing data.
func unmarshalOne(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return jsonerr.Explain(data, err)
	}
	if dec.More() {
		l, c := jsonerr.Position(data, dec.InputOffset())
		return fmt.Errorf("line %d, column %d: unexpected data after the JSON object", l, c)
	}
	return nil
}

func (p *Page) fact(name, value string) { p.Summary = append(p.Summary, Fact{name, value}) }
func (p *Page) warn(s string)           { p.Warnings = append(p.Warnings, s) }

func (p *Page) addFunc(fd funcDoc, bv func(blockDoc) *float64, ev func(edgeDoc) *float64) {
	fi := len(p.Funcs)
	f := &Func{JSONFuncID: fd.JSONFuncID, Blocks: []*Block{}, Edges: []*Edge{}}
	for _, bd := range fd.Blocks {
		b := &Block{
			JSONBlockID: bd.JSONBlockID, Ref: fmt.Sprintf("f%d-b%d", fi, bd.ID), File: fd.File,
			JSONBlockSource: bd.JSONBlockSource, Value: bv(bd), HalfWidth: bd.HalfWidth, State: bd.State,
			N: bd.N, DecidedAt: bd.DecidedAt, NeedTrials: bd.NeedTrial, Variance: bd.Variance, Series: bd.Series,
		}
		if b.Lines == nil {
			b.Lines = []int{}
		}
		if file, _, ok := splitPos(bd.Start); ok {
			b.File = file
		}
		f.Blocks = append(f.Blocks, b)
	}
	if len(f.Blocks) > 0 && f.Blocks[0].Value != nil {
		c := *f.Blocks[0].Value
		f.Calls = &c
	}
	for i, ed := range fd.Edges {
		e := &Edge{ID: i, JSONEdgeID: ed.JSONEdgeID, Value: ev(ed)}
		if e.Value != nil && ed.From >= 0 && ed.From < len(f.Blocks) {
			if src := f.Blocks[ed.From].Value; src != nil && *src > 0 {
				pr := *e.Value / *src
				e.Prob = &pr
			}
		}
		f.Edges = append(f.Edges, e)
	}
	p.Funcs = append(p.Funcs, f)
}

// splitPos splits "file:line:col" (or "file:line") into the file and line.
func splitPos(s string) (string, int, bool) {
	rest := s
	for range 2 {
		i := strings.LastIndexByte(rest, ':')
		if i < 0 {
			return "", 0, false
		}
		if _, err := strconv.Atoi(rest[i+1:]); err != nil {
			return "", 0, false
		}
		head := rest[:i]
		if j := strings.LastIndexByte(head, ':'); j >= 0 {
			if _, err := strconv.Atoi(head[j+1:]); err == nil {
				rest = head
				continue
			}
		}
		line, _ := strconv.Atoi(rest[i+1:])
		return head, line, head != ""
	}
	return "", 0, false
}

// finish sets the scale and the colours, and builds the source view.
func (p *Page) finish(src report.Sources) {
	if p.Title == "" {
		var files []string
		seen := map[string]bool{}
		for _, f := range p.Funcs {
			if f.File != "" && !seen[f.File] {
				seen[f.File] = true
				files = append(files, f.File)
			}
		}
		p.Title = "fragprof " + p.Kind
		if len(files) > 0 {
			p.Title += ": " + strings.Join(files, ", ")
		}
	}
	if p.Warnings == nil {
		p.Warnings = []string{}
	}
	for _, f := range p.Funcs {
		for _, b := range f.Blocks {
			if b.Value != nil {
				p.Scale.Max = max(p.Scale.Max, *b.Value)
			}
		}
	}
	for _, h := range []float64{0, 0.25, 0.5, 0.75, 1} {
		v := math.Expm1(h * math.Log1p(p.Scale.Max))
		p.Scale.Stops = append(p.Scale.Stops, Stop{Heat: h, Value: round4(v), Color: heatColor(h)})
	}
	for _, f := range p.Funcs {
		for _, b := range f.Blocks {
			b.Heat, b.Color = p.heat(b.Value)
		}
	}
	p.Files = buildFiles(p, src)
}

// heat places a value on the page's scale.
func (p *Page) heat(v *float64) (float64, string) {
	switch {
	case v == nil:
		return 0, noValueColor
	case *v <= 0 || p.Scale.Max <= 0:
		return 0, zeroColor
	}
	h := math.Log1p(*v) / math.Log1p(p.Scale.Max)
	h = round4(min(max(h, 0), 1))
	return h, heatColor(h)
}

// round4 rounds to 4 significant digits, so that the page's JSON does not depend on
// the last bits of a logarithm.
func round4(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 4, 64), 64)
	return v
}

// num prints a number with up to 4 significant digits.
func num(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return strconv.FormatFloat(round4(x), 'g', -1, 64)
}

// ref finds a block by its reference.
func (p *Page) ref(fi, b int) *Block {
	if fi < 0 || fi >= len(p.Funcs) || b < 0 || b >= len(p.Funcs[fi].Blocks) {
		return nil
	}
	return p.Funcs[fi].Blocks[b]
}

// sortedFiles returns the distinct files of the page's blocks and functions, sorted.
func (p *Page) sortedFiles() []string {
	seen := map[string]bool{}
	for _, f := range p.Funcs {
		if f.File != "" {
			seen[f.File] = true
		}
		for _, b := range f.Blocks {
			if b.File != "" && len(b.Lines) > 0 {
				seen[b.File] = true
			}
		}
	}
	var out []string
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}
