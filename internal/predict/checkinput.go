// This file tests, for model check, a run whose inputs are those of training
// runs against those runs alone — the point test: no formula between them, so
// that the formulas' misfit by input, which the machine has no part in, does
// not widen the scores; and a score that allows for a shared machine's
// discrete speed states.

package predict

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/fragprof/fragprof/internal/trace"
)

// PointQuantile is the quantile, over a run's transitions along an arc, of
// their ln(t/p) that the point test compares: the lower decile. A shared
// machine's interrupts, stalls and slow spells only add time to single
// transitions, so the lower tail of a run's transitions is its steadiest
// measure of the code's own time (brusselator's 18 rows a run: the median
// scattered over 4% from run to run at the same input, the lower decile 1%);
// a change that adds work to every pass of a loop moves it as much as the
// median.
const PointQuantile = 0.1

// PointNeighbours is k of the point test's score: the distance from a run's
// statistic to the k-th nearest of the training runs' at the same inputs.
const PointNeighbours = 2

// MinPointRuns is the number of training runs at one input point, taking the
// arc, that the point test needs there.
const MinPointRuns = 5

// An InputPoint is one input point of the training runs: the values of the
// model's inputs, and per training run at it the statistic y of every arc
// (lowerDecile; NaN — null in the file — where the run did not take it).
type InputPoint struct {
	Inputs []float64   `json:"inputs"`
	Runs   []optFloats `json:"runs"`
}

// optFloats is a list of numbers some of which are missing: NaN here, null in
// JSON.
type optFloats []float64

// MarshalJSON writes NaN as null.
func (o optFloats) MarshalJSON() ([]byte, error) {
	v := make([]*float64, len(o))
	for i := range o {
		if !math.IsNaN(o[i]) {
			v[i] = &o[i]
		}
	}
	return json.Marshal(v)
}

// UnmarshalJSON reads null as NaN.
func (o *optFloats) UnmarshalJSON(b []byte) error {
	var v []*float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*o = make(optFloats, len(v))
	for i, p := range v {
		(*o)[i] = math.NaN()
		if p != nil {
			(*o)[i] = *p
		}
	}
	return nil
}

// lowerDecile is y of arc ai in a replayed run: the PointQuantile quantile of
// its transitions' ln(t/p) (linear interpolation between order statistics,
// stats' type 7), NaN where the run did not take the arc.
func (rp *replay) lowerDecile(ai int) float64 {
	return quantile(rp.ratios[ai], PointQuantile)
}

// quantile is the q quantile of xs, interpolated linearly between the order
// statistics x₍ⱼ₎ at h = (n − 1)·q (Hyndman & Fan, "Sample quantiles in
// statistical packages", The American Statistician 50(4), 1996: type 7);
// NaN for no xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	h := float64(len(s)-1) * q
	lo := int(math.Floor(h))
	hi := min(lo+1, len(s)-1)
	return s[lo] + (h-float64(lo))*(s[hi]-s[lo])
}

// pointDeciles is y of every arc of run t, replayed as rp: of the run's own
// times, not adjusted to the machine's normal speed by its probe (atSpeed) —
// the point test compares a run with the runs of its machine's speed state,
// which the probe tells apart less well than the times do (matmul's rows took
// one time or 1.32× it, at probes of 1380–1660 and 1700–2500 ns, where a
// slope through the probes mixes the two) — unless the model was built from
// adjusted times (Speed.Adjusted), when rp is the run's as the training runs'
// were.
func (m *Model) pointDeciles(t *trace.Trace, rp *replay) []float64 {
	if m.Speed == nil || !m.Speed.Significant() || m.Speed.Adjusted {
		return rp.lowerDeciles()
	}
	if own, err := m.replay(t); err == nil {
		return own.lowerDeciles()
	}
	return rp.lowerDeciles()
}

// lowerDeciles is y of every arc of a replayed run.
func (rp *replay) lowerDeciles() []float64 {
	y := make([]float64, len(rp.ratios))
	for ai := range y {
		y[ai] = rp.lowerDecile(ai)
	}
	return y
}

// neighbourScore is the point test's score of statistic v among the training
// runs' others at the same inputs: the PointNeighbours-th smallest |v − o|,
// +Inf with fewer others. A nearest-neighbour score (Vovk, Gammerman & Shafer,
// "Algorithmic Learning in a Random World", 2005, §2.3): a shared machine runs
// in a few speed states — on the project VM a run of matmul took its rows at
// one speed or at 1.32× it, and which one the runs of one input took was
// chance — and a run of the unchanged program is near the training runs of
// its state, where a median over all of them lies between the states; a
// change to the code moves the run away from all of them. (A change that
// moves a run by exactly the distance between two states is not seen by it.)
func neighbourScore(v float64, others []float64) float64 {
	if len(others) < PointNeighbours {
		return math.Inf(1)
	}
	d := make([]float64, len(others))
	for i, o := range others {
		d[i] = math.Abs(v - o)
	}
	sort.Float64s(d)
	return d[PointNeighbours-1]
}

