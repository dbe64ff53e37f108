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
// The interval is calibrated on the training runs: each run, cut after its first K
// checkpoints for K in ProbeEvents (where it has more), is predicted as above, and
// Q_K is the ⌈0.9(n+1)⌉-th smallest |ln(actual / ŷ)| over the n runs. A probe of K
// checkpoints uses the Q of the largest calibrated K not above its own (the
// smallest when it passed fewer): the noise of a rate measured over K transitions
// and of the warm-up in it. The probe and the run predicted are two executions:
// the run-to-run noise h_n of the nearest training point
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

package predict

import (
	"fmt"
	"math"
	"slices"
	"sort"

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
	// Q[i] is the 90% conformal quantile of |ln(actual / predicted)| over the
	// training runs cut after Events[i] checkpoints; Runs[i] how many runs were
	// predicted (a run with no more checkpoints than that is left out).
	Q    []float64 `json:"q"`
	Runs []int     `json:"runs"`
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
	Noise            float64 `json:"noise"`
	// SelfError is e_self, the probe's error predicting its own end from its
	// first half, and SelfH its part of the interval (h_self).
	SelfError float64  `json:"self_error"`
	SelfH     float64  `json:"self_h"`
	Notes     []string `json:"notes,omitempty"`
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

// calibrateProbe computes the model's ProbeCalibration from its training traces.
func (m *Model) calibrateProbe(traces []*trace.Trace, runs int) {
	steps := maxSteps(traces)
	errs := make([][]float64, len(ProbeEvents))
	for _, pt := range pointsOf(m, traces) {
		// One interpretation per point, with the cuts of all its runs as marks.
		type cut struct {
			i             int // in ProbeEvents
			span, tK, tK0 float64
			k, k0         int
		}
		var cuts []cut
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
				cuts = append(cuts, cut{i, float64(th.Span()), float64(th.Time[k-1] - th.Time[0]), float64(th.Time[k0-1] - th.Time[0]), k, k0})
				marks = append(marks, float64(k), float64(k0))
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
		for _, c := range cuts {
			aK := p.MarkNs[slices.Index(sorted, float64(c.k))]
			aK0 := p.MarkNs[slices.Index(sorted, float64(c.k0))]
			if !(aK > 0) || !(c.tK > 0) {
				continue
			}
			y := probeEstimate(c.tK, c.tK0, aK, aK0, p.GraphTotalNs)
			errs[c.i] = append(errs[c.i], math.Abs(conformal.LogRatio(c.span, y)))
		}
	}
	cal := &ProbeCalibration{}
	for i, ev := range ProbeEvents {
		e := errs[i]
		if len(e) < 3 {
			continue
		}
		sort.Float64s(e)
		k := int(math.Ceil(conformal.Level*float64(len(e)+1))) - 1
		cal.Events = append(cal.Events, ev)
		cal.Q = append(cal.Q, e[min(k, len(e)-1)])
		cal.Runs = append(cal.Runs, len(e))
	}
	if len(cal.Events) > 0 {
		m.Probe = cal
	}
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
	sorted := slices.Clone(marks)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	opt.Marks = sorted
	in := m.inputVector(inputs)
	g, err := m.predict(in, opt)
	if err != nil {
		return err
	}
	var preds, shares, events, measured, rates, selfErr, selfH []float64
	for _, t := range probes {
		th := t.Main()
		k, k0 := th.Len(), probeHalf(th.Len())
		at := g.MarkNs[slices.Index(sorted, float64(k))]
		at0 := g.MarkNs[slices.Index(sorted, float64(k0))]
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
		if k1 := probeHalf(k0); t.Stopped && k >= minSelfTest && at0 > 0 && at > at0 && g.GraphTotalNs > at {
			at1 := g.MarkNs[slices.Index(sorted, float64(k1))]
			e := conformal.LogRatio(ms, probeEstimate(tK0, float64(th.Time[k1-1]-th.Time[0]), at0, at1, at))
			selfErr = append(selfErr, e)
			selfH = append(selfH, math.Abs(e)*math.Log2(g.GraphTotalNs/at)/math.Log2(at/at0))
		}
		if !t.Stopped {
			y, share = ms, 1 // a whole run: its own time
		}
		preds = append(preds, y)
		shares = append(shares, share)
		events = append(events, float64(k))
		measured = append(measured, ms)
		rates = append(rates, ms/at)
	}
	info := &ProbeInfo{Probes: len(probes), Events: stats.Median(events), MeasuredNs: stats.Median(measured),
		Share: stats.Median(shares), Rate: stats.Median(rates), ModelNs: p.TimeNs, ModelChosen: p.Chosen}
	y := stats.Median(preds)
	if c := m.Probe; c != nil && len(c.Events) > 0 {
		i := 0
		for j, k := range c.Events {
			if float64(k) <= info.Events {
				i = j
			}
		}
		info.CalibratedEvents, info.Q = c.Events[i], c.Q[i]
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
	if info.SelfH > 0.3 {
		info.Notes = append(info.Notes, fmt.Sprintf("the model's shape does not hold at this input: the probes' second half took %.3g× what their first half and the model predict, and the rest of the run is %.3g times longer; the interval is widened by ×%.3g (a longer probe narrows it)",
			math.Exp(info.SelfError), 1/info.Share-1, math.Exp(info.SelfH)))
	}
	h := math.Sqrt(info.Q*info.Q + (1+1/float64(len(probes)))*info.Noise*info.Noise + info.SelfH*info.SelfH)
	p.Probe, p.ProbeHint = info, nil
	p.Chosen = "probe"
	p.TimeNs = y
	p.Interval = [2]float64{y * math.Exp(-h), y * math.Exp(h)}
	p.IntervalLevel = conformal.Level
	p.UntracedNs = y - p.Events*m.Training.OverheadNs
	if p.UntracedNs < 0.05*y {
		p.UntracedNs = math.NaN()
	}
	return nil
}
