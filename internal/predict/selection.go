// This file chooses, by cross-validation on the training input points, which
// predictor of a run's total time a model uses — the transition-graph model, a
// direct model of the inputs, or a combination — and gives its predictions an
// interval whose coverage is measured, not assumed.
//
// The candidates:
//
//	graph        the transition-graph model (interp.go), calibrated
//	pmnf         Extra-P's performance-model normal form (baseline.go)
//	power        a + b·x^k of one input, k fitted (powerlaw.go)
//	segmented    the same with a change of slope at a fitted breakpoint, where
//	             the data leaves a cache level (segmented.go)
//	composition  Σ over arcs of (predicted count) × (mean training time of the
//	             arc): the lab manual's count × fragment-time composition
//	graph+pmnf   the mean of graph and pmnf
//
// Folds are made of whole input points ordered by their median time: 5
// interpolation folds (every point but the smallest and the largest held out once;
// the extremes always stay in training, as in the final model) and 3 extrapolation
// cuts (train on the smallest third, half, resp. three quarters of the points and
// predict the rest: the third reaches the farthest, where a wrong exponent shows). Every candidate is refitted from the fold's traces alone and scored by
// its mean absolute percentage error over all these predictions. The chosen one is
// the simplest whose score is within one standard error of the lowest (the
// one-standard-error rule: Breiman, Friedman, Olshen & Stone, "Classification and
// Regression Trees", 1984, §3.4.3; Hastie, Tibshirani & Friedman, "The Elements of
// Statistical Learning", §7.10): where the folds cannot tell two candidates
// apart, the one with fewer fitted parameters extrapolates more safely. By
// simplicity: power, pmnf, segmented, composition, graph, graph+pmnf (Simplicity). A
// candidate whose final fit extrapolates unlike its folds' fits (StableWithin) is
// passed over for a stable one within two standard errors of the best; and where
// the chosen candidate and the simplest stable one predict 4× beyond the range
// more than StableWithin² apart, the simpler is kept.
//
// The interval is a cross-conformal prediction interval (the CV+ of Barber, Candès,
// Ramdas & Tibshirani, "Predictive inference with the jackknife+", Ann. Statist.
// 49(1), 2021, with normalised scores as in Lei et al., "Distribution-free
// predictive inference for regression", JASA 113, 2018) for the model's error,
// combined with the run-to-run noise. The model's error at a held-out point p is
// e_p = ln(m_p / ŷ_p), m_p the median of its runs; its score s_p = |e_p| / (1 +
// c·log₂ f_p), f_p ≥ 1 the factor by which p lies beyond the fold's training range;
// Q is the ⌈(1 − α)(n + 1)⌉-th smallest of the n scores. c, the widening per
// doubling beyond the range, is the least-squares slope of |e_p|/a − 1 against
// log₂ f_p over the extrapolation cuts, a the mean |e_p| of the interpolation
// folds (clamped to [0.1, 2]). A single run's interval at an input f× beyond the
// range is ŷ·e^(±h), h = √(h_m² + h_n²): h_m = Q·(1 + c·log₂ f) the model's part,
// h_n the 90% quantile of |ln(t / median)| over the runs of the nearest training
// input — the run-to-run noise, which does not grow with the extrapolation. (Two
// independent errors' 90% quantiles add in quadrature when they are normal.)

package predict

import (
	"fmt"
	"math"
	"sort"

	"github.com/fragprof/fragprof/internal/trace"
)

// The candidate predictors, in the order they are tried and printed.
const (
	CandGraph       = "graph"
	CandPMNF        = "pmnf"
	CandPower       = "power"
	CandSegmented   = "segmented"
	CandComposition = "composition"
	CandMix         = "graph+pmnf"
)

// Candidates lists the candidate predictors.
var Candidates = []string{CandGraph, CandPMNF, CandPower, CandSegmented, CandComposition, CandMix}

// Simplicity orders the candidates from the fewest fitted parameters to the most.
var Simplicity = []string{CandPower, CandPMNF, CandSegmented, CandComposition, CandGraph, CandMix}

// IntervalLevel is the coverage the intervals aim at.
const IntervalLevel = 0.9

