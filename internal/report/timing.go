// This file renders fragment timing: `fragprof timers` (the clocks), `fragprof time`
// (the timing guide's Fig. 1: per fragment MinT, MaxT, T, DeltaT and a star histogram)
// and `fragprof compose` (computed against measured), as text and JSON.

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/timing"
)

// ---- timers ----

// JSONTimer is one element of `timers --json`.
type JSONTimer struct {
	Name       string  `json:"name"`
	Available  bool    `json:"available"`
	Resolution float64 `json:"resolution_ns"` // observed: smallest non-zero step
	Overhead   float64 `json:"overhead_ns"`   // one read: median of back-to-back pairs
	Claimed    float64 `json:"claimed_resolution_ns"`
	ReadMin    float64 `json:"read_min_ns"`
	Loop       float64 `json:"loop_read_ns"`
	Fragment   float64 `json:"fragment_overhead_ns"` // an empty fragment: what time subtracts
	Method     string  `json:"method"`
}

// WriteTimersJSON writes `timers --json`: an array of timers. The TSC calibration and
// the system are in the text report (and in fragment JSON, via time).
func WriteTimersJSON(w io.Writer, p *timing.Probe) error {
	out := []JSONTimer{}
	for _, t := range p.Timers {
		out = append(out, JSONTimer{Name: t.Timer.String(), Available: t.Available, Resolution: t.ResolutionNs,
			Overhead: t.ReadNs, Claimed: t.ClaimedNs, ReadMin: t.ReadMinNs, Loop: t.LoopNs, Fragment: t.FragNs,
			Method: t.Timer.Doc()})
	}
	return writeJSON(w, out)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteTimersText writes the timer table, the TSC calibration and the system.
func WriteTimersText(w io.Writer, p *timing.Probe) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "timer\tclaimed res.\tobserved res.\tread (median)\tread (min)\tread in a loop\tempty fragment\t")
	for _, t := range p.Timers {
		if !t.Available {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t  not on this CPU\n", t.Timer)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t.Timer, ns(t.ClaimedNs), ns(t.ResolutionNs), ns(t.ReadNs),
			ns(t.ReadMinNs), ns(t.LoopNs), ns(t.FragNs))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "claimed res.     clock_getres; for the TSC one tick (1/frequency)")
	fmt.Fprintln(w, "observed res.    the smallest non-zero step between consecutive reads (200,000 reads)")
	fmt.Fprintln(w, "read             the cost of one read: back-to-back pairs, median and minimum of 20,001")
	fmt.Fprintln(w, "read in a loop   100,000 reads timed by CLOCK_MONOTONIC_RAW, per read")
	fmt.Fprintln(w, "empty fragment   what FP_BEGIN/FP_END around nothing measures (median of 2001):")
	fmt.Fprintln(w, "                 the overhead 'fragprof time' subtracts from every sample")
	fmt.Fprintln(w)
	for _, t := range p.Timers {
		fmt.Fprintf(w, "%-14s %s\n", t.Timer, t.Timer.Doc())
	}
	fmt.Fprintln(w)
	if p.TSC.Present {
		inv := "NOT invariant (cpuid 80000007H EDX[8] clear): its rate may follow the core clock"
		if p.TSC.Invariant {
			inv = "invariant (cpuid 80000007H EDX[8]): constant rate in every P-, C- and T-state"
		}
		fmt.Fprintf(w, "TSC: %.6f GHz against CLOCK_MONOTONIC_RAW (%d slices of %d ms: %.6f–%.6f GHz, relative s.d. %.2g); %s\n",
			p.TSC.Hz/1e9, p.TSC.Slices, p.TSC.SliceMs, p.TSC.MinHz/1e9, p.TSC.MaxHz/1e9, p.TSC.RelSD, inv)
	} else {
		fmt.Fprintln(w, "TSC: none on this machine (tsc and rdtscp fall back to monotonic)")
	}
	writeSystem(w, p.System)
	return nil
}

