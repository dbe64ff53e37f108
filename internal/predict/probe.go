// This file predicts an input from a probe: a run of that input stopped after its
// first part (fragprof trace --stop-after). It is partial execution (Yang, Ma &
// Mueller, "Cross-platform performance prediction of parallel applications using
// partial execution", SC 2005): the probe measures how fast the input runs on
// this machine — in the cache regime its data put it in, at the machine's present
// speed — and the model says how the rest of the run compares with the part the
// probe ran. With T(k) the probe's time from its first checkpoint to its k-th, K
// its checkpoints, K₀ = ⌈K/2⌉, and T̂(k), T̂ the graph model's times to its k-th
// event and of the whole run, from one interpretation:
//
//	ŷ = T(K) + r·(T̂ − T̂(K)),   r = (T(K) − T(K₀)) / (T̂(K) − T̂(K₀))
//
// The probe's first half is its warm-up — the first rows of gemm's probes in
// bench/predict.sh took 1.5–2× the later ones — and is taken as
// measured; the rate r of its second half against the model carries over to the
// rest of the run. A time the model gets wrong by one factor for every
// transition (a cache level the training runs never left, a slower machine)
// cancels in r; only the shape of the run — how its time is spread over its
// events — has to be right, and that is what the transition graph learns from
// the small inputs. (With K₀ = K, or a second half the model gives no time, r
// is T(K)/T̂(K).)
//
// The estimate and its interval are calibrated on the training runs: each run,
// cut after its first K checkpoints for K in ProbeEvents (where it has more), is
// predicted as above; the median of e = ln(actual / ŷ) over the n runs is the
// estimator's bias B_K at that cut (probeBias: 0 where it does not hold across
// the training sizes), and Q_K the ⌈0.9(n+1)⌉-th smallest |e − B_K| (split
// conformal on debiased scores). A probe of K checkpoints uses the B and Q of
// the largest calibrated K not above its own (the smallest when it passed
// fewer): its estimate is multiplied by e^(B_K) — the first transitions of a run
// may be slower than the model's shape has them, as merge sort's first pass of
// runs of width 1 is (about 1.4 times a later pass, which a pass time of n alone
// averages: its probes of 3 checkpoints at 16 times the training sizes were
// 46–48% high in bench/predict.sh) — and Q_K is the noise of a rate measured
// over K transitions and of the warm-up in it. The probe and the run predicted
// are two executions: the run-to-run noise h_n of the nearest training point
// (conformal.Interval.NearestNoise) enters twice, once for each, less for the
// median of m probes. The shape the model learnt on small inputs may not hold
// at the probed one (lu's row time grows along the run, and more steeply as its
// columns leave the cache, where the model's is flat): the probe tests it on
// itself, predicting its own end T(K) from its first half by the same estimator
// (K₁ = ⌈K₀/2⌉ and K₀ in the roles of K₀ and K; K ≥ 8). That test's error e_self
// spans d = log₂(T̂(K)/T̂(K₀)) doublings of the run; the prediction spans D =
// log₂(T̂/T̂(K)), so its part is h_self = |e_self|·D/d (the median over the
// probes). Then h = √(Q_K² + (1 + 1/m)·h_n² + h_self²), the interval ŷ·e^(±h).
// The calibration's probes are cut from the runs they predict, so Q_K holds the
// model's error of shape on the training inputs; h_n adds the speed of the
// machine, h_self the shape at this input.
//
// A self-test that fails clearly is a drift along the run, not noise: at 4× its
// training sizes each of lu's rows walks its columns through more of the matrix,
// and past a cache level each row costs more per operation than the one before,
// which no training run showed. S_K, the 90% conformal quantile of |e_self| on
// the training runs cut after K checkpoints, is what a model whose shape holds
// fails one time in ten. When the median of the probes' e_self is beyond 2·S_K
// (their second half slower than their first predicts), ŷ is multiplied by
// e^(h_self): the drift carried over the rest of the run at the rate the test
// measured. Twice S_K, because a false alarm costs the whole correction, the
// test's error times D/d, 2–5 for a probe of a few per cent (floyd in
// bench/predict.sh, a median of 1.10× against a limit of 1.10×, would have been
// moved ×1.6, from 6% to 71% off), while lu's probes failed by 2–11 times S_K
// in the bench's seeds that caught the drift.
// Upward only: a rate that seems to fall along the run was, in the bench's lu,
// a model whose first rows' time turned negative beyond the training range and
// was clamped to zero, so that the first quarter's rate looked high; such a test
// only widens the interval. The drift is a bias whose size the test gives only
// roughly, so the interval then reaches from ŷ₀·e^(−h₀), ŷ₀ the estimate with no
// drift past the probe and h₀ = √(Q_K² + (1 + 1/m)·h_n²), to e^(h₀) times the
// larger of ŷ₀·e^(2·h_self), twice the drift assumed, and the largest of the
// probes' linearDrift estimates, the rate growing on linearly in checkpoints
// (the largest: the rate's growth is measured on a probe's quarters, a few per
// cent of the run, and Q_K, calibrated on training runs whose K checkpoints
// are most of them, holds the noise of a shorter extrapolation). Q_K is
// calibrated without the correction: it is the estimator's error where the
// model's shape holds.

