// This file checks a run against its model (fragprof model check): the run's
// transitions replayed over the model's graph, each decision compared with the
// node's rule, each arc's time with the model's, and a per-run decision whose
// false alarms on unchanged code stay below 1 − γ.

package predict

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/predict/conformal"
	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// MinCheckRuns is the number of training runs an arc must have been taken in
// for model check to test its time: fewer say too little about its scatter.
const MinCheckRuns = 10

// CheckCalibration is how the training runs meet their own model, for model
// check: per arc, the scatter of a run's time on the arc around the model's; per
// node, how often the rule chose another arc than a run took.
type CheckCalibration struct {
	Runs int         `json:"runs"` // training runs measured
	Arcs []ArcSpread `json:"arcs"` // by arc
	// Misses[n] counts the training runs in which node n's rule chose, with
	// certainty, another arc than the run took at least once: such a rule is
	// not held against a run.
	Misses []int `json:"rule_misses"`
}

// An ArcSpread is the scatter over the training runs of a run's d on the arc:
// the median over the run's transitions on the arc of ln(t/p), t the
// transition's time and p the model's at the state the run was in — the
// median, because single transitions carry the interrupts and stalls of a
// shared machine, which a loop of many transitions would otherwise sum; the
// times at the machine's normal speed when the model measured it (Speed).
// Center is the median of d over the runs and Devs the scores s = |d −
// Center| of the runs, ascending (at most MaxCheckDevs: beyond, the largest
// of each of MaxCheckDevs equal blocks, which errs toward larger p-values).
// Runs is how many training runs took the arc.
type ArcSpread struct {
	Runs   int       `json:"runs"`
	Center float64   `json:"center"`
	Devs   []float64 `json:"devs,omitempty"`
	// Share is the arc's part of the training runs' time: the sum of its
	// transitions' times over the sum of the runs' times.
	Share float64 `json:"share"`
}

// MinCheckShare is the part of the training runs' time an arc must take for
// model check to test its time. A change in a transition that takes less of
// the run moves the run by less than its noise (on the test VM one run lies
// typically 3–8% from its input's usual time); and a transition of a few
// microseconds between two checkpoints is mostly their own cost and the
// machine's interrupts, which a loaded machine inflates tenfold in some runs
// (solver's start → iter took 5–34× its usual time in 6 of 100 runs of the
// unchanged program, at a load of 10–27 on 2 cores).
const MinCheckShare = 0.05

// MaxCheckDevs bounds the scores an ArcSpread keeps.
const MaxCheckDevs = 1000

// PValue is the conformal p-value of score s among the training scores
// (Vovk, Gammerman & Shafer, "Algorithmic Learning in a Random World", 2005,
// §2; the inductive form of Papadopoulos et al., ECML 2002):
//
//	p = (1 + #{r : s_r ≥ s}) / (R + 1)
//
// over the R training runs. Were the run checked exchangeable with them — the
// same program on the same machine — P(p ≤ α) ≤ α for every α. (The training
// scores are measured against formulas fitted to the same runs, but for those
// model build held out: if anything a little smaller than a new run's, which
// makes p a little small.)
func (a *ArcSpread) PValue(s float64) float64 {
	ge := len(a.Devs) - sort.SearchFloat64s(a.Devs, s)
	return float64(1+ge) / float64(len(a.Devs)+1)
}

// Limit is the largest score whose p-value is above alpha — a run's score
// beyond it is flagged — or +Inf when no score can reach alpha (too few
// training runs: 1/(R + 1) > alpha).
func (a *ArcSpread) Limit(alpha float64) float64 {
	j := int(math.Floor(alpha*float64(len(a.Devs)+1)+1e-9)) - 1 // scores ≥ s allowed
	if j < 0 {
		return math.Inf(1)
	}
	return a.Devs[max(0, len(a.Devs)-1-j)]
}