func writeSystem(w io.Writer, s timing.System) {
	model := s.Model
	if model == "" {
		model = "unknown CPU"
	}
	vm := ""
	if s.Hypervisor {
		vm = ", virtual machine"
	}
	fmt.Fprintf(w, "CPU: %s, %d CPUs%s; kernel clock source %s; TSC flags: %s\n", model, s.CPUs, vm, orDash(s.ClockSource), orDash(strings.Join(s.TSCFlags, " ")))
	fmt.Fprintf(w, "frequency scaling: %s\n", s.Scaling())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ns formats nanoseconds with a unit that keeps 3–4 significant digits.
func ns(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case math.IsInf(x, 0):
		return "∞"
	case math.Abs(x) >= 1e9:
		return fmt.Sprintf("%.4g s", x/1e9)
	case math.Abs(x) >= 1e6:
		return fmt.Sprintf("%.4g ms", x/1e6)
	case math.Abs(x) >= 1e3:
		return fmt.Sprintf("%.4g µs", x/1e3)
	}
	return fmt.Sprintf("%.3g ns", x)
}

// sec formats nanoseconds as seconds, the manual's unit, in fixed notation with 7
// significant digits (0.0004030297s, 0.00006845000s).
func sec(x float64) string {
	switch {
	case math.IsInf(x, 0):
		return "∞"
	case math.IsNaN(x):
		return "-"
	case x == 0:
		return "0s"
	}
	v := x / 1e9
	dec := max(0, 6-int(math.Floor(math.Log10(math.Abs(v)))))
	return strconv.FormatFloat(v, 'f', dec, 64) + "s"
}

// ---- time ----

// Time is a finished `fragprof time`.
type Time struct {
	Result  *timing.Result
	Program string // the binary or the sources
	System  timing.System
	CPU     int // the CPU asked for, or -1
	// Stopped says why the measurement stopped before its plan ("interrupted",
	// "timed out after 1m0s (--timeout)"), or "".
	Stopped string
}

// JSONTime is the object `time --json` prints.
type JSONTime struct {
	Timer        string         `json:"timer"`
	TimerAsked   string         `json:"timer_asked"` // differs from timer when the CPU lacks it
	TimerMethod  string         `json:"timer_method"`
	NsPerTick    float64        `json:"ns_per_tick"`
	OverheadNs   float64        `json:"overhead_ns"` // subtracted from every sample
	OverheadMin  float64        `json:"overhead_min_ns"`
	InvariantTSC bool           `json:"invariant_tsc"`
	Pinned       bool           `json:"pinned"`
	Reps         int            `json:"reps"`
	Warmup       int            `json:"warmup"`
	Confidence   float64        `json:"confidence"`
	RelEps       float64        `json:"rel_eps,omitempty"`
	Pilot        int            `json:"pilot,omitempty"`
	Needed       int            `json:"needed_reps,omitempty"`
	ElapsedS     float64        `json:"elapsed_s"`
	Failures     []JSONFailure  `json:"failures"`
	Fragments    []JSONFragment `json:"fragments"`
	Scaling      string         `json:"frequency_scaling"`
	Stopped      string         `json:"stopped,omitempty"` // Time.Stopped
}

// JSONFragment is one fragment's measurements.
type JSONFragment struct {
	Name         string        `json:"name"`
	Method       string        `json:"method"`
	N            int           `json:"n"`          // samples kept
	Cut          int           `json:"cut"`        // samples cut as the preemption tail
	SamplesNs    []float64     `json:"samples_ns"` // the kept samples, in order
	CutNs        []float64     `json:"cut_ns"`
	WarmupNs     []float64     `json:"warmup_ns"`
	Threshold    *float64      `json:"cut_threshold_ns"`
	PerRep       float64       `json:"per_rep"`
	Mean         *float64      `json:"mean_ns"`
	Median       *float64      `json:"median_ns"`
	MedianLo     *float64      `json:"median_lo_ns"`
	MedianHi     *float64      `json:"median_hi_ns"`
	MedianConf   float64       `json:"median_confidence"`
	StdDev       *float64      `json:"stddev_ns"`
	StdErr       *float64      `json:"stderr_ns"`
	HalfWidth    *float64      `json:"halfwidth_ns"`
	IntervalRule string        `json:"interval_rule"`
	Min          *float64      `json:"min_ns"`
	Max          *float64      `json:"max_ns"`
	Normal       bool          `json:"normal"`
	Normality    JSONNormality `json:"normality"`
	Histogram    JSONHistogram `json:"histogram"`
	NeededN      *float64      `json:"needed_n"`
	RelTarget    float64       `json:"needed_for_rel_eps"`
	RelErr       *float64      `json:"rel_err"`
	Dropped      uint64        `json:"dropped"`
	Open         uint64        `json:"open"`
	Unmatched    uint64        `json:"unmatched"`
	Warnings     []string      `json:"warnings"`
}

