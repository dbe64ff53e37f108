// This file builds the timing section: per fragment, the histogram of its measured
// times (Sturges bins), the interval of its mean, the outliers cut from the tail and,
// for a composition, the time computed from the parts beside the measured one. It
// reads the JSON of `fragprof time --json` and `fragprof compose --json`
// (docs/timing.md).

package html

import (
	"fmt"
	"strconv"

	"github.com/fragprof/fragprof/internal/report"
)

// Timing is one fragment of the timing section. Times are in nanoseconds.
type Timing struct {
	Name   string `json:"name"`
	Ref    string `json:"ref"` // "t0": the fragment's section is #t0
	Method string `json:"method"`
	N      int    `json:"n"` // samples kept
	// Mean ± HalfWidth is the interval of the mean at Confidence, by Rule.
	Mean       *float64 `json:"mean"`
	HalfWidth  *float64 `json:"halfwidth"`
	Confidence float64  `json:"confidence"`
	Rule       string   `json:"rule"`
	Median     *float64 `json:"median"`
	MedianLo   *float64 `json:"median_lo"`
	MedianHi   *float64 `json:"median_hi"`
	StdDev     *float64 `json:"stddev"`
	Normal     bool     `json:"normal"`
	Normality  string   `json:"normality"`
	// Threshold is the cut: samples above it were taken as preemption and left out
	// (Cut). Null when nothing could be cut.
	Threshold *float64  `json:"threshold"`
	Cut       []float64 `json:"cut"`
	Warmup    int       `json:"warmup"` // samples of the warm-up repetitions, dropped
	Histogram Histogram `json:"histogram"`
	// Computed is, for the total of a composition, the time computed from the parts.
	Computed *Computed `json:"computed,omitempty"`
	Warnings []string  `json:"warnings"`
}

// A Histogram has len(Edges) = len(Counts) + 1: bin i holds Edges[i] ≤ t < Edges[i+1].
type Histogram struct {
	Edges  []float64 `json:"edges"`
	Counts []int     `json:"counts"`
}

// Computed is a composition's computed time.
type Computed struct {
	Mean      float64 `json:"mean"`
	HalfWidth float64 `json:"halfwidth"`
	Rule      string  `json:"rule"`
	RelDiff   float64 `json:"rel_diff"` // (computed − measured) / measured
	Within    bool    `json:"within"`   // computed ∈ measured interval
}

// interval returns the interval of the mean, when there is one.
func (t *Timing) interval() (lo, hi float64, ok bool) {
	if t.Mean == nil || t.HalfWidth == nil {
		return 0, 0, false
	}
	return *t.Mean - *t.HalfWidth, *t.Mean + *t.HalfWidth, true
}

func decodeTime(data []byte) (*Page, error) {
	var d report.JSONTime
	if err := unmarshalOne(data, &d); err != nil {
		return nil, fmt.Errorf("reading times: %w", err)
	}
	p := &Page{Version: Version, Kind: KindTime, Title: "fragprof time"}
	p.fact("timer", d.Timer)
	p.fact("repetitions", fmt.Sprintf("%d (%d warm-up dropped)", d.Reps, d.Warmup))
	p.fact("confidence", num(d.Confidence))
	p.fact("overhead subtracted", num(d.OverheadNs)+" ns")
	if d.Scaling != "" {
		p.fact("frequency scaling", d.Scaling)
	}
	if n := len(d.Failures); n > 0 {
		p.warn(fmt.Sprintf("%d repetitions failed and were left out", n))
	}
	for _, f := range d.Fragments {
		p.addTiming(f, d.Confidence, nil)
	}
	p.finish(nil)
	return p, nil
}

func decodeCompose(data []byte) (*Page, error) {
	var d report.JSONCompose
	if err := unmarshalOne(data, &d); err != nil {
		return nil, fmt.Errorf("reading the composition: %w", err)
	}
	p := &Page{Version: Version, Kind: KindTime, Title: "fragprof compose: " + d.Scheme}
	p.fact("scheme", d.Scheme+" = "+d.Expr)
	p.fact("timer", d.Timer)
	p.fact("repetitions", fmt.Sprintf("%d (%d warm-up dropped)", d.Reps, d.Warmup))
	p.fact("confidence", num(d.Confidence))
	within := "outside"
	if d.Within {
		within = "inside"
	}
	p.fact("computed vs measured", fmt.Sprintf("%s ns vs %s ns (%+.3g%%, %s the measured interval)",
		num(d.Computed), num(d.Measured), 100*d.RelDiff, within))
	total := d.MeasuredTotal
	total.Name = d.Scheme + " (measured total)"
	p.addTiming(total, d.Confidence, &Computed{Mean: d.Computed, HalfWidth: d.ComputedHalf, Rule: d.ComputedRule,
		RelDiff: d.RelDiff, Within: d.Within})
	for _, f := range d.PartResults {
		p.addTiming(f, d.Confidence, nil)
	}
	p.finish(nil)
	return p, nil
}

func (p *Page) addTiming(f report.JSONFragment, conf float64, computed *Computed) {
	t := Timing{
		Name: f.Name, Ref: "t" + strconv.Itoa(len(p.Timing)), Method: f.Method, N: f.N,
		Mean: f.Mean, HalfWidth: f.HalfWidth, Confidence: conf, Rule: f.IntervalRule,
		Median: f.Median, MedianLo: f.MedianLo, MedianHi: f.MedianHi, StdDev: f.StdDev, Normal: f.Normal,
		Threshold: f.Threshold, Cut: f.CutNs, Warmup: len(f.WarmupNs),
		Histogram: Histogram{Edges: f.Histogram.Edges, Counts: f.Histogram.Counts},
		Computed:  computed, Warnings: f.Warnings,
	}
	if t.Cut == nil {
		t.Cut = []float64{}
	}
	if t.Warnings == nil {
		t.Warnings = []string{}
	}
	if t.Histogram.Edges == nil {
		t.Histogram.Edges = []float64{}
	}
	if t.Histogram.Counts == nil {
		t.Histogram.Counts = []int{}
	}
	switch nt := f.Normality; {
	case nt.Error != "":
		t.Normality = nt.Test + " not run: " + nt.Error
	case nt.W != nil && nt.P != nil:
		t.Normality = fmt.Sprintf("%s W = %.4f, p = %.3g (n = %d)", nt.Test, *nt.W, *nt.P, nt.N)
	default:
		t.Normality = nt.Test
	}
	p.Timing = append(p.Timing, t)
}