// replay is one run replayed over the model: per arc the log-ratios ln(t/p)
// of its transitions, t the run's time and p the model's; the transitions the
// model never saw; the decisions its rules would have made otherwise.
type replay struct {
	n         []float64   // transitions by model arc
	time      []float64   // the run's time on each arc (ns)
	ratios    [][]float64 // by model arc: ln(t/p) of each transition with t, p > 0
	unseen    []Deviation
	misses    []Deviation
	missAt    []int  // misses[i] is at node missAt[i]
	missNodes []bool // nodes whose rule chose otherwise at least once
	moved     []string
}

// A RunMismatch says that a run's checkpoints are not the model's: it comes
// from a build whose checkpoints differ, and cannot be checked against it.
type RunMismatch struct {
	Run, Checkpoint, Place, Why string
}

func (e *RunMismatch) Error() string {
	return fmt.Sprintf("%s: checkpoint %q at %s %s: the run comes from a build whose checkpoints are not the model's; check runs of a build with the same checkpoints, or build a model from this build's traces (fragprof model build)",
		e.Run, e.Checkpoint, e.Place, e.Why)
}

// arcTime is the model's time of one transition along arc ai from state (ns):
// the arc's formula, plus its loop body's when it has one, never negative,
// times the calibration.
func (m *Model) arcTime(ai int, state []float64) float64 {
	a := &m.Arcs[ai]
	t := a.Time.Eval(state)
	if a.Body != nil {
		t += math.Max(0, m.Arcs[*a.Body].Time.Eval(state))
	}
	return math.Max(0, t) * m.timeScale()
}

// ruleArc returns the arc node n's rule chooses with certainty in state — the
// first condition that holds, or, when none does and the rule has neither a
// trip count nor a random choice, its one remaining arc — and the rule's words
// for it. ok is false where the rule leaves the choice to a trip count or to
// chance: those are estimates, not rules a run can break.
func (m *Model) ruleArc(n int, state []float64) (arc int, why string, ok bool) {
	r := &m.Rules[n]
	for k := range r.Conds {
		if r.Conds[k].Match(state) {
			return r.Conds[k].Arc, "when " + r.Conds[k].String(), true
		}
	}
	if r.Trip == nil && len(r.Residual) == 1 {
		if len(r.Conds) == 0 {
			return r.Residual[0].Arc, "always", true
		}
		return r.Residual[0].Arc, "otherwise", true
	}
	return 0, "", false
}

// nodePlace is where checkpoint n is: its place, or its places joined.
func (m *Model) nodePlace(n int) string {
	switch n {
	case graph.Start, graph.End:
		return ""
	}
	return strings.Join(m.Nodes[n].Places, ", ")
}

// siteNodes maps a run's checkpoint sites to the model's nodes: the same name,
// recording variables the model knows, in a file of the same name (a build in
// another directory is the same program). A site at another line of that file
// is the same checkpoint moved by an edit above it (noted in moved); anything
// else is a RunMismatch.
func (m *Model) siteNodes(t *trace.Trace) (nodes []int, moved []string, err error) {
	index := map[string]int{}
	for i, n := range m.Nodes {
		if i != graph.Start && i != graph.End {
			index[n.Name] = i
		}
	}
	nodes = make([]int, len(t.Sites))
	for i, s := range t.Sites {
		place := fmt.Sprintf("%s:%d", s.File, s.Line)
		n, ok := index[s.Name]
		if !ok {
			return nil, nil, &RunMismatch{t.Name, s.Name, place, "is not in the model (its checkpoints: " + m.checkpointNames() + ")"}
		}
		node := &m.Nodes[n]
		for _, v := range s.Vars {
			if !slices.Contains(node.Vars, v.Name) {
				return nil, nil, &RunMismatch{t.Name, s.Name, place, fmt.Sprintf("records %s, which the model's %s does not (it records: %s)", v.Name, s.Name, strings.Join(node.Vars, ", "))}
			}
		}
		same, sameFile := false, false
		for _, p := range node.Places {
			k := strings.LastIndexByte(p, ':')
			f, line := p[:max(k, 0)], p[k+1:]
			if filepath.Base(f) == filepath.Base(s.File) {
				sameFile = true
				same = same || line == strconv.Itoa(s.Line)
			}
		}
		if !same {
			if !sameFile {
				return nil, nil, &RunMismatch{t.Name, s.Name, place, "is in another file than the model's (" + m.nodePlace(n) + ")"}
			}
			moved = append(moved, fmt.Sprintf("checkpoint %s is at %s, at %s in the model", s.Name, place, m.nodePlace(n)))
		}
		nodes[i] = n
	}
	return nodes, moved, nil
}