// JSONNormality is the normality test.
type JSONNormality struct {
	Test  string   `json:"test"`
	N     int      `json:"n"`
	W     *float64 `json:"w"`
	P     *float64 `json:"p"`
	Error string   `json:"error,omitempty"`
}

// JSONHistogram is a Sturges histogram: bin i holds edges_ns[i] ≤ t < edges_ns[i+1].
type JSONHistogram struct {
	Edges  []float64 `json:"edges_ns"`
	Counts []int     `json:"counts"`
}

// FragmentJSON converts one fragment.
func FragmentJSON(f *timing.FragResult, warmup int) JSONFragment {
	s := f.Summary
	j := JSONFragment{
		Name: f.Fragment.String(), Method: f.Method, N: s.N, Cut: len(s.Tail.Cut),
		SamplesNs: nonNil(s.Tail.Kept), CutNs: nonNil(s.Tail.Cut), WarmupNs: nonNil(s.Warmup), Threshold: jsonnum.Ptr(s.Tail.Threshold),
		PerRep: f.PerRep(warmup), Mean: jsonnum.Ptr(s.Mean), Median: jsonnum.Ptr(s.Median.Center),
		MedianLo: jsonnum.Ptr(s.Median.Lo), MedianHi: jsonnum.Ptr(s.Median.Hi), MedianConf: s.Median.Confidence,
		StdDev: jsonnum.Ptr(s.StdDev), StdErr: jsonnum.Ptr(s.StdErr), HalfWidth: jsonnum.Ptr(s.Interval.HalfWidth()),
		IntervalRule: intervalRule(s), Min: jsonnum.Ptr(s.Min), Max: jsonnum.Ptr(s.Max), Normal: s.Normal,
		Normality: JSONNormality{Test: s.Normality.Test, N: s.Normality.N, W: jsonnum.Ptr(s.Normality.W), P: jsonnum.Ptr(s.Normality.P)},
		Histogram: JSONHistogram{Edges: nonNil(s.Histogram.Edges), Counts: s.Histogram.Counts},
		NeededN:   jsonnum.Ptr(f.NeededN), RelTarget: f.RelTarget, RelErr: jsonnum.Ptr(f.RelErr),
		Dropped: f.Dropped, Open: f.Open, Unmatched: f.Unmatched, Warnings: []string{},
	}
	if j.Histogram.Counts == nil {
		j.Histogram.Counts = []int{}
	}
	if s.Normality.Err != nil {
		j.Normality.Error = s.Normality.Err.Error()
	}
	for _, w := range s.Interval.Warnings {
		j.Warnings = append(j.Warnings, w.Error())
	}
	if s.N == 0 {
		j.Warnings = append(j.Warnings, "the fragment never ran")
	}
	return j
}

func nonNil(xs []float64) []float64 {
	if xs == nil {
		return []float64{}
	}
	return xs
}

// intervalRule names the rule of the interval of the mean.
func intervalRule(s stats.TimingSummary) string {
	if s.Normal {
		if s.N < stats.StudentFrom {
			return "mean ± t·s/√N (Student, N < 30)"
		}
		return "mean ± u·s/√N (normal quantile, N ≥ 30)"
	}
	return "mean ± max(t_max − mean, mean − t_min) (not normal: the manual's range rule)"
}