// scoresSpread is the Spread of scores already measured from a centre of 0.
func scoresSpread(scores []float64) Spread {
	s := slices.Clone(scores)
	sort.Float64s(s)
	if len(s) > MaxCheckDevs {
		thin := make([]float64, MaxCheckDevs)
		for i := range thin {
			thin[i] = s[(i+1)*len(s)/MaxCheckDevs-1]
		}
		s = thin
	}
	return Spread{Runs: len(scores), Devs: s}
}

// point returns the training input point with the run's inputs (the model's
// inputs in order), or nil.
func (c *CheckCalibration) point(inputs []float64) *InputPoint {
	for i := range c.Points {
		if slices.Equal(c.Points[i].Inputs, inputs) {
			return &c.Points[i]
		}
	}
	return nil
}

// floatBits is the bits of xs, a key that tells apart any two lists of
// numbers that slices.Equal does.
func floatBits(xs []float64) []uint64 {
	b := make([]uint64, len(xs))
	for i, x := range xs {
		b[i] = math.Float64bits(x)
	}
	return b
}

// pointStat is the statistic the point test compares for arc ai in a run of
// statistics y: y_a alone (rel false), or z = y_a − β·r against the rest of
// the run, r = reference(y, a) (ArcSpread.PointBeta); ok is false where it is
// not defined.
func (m *Model) pointStat(y []float64, ai int, rel bool) (float64, bool) {
	if math.IsNaN(y[ai]) {
		return 0, false
	}
	if !rel {
		return y[ai], true
	}
	r, ok := m.reference(y, ai, -1)
	return y[ai] - m.CheckCal.Arcs[ai].PointBeta*r, ok
}

// pointOthers is the statistic of arc ai over the training runs at point p,
// leaving out run skip (−1: none).
func (m *Model) pointOthers(p *InputPoint, ai int, rel bool, skip int) []float64 {
	var o []float64
	for j, y := range p.Runs {
		if j == skip {
			continue
		}
		if v, ok := m.pointStat(y, ai, rel); ok {
			o = append(o, v)
		}
	}
	return o
}

// calibratePoints groups the training runs by their inputs (inputs[i] and
// y[i] of run i) into InputPoints, and measures per timed arc the point
// test's scores over the runs at points of at least MinPointRuns runs that
// took it, each among the others of its point (leave one out): alone
// (ArcSpread.Point), and against the rest of the run (PointRelative, with
// PointBeta) where that scatters less (median score).
//
// β is the least-squares slope through the origin of y_a on r over the
// deviations of both from their point's means — within a point, so that the
// inputs' effect is out, as in fitSpeed.
//
// The p-value is valid, if conservative. Full conformal prediction (Vovk et
// al., 2005, §2.2) would score every training run with the run checked among
// the others of its point; a run's k-th nearest distance can only shrink
// when a run is added, so each training score here is at least that one,
// #{s_r ≥ s} is at least the full one's, and so is p: P(p ≤ α) ≤ α for a run
// exchangeable with the training runs at its inputs.
func (m *Model) calibratePoints(inputs [][]float64, y [][]float64) {
	c := m.CheckCal
	c.Points = nil
	index := map[string]int{} // the inputs' bits → index in c.Points
	for i, in := range inputs {
		key := fmt.Sprint(floatBits(in))
		k, ok := index[key]
		if !ok {
			k = len(c.Points)
			index[key] = k
			c.Points = append(c.Points, InputPoint{Inputs: in})
		}
		c.Points[k].Runs = append(c.Points[k].Runs, y[i])
	}
	c.Points = slices.DeleteFunc(c.Points, func(p InputPoint) bool { return len(p.Runs) < MinPointRuns })
	for ai := range m.Arcs {
		if !c.timed(ai) {
			continue
		}
		a := &c.Arcs[ai]
		a.Point, a.PointRelative, a.PointBeta = nil, nil, 0
		alone := m.pointScores(ai, false)
		if len(alone) < MinCheckRuns {
			continue
		}
		s := scoresSpread(alone)
		a.Point = &s
		a.PointBeta = m.pointBeta(ai)
		if rel := m.pointScores(ai, true); len(rel) >= MinCheckRuns {
			if r := scoresSpread(rel); r.scatter() < s.scatter() {
				a.PointRelative = &r
				continue
			}
		}
		a.PointBeta = 0
	}
}

