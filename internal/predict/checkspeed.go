// This file separates, for model check, a run's own speed from the time of
// each of its arcs: a machine that runs the whole program slower moves every
// arc of the run alike, a change to one loop body moves its arc alone.

package predict

import (
	"math"

	"github.com/fragprof/fragprof/internal/stats"
)

// logRatios is d of every arc of a replayed run (logRatio), NaN where it is
// not defined.
func (rp *replay) logRatios() []float64 {
	d := make([]float64, len(rp.ratios))
	for ai := range d {
		var ok bool
		if d[ai], ok = rp.logRatio(ai); !ok {
			d[ai] = math.NaN()
		}
	}
	return d
}

// centred returns d̃_a = d_a − c_a, a run's d of each arc less the training
// runs' median of it (ArcSpread.Center): 0 for a run at the training runs'
// usual time on the arc.
func (c *CheckCalibration) centred(d []float64) []float64 {
	dc := make([]float64, len(d))
	for ai, x := range d {
		dc[ai] = x - c.Arcs[ai].Center
	}
	return dc
}

// timed reports whether model check tests the time of arc ai: at least
// MinCheckRuns training runs took it, for at least MinCheckShare of their
// time.
func (c *CheckCalibration) timed(ai int) bool {
	a := &c.Arcs[ai]
	return a.Runs >= MinCheckRuns && a.Share >= MinCheckShare
}

// meanOver is the weighted mean Σ w_b d̃_b / Σ w_b over the timed arcs b with
// keep(b) that the run took (d̃_b not NaN), weighted by weight(b); ok is false
// when there is none.
func (m *Model) meanOver(dc []float64, keep func(b int) bool, weight func(b int) float64) (float64, bool) {
	var sw, swd float64
	for b, x := range dc {
		if math.IsNaN(x) || !m.CheckCal.timed(b) || !keep(b) {
			continue
		}
		w := weight(b)
		sw += w
		swd += w * x
	}
	if sw == 0 {
		return 0, false
	}
	return swd / sw, true
}

// runSpeed is the run's speed v: the mean of d̃ over its timed arcs, each
// weighted by its share of the training runs' time (ArcSpread.Share). With
// d̃_b = ln(t_b/p_b) − c_b for the run's time t_b on arc b and the model's
// p_b, e^v is a geometric mean of the arcs' time ratios, weighted as the arcs
// weigh in a run's time: how much slower than the training runs' usual the
// run went on the arcs that carry its time — the machine's speed while it
// ran, and any change of the program's.
func (m *Model) runSpeed(dc []float64) (float64, bool) {
	c := m.CheckCal
	return m.meanOver(dc, func(int) bool { return true }, func(b int) float64 { return c.Arcs[b].Share })
}

// MinCheckScatter is the least scatter s_b an arc's weight in a reference
// assumes (reference): an arc whose d never moved in training would
// otherwise weigh without bound.
const MinCheckScatter = 1e-3

// reference is r_a, the rest of the run's speed for arc a, leaving out arc
// skip as well (−1: none): the mean of d̃ over the timed arcs other than a that
// do not leave a's checkpoint, each weighted by 1/s_b², s_b the median of its
// training scores |d_b − c_b| (at least MinCheckScatter). An arc that leaves
// the same checkpoint runs the same code after it until the two part — the
// exit of a loop whose checkpoint heads its body runs the body once more — so
// a change to a's code would move it too. The weights are those of the
// inverse-variance estimate of a common shift from independent measurements
// of it: d̃_b scatters by the machine's speed, common to the run's arcs, and
// by the arc's own noise, so an arc of one transition a run (a loop's entry)
// weighs little beside a loop's many. z_a = d̃_a − r_a is then a's time
// against the rest of the run: the machine's speed cancels, and a change to
// a's code alone moves z_a by as much as it moves d_a. Where a carries most
// of the run's time, leaving it out is what keeps it from being its own
// reference.
func (m *Model) reference(dc []float64, a, skip int) (float64, bool) {
	c := m.CheckCal
	from := m.Arcs[a].From
	return m.meanOver(dc, func(b int) bool { return b != a && b != skip && m.Arcs[b].From != from },
		func(b int) float64 { s := max(c.Arcs[b].scatter(), MinCheckScatter); return 1 / (s * s) })
}

// scatter is the median of the training runs' scores, 0 when there are none.
func (s *Spread) scatter() float64 {
	if len(s.Devs) == 0 {
		return 0
	}
	return stats.Median(s.Devs)
}

// explainedBy picks, among the arcs flagged (flagged, indices of arcs;
// relative[i] when flagged[i] was tested against the rest of its run), the
// one whose change alone best explains the others, and says which of those
// tested against the rest of the run it explains. The time test compares
// each arc with the rest of the run, so one arc's slowdown also moves the
// others' z the other way: in a run of two timed arcs z₁ and z₂ move
// together, and the run cannot say which of the two changed. The arc named
// is the j whose time alone is the most unusual for the training runs — the
// smallest p-value of |d̃_j| among its training scores (ArcSpread), the first
// such — since were j the only arc changed, the others' times alone would be
// as usual as the machine's speed lets them; an other flagged arc a is
// explained by it when, with j left out of its reference as well, its z =
// d̃_a − β_a·r has p > alpha (a heuristic: its β and scores are those of the
// whole reference), or when nothing but j was its reference (an arc tested
// against the rest of the run by the point test alone, whose formula's z
// scattered more than its d: only then). This picks a
// name; it does not test: every flagged arc has p ≤ alpha whatever it picks,
// and the run is flagged all the same.
func (m *Model) explainedBy(dc []float64, flagged []int, relative []bool, alpha float64) (j int, explained []bool) {
	c := m.CheckCal
	best := math.Inf(1)
	for _, a := range flagged {
		if p := c.Arcs[a].PValue(math.Abs(dc[a])); p < best {
			best, j = p, a
		}
	}
	explained = make([]bool, len(flagged))
	for i, a := range flagged {
		if a == j || !relative[i] {
			continue
		}
		r, ok := m.reference(dc, a, j)
		rel := c.Arcs[a].Relative
		if rel == nil { // tested against the rest of the run by the point test only
			explained[i] = !ok
			continue
		}
		explained[i] = !ok || rel.PValue(math.Abs(dc[a]-c.Arcs[a].Beta*r-rel.Center)) > alpha
	}
	return j, explained
}