// TimeJSON converts a measurement.
func TimeJSON(t *Time) JSONTime {
	r := t.Result
	j := JSONTime{Timer: r.Timer.String(), TimerAsked: r.Asked.String(), TimerMethod: r.Timer.Doc(), NsPerTick: r.NsPerTick, OverheadNs: r.OverheadNs,
		OverheadMin: r.OverheadMinNs, InvariantTSC: r.InvariantTSC, Pinned: r.Pinned, Reps: r.Reps, Warmup: r.Warmup,
		Confidence: r.Confidence, RelEps: r.RelEps, Pilot: r.Pilot, Needed: r.Needed, ElapsedS: r.Elapsed.Seconds(),
		Failures: []JSONFailure{}, Fragments: []JSONFragment{}, Scaling: t.System.Scaling(), Stopped: t.Stopped}
	for _, f := range r.Failures {
		j.Failures = append(j.Failures, JSONFailure{Trial: uint64(f.Rep), Reason: f.Reason, Exit: -1})
	}
	for _, f := range r.Frags {
		j.Fragments = append(j.Fragments, FragmentJSON(f, r.Warmup))
	}
	return j
}

// WriteTimeJSON writes `time --json`.
func WriteTimeJSON(w io.Writer, t *Time) error { return writeJSON(w, TimeJSON(t)) }

// WriteTimeText writes the manual's Fig. 1 for every fragment, after a header that
// says how the times were taken.
func WriteTimeText(w io.Writer, t *Time) error {
	r := t.Result
	fmt.Fprintf(w, "fragprof time: %s, %d repetitions (%d warm-up dropped) in %.1f s\n", t.Program, r.Reps, r.Warmup, r.Elapsed.Seconds())
	if t.Stopped != "" {
		fmt.Fprintf(w, "%s: the measurement stopped early; these are the repetitions so far\n", t.Stopped)
	}
	writeTimerLine(w, r)
	pin := "not pinned (--cpu pins)"
	if t.CPU >= 0 {
		pin = fmt.Sprintf("pinned to CPU %d", t.CPU)
		if !r.Pinned {
			pin += " (the program could not pin itself)"
		}
	}
	fmt.Fprintf(w, "%s; frequency scaling: %s\n", pin, t.System.Scaling())
	if r.RelEps > 0 {
		fmt.Fprintf(w, "adaptive: ±%.3g%% at %.3g%%: the pilot of %d repetitions asked for %d; ran %d\n", r.RelEps*100, r.Confidence*100, r.Pilot, r.Needed, r.Reps)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "repetition %d left out: %s\n", f.Rep, f.Reason)
	}
	for _, f := range r.Frags {
		fmt.Fprintln(w)
		writeFragment(w, "Measurement "+f.Fragment.String(), f, r.Warmup, r.Confidence, cutPlain)
	}
	return nil
}

// writeTimerLine says which timer measured and what was subtracted.
func writeTimerLine(w io.Writer, r *timing.Result) {
	if r.NsPerTick == 0 {
		fmt.Fprintln(w, "no fragment inside the program was timed: the program's runs are timed from outside, nothing subtracted")
		return
	}
	if r.Asked != r.Timer {
		fmt.Fprintf(w, "--timer %s: this CPU has no such instruction (cpuid), so the runtime used %s\n", r.Asked, r.Timer)
	}
	fmt.Fprintf(w, "timer %s: %s", r.Timer, r.Timer.Doc())
	if r.Timer.IsTSC() {
		src := fmt.Sprintf("calibrated over a %.3g s baseline", r.CalSpanNs/1e9)
		if r.HzFromEnv {
			src = "from FRAGPROF_TSC_HZ"
		}
		inv := "NOT invariant"
		if r.InvariantTSC {
			inv = "invariant"
		}
		fmt.Fprintf(w, " (%.6f GHz %s; %s TSC)", 1/r.NsPerTick, src, inv)
	}
	fmt.Fprintf(w, "\nthe timer's own overhead, %s (median of an empty fragment, measured in every process), is subtracted from every sample\n", ns(r.OverheadNs))
	fmt.Fprintln(w, "func: fragments time only the outermost activation (recursion counts once, from the first entry to its return)")
}

// writeFragment writes one fragment as the manual's Fig. 1 and the figures behind it.
// cutMode says how the tail was cut: by the rule on the samples (plain), by
// repetition for a composite's total (cutTotal) or for one of its parts (cutPart).
type cutMode uint8

const (
	cutPlain cutMode = iota
	cutTotal
	cutPart
)