package predict

import (
	"fmt"
	"math"
	"slices"

	"github.com/fragprof/fragprof/internal/predict/conformal"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// ProbeEvents are the numbers of checkpoints at which model build cuts the
// training runs to calibrate probes (3 is the fewest a probe predicts from).
var ProbeEvents = []int{3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024}

// ProbeCalibration is the error of probe predictions on the training runs.
type ProbeCalibration struct {
	Events []int `json:"events"`
	// Bias[i] is the median of ln(actual / predicted) over the training runs
	// cut after Events[i] checkpoints: the estimator's systematic error at that
	// cut, where the first transitions of a run are slower or faster than the
	// model's shape has them (merge sort's first pass, of runs of width 1, takes
	// about 1.4 times a later one, which a pass time of n alone averages), by which a
	// probe of that many checkpoints is corrected; Q[i] is the 90% conformal
	// quantile of |ln(actual / predicted) − Bias[i]| over the same runs; Runs[i]
	// how many runs were predicted (a run with no more checkpoints than that is
	// left out). A model without Bias (an older fragprof's) is not corrected.
	Bias []float64 `json:"bias,omitempty"`
	Q    []float64 `json:"q"`
	Runs []int     `json:"runs"`
	// Self[i] is S_K, the 90% conformal quantile of |e_self| over the same cuts
	// (0 where a cut has fewer than minSelfTest checkpoints, too few to test, or
	// fewer than minSelfRuns runs have more: one run that lost its processor in
	// a quarter of the cut would be the quantile).
	Self []float64 `json:"self,omitempty"`
}

// ProbeInfo is what a prediction from probes says (Prediction.Probe).
type ProbeInfo struct {
	Probes int `json:"probes"`
	// Events and MeasuredNs are the median probe's checkpoints passed and time
	// from its first checkpoint to its last; Share the model's share of the
	// whole run that these events are (the median over the probes).
	Events     float64 `json:"events"`
	MeasuredNs float64 `json:"measured_ns"`
	Share      float64 `json:"share"`
	// Rate is how much slower the probe ran than the model expected for its
	// part (> 1: slower), over all of it, warm-up included.
	Rate float64 `json:"rate"`
	// ModelNs is the prediction without the probe, by ModelChosen.
	ModelNs     float64 `json:"model_ns"`
	ModelChosen string  `json:"model_chosen"`
	// CalibratedEvents is the cut whose calibration gives the interval's Q.
	CalibratedEvents int     `json:"calibrated_events"`
	Q                float64 `json:"q"`
	// Bias is the calibration's correction at that cut, ln of the factor each
	// stopped probe's estimate was multiplied by (ProbeCalibration.Bias).
	Bias  float64 `json:"bias"`
	Noise float64 `json:"noise"`
	// SelfError is e_self, the probe's error predicting its own end from its
	// first half, and SelfH its part of the interval (h_self). SelfLimit is S_K
	// (0: not calibrated); Drift the factor the prediction was multiplied by
	// when e_self passed twice it (1: not).
	SelfError float64 `json:"self_error"`
	SelfH     float64 `json:"self_h"`
	SelfLimit float64 `json:"self_limit,omitempty"`
	Drift     float64 `json:"drift"`
	// LinearNs is the prediction with the drift growing linearly in
	// checkpoints (linearDrift; the largest over the probes), the interval's
	// far end when Drift is not 1 and it is beyond twice the drift.
	LinearNs float64  `json:"linear_ns,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

// A ProbeHint suggests the budget of a probe of an input the training runs
// cannot speak for (Prediction.ProbeHint): 5% of the run's predicted checkpoints
// (at least minSelfTest, fewer than all) or 5% of its predicted time (at least 5
// ms), for trace --stop-events and --stop-after. Its time is the chosen
// predictor's, which beyond the range can be 4× off; its checkpoints are the
// graph model's.
type ProbeHint struct {
	StopEvents  int     `json:"stop_events"`
	StopAfterNs float64 `json:"stop_after_ns"`
}

// probeHint is p's ProbeHint: nil unless its input lies more than twice beyond
// the training range or across a cache level no training run crossed.
func probeHint(p *Prediction) *ProbeHint {
	if p.Cache == nil && p.Factor <= 2 {
		return nil
	}
	k := math.Min(math.Max(minSelfTest, math.Ceil(0.05*p.Events)), math.Max(3, p.Events-1))
	return &ProbeHint{StopEvents: int(k), StopAfterNs: math.Max(5e6, 0.05*p.TimeNs)}
}

// minSelfTest is the fewest checkpoints a probe tests the model's shape with:
// with fewer, its quarters are a transition or two, as uneven as the program's
// steps (a merge sort's first pass against its later ones).
const minSelfTest = 8

// minSelfRuns is the fewest training runs S_K is calibrated on.
const minSelfRuns = 20

// probeHalf is K₀ for a probe of k checkpoints.
func probeHalf(k int) int { return max(2, (k+1)/2) }

// probeEstimate is ŷ from the probe's times tK, tK0 at its K-th and K₀-th
// checkpoints and the model's aK, aK0 and total (see the file comment).
func probeEstimate(tK, tK0, aK, aK0, total float64) float64 {
	r := tK / aK
	if d := aK - aK0; d > 0 && tK > tK0 {
		r = (tK - tK0) / d
	}
	return tK + r*math.Max(0, total-aK)
}

// selfTest is a probe's test of the model's shape on itself: e_self, its error
// predicting its own time to its K-th checkpoint, tK, from the times tK0, tK1 to
// its K₀-th and K₁-th, with the model's times aK, aK0, aK1 to them; and h_self,
// that error over the d = log₂(aK/aK0) doublings it spans carried over the D =
// log₂(total/aK) of the rest of the run. ok is false when the probe is too short
// to test (see the file comment), or when the model gives its quarter K₁…K₀ less
// than a fifth of the share of the probe's time the probe spent there: a time
// formula clamped at zero for the first rows (one that turned negative beyond
// the training range) would make any rate measured there meaningless.
func selfTest(k int, tK, tK0, tK1, aK, aK0, aK1, total float64) (e, h float64, ok bool) {
	if k < minSelfTest || !(aK0 > 0) || !(aK > aK0) || !(total > aK) || !(tK > tK0) ||
		(aK0-aK1)/aK < 0.2*(tK0-tK1)/tK {
		return 0, 0, false
	}
	e = conformal.LogRatio(tK, probeEstimate(tK0, tK1, aK0, aK1, aK))
	return e, math.Abs(e) * math.Log2(total/aK) / math.Log2(aK/aK0), true
}

// driftSteps is the number of steps of checkpoints over which linearDrift
// integrates the rest of a run.
const driftSteps = 32

// linearDrift is a probe's prediction with its rate against the model
// extrapolated linearly in checkpoints: r₁ = (T(K₀) − T(K₁)) / (T̂(K₀) − T̂(K₁))
// at checkpoint (K₁ + K₀)/2 and r₂ likewise over K₀…K at (K₀ + K)/2 give the rate
// r(k) = max(0, r₂ + (k − (K₀+K)/2)·(r₂ − r₁)/((K − K₁)/2)), and the rest of the
// run is the model's time in each step of grid (checkpoint numbers past K,
// ascending; mark gives the model's time to one) times the rate at its middle,
// to the model's total. It is the far end of the interval when the self-test
// fails: a drift that keeps growing with the program's progress, as drift.c's
// (testdata) does, where the main estimate's, power-law in the model's time,
// falls short. 0 when the probe's quarters take no model time.
func linearDrift(k, k0, k1 int, tK, tK0, tK1 float64, mark func(float64) float64, grid []float64, total float64) float64 {
	a, a0, a1 := mark(float64(k)), mark(float64(k0)), mark(float64(k1))
	if !(a0 > a1) || !(a > a0) {
		return 0
	}
	r1, r2 := (tK0-tK1)/(a0-a1), (tK-tK0)/(a-a0)
	m2 := float64(k0+k) / 2
	slope := (r2 - r1) / (float64(k-k1) / 2)
	rate := func(e float64) float64 { return math.Max(0, r2+slope*(e-m2)) }
	y, prevE, prevA := tK, float64(k), a
	for _, e := range grid {
		if e <= prevE {
			continue
		}
		ae := mark(e)
		if math.IsNaN(ae) {
			break // past the run's end in the model
		}
		y += rate((prevE+e)/2) * (ae - prevA)
		prevE, prevA = e, ae
	}
	return y + rate(prevE)*math.Max(0, total-prevA)
}

// probeBias is B_K, the median of the errors e of the training runs cut after K
// checkpoints, when it holds across their sizes: the medians over the runs of
// the smaller and of the larger half of the model's run times (totals) have its
// sign and lie within a factor 2 of each other. Otherwise 0: a bias that
// changes with the size, such as the cold caches of a stencil's first step
// (large against a step of the smallest runs, small against one of the
// largest: jacobi2d's probes of 3 checkpoints, corrected by the median, went
// from 11% to 21% low in one seed at 4 times the training sizes in
// bench/predict.sh), does not carry to a larger input; merge sort's slower
// first pass does.
func probeBias(errs, totals []float64) float64 {
	b := stats.Median(errs)
	if b == 0 || len(errs) < 6 {
		return 0
	}
	mid := stats.Median(totals)
	var small, large []float64
	for j, e := range errs {
		if totals[j] <= mid {
			small = append(small, e)
		} else {
			large = append(large, e)
		}
	}
	if len(small) < 3 || len(large) < 3 {
		return 0
	}
	bs, bl := stats.Median(small), stats.Median(large)
	if bs*b <= 0 || bl*b <= 0 || math.Max(math.Abs(bs), math.Abs(bl)) > 2*math.Min(math.Abs(bs), math.Abs(bl)) {
		return 0
	}
	return b
}

// calibrateProbe computes the model's ProbeCalibration from its training traces.
func (m *Model) calibrateProbe(traces []*trace.Trace, runs int) {
	steps := maxSteps(traces)
	// A probe cut from a training run: the estimate y, and its self-test.
	type cut struct {
		i          int // in ProbeEvents
		span, y    float64
		total      float64 // the model's time of the run's whole point
		e, h       float64
		selfTested bool
	}
	var cuts []cut
	for _, pt := range pointsOf(m, traces) {
		// One interpretation per point, with the cuts of all its runs as marks.
		type at struct {
			i, k, k0, k1       int
			span, tK, tK0, tK1 float64
		}
		var ats []at
		var marks []float64
		for _, t := range pt.Traces {
			th := t.Main()
			if th == nil {
				continue
			}
			for i, k := range ProbeEvents {
				if k >= th.Len() {
					break
				}
				k0 := probeHalf(k)
				k1 := probeHalf(k0)
				ats = append(ats, at{i, k, k0, k1, float64(th.Span()), float64(th.Time[k-1] - th.Time[0]),
					float64(th.Time[k0-1] - th.Time[0]), float64(th.Time[k1-1] - th.Time[0])})
				marks = append(marks, float64(k), float64(k0), float64(k1))
			}
		}
		if len(marks) == 0 {
			continue
		}
		sorted := slices.Clone(marks)
		slices.Sort(sorted)
		sorted = slices.Compact(sorted)
		p, err := m.predict(pt.Inputs, PredictOptions{Runs: runs, MaxSteps: steps, Marks: sorted})
		if err != nil || !(p.GraphTotalNs > 0) {
			continue
		}
		mark := func(k int) float64 { return p.MarkNs[slices.Index(sorted, float64(k))] }
		for _, a := range ats {
			aK, aK0 := mark(a.k), mark(a.k0)
			if !(aK > 0) || !(a.tK > 0) {
				continue
			}
			c := cut{i: a.i, span: a.span, y: probeEstimate(a.tK, a.tK0, aK, aK0, p.GraphTotalNs), total: p.GraphTotalNs}
			c.e, c.h, c.selfTested = selfTest(a.k, a.tK, a.tK0, a.tK1, aK, aK0, mark(a.k1), p.GraphTotalNs)
			cuts = append(cuts, c)
		}
	}
	cal := &ProbeCalibration{}
	for i, ev := range ProbeEvents {
		var self []float64
		for _, c := range cuts {
			if c.i == i && c.selfTested {
				self = append(self, math.Abs(c.e))
			}
		}
		limit := 0.0
		if len(self) >= minSelfRuns {
			limit = conformal.Quantile(self)
		}
		var errs, totals []float64
		for _, c := range cuts {
			if c.i == i {
				errs = append(errs, conformal.LogRatio(c.span, c.y))
				totals = append(totals, c.total)
			}
		}
		if len(errs) < 3 {
			continue
		}
		bias := probeBias(errs, totals)
		for j, e := range errs {
			errs[j] = math.Abs(e - bias)
		}
		cal.Events = append(cal.Events, ev)
		cal.Q = append(cal.Q, conformal.Quantile(errs))
		cal.Bias = append(cal.Bias, bias)
		cal.Runs = append(cal.Runs, len(errs))
		cal.Self = append(cal.Self, limit)
	}
	if len(cal.Events) > 0 {
		m.Probe = cal
	}
}

// cut is the index of the calibration of a probe of k checkpoints: the largest
// calibrated cut not above k, the smallest when k is below them all.
func (c *ProbeCalibration) cut(k float64) int {
	i := 0
	for j, e := range c.Events {
		if float64(e) <= k {
			i = j
		}
	}
	return i
}

// ApplyProbe replaces p, the model's prediction for inputs, by the prediction
// from probes: runs of the same inputs, usually stopped early (trace
// --stop-after; a whole run is a probe of share 1). It returns an error naming
// the trace when a probe is of other inputs, incomplete, or passed more
// checkpoints than the model predicts for the whole run (its structure does not
// hold for this input).
func (m *Model) ApplyProbe(p *Prediction, inputs map[string]float64, probes []*trace.Trace, opt PredictOptions) error {
	if len(probes) == 0 {
		return fmt.Errorf("no probe traces")
	}
	var marks []float64
	for _, t := range probes {
		switch {
		case t.Header.ExitCode != 0:
			return fmt.Errorf("%s: the probe ended badly (%s)", t.Name, t.Header.Status)
		case !t.Finished:
			return fmt.Errorf("%s: the probe's trace is incomplete (no END record)", t.Name)
		case t.Truncated || t.Lost > 0:
			return fmt.Errorf("%s: the probe's trace was truncated (--max-events)", t.Name)
		case t.Main() == nil || t.Main().Len() < 2:
			return fmt.Errorf("%s: the probe passed fewer than 2 checkpoints: give it a longer --stop-after", t.Name)
		}
		for _, name := range m.Inputs {
			v, ok := t.Input(name)
			if ok && v != inputs[name] {
				return fmt.Errorf("%s: the probe ran %s = %g, the prediction is for %s = %g", t.Name, name, v, name, inputs[name])
			}
		}
		k := t.Main().Len()
		k0 := probeHalf(k)
		marks = append(marks, float64(k), float64(k0), float64(probeHalf(k0)))
	}
	// The rest of the run, in driftSteps steps of checkpoints, for the drift's
	// bound (linearDrift).
	lo := slices.Min(marks)
	var grid []float64
	if p.Events > lo {
		for j := 1; j <= driftSteps; j++ {
			grid = append(grid, math.Round(lo+(p.Events-lo)*float64(j)/driftSteps))
		}
		marks = append(marks, grid...)
	}
	sorted := slices.Clone(marks)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	opt.Marks = sorted
	in := m.inputVector(inputs)
	g, err := m.predict(in, opt)
	if err != nil {
		return err
	}
	var preds, shares, events, measured, rates, selfErr, selfH, linear []float64
	mark := func(k float64) float64 { return g.MarkNs[slices.Index(sorted, k)] }
	for _, t := range probes {
		th := t.Main()
		k, k0 := th.Len(), probeHalf(th.Len())
		at := mark(float64(k))
		at0 := mark(float64(k0))
		if math.IsNaN(at) {
			return fmt.Errorf("%s: the probe passed %d checkpoints, more than the %.0f the model predicts for the whole run at these inputs: the model's structure does not hold here (train on inputs nearer this one)",
				t.Name, th.Len(), g.Events)
		}
		share := at / g.GraphTotalNs
		ms := float64(th.Span())
		if !(share > 0) || !(ms > 0) {
			return fmt.Errorf("%s: the probe's part of the run takes no time in the model or in the probe: give it a longer --stop-after", t.Name)
		}
		tK0 := float64(th.Time[k0-1] - th.Time[0])
		y := probeEstimate(ms, tK0, at, at0, g.GraphTotalNs)
		// The self-test: T(K) from the probe's first half, when its quarters hold
		// a few transitions each (a whole run needs none).
		k1 := probeHalf(k0)
		tK1 := float64(th.Time[k1-1] - th.Time[0])
		if e, h, ok := selfTest(k, ms, tK0, tK1, at, at0, mark(float64(k1)), g.GraphTotalNs); ok && t.Stopped {
			selfErr = append(selfErr, e)
			selfH = append(selfH, h)
			if yl := linearDrift(k, k0, k1, ms, tK0, tK1, mark, grid, g.GraphTotalNs); yl > 0 {
				linear = append(linear, yl)
			}
		}
		if !t.Stopped {
			y, share = ms, 1 // a whole run: its own time
		} else if c := m.Probe; c != nil && len(c.Bias) == len(c.Events) {
			y *= math.Exp(c.Bias[c.cut(float64(k))])
		}
		preds = append(preds, y)
		shares = append(shares, share)
		events = append(events, float64(k))
		measured = append(measured, ms)
		rates = append(rates, ms/at)
	}
	info := &ProbeInfo{Probes: len(probes), Events: stats.Median(events), MeasuredNs: stats.Median(measured),
		Share: stats.Median(shares), Rate: stats.Median(rates), ModelNs: p.TimeNs, ModelChosen: p.Chosen, Drift: 1}
	y := stats.Median(preds)
	if c := m.Probe; c != nil && len(c.Events) > 0 {
		i := c.cut(info.Events)
		info.CalibratedEvents, info.Q = c.Events[i], c.Q[i]
		if len(c.Bias) == len(c.Events) && info.Share < 1 {
			info.Bias = c.Bias[i]
		}
		for j := min(i, len(c.Self)-1); j >= 0 && info.SelfLimit == 0; j-- {
			info.SelfLimit = c.Self[j] // the largest cut with enough runs to test
		}
		if info.Events < float64(c.Events[0]) {
			info.Notes = append(info.Notes, fmt.Sprintf("the probes passed %.0f checkpoints, fewer than any calibrated (%d): the interval may be too narrow; give them a longer --stop-after",
				info.Events, c.Events[0]))
		}
	} else {
		info.Notes = append(info.Notes, "the model has no probe calibration (built by an older fragprof, or its training runs are too short to cut): the interval holds the run-to-run noise only")
	}
	if s := m.Selection; s != nil {
		info.Noise = s.Interval.NearestNoise(in)
	}
	if len(selfErr) > 0 {
		info.SelfError, info.SelfH = stats.Median(selfErr), stats.Median(selfH)
	} else if info.Share < 1 {
		info.Notes = append(info.Notes, "the probes passed too few checkpoints to test the model's shape on themselves: give them a longer --stop-after")
	}
	if info.SelfLimit > 0 && len(selfErr) == len(probes) && info.SelfError > 2*info.SelfLimit {
		// The probes fail the test clearly, their second half slower than the
		// first predicts.
		info.Drift = math.Exp(info.SelfH)
	}
	switch {
	case info.Drift != 1:
		info.Notes = append(info.Notes, fmt.Sprintf("the model's shape does not hold at this input: the probes' second half took %.3g× what their first half and the model predict (on the training runs at most %.3g× in 9 of 10), and the rest of the run is %.3g times longer; the prediction carries that drift over the rest of the run (×%.3g), and the interval reaches from no drift to the drift growing on in step with the checkpoints (a longer probe narrows it)",
			math.Exp(info.SelfError), math.Exp(info.SelfLimit), 1/info.Share-1, info.Drift))
	case info.SelfH > 0.3:
		info.Notes = append(info.Notes, fmt.Sprintf("the model's shape may not hold at this input: the probes' second half took %.3g× what their first half and the model predict, and the rest of the run is %.3g times longer; the interval is widened by ×%.3g (a longer probe narrows it)",
			math.Exp(info.SelfError), 1/info.Share-1, math.Exp(info.SelfH)))
	}
	h0 := math.Sqrt(info.Q*info.Q + (1+1/float64(len(probes)))*info.Noise*info.Noise)
	h := math.Hypot(h0, info.SelfH)
	p.Interval = [2]float64{y * math.Exp(-h), y * math.Exp(h)}
	if info.Drift != 1 {
		// A bias whose size is known only roughly, not a noise: from none past
		// the probes (y) to twice the one assumed or a rate that grows on with
		// the checkpoints as it grew between the probes' quarters, the larger.
		if len(linear) > 0 {
			info.LinearNs = slices.Max(linear)
		}
		lo, hi := y, math.Max(info.LinearNs, y*info.Drift*info.Drift)
		y *= info.Drift
		p.Interval = [2]float64{lo * math.Exp(-h0), hi * math.Exp(h0)}
	}
	p.Probe, p.ProbeHint = info, nil
	p.Chosen = "probe"
	p.TimeNs = y
	p.IntervalLevel = conformal.Level
	p.UntracedNs = y - p.Events*m.Training.OverheadNs
	if p.UntracedNs < 0.05*y {
		p.UntracedNs = math.NaN()
	}
	return nil
}
