// This file calibrates model check's tests of one run jointly: the level of
// each arc's test is set from the training runs' smallest p-value over their
// own tests (a max-type statistic) rather than by Bonferroni's (1 − γ)/k,
// which is conservative where the tests of one run move together.

package predict

import (
	"math"
	"sort"
)

// A JointRun is one training run's p-values of the time tests model check
// would make of it, for the joint level (CheckCalibration.jointAlpha): per
// arc (NaN — null in the file — where the arc is not tested in the run),
// p = #{r : s_r ≥ s}/(R + 1) over the R training scores of its Spread (the
// run's own among them: Spread.PValue less 1/(R + 1)).
type JointRun struct {
	// AtPoint says that the run's inputs are an InputPoint's: Tests are then
	// its tests as a run at those inputs has them (the point test where the
	// arc has one).
	AtPoint bool      `json:"at_point,omitempty"`
	Tests   optFloats `json:"tests,omitempty"`
	// Formula are its tests against the formulas, as a run at inputs no
	// training run had has them.
	Formula optFloats `json:"formula"`
	// Speed is the p-value of the run's speed (0: none).
	Speed float64 `json:"speed,omitempty"`
}

// trainingP is the p-value of a training run's own score s among the scores
// of spread a, which hold it: #{r : s_r ≥ s}/(R + 1).
func (a *Spread) trainingP(s float64) float64 {
	return a.PValue(s) - 1/float64(len(a.Devs)+1)
}

// jointAlpha is the level α* at which model check flags an arc's time in a
// run (p ≤ α*), calibrated jointly over the run's tests. Each training run r
// has m_r, the smallest p-value over its tests (JointRun: of a run at a
// training input point when atPoint, against the formulas otherwise; its
// speed's among them when withSpeed); a run checked, with m the smallest of
// its own, has the conformal p-value
//
//	P = (1 + #{r : m_r ≤ m}) / (R + 1)
//
// (Vovk, Gammerman & Shafer, "Algorithmic Learning in a Random World", 2005,
// §2; Lei, G'Sell, Rinaldo, Tibshirani & Wasserman, "Distribution-free
// predictive inference for regression", JASA 113, 2018, for the split form),
// and deviates when P ≤ 1 − γ: when m < m₍ⱼ₊₁₎, the (j+1)-th smallest m_r,
// j = ⌊(1 − γ)(R + 1)⌋ − 1. So α* is the float just below m₍ⱼ₊₁₎, and an arc
// is flagged when its p ≤ α*; the run deviates when one is.
//
// Were the run exchangeable with the training runs, P(P ≤ 1 − γ) ≤ 1 − γ:
// full conformal prediction would give every one of the R + 1 runs its
// p-values among the R others; a training run's p here leaves the run
// checked out of its count, which can only make it smaller, and so m_r, and
// the training scores measured leave one out at the point test are at least
// the full ones — both make P at least the full one's. Unlike Bonferroni's
// (1 − γ)/k, the level adapts to how the k tests of a run depend on each
// other: where they move together (the arcs of a run on one machine, an arc
// against the rest of its run) α* approaches 1 − γ; where they are
// independent, 1 − γ^(1/k).
//
// ok is false where fewer than MinCheckRuns training runs have a test of the
// kind, or too few to flag at 1 − γ (R + 1 < 1/(1 − γ)), or the model has no
// JointRuns (an older fragprof): model check then falls back to Bonferroni.
func (c *CheckCalibration) jointAlpha(atPoint, withSpeed bool, gamma float64) (alpha float64, ok bool) {
	var mins []float64
	for _, r := range c.Joint {
		if atPoint && !r.AtPoint {
			continue
		}
		ps := r.Formula
		if atPoint {
			ps = r.Tests
		}
		m := math.Inf(1)
		for _, p := range ps {
			if !math.IsNaN(p) {
				m = math.Min(m, p)
			}
		}
		if withSpeed && r.Speed > 0 {
			m = math.Min(m, r.Speed)
		}
		if !math.IsInf(m, 1) {
			mins = append(mins, m)
		}
	}
	j := int(math.Floor((1-gamma)*float64(len(mins)+1)+1e-9)) - 1
	if len(mins) < MinCheckRuns || j < 0 {
		return 0, false
	}
	sort.Float64s(mins)
	return math.Nextafter(mins[j], 0), true
}

// calibrateJoint measures, per training run (d by arc, its statistics y of
// the point test and its inputs), the p-values of the tests model check
// would make of it (JointRun), after the arcs' Spreads are measured.
func (m *Model) calibrateJoint(runs, ys, inputs [][]float64) {
	c := m.CheckCal
	c.Joint = nil
	seen := map[*InputPoint]int{} // runs of each point met so far: the index of the next in Points[].Runs
	for i, d := range runs {
		dc := c.centred(d)
		jr := JointRun{Formula: make(optFloats, len(m.Arcs))}
		for ai := range m.Arcs {
			jr.Formula[ai] = m.formulaTrainingP(dc, ai)
		}
		if p := c.point(inputs[i]); p != nil {
			k := seen[p]
			seen[p]++
			jr.AtPoint = true
			jr.Tests = make(optFloats, len(m.Arcs))
			for ai := range m.Arcs {
				jr.Tests[ai] = jr.Formula[ai]
				if q, ok := m.pointTrainingP(p, k, ys[i], ai); ok {
					jr.Tests[ai] = q
				}
			}
		}
		if v, ok := m.runSpeed(dc); ok && c.Speed != nil && len(c.Speed.Devs) > 0 {
			jr.Speed = c.Speed.trainingP(math.Abs(v - c.Speed.Center))
		}
		c.Joint = append(c.Joint, jr)
	}
}

// formulaTrainingP is the p-value of arc ai's test against its formula in a
// training run of centred d's dc, as CheckRun tests it (against the rest of
// the run where the arc is so tested and the run has a reference): NaN where
// the arc is not tested.
func (m *Model) formulaTrainingP(dc []float64, ai int) float64 {
	c := m.CheckCal
	s := &c.Arcs[ai]
	if !c.timed(ai) || math.IsNaN(dc[ai]) {
		return math.NaN()
	}
	if s.Relative != nil && s.Relative.Runs >= MinCheckRuns {
		if r, ok := m.reference(dc, ai, -1); ok {
			z := dc[ai] - s.Beta*r
			return s.Relative.trainingP(math.Abs(z - s.Relative.Center))
		}
	}
	return s.Spread.trainingP(math.Abs(dc[ai]))
}

// pointTrainingP is the p-value of arc ai's point test in the k-th training
// run at point p, of statistics y, scored among the others of its point as
// calibratePoints scored it, where CheckRun would give a run at p the point
// test (pointTest).
func (m *Model) pointTrainingP(p *InputPoint, k int, y []float64, ai int) (float64, bool) {
	a := &m.CheckCal.Arcs[ai]
	if a.Point == nil || math.IsNaN(y[ai]) || len(m.pointOthers(p, ai, false, -1)) < MinPointRuns {
		return 0, false
	}
	if a.PointRelative != nil {
		if v, ok := m.pointStat(y, ai, true); ok && len(m.pointOthers(p, ai, true, -1)) >= MinPointRuns {
			return a.PointRelative.trainingP(neighbourScore(v, m.pointOthers(p, ai, true, k))), true
		}
	}
	return a.Point.trainingP(neighbourScore(y[ai], m.pointOthers(p, ai, false, k))), true
}