func writeFragment(w io.Writer, title string, f *timing.FragResult, warmup int, conf float64, mode cutMode) {
	s := f.Summary
	if s.N == 0 {
		fmt.Fprintf(w, "%s: no samples (it never ran", title)
		if f.Unmatched > 0 {
			fmt.Fprintf(w, "; %d ends without a begin", f.Unmatched)
		}
		fmt.Fprintln(w, ")")
		return
	}
	fmt.Fprintf(w, "%s: MinT=%s MaxT=%s T=%s DeltaT=%s\n", title, sec(s.Min), sec(s.Max), sec(s.Mean), sec(s.Interval.HalfWidth()))
	fmt.Fprintf(w, "  %s\n", f.Method)
	cut := "nothing cut"
	if len(s.Tail.Cut) > 0 || !math.IsInf(s.Tail.Threshold, 1) {
		cut = fmt.Sprintf("%d cut beyond %s = median + k·1.4826·MAD", len(s.Tail.Cut), ns(s.Tail.Threshold))
		switch mode {
		case cutTotal:
			cut = fmt.Sprintf("%d repetitions cut: a part's sample was cut, or the residual was beyond %s = median + k·1.4826·MAD of the residuals", len(s.Tail.Cut), ns(s.Tail.Threshold))
		case cutPart:
			cut = fmt.Sprintf("over the repetitions kept; %d samples of the repetitions cut left out; the part's own rule cuts beyond %s", len(s.Tail.Cut), ns(s.Tail.Threshold))
		}
	}
	fmt.Fprintf(w, "  N = %d kept (%.3g per repetition; %d warm-up samples dropped; %s)\n", s.N, f.PerRep(warmup), len(s.Warmup), cut)
	fmt.Fprintf(w, "  mean %s, s %s, standard error %s\n", ns(s.Mean), ns(s.StdDev), ns(s.StdErr))
	switch {
	case s.Normality.Err != nil:
		fmt.Fprintf(w, "  normality: %s not run (%v)\n", s.Normality.Test, s.Normality.Err)
	default:
		verdict := "normal"
		if !s.Normal {
			verdict = "not normal"
		}
		sub := ""
		if s.Normality.N < s.N {
			sub = fmt.Sprintf(" on %d evenly spaced samples", s.Normality.N)
		}
		pv := fmt.Sprintf("p = %.3g", s.Normality.P)
		if s.Normality.P < 1e-16 {
			pv = "p < 1e-16"
		}
		fmt.Fprintf(w, "  normality: %s W = %.4f, %s%s: %s\n", s.Normality.Test, s.Normality.W, pv, sub, verdict)
	}
	fmt.Fprintf(w, "  T ± DeltaT = %s ± %s at %.3g%%: %s\n", ns(s.Mean), ns(s.Interval.HalfWidth()), conf*100, intervalRule(s))
	fmt.Fprintf(w, "  median %s, distribution-free interval [%s, %s] at %.4g%%\n", ns(s.Median.Center), ns(s.Median.Lo), ns(s.Median.Hi), s.Median.Confidence*100)
	if f.NeededN > 0 && !math.IsInf(f.NeededN, 0) {
		fmt.Fprintf(w, "  sample size: N = %.0f samples for ±%.3g%% at %.3g%% (N ≥ k²s²/(ε²m²)); these reach ±%.3g%%\n", f.NeededN, f.RelTarget*100, conf*100, f.RelErr*100)
	}
	if f.Dropped+f.Open+f.Unmatched > 0 {
		fmt.Fprintf(w, "  %d activations beyond the sample cap, %d still open at exit, %d ends without a begin\n", f.Dropped, f.Open, f.Unmatched)
	}
	for _, x := range s.Interval.Warnings {
		fmt.Fprintf(w, "  warning: %v\n", x)
	}
	writeStars(w, s.Histogram)
}

// writeStars prints a histogram as the manual does: each bin's lower edge in
// seconds, then one star per sample (scaled so the fullest bin has at most 60).
func writeStars(w io.Writer, h stats.Histogram) {
	most := 0
	for _, c := range h.Counts {
		most = max(most, c)
	}
	scale := 1.0
	if most > 60 {
		scale = 60 / float64(most)
	}
	for i, c := range h.Counts {
		stars := int(math.Round(float64(c) * scale))
		if c > 0 && stars == 0 {
			stars = 1
		}
		fmt.Fprintf(w, "%s %s %d\n", strconv.FormatFloat(h.Edges[i]/1e9, 'f', 9, 64), strings.Repeat("*", stars), c)
	}
	if scale < 1 {
		fmt.Fprintf(w, "(one * ≈ %.3g samples)\n", 1/scale)
	}
}