// Selection records the cross-validated choice of a model's time predictor and its
// interval.
type Selection struct {
	Chosen     string           `json:"chosen"`
	Points     int              `json:"points"`           // training input points
	Folds      int              `json:"folds"`            // interpolation folds
	Cuts       int              `json:"extrap_cuts"`      // extrapolation cuts
	Candidates []CandidateScore `json:"candidates"`       // in the order of Candidates
	Interval   Conformal        `json:"interval"`         // of the chosen candidate
	Failed     []string         `json:"failed,omitempty"` // folds whose models could not be built
	// Apart says why a simpler candidate replaced the cross-validation's choice.
	Apart string `json:"apart,omitempty"`
}

// A CandidateScore is one candidate's cross-validated error.
type CandidateScore struct {
	Name string `json:"name"`
	// MAPE is over every cross-validated prediction; InterpMAPE over the
	// interpolation folds', ExtrapMAPE over the extrapolation cuts'.
	MAPE       float64 `json:"cv_mape"`
	InterpMAPE float64 `json:"interp_mape"`
	ExtrapMAPE float64 `json:"extrap_mape"`
	MaxAPE     float64 `json:"max_ape"`
	// SE is the standard error of MAPE: the standard deviation of the errors over
	// √(their number).
	SE float64 `json:"se"`
	// FarRatio is the final fit's prediction at 4× the largest training input
	// over the median of the interpolation folds' fits'; Unstable says it is
	// beyond StableWithin (or its inverse).
	FarRatio float64 `json:"far_ratio,omitempty"`
	Unstable bool    `json:"unstable,omitempty"`
}

// StableWithin bounds how far (as a factor) a candidate's final fit may
// extrapolate from the median of its cross-validation folds' fits.
const StableWithin = 1.3

// Conformal is a cross-conformal interval: ŷ·[e^−h, e^h] with h the hypotenuse of
// Q·(1 + Widen·log₂ f), the model's error, and the run-to-run noise of the nearest
// training input.
type Conformal struct {
	Level  float64   `json:"level"`
	Q      float64   `json:"q"`
	Widen  float64   `json:"widen"`
	Scores int       `json:"scores"` // held-out points behind Q
	Noise  []NoiseAt `json:"noise,omitempty"`
}

// NoiseAt is the run-to-run noise of one training input point: the 90% quantile of
// |ln(t / median)| over its runs.
type NoiseAt struct {
	Inputs []float64 `json:"inputs"`
	Q      float64   `json:"q"`
}

// HalfWidth returns h for an input at extrapolation factor f.
func (c *Conformal) HalfWidth(in []float64, f float64) float64 {
	return math.Hypot(c.Q*(1+c.Widen*math.Log2(math.Max(f, 1))), c.nearestNoise(in))
}

// nearestNoise is the noise of the training point nearest to in (distance of the
// logarithms of positive inputs, of the values otherwise).
func (c *Conformal) nearestNoise(in []float64) float64 {
	best, q := math.Inf(1), 0.0
	for _, p := range c.Noise {
		var d float64
		for k := range in {
			if k >= len(p.Inputs) {
				break
			}
			a, b := in[k], p.Inputs[k]
			if a > 0 && b > 0 {
				a, b = math.Log(a), math.Log(b)
			}
			d += (a - b) * (a - b)
		}
		if d < best {
			best, q = d, p.Q
		}
	}
	return q
}

// candidateValues returns every candidate's prediction for in, from one run of the
// interpreter (pr, from m.predict).
func (m *Model) candidateValues(in []float64, pr *Prediction) map[string]float64 {
	out := map[string]float64{CandGraph: pr.TimeNs, CandComposition: pr.CompositionNs}
	if m.Baseline != nil {
		out[CandPMNF] = m.Baseline.Eval(in)
		out[CandMix] = (pr.TimeNs + out[CandPMNF]) / 2
	}
	if m.Power != nil {
		out[CandPower] = m.Power.Eval(in)
	}
	if m.Segmented != nil {
		out[CandSegmented] = m.Segmented.Eval(in)
	}
	return out
}

// ExtrapolationFactor returns by how much in lies beyond the training range: the
// largest over the inputs of v/max (above it) or min/v (below it), 1 inside. For
// an input whose range includes 0 or negative values, 1 + the distance beyond the
// range in range widths.
func (m *Model) ExtrapolationFactor(in []float64) float64 {
	return extrapFactor(m.Training.Ranges, m.Inputs, in)
}