func (m *Model) checkpointNames() string {
	var names []string
	for i, n := range m.Nodes {
		if i != graph.Start && i != graph.End {
			names = append(names, n.Name)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// replay replays the main thread of t over the model as the execution journal
// does (graph.BuildJournal): the state at each checkpoint — the run's inputs,
// the last recorded value of every variable, every node's activation counter —
// is the state the node's rule and the arc's time formula are read at.
func (m *Model) replay(t *trace.Trace) (*replay, error) {
	sp := m.space
	siteNode, moved, err := m.siteNodes(t)
	if err != nil {
		return nil, err
	}
	state := make([]float64, sp.Len())
	for k, name := range m.Inputs {
		v, ok := t.Input(name)
		if !ok {
			return nil, fmt.Errorf("%s: the run has no input %s, which the model's rules and formulas read (its inputs: %s): trace it with --input %s=…", t.Name, name, strings.Join(m.Inputs, ", "), name)
		}
		state[k] = v
	}
	rp := &replay{n: make([]float64, len(m.Arcs)), time: make([]float64, len(m.Arcs)), ratios: make([][]float64, len(m.Arcs)),
		missNodes: make([]bool, len(m.Nodes)), moved: moved}
	arcOf := map[[2]int]int{}
	for i, a := range m.Arcs {
		arcOf[[2]int{a.From, a.To}] = i
	}
	unseen := map[[2]int]int{} // → index in rp.unseen
	missAt := map[[3]int]int{} // (node, predicted, taken) → index in rp.misses
	th := t.Main()
	state[sp.CounterIndex(graph.Start)] = 1
	cur := graph.Start
	tcur := float64(th.Time[0])
	for k := 0; k <= th.Len(); k++ {
		nxt, tnext := graph.End, float64(th.Time[th.Len()-1])
		var vals []float64
		var site *trace.Site
		if k < th.Len() {
			site = &t.Sites[th.Site[k]]
			nxt, tnext, vals = siteNode[th.Site[k]], float64(th.Time[k]), th.Values(k)
		}
		ai, seen := arcOf[[2]int{cur, nxt}]
		if want, why, ok := m.ruleArc(cur, state); ok && (!seen || want != ai) {
			key := [3]int{cur, want, nxt}
			if i, ok := missAt[key]; ok {
				rp.misses[i].Count++
			} else {
				missAt[key] = len(rp.misses)
				rp.misses = append(rp.misses, Deviation{Kind: "rule", From: m.Nodes[cur].Name, To: m.Nodes[nxt].Name,
					FromPlace: m.nodePlace(cur), ToPlace: m.nodePlace(nxt), Count: 1, Event: k,
					Rule: fmt.Sprintf("%s %s", m.arcName(want), why), Expected: m.Nodes[m.Arcs[want].To].Name})
				rp.missAt = append(rp.missAt, cur)
			}
			rp.missNodes[cur] = true
		}
		resets := false
		if seen {
			rp.n[ai]++
			rp.time[ai] += tnext - tcur
			if dt, p := tnext-tcur, m.arcTime(ai, state); dt > 0 && p > 0 {
				rp.ratios[ai] = append(rp.ratios[ai], math.Log(dt/p))
			}
			resets = m.Arcs[ai].Resets
		} else {
			key := [2]int{cur, nxt}
			if i, ok := unseen[key]; ok {
				rp.unseen[i].Count++
			} else {
				unseen[key] = len(rp.unseen)
				rp.unseen = append(rp.unseen, Deviation{Kind: "arc", From: m.Nodes[cur].Name, To: m.Nodes[nxt].Name,
					FromPlace: m.nodePlace(cur), ToPlace: m.nodePlace(nxt), Count: 1, Event: k})
			}
			resets = m.Nodes[nxt].Header
		}
		ci := sp.CounterIndex(nxt)
		if resets {
			state[ci] = 0
		}
		state[ci]++
		if site != nil {
			for i, v := range site.Vars {
				if slot := slices.Index(m.Vars, v.Name); slot >= 0 {
					state[sp.VarIndex(slot)] = vals[i]
				}
			}
		}
		cur, tcur = nxt, tnext
	}
	return rp, nil
}

// logRatio is d of arc ai in a replayed run (ArcSpread), and whether it is
// defined (the run took the arc with positive times).
func (rp *replay) logRatio(ai int) (float64, bool) {
	if len(rp.ratios[ai]) == 0 {
		return 0, false
	}
	return stats.Median(rp.ratios[ai]), true
}

// atSpeed returns t with its times at the machine's normal speed, as the
// model's training runs were compared (Speed.adjust), when the model found
// that the checkpoint probe measured the machine's speed (Speed.Significant);
// done says that t is already so adjusted (a training run of a model built
// with --speed-adjust).
func (m *Model) atSpeed(t *trace.Trace, done bool) *trace.Trace {
	if m.Speed == nil || !m.Speed.Significant() || done {
		return t
	}
	return m.Speed.adjust([]*trace.Trace{t})[0]
}

// calibrateCheck measures the training runs against the model (CheckCalibration).
func (m *Model) calibrateCheck(traces []*trace.Trace) {
	c := &CheckCalibration{Arcs: make([]ArcSpread, len(m.Arcs)), Misses: make([]int, len(m.Nodes))}
	ds := make([][]float64, len(m.Arcs))
	arcTime := make([]float64, len(m.Arcs))
	total := 0.0
	for _, t := range traces {
		if usable(t) != "" {
			continue
		}
		rp, err := m.replay(m.atSpeed(t, m.Speed != nil && m.Speed.Adjusted))
		if err != nil {
			continue
		}
		c.Runs++
		for ai := range m.Arcs {
			if d, ok := rp.logRatio(ai); ok {
				ds[ai] = append(ds[ai], d)
			}
			arcTime[ai] += rp.time[ai]
			total += rp.time[ai]
		}
		for n, miss := range rp.missNodes {
			if miss {
				c.Misses[n]++
			}
		}
	}
	for ai, d := range ds {
		c.Arcs[ai] = spreadOf(d)
		if total > 0 {
			c.Arcs[ai].Share = arcTime[ai] / total
		}
	}
	m.CheckCal = c
}

// spreadOf is the ArcSpread of the runs' d.
func spreadOf(d []float64) ArcSpread {
	if len(d) == 0 {
		return ArcSpread{}
	}
	center := stats.Median(d)
	dev := make([]float64, len(d))
	for i, x := range d {
		dev[i] = math.Abs(x - center)
	}
	sort.Float64s(dev)
	if len(dev) > MaxCheckDevs {
		thin := make([]float64, MaxCheckDevs)
		for i := range thin {
			thin[i] = dev[(i+1)*len(dev)/MaxCheckDevs-1]
		}
		dev = thin
	}
	return ArcSpread{Runs: len(d), Center: center, Devs: dev}
}

// A Deviation is one way a run departs from its model.
type Deviation struct {
	// Kind is "arc" (a transition the model never saw), "rule" (a node's rule
	// chose another arc than the run took), "time" (an arc's time outside its
	// interval) or "run" (the run did not finish as a traced run should).
	Kind      string `json:"kind"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	FromPlace string `json:"from_place,omitempty"`
	ToPlace   string `json:"to_place,omitempty"`
	Count     int    `json:"count,omitempty"` // transitions (arc, rule, time)
	Event     int    `json:"first_event"`     // the first one's event index (0-based; the run's length for END)
	// Rule and Expected (kind rule): the rule that chose, and the checkpoint it
	// chose.
	Rule     string `json:"rule,omitempty"`
	Expected string `json:"expected,omitempty"`
	// Ratio (kind time) is e^(d − Center): the run's time on the arc against
	// the training runs' typical one, at the same states (ArcSpread); Lo and
	// Hi the interval it had to lie in (absent when too few training runs took
	// the arc to flag it at the level of the test), P its p-value
	// (ArcSpread.PValue).
	Ratio float64 `json:"ratio,omitempty"`
	Lo    float64 `json:"lo,omitempty"`
	Hi    float64 `json:"hi,omitempty"`
	P     float64 `json:"p,omitempty"`
	// Why (kind run): what went wrong.
	Why string `json:"why,omitempty"`
}

// A RunCheck is the verdict on one run.
type RunCheck struct {
	Run    string             `json:"run"`
	Inputs map[string]float64 `json:"inputs,omitempty"`
	Events int                `json:"events"`
	TimeNs float64            `json:"time_ns"`
	// ArcsTested is k, the arcs whose time was tested; Alpha the level of
	// each, (1 − γ)/k.
	ArcsTested int         `json:"arcs_tested"`
	Alpha      float64     `json:"alpha"`
	Deviations []Deviation `json:"deviations"`
	// Times are the arcs tested, each as a Deviation of kind "time", flagged or
	// not.
	Times []Deviation `json:"times"`
	// Notes: checkpoints moved to other lines, rules not held against the run.
	Notes []string `json:"notes,omitempty"`
}

// Deviates reports whether the run departs from the model.
func (r *RunCheck) Deviates() bool { return len(r.Deviations) > 0 }

// CheckRun checks run t against the model at confidence gamma (0 < γ < 1):
// transitions the model never saw, decisions the rules would have made
// otherwise (at nodes whose rule chose as every training run did), and arc
// times outside their intervals. The time test: for each arc taken in the run
// that at least MinCheckRuns training runs took, for at least MinCheckShare of
// their time, the score s = |d − Center|
// (ArcSpread) and its conformal p-value; the arc deviates when p ≤ α′ = (1 −
// γ)/k over the k arcs tested. By Bonferroni's inequality, which holds
// whatever the dependence between the arcs of one run (they share its
// machine's speed), a run of the unchanged program exchangeable with the
// training runs raises a time alarm with probability at most 1 − γ. A
// mismatch of checkpoints is an error (*RunMismatch).
func (m *Model) CheckRun(t *trace.Trace, gamma float64) (*RunCheck, error) {
	if m.CheckCal == nil {
		return nil, fmt.Errorf("the model has no check calibration (built by an older fragprof): build it again with fragprof model build")
	}
	if c := m.CheckCal; len(c.Arcs) != len(m.Arcs) || len(c.Misses) != len(m.Nodes) {
		return nil, fmt.Errorf("the model's check calibration has %d arcs and %d nodes where its graph has %d and %d: the file was altered; build it again with fragprof model build",
			len(c.Arcs), len(c.Misses), len(m.Arcs), len(m.Nodes))
	}
	if !(gamma > 0 && gamma < 1) {
		return nil, fmt.Errorf("confidence %v: want a number between 0 and 1", gamma)
	}
	rc := &RunCheck{Run: t.Name, Inputs: map[string]float64{}, Deviations: []Deviation{}}
	for _, in := range t.Header.Inputs {
		if v, ok := t.Input(in.Name); ok {
			rc.Inputs[in.Name] = v
		}
	}
	if why := usable(t); why != "" {
		rc.Deviations = append(rc.Deviations, Deviation{Kind: "run", Why: why})
		if t.Main() == nil || t.Main().Len() == 0 {
			return rc, nil
		}
	}
	t = m.atSpeed(t, false)
	rp, err := m.replay(t)
	if err != nil {
		return nil, err
	}
	th := t.Main()
	rc.Events, rc.TimeNs = th.Len(), float64(th.Span())
	rc.Notes = append(rc.Notes, rp.moved...)
	rc.Deviations = append(rc.Deviations, rp.unseen...)
	for i, d := range rp.misses {
		if miss := m.CheckCal.Misses[rp.missAt[i]]; miss > 0 {
			rc.Notes = append(rc.Notes, fmt.Sprintf("%s chose %s where the run went to %s (%s), but the rule did so in %d of %d training runs too: not held against the run",
				d.From, d.Expected, d.To, times(d.Count), miss, m.CheckCal.Runs))
			continue
		}
		rc.Deviations = append(rc.Deviations, d)
	}
	var tested []int
	for ai := range m.Arcs {
		if s := m.CheckCal.Arcs[ai]; s.Runs >= MinCheckRuns && s.Share >= MinCheckShare && len(rp.ratios[ai]) > 0 {
			tested = append(tested, ai)
		}
	}
	rc.ArcsTested = len(tested)
	if len(tested) > 0 {
		rc.Alpha = (1 - gamma) / float64(len(tested))
	}
	for _, ai := range tested {
		s := &m.CheckCal.Arcs[ai]
		d, _ := rp.logRatio(ai)
		a := &m.Arcs[ai]
		lim := s.Limit(rc.Alpha)
		dv := Deviation{Kind: "time", From: m.Nodes[a.From].Name, To: m.Nodes[a.To].Name,
			FromPlace: m.nodePlace(a.From), ToPlace: m.nodePlace(a.To), Count: int(rp.n[ai]),
			Ratio: math.Exp(d - s.Center), P: s.PValue(math.Abs(d - s.Center))}
		if !math.IsInf(lim, 1) { // else too few training runs to flag it at α′
			dv.Lo, dv.Hi = math.Exp(-lim), math.Exp(lim)
		}
		rc.Times = append(rc.Times, dv)
		if dv.P <= rc.Alpha {
			rc.Deviations = append(rc.Deviations, dv)
		}
	}
	return rc, nil
}

// DefaultGamma is the confidence model check uses unless told: the level of
// the model's prediction interval.
func (m *Model) DefaultGamma() float64 {
	if m.Selection != nil && m.Selection.Interval.Level > 0 {
		return m.Selection.Interval.Level
	}
	return conformal.Level
}

// String says where a deviation is and what it is, in one line.
func (d *Deviation) String() string {
	at := func(name, place string) string {
		if place == "" {
			return name
		}
		return name + " (" + place + ")"
	}
	arc := at(d.From, d.FromPlace) + " → " + at(d.To, d.ToPlace)
	switch d.Kind {
	case "arc":
		return fmt.Sprintf("new transition %s: never seen in training (%s, first at event %d)", arc, times(d.Count), d.Event)
	case "rule":
		return fmt.Sprintf("rule broken at %s: the run went to %s, the rule chose %s (%s; %s, first at event %d)",
			at(d.From, d.FromPlace), at(d.To, d.ToPlace), d.Expected, d.Rule, times(d.Count), d.Event)
	case "time":
		return fmt.Sprintf("time of %s: %.3g× the usual over its %d transitions, outside ×%.3g–%.3g (p = %.2g)", arc, d.Ratio, d.Count, d.Lo, d.Hi, d.P)
	}
	return "the run " + d.Why
}

// times says "once" or "n times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