// ---- compose ----

// Compose is a finished `fragprof compose`.
type Compose struct {
	C       *timing.Composition
	Result  *timing.Result
	Program string
	System  timing.System
}

// JSONCompose is the object `compose --json` prints.
type JSONCompose struct {
	Scheme        string             `json:"scheme"`
	Expr          string             `json:"expr"`
	Computed      float64            `json:"computed_ns"`
	ComputedHalf  float64            `json:"computed_halfwidth_ns"`
	ComputedRule  string             `json:"computed_rule"`
	Measured      float64            `json:"measured_ns"`
	MeasuredHalf  float64            `json:"measured_halfwidth_ns"`
	MeasuredRule  string             `json:"measured_rule"`
	RelDiff       float64            `json:"rel_diff"`
	Within        bool               `json:"within"`
	Manual        JSONPart           `json:"manual"`
	Exact         JSONPart           `json:"exact"`
	Markov        *JSONPart          `json:"markov"`
	MarkovError   string             `json:"markov_error,omitempty"`
	Estimates     map[string]float64 `json:"estimates"`
	Activations   map[string]float64 `json:"activations_per_rep"`
	Parts         map[string]string  `json:"parts"`
	PartResults   []JSONFragment     `json:"part_results"`
	MeasuredTotal JSONFragment       `json:"measured_total"`
	Timer         string             `json:"timer"`
	OverheadNs    float64            `json:"overhead_ns"`
	Reps          int                `json:"reps"`
	Warmup        int                `json:"warmup"`
	Confidence    float64            `json:"confidence"`
}

// JSONPart is a computed time.
type JSONPart struct {
	Mean   float64  `json:"mean_ns"`
	StdDev float64  `json:"stddev_ns"`
	SE     float64  `json:"stderr_ns"`
	Min    float64  `json:"min_ns"`
	Max    *float64 `json:"max_ns"` // null: unbounded (a loop)
	Label  string   `json:"label"`
}

func partJSON(p timing.Part, label string) JSONPart {
	return JSONPart{Mean: p.Mean, StdDev: math.Sqrt(p.Var), SE: math.Sqrt(p.SE2), Min: p.Min, Max: jsonnum.Ptr(p.Max), Label: label}
}

// ComposeJSON converts a composition.
func ComposeJSON(x *Compose) JSONCompose {
	c, r := x.C, x.Result
	j := JSONCompose{Scheme: c.Scheme.Name, Expr: c.Scheme.Expr.String(), Computed: c.Exact.Mean, ComputedHalf: c.ComputedHalf,
		ComputedRule: c.ComputedRule, Measured: c.Measured.Summary.Mean, MeasuredHalf: c.MeasuredHalf,
		MeasuredRule: intervalRule(c.Measured.Summary), RelDiff: c.RelDiff, Within: c.Within,
		Manual:    partJSON(c.Manual, "reduction, the manual's rules (variance without the branch and loop terms)"),
		Exact:     partJSON(c.Exact, "reduction, exact forms (law of total variance; geometric pass count)"),
		Estimates: c.Estimates, Activations: c.Activations, Parts: map[string]string{}, MarkovError: c.MarkovErr,
		MeasuredTotal: FragmentJSON(c.Measured, r.Warmup), Timer: r.Timer.String(), OverheadNs: r.OverheadNs,
		Reps: r.Reps, Warmup: r.Warmup, Confidence: r.Confidence}
	if c.Markov != nil {
		m := partJSON(c.Markov.Part, "absorbing Markov chain over the CFG of "+c.Scheme.Func)
		j.Markov = &m
	}
	for _, n := range c.Scheme.Expr.Leaves() {
		j.Parts[n] = c.Scheme.Parts[n].String()
		pj := FragmentJSON(c.PartFrags[n], r.Warmup)
		pj.Name = n + " = " + pj.Name
		j.PartResults = append(j.PartResults, pj)
	}
	return j
}