func extrapFactor(ranges []InputRange, inputs []string, in []float64) float64 {
	f := 1.0
	for k, name := range inputs {
		var r *InputRange
		for i := range ranges {
			if ranges[i].Name == name {
				r = &ranges[i]
			}
		}
		if r == nil || k >= len(in) {
			continue
		}
		v := in[k]
		switch {
		case v > r.Max && r.Min > 0:
			f = math.Max(f, v/r.Max)
		case v < r.Min && r.Min > 0 && v > 0:
			f = math.Max(f, r.Min/v)
		case (v > r.Max || v < r.Min) && r.Max > r.Min:
			d := math.Max(v-r.Max, r.Min-v)
			f = math.Max(f, 1+d/(r.Max-r.Min))
		case v > r.Max || v < r.Min:
			f = math.Max(f, 2)
		}
	}
	return f
}

// cvPoint is a training input point as cross-validation sees it.
type cvPoint struct {
	traces []*trace.Trace
	in     []float64
	times  []float64
	median float64
}

// cvResidual is one cross-validated prediction of a point.
type cvResidual struct {
	extrap bool
	factor float64
	ape    map[string]float64 // per candidate, against the point's median
	e      map[string]float64 // per candidate, ln(median / ŷ)
}

// pointsOf groups traces into input points (their inputs by m's input order).
func pointsOf(m *Model, traces []*trace.Trace) []cvPoint {
	idx := InputPoints(traces)
	var pts []cvPoint
	for i, t := range traces {
		if idx[i] == len(pts) {
			p := cvPoint{}
			for _, name := range m.Inputs {
				v, _ := t.Input(name)
				p.in = append(p.in, v)
			}
			pts = append(pts, p)
		}
		p := &pts[idx[i]]
		p.traces = append(p.traces, t)
		if th := t.Main(); th != nil && th.Len() > 0 {
			p.times = append(p.times, float64(th.Time[th.Len()-1]-th.Time[0]))
		}
	}
	for i := range pts {
		pts[i].median = median(pts[i].times)
	}
	return pts
}

// logRatio is ln(t / y), 10 when y is not positive (a prediction of no time).
func logRatio(t, y float64) float64 {
	if !(y > 0) || !(t > 0) {
		return 10
	}
	return math.Log(t / y)
}