// pointScores is the leave-one-out scores of arc ai's point statistic over
// the training runs at points where at least MinPointRuns runs have it.
func (m *Model) pointScores(ai int, rel bool) []float64 {
	var scores []float64
	for pi := range m.CheckCal.Points {
		p := &m.CheckCal.Points[pi]
		if len(m.pointOthers(p, ai, rel, -1)) < MinPointRuns {
			continue
		}
		for j, y := range p.Runs {
			if v, ok := m.pointStat(y, ai, rel); ok {
				scores = append(scores, neighbourScore(v, m.pointOthers(p, ai, rel, j)))
			}
		}
	}
	return scores
}

// pointBeta is β of arc ai for the point test (calibratePoints).
func (m *Model) pointBeta(ai int) float64 {
	var sxy, sxx float64
	for _, p := range m.CheckCal.Points {
		var ys, rs []float64
		for _, y := range p.Runs {
			r, ok := m.reference(y, ai, -1)
			if ok && !math.IsNaN(y[ai]) {
				ys, rs = append(ys, y[ai]), append(rs, r)
			}
		}
		if len(ys) < 2 {
			continue
		}
		my, mr := mean(ys), mean(rs)
		for i := range ys {
			sxy += (ys[i] - my) * (rs[i] - mr)
			sxx += (rs[i] - mr) * (rs[i] - mr)
		}
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// mean is the mean of xs.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// pointTest is the point test of arc ai for a run of statistics y at point p:
// the statistic's score, its Spread, whether against the rest of the run,
// and the statistic, and y_a alone, against their nearest training runs'
// (nearestCentre) as ratios. ok is false where the arc has no point test or
// the run not the statistic.
func (m *Model) pointTest(p *InputPoint, y []float64, ai int) (score float64, spr *Spread, rel bool, ratio, alone float64, ok bool) {
	a := &m.CheckCal.Arcs[ai]
	if p == nil || a.Point == nil || math.IsNaN(y[ai]) {
		return 0, nil, false, 0, 0, false
	}
	others := m.pointOthers(p, ai, false, -1)
	if len(others) < MinPointRuns {
		return 0, nil, false, 0, 0, false
	}
	alone = math.Exp(y[ai] - nearestCentre(y[ai], others))
	if a.PointRelative != nil {
		if v, ok := m.pointStat(y, ai, true); ok {
			if o := m.pointOthers(p, ai, true, -1); len(o) >= MinPointRuns {
				return neighbourScore(v, o), a.PointRelative, true, math.Exp(v - nearestCentre(v, o)), alone, true
			}
		}
	}
	return neighbourScore(y[ai], others), a.Point, false, alone, alone, true
}

// pointAloneP is the p-value of arc ai's point statistic alone in a run of
// statistics y at point p (1 where it has none).
func (m *Model) pointAloneP(p *InputPoint, y []float64, ai int) float64 {
	a := &m.CheckCal.Arcs[ai]
	if p == nil || a.Point == nil || math.IsNaN(y[ai]) {
		return 1
	}
	return a.Point.PValue(neighbourScore(y[ai], m.pointOthers(p, ai, false, -1)))
}

// nearestCentre is the median of the PointNeighbours others nearest to v:
// the runs of the run's own speed state, which its ratio is reported
// against.
func nearestCentre(v float64, others []float64) float64 {
	o := slices.Clone(others)
	sort.Slice(o, func(i, j int) bool { return math.Abs(v-o[i]) < math.Abs(v-o[j]) })
	return quantile(o[:min(PointNeighbours, len(o))], 0.5)
}

// namedAtPoint picks, among the arcs flagged (relative[i] when flagged[i]
// was tested against the rest of its run), the one whose time alone is the
// most unusual — the smallest aloneP, the first such — and says which of the
// others tested against the rest of the run it explains: those whose time
// alone is usual (aloneP > alpha). At a training input point the time alone
// is compared with the runs of the machine's own speed states
// (neighbourScore), so an arc moved only through its reference shows as
// usual alone. CheckRun uses it where one flagged arc's time alone is
// unusual at the level of the test; where none is, the machine's speed hides
// the change from every arc alone, and explainedBy names. This names; it does
// not test.
func namedAtPoint(flagged []int, relative []bool, aloneP []float64, alpha float64) (j int, explained []bool) {
	best := math.Inf(1)
	for i, a := range flagged {
		if aloneP[i] < best {
			best, j = aloneP[i], a
		}
	}
	explained = make([]bool, len(flagged))
	for i, a := range flagged {
		explained[i] = a != j && relative[i] && aloneP[i] > alpha
	}
	return j, explained
}