// WriteComposeJSON writes `compose --json`.
func WriteComposeJSON(w io.Writer, x *Compose) error { return writeJSON(w, ComposeJSON(x)) }

// WriteComposeText writes the lab exercise's report: the parts, the computed total
// by each method, the measured total, and the comparison.
func WriteComposeText(w io.Writer, x *Compose) error {
	c, r := x.C, x.Result
	s := c.Scheme
	fmt.Fprintf(w, "fragprof compose: scheme %s = %s over %s, %d repetitions (%d warm-up dropped) in %.1f s\n",
		s.Name, s.Expr, x.Program, r.Reps, r.Warmup, r.Elapsed.Seconds())
	writeTimerLine(w, r)
	fmt.Fprintf(w, "frequency scaling: %s\n", x.System.Scaling())
	for _, n := range s.Expr.Leaves() {
		fmt.Fprintln(w)
		writeFragment(w, fmt.Sprintf("Measurement %s (%s)", n, s.Parts[n]), c.PartFrags[n], r.Warmup, r.Confidence, cutPart)
	}
	fmt.Fprintln(w)
	for _, e := range c.EstimateList() {
		fmt.Fprintf(w, "estimated from the activation counts: %s\n", e)
	}
	writeReduction(w, "reduction by the manual's rules", c.ManualSteps)
	writeReduction(w, "reduction, exact forms (law of total variance; geometric number of passes)", c.ExactSteps)
	switch {
	case c.Markov != nil:
		m := c.Markov
		mx := ns(m.Part.Max)
		if m.Cyclic {
			mx = "∞ (a loop can repeat)"
		}
		fmt.Fprintf(w, "absorbing Markov chain over the CFG of %s (%d blocks ran; expected visits match the counts to %.1g):\n  m = %s, σ = %s, t_min = %s, t_max = %s\n",
			s.Func, len(m.Visits), c.MarkovVisitErr, ns(m.Part.Mean), ns(math.Sqrt(m.Part.Var)), ns(m.Part.Min), mx)
	case c.MarkovErr != "":
		fmt.Fprintf(w, "Markov chain: not computed: %s\n", c.MarkovErr)
	}
	sd := func(p timing.Part) string { return ns(math.Sqrt(p.Var)) }
	mk := "-"
	if c.Markov != nil {
		mk = sd(c.Markov.Part)
	}
	fmt.Fprintf(w, "spread of the total, σ: manual rules %s, exact forms %s, Markov chain %s; measured s %s\n",
		sd(c.Manual), sd(c.Exact), mk, ns(c.Measured.Summary.StdDev))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Computation %s: MinT=%s MaxT=%s T=%s DeltaT=%s\n", s.Name, sec(c.Exact.Min), sec(c.Exact.Max), sec(c.Exact.Mean), sec(c.ComputedHalf))
	fmt.Fprintf(w, "  DeltaT by %s\n", c.ComputedRule)
	fmt.Fprintln(w)
	t := c.Measured
	t.Method += "; the tail is cut by repetition, on the residual total − Σ its parts' samples"
	writeFragment(w, fmt.Sprintf("Measurement %s (%s)", s.Name, s.Total), t, r.Warmup, r.Confidence, cutTotal)
	fmt.Fprintln(w)
	in := "lies within"
	if !c.Within {
		in = "lies OUTSIDE"
	}
	fmt.Fprintf(w, "computed %s vs measured %s ± %s: difference %+.2f%% of measured; the computed total %s the measured interval\n",
		ns(c.Exact.Mean), ns(c.Measured.Summary.Mean), ns(c.MeasuredHalf), c.RelDiff*100, in)
	return nil
}

func writeReduction(w io.Writer, title string, steps []timing.Step) {
	fmt.Fprintf(w, "%s:\n", title)
	for _, st := range steps {
		fmt.Fprintf(w, "  %-14s %-34s m = %s, σ = %s, t_min = %s, t_max = %s\n", st.Rule, st.Expr, ns(st.Result.Mean),
			ns(math.Sqrt(st.Result.Var)), ns(st.Result.Min), ns(st.Result.Max))
	}
}