// selectPredictor cross-validates every candidate on the training traces of m
// and sets m.Selection. fit builds a model (graph, calibration and direct models)
// from a subset of the traces. With fewer than 5 input points it leaves
// m.Selection nil: the graph model is used with its own interval.
//
// force, unless "" or "auto", names the candidate to use whatever the scores.
func (m *Model) selectPredictor(train []*trace.Trace, fit func([]*trace.Trace) (*Model, error), runs int, force string) error {
	if force == "auto" {
		force = ""
	}
	if force != "" && indexOf(Candidates, force) < 0 {
		return fmt.Errorf("predict: predictor %q: want auto or one of %v", force, Candidates)
	}
	pts := pointsOf(m, train)
	if len(pts) < 5 {
		if force != "" && force != CandGraph {
			return fmt.Errorf("predict: predictor %q needs at least 5 training input points to be cross-validated (there are %d)", force, len(pts))
		}
		return nil
	}
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pts[order[a]].median < pts[order[b]].median })
	type fold struct {
		train, test []int
		extrap      bool
	}
	var folds []fold
	inner := order[1 : len(order)-1]
	K := min(5, len(inner))
	for f := 0; f < K; f++ {
		var fo fold
		fo.train = append(fo.train, order[0], order[len(order)-1])
		for i, p := range inner {
			if i%K == f {
				fo.test = append(fo.test, p)
			} else {
				fo.train = append(fo.train, p)
			}
		}
		folds = append(folds, fo)
	}
	cuts := 0
	for _, share := range []float64{1.0 / 3, 0.5, 0.75} {
		c := int(math.Round(share * float64(len(order))))
		if c < 3 || c >= len(order) {
			continue
		}
		folds = append(folds, fold{train: append([]int(nil), order[:c]...), test: append([]int(nil), order[c:]...), extrap: true})
		cuts++
	}
	var most int64
	for _, t := range train {
		if th := t.Main(); th != nil {
			most = max(most, int64(th.Len()))
		}
	}
	sel := &Selection{Points: len(pts), Folds: K, Cuts: cuts}
	// The stability of each candidate beyond the range: its prediction at 4× the
	// largest training input, by the final model and by the interpolation folds'.
	far := make([]float64, len(m.Inputs))
	for k := range far {
		for _, p := range pts {
			far[k] = math.Max(far[k], p.in[k])
		}
		if far[k] > 0 {
			far[k] *= 4
		}
	}
	farFolds := map[string][]float64{}
	var res []cvResidual
	for fi, fo := range folds {
		var ts []*trace.Trace
		for _, p := range fo.train {
			ts = append(ts, pts[p].traces...)
		}
		fm, err := fit(ts)
		if err != nil {
			sel.Failed = append(sel.Failed, fmt.Sprintf("fold %d: %v", fi+1, err))
			continue
		}
		if !fo.extrap {
			if pr, err := fm.predict(far, PredictOptions{Runs: runs, MaxSteps: 1000*most + 100000}); err == nil {
				for c, v := range fm.candidateValues(far, pr) {
					farFolds[c] = append(farFolds[c], v)
				}
			}
		}
		for _, p := range fo.test {
			pt := &pts[p]
			pr, err := fm.predict(pt.in, PredictOptions{Runs: runs, MaxSteps: 100*most + 100000})
			r := cvResidual{extrap: fo.extrap, factor: extrapFactor(fm.Training.Ranges, fm.Inputs, pt.in),
				ape: map[string]float64{}, e: map[string]float64{}}
			var vals map[string]float64
			if err != nil {
				sel.Failed = append(sel.Failed, fmt.Sprintf("fold %d: %v", fi+1, err))
				vals = map[string]float64{CandGraph: math.NaN(), CandComposition: math.NaN()}
				if fm.Baseline != nil {
					vals[CandPMNF] = fm.Baseline.Eval(pt.in)
					vals[CandMix] = math.NaN()
				}
				if fm.Power != nil {
					vals[CandPower] = fm.Power.Eval(pt.in)
				}
				if fm.Segmented != nil {
					vals[CandSegmented] = fm.Segmented.Eval(pt.in)
				}
			} else {
				vals = fm.candidateValues(pt.in, pr)
			}
			for _, c := range Candidates {
				y, ok := vals[c]
				if !ok {
					continue
				}
				if math.IsNaN(y) {
					y = 0
				}
				r.ape[c] = math.Abs(y-pt.median) / pt.median
				r.e[c] = logRatio(pt.median, y)
			}
			res = append(res, r)
		}
	}
	if len(res) == 0 {
		return fmt.Errorf("predict: no cross-validation fold could be built: %v", sel.Failed)
	}
	best, bestSE := math.Inf(1), 0.0
	for _, c := range Candidates {
		cs := CandidateScore{Name: c}
		var n, ni, ne int
		var sq float64
		missing := false
		for _, r := range res {
			e, ok := r.ape[c]
			if !ok {
				missing = true
				break
			}
			sq += e * e
			cs.MAPE += e
			cs.MaxAPE = math.Max(cs.MaxAPE, e)
			n++
			if r.extrap {
				cs.ExtrapMAPE += e
				ne++
			} else {
				cs.InterpMAPE += e
				ni++
			}
		}
		if missing || n == 0 {
			continue
		}
		cs.MAPE /= float64(n)
		if n > 1 {
			cs.SE = math.Sqrt(math.Max(0, sq/float64(n)-cs.MAPE*cs.MAPE) * float64(n) / float64(n-1) / float64(n))
		}
		if ni > 0 {
			cs.InterpMAPE /= float64(ni)
		}
		if ne > 0 {
			cs.ExtrapMAPE /= float64(ne)
		}
		sel.Candidates = append(sel.Candidates, cs)
		if cs.MAPE < best {
			best, bestSE = cs.MAPE, cs.SE
		}
	}
	// A candidate whose final fit predicts 4× beyond the range more than
	// StableWithin away from the median of its folds' fits (each on four fifths
	// of the points) rests on a few points — a per-row time that turned from n²
	// to n³ because the largest runs met a cache level. The simplest stable
	// candidate not significantly worse than the best (within two standard
	// errors) is chosen; failing one, the one-standard-error rule alone decides.
	var full map[string]float64
	if pr, err := m.predict(far, PredictOptions{Runs: runs, MaxSteps: 1000*most + 100000}); err == nil {
		full = m.candidateValues(far, pr)
		for i := range sel.Candidates {
			cs := &sel.Candidates[i]
			f, ok := full[cs.Name]
			med := median(farFolds[cs.Name])
			if !ok || !(med > 0) || !(f > 0) {
				continue
			}
			cs.FarRatio = f / med
			cs.Unstable = math.Abs(math.Log(cs.FarRatio)) > math.Log(StableWithin)
		}
	}
	for _, c := range Simplicity {
		if cs, ok := sel.Score(c); ok && !cs.Unstable && cs.MAPE <= best+2*math.Max(bestSE, cs.SE) {
			sel.Chosen = c
			break
		}
	}
	if sel.Chosen == "" {
		for _, c := range Simplicity {
			if cs, ok := sel.Score(c); ok && cs.MAPE <= best+bestSE {
				sel.Chosen = c
				break
			}
		}
	}
	// Where the chosen candidate and the simplest stable one part by more than
	// StableWithin² at 4× beyond the range, one of them extrapolates wrongly and
	// the folds, all inside the range, cannot say which: the simpler is kept.
	if full != nil && sel.Chosen != "" && !sel.simplest(sel.Chosen) {
		for _, c := range Simplicity {
			cs, ok := sel.Score(c)
			if !ok || cs.Unstable || c == CandComposition {
				continue
			}
			a, b := full[sel.Chosen], full[c]
			if c != sel.Chosen && a > 0 && b > 0 && math.Abs(math.Log(a/b)) > 2*math.Log(StableWithin) {
				sel.Apart = fmt.Sprintf("%s and %s predict %.3g× apart at 4× the largest input: the simpler is kept", sel.Chosen, c, math.Max(a/b, b/a))
				sel.Chosen = c
			}
			break
		}
	}
	if force != "" {
		if _, ok := sel.Score(force); !ok {
			return fmt.Errorf("predict: predictor %q is not available for these traces", force)
		}
		sel.Chosen = force
	}
	if sel.Chosen == "" {
		return fmt.Errorf("predict: no candidate predictor could be cross-validated: %v", sel.Failed)
	}
	sel.Interval = conformal(res, sel.Chosen, pts)
	m.Selection = sel
	return nil
}

// conformal computes the interval of candidate c from the cross-validated
// residuals (see the file's comment).
func conformal(res []cvResidual, c string, pts []cvPoint) Conformal {
	out := Conformal{Level: IntervalLevel, Widen: 0.5}
	var a float64
	var na int
	for _, r := range res {
		if r.factor <= 1 {
			a += math.Abs(r.e[c])
			na++
		}
	}
	if na > 0 && a > 0 {
		a /= float64(na)
		var sxy, sxx float64
		for _, r := range res {
			if r.factor <= 1.01 {
				continue
			}
			L := math.Log2(r.factor)
			sxy += (math.Abs(r.e[c])/a - 1) * L
			sxx += L * L
		}
		if sxx > 0 {
			out.Widen = math.Min(2, math.Max(0.1, sxy/sxx))
		}
	}
	var scores []float64
	for _, r := range res {
		scores = append(scores, math.Abs(r.e[c])/(1+out.Widen*math.Log2(math.Max(r.factor, 1))))
	}
	sort.Float64s(scores)
	out.Scores = len(scores)
	if n := len(scores); n > 0 {
		k := int(math.Ceil(IntervalLevel*float64(n+1))) - 1
		out.Q = scores[min(k, n-1)]
	}
	for _, p := range pts {
		if len(p.times) < 3 {
			continue
		}
		dev := make([]float64, len(p.times))
		for i, t := range p.times {
			dev[i] = math.Abs(logRatio(t, p.median))
		}
		sort.Float64s(dev)
		k := int(math.Ceil(IntervalLevel*float64(len(dev)))) - 1
		out.Noise = append(out.Noise, NoiseAt{Inputs: p.in, Q: dev[max(k, 0)]})
	}
	return out
}

// simplest reports whether c comes first in Simplicity among the scored candidates.
func (s *Selection) simplest(c string) bool {
	for _, x := range Simplicity {
		if _, ok := s.Score(x); ok {
			return x == c
		}
	}
	return false
}

// Score returns the cross-validated score of candidate c, or false.
func (s *Selection) Score(c string) (CandidateScore, bool) {
	for _, cs := range s.Candidates {
		if cs.Name == c {
			return cs, true
		}
	}
	return CandidateScore{}, false
}

// Margin returns how much lower the chosen candidate's cross-validated MAPE is
// than the best of the others' (positive: it won by that much), and that other.
func (s *Selection) Margin() (float64, string) {
	ch, _ := s.Score(s.Chosen)
	best, name := math.Inf(1), ""
	for _, cs := range s.Candidates {
		if cs.Name != s.Chosen && cs.MAPE < best {
			best, name = cs.MAPE, cs.Name
		}
	}
	return best - ch.MAPE, name
}
