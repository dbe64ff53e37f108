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
// check: per arc, the scatter of a run's time on the arc around the model's,
// alone and against the rest of the run; the scatter of the run's speed; per
// node, how often the rule chose another arc than a run took.
type CheckCalibration struct {
	Runs int         `json:"runs"` // training runs measured
	Arcs []ArcSpread `json:"arcs"` // by arc
	// Speed is the scatter of a run's speed v over the training runs
	// (Model.runSpeed): nil in a model of an older fragprof.
	Speed *Spread `json:"speed,omitempty"`
	// Misses[n] counts the training runs in which node n's rule chose, with
	// certainty, another arc than the run took at least once: such a rule is
	// not held against a run.
	Misses []int `json:"rule_misses"`
	// Points are the training runs' input points with at least MinPointRuns
	// runs, for the point test (InputPoint): nil in a model of an older
	// fragprof.
	Points []InputPoint `json:"points,omitempty"`
	// Joint are the training runs' p-values of their time tests, from which
	// model check sets the level of each (jointAlpha): nil in a model of an
	// older fragprof, which is checked at Bonferroni's (1 − γ)/k.
	Joint []JointRun `json:"joint,omitempty"`
}

// A Spread is the scatter over the training runs of a statistic x of a run:
// Center is the median of x over the runs and Devs the scores s = |x −
// Center| of the runs, ascending (at most MaxCheckDevs: beyond, the largest
// of each of MaxCheckDevs equal blocks, which errs toward larger p-values).
// Runs is how many training runs had x.
type Spread struct {
	Runs   int       `json:"runs"`
	Center float64   `json:"center"`
	Devs   []float64 `json:"devs,omitempty"`
}

// An ArcSpread is the scatter over the training runs of a run's d on the arc:
// the median over the run's transitions on the arc of ln(t/p), t the
// transition's time and p the model's at the state the run was in — the
// median, because single transitions carry the interrupts and stalls of a
// shared machine, which a loop of many transitions would otherwise sum; the
// times at the machine's normal speed when the model measured it (Speed).
type ArcSpread struct {
	Spread
	// Share is the arc's part of the training runs' time: the sum of its
	// transitions' times over the sum of the runs' times.
	Share float64 `json:"share"`
	// Relative is the scatter of z = d̃ − β·r, the arc's centred d against the
	// rest of the run's (Model.reference): nil where no training run had
	// another timed arc to compare it with, or where z scattered as much as d
	// or more (median score): the rest of the run is then a worse reference
	// than none, and the arc is tested alone. Beta is β, how much the arc's
	// time moves with the rest of the run's: the least-squares slope through
	// the origin of d̃ on r over the training runs, Σ d̃·r / Σ r² — a slow
	// spell of a shared machine slows memory-bound code more than the rest
	// (kmeans' update by 10–25% where its assignment slowed by 3–7%), so
	// that the arcs of one run move together but not alike.
	Relative *Spread `json:"relative,omitempty"`
	Beta     float64 `json:"beta,omitempty"`
	// Point is the scatter of the point test's scores of the arc's y alone
	// (lowerDecile, neighbourScore), leave one out over the training runs
	// at input points of at least MinPointRuns runs: nil where fewer than
	// MinCheckRuns had one. PointRelative is that of z = y − β·r against the
	// rest of the run, β = PointBeta (calibratePoints), where it scattered
	// less than y alone.
	Point         *Spread `json:"point,omitempty"`
	PointRelative *Spread `json:"point_relative,omitempty"`
	PointBeta     float64 `json:"point_beta,omitempty"`
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

// MaxCheckDevs bounds the scores a Spread keeps.
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
func (a *Spread) PValue(s float64) float64 {
	ge := len(a.Devs) - sort.SearchFloat64s(a.Devs, s)
	return float64(1+ge) / float64(len(a.Devs)+1)
}

// Limit is the largest score whose p-value is above alpha — a run's score
// beyond it is flagged — or +Inf when no score can reach alpha (too few
// training runs: 1/(R + 1) > alpha).
func (a *Spread) Limit(alpha float64) float64 {
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

// calibrateCheck measures the training runs against the model (CheckCalibration):
// per arc the Spread of d, its Share, and the Spread of z against the rest of
// the run (Model.reference); the Spread of the runs' speed (Model.runSpeed).
func (m *Model) calibrateCheck(traces []*trace.Trace) {
	c := &CheckCalibration{Arcs: make([]ArcSpread, len(m.Arcs)), Misses: make([]int, len(m.Nodes))}
	ds := make([][]float64, len(m.Arcs))
	var runs [][]float64       // per run, d by arc (NaN where the run did not take it)
	var inputs, ys [][]float64 // per run, its inputs and y by arc (lowerDecile)
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
		runs = append(runs, rp.logRatios())
		inputs, ys = append(inputs, m.runInputs(t)), append(ys, m.pointDeciles(t, rp))
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
		c.Arcs[ai].Spread = spreadOf(d)
		if total > 0 {
			c.Arcs[ai].Share = arcTime[ai] / total
		}
	}
	m.CheckCal = c
	// Per arc the training runs' (d̃, r), for β and the scores of z.
	type pair struct{ d, r float64 }
	pairs := make([][]pair, len(m.Arcs))
	var speeds []float64
	for _, d := range runs {
		dc := c.centred(d)
		if v, ok := m.runSpeed(dc); ok {
			speeds = append(speeds, v)
		}
		for ai := range m.Arcs {
			if !c.timed(ai) || math.IsNaN(dc[ai]) {
				continue
			}
			if r, ok := m.reference(dc, ai, -1); ok {
				pairs[ai] = append(pairs[ai], pair{dc[ai], r})
			}
		}
	}
	for ai, ps := range pairs {
		var srr, sdr float64
		for _, p := range ps {
			srr += p.r * p.r
			sdr += p.d * p.r
		}
		if len(ps) == 0 || srr == 0 {
			continue
		}
		beta := sdr / srr
		z := make([]float64, len(ps))
		for i, p := range ps {
			z[i] = p.d - beta*p.r
		}
		if s := spreadOf(z); s.scatter() < c.Arcs[ai].scatter() {
			c.Arcs[ai].Relative, c.Arcs[ai].Beta = &s, beta
		}
	}
	sp := spreadOf(speeds)
	c.Speed = &sp
	m.calibratePoints(inputs, ys)
	m.calibrateJoint(runs, ys, inputs)
}

// runInputs is the values of the model's inputs in run t (NaN where it has
// none).
func (m *Model) runInputs(t *trace.Trace) []float64 {
	in := make([]float64, len(m.Inputs))
	for k, name := range m.Inputs {
		in[k] = math.NaN()
		if v, ok := t.Input(name); ok {
			in[k] = v
		}
	}
	return in
}

// spreadOf is the Spread of the runs' statistics d.
func spreadOf(d []float64) Spread {
	if len(d) == 0 {
		return Spread{}
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
	return Spread{Runs: len(d), Center: center, Devs: dev}
}

// A Deviation is one way a run departs from its model.
type Deviation struct {
	// Kind is "arc" (a transition the model never saw), "rule" (a node's rule
	// chose another arc than the run took), "time" (an arc's time outside its
	// interval), "speed" (the whole run's speed outside its interval: with
	// CheckOptions.Absolute) or "run" (the run did not finish as a traced run
	// should).
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
	// Ratio (kinds time and speed) is e^(x − Center) for the statistic x
	// tested and its Spread: the run's time on the arc against the training
	// runs' typical one at the same states — against the rest of the run
	// (x = z) when Relative, alone (x = d) otherwise — or the run's speed (x
	// = v). Lo and Hi are the interval it had to lie in (absent when too few
	// training runs had x to flag it at the level of the test), P its p-value
	// (Spread.PValue).
	Ratio    float64 `json:"ratio,omitempty"`
	Relative bool    `json:"relative,omitempty"`
	Lo       float64 `json:"lo,omitempty"`
	Hi       float64 `json:"hi,omitempty"`
	P        float64 `json:"p,omitempty"`
	// Alone and AloneP (kind time, when Relative): the arc's time alone, e^(d
	// − c), and the p-value of |d − c| (ArcSpread), for comparison: what the
	// run's speed and the arc's change make together.
	Alone  float64 `json:"alone,omitempty"`
	AloneP float64 `json:"alone_p,omitempty"`
	// Point (kind time) says the arc had the point test: the run's inputs are
	// those of training runs, and it was compared with them alone. Ratio is
	// then e^(x − x̃) for the statistic x tested — y (lowerDecile) alone, or
	// z against the rest of the run when Relative — against x̃, the median of
	// the PointNeighbours nearest training runs' at its inputs
	// (nearestCentre); Alone is that of y when Relative; P and AloneP
	// are the p-values of the scores (neighbourScore), Lo and Hi the
	// interval, e^(±limit), of the distance to the PointNeighbours-th nearest
	// training run's statistic.
	Point bool `json:"point,omitempty"`
	// Why (kind run): what went wrong.
	Why string `json:"why,omitempty"`
}

// A RunCheck is the verdict on one run.
type RunCheck struct {
	Run    string             `json:"run"`
	Inputs map[string]float64 `json:"inputs,omitempty"`
	Events int                `json:"events"`
	TimeNs float64            `json:"time_ns"`
	// ArcsTested is k, the tests of time — one per arc tested, and the run's
	// speed with CheckOptions.Absolute; Alpha the level of each: α* of the
	// joint calibration (CheckCalibration.jointAlpha) when Joint, Bonferroni's
	// (1 − γ)/k otherwise.
	ArcsTested int         `json:"arcs_tested"`
	Alpha      float64     `json:"alpha"`
	Joint      bool        `json:"joint,omitempty"`
	Deviations []Deviation `json:"deviations"`
	// Times are the arcs tested, each as a Deviation of kind "time", flagged or
	// not.
	Times []Deviation `json:"times"`
	// Speed is the run's speed against the training runs' (kind "speed"),
	// when the run took a timed arc: a deviation only with
	// CheckOptions.Absolute.
	Speed *Deviation `json:"speed,omitempty"`
	// Notes: checkpoints moved to other lines, rules not held against the
	// run, arcs tested alone, arcs whose time another arc's change explains.
	Notes []string `json:"notes,omitempty"`
}

// Deviates reports whether the run departs from the model.
func (r *RunCheck) Deviates() bool { return len(r.Deviations) > 0 }

// CheckOptions say how model check tests a run.
type CheckOptions struct {
	// Gamma is the confidence γ (0 < γ < 1): a run of the unchanged program
	// raises a time alarm with probability at most 1 − γ.
	Gamma float64
	// Absolute makes a change of the whole run's speed a deviation: a test
	// of the run's speed v joins the arcs' tests. Without it the speed is
	// reported, not tested.
	Absolute bool
}

// CheckRun checks run t against the model: transitions the model never saw,
// decisions the rules would have made otherwise (at nodes whose rule chose
// as every training run did), and arc times outside their intervals.
//
// The time test. Each arc taken in the run that at least MinCheckRuns
// training runs took, for at least MinCheckShare of their time, is tested on
// its time against the rest of the run: z = d̃ − β·r (reference,
// ArcSpread.Beta), the arc's centred d less the weighted mean of the other
// timed arcs', times how much the arc moved with it in training — the
// machine's speed, which moves every arc of a run together, cancels. Where the run has no
// such other arc (a program whose time is one loop, or an arc whose training
// runs never had one), or where z scattered as much as d or more over the
// training runs (ArcSpread.Relative), the arc is tested alone, on d.
// Either statistic x gets the conformal p-value of its score |x − c| among
// the training runs' scores (Spread.PValue), and the arc deviates when p ≤
// α′. With opt.Absolute the run's speed v (runSpeed) is one more test, where
// an arc was tested against the rest of the run; otherwise it is reported
// (RunCheck.Speed). Over k ≥ 2 tests α′ is α*, calibrated on the training
// runs' smallest p-values (CheckCalibration.jointAlpha), else (1 − γ)/k —
// one test's own level, or Bonferroni's for a model without the training
// runs' p-values. Either way a run of the unchanged program exchangeable
// with the training runs raises a time alarm with probability at most 1 − γ. When several arcs are
// flagged, some against the rest of the run, the one whose change alone
// explains the others is named (explainedBy) and those it explains noted. A mismatch of
// checkpoints is an error (*RunMismatch).
func (m *Model) CheckRun(t *trace.Trace, opt CheckOptions) (*RunCheck, error) {
	if m.CheckCal == nil || m.CheckCal.Speed == nil {
		return nil, fmt.Errorf("the model has no check calibration, or one without the runs' speed (built by an older fragprof): build it again with fragprof model build")
	}
	if c := m.CheckCal; len(c.Arcs) != len(m.Arcs) || len(c.Misses) != len(m.Nodes) {
		return nil, fmt.Errorf("the model's check calibration has %d arcs and %d nodes where its graph has %d and %d: the file was altered; build it again with fragprof model build",
			len(c.Arcs), len(c.Misses), len(m.Arcs), len(m.Nodes))
	}
	gamma := opt.Gamma
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
	raw := t
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

	// The statistic of each arc tested: z against the rest of the run where
	// it has a reference, d alone otherwise.
	type test struct {
		ai    int
		x     float64
		spr   *Spread
		rel   bool
		point bool
		ratio float64 // the point test's ratios: of the statistic, of y alone
		alone float64
	}
	dc := m.CheckCal.centred(rp.logRatios())
	y := m.pointDeciles(raw, rp)
	at := m.CheckCal.point(m.runInputs(t))
	var tests []test
	relative := false
	for ai := range m.Arcs {
		s := &m.CheckCal.Arcs[ai]
		if !m.CheckCal.timed(ai) || math.IsNaN(dc[ai]) {
			continue
		}
		if score, spr, rel, ratio, alone, ok := m.pointTest(at, y, ai); ok {
			tests = append(tests, test{ai, score, spr, rel, true, ratio, alone})
			relative = relative || rel
			continue
		}
		if s.Relative != nil && s.Relative.Runs >= MinCheckRuns {
			if r, ok := m.reference(dc, ai, -1); ok {
				tests = append(tests, test{ai, dc[ai] - s.Beta*r, s.Relative, true, false, 0, 0})
				relative = true
				continue
			}
			rc.Notes = append(rc.Notes, fmt.Sprintf("time of %s tested alone: the run took no other timed arc to compare it with", m.arcName(ai)))
		}
		tests = append(tests, test{ai, dc[ai] + s.Center, &s.Spread, false, false, 0, 0})
	}
	speed, hasSpeed := m.runSpeed(dc)
	testSpeed := opt.Absolute && relative && hasSpeed
	rc.ArcsTested = len(tests)
	if testSpeed {
		rc.ArcsTested++
	}
	// One test is its own level; several are calibrated jointly where the
	// model has the training runs' p-values.
	if a, ok := m.CheckCal.jointAlpha(at != nil, testSpeed, gamma); ok && rc.ArcsTested > 1 {
		rc.Alpha, rc.Joint = a, true
	} else if rc.ArcsTested > 0 {
		rc.Alpha = (1 - gamma) / float64(rc.ArcsTested)
	}
	// scored fills a Deviation's ratio, interval and p-value for statistic x
	// of spread s.
	scored := func(dv Deviation, x float64, s *Spread) Deviation {
		dv.Ratio, dv.P = math.Exp(x-s.Center), s.PValue(math.Abs(x-s.Center))
		if lim := s.Limit(rc.Alpha); !math.IsInf(lim, 1) && rc.Alpha > 0 { // else too few training runs to flag it at α′
			dv.Lo, dv.Hi = math.Exp(-lim), math.Exp(lim)
		}
		return dv
	}
	if hasSpeed {
		dv := scored(Deviation{Kind: "speed"}, speed, m.CheckCal.Speed)
		rc.Speed = &dv
	}
	var flagged []int          // arcs flagged
	var relFlag []bool         // … against the rest of the run
	var aloneP, ownP []float64 // … the p-values of their times alone, of their tests
	atPoint := false           // … one of them by the point test
	for _, ts := range tests {
		a := &m.Arcs[ts.ai]
		dv := scored(Deviation{Kind: "time", From: m.Nodes[a.From].Name, To: m.Nodes[a.To].Name,
			FromPlace: m.nodePlace(a.From), ToPlace: m.nodePlace(a.To), Count: int(rp.n[ts.ai]), Relative: ts.rel, Point: ts.point}, ts.x, ts.spr)
		switch {
		case ts.point:
			dv.Ratio = ts.ratio
			if ts.rel {
				dv.Alone, dv.AloneP = ts.alone, m.pointAloneP(at, y, ts.ai)
			}
		case ts.rel:
			s := &m.CheckCal.Arcs[ts.ai].Spread
			dv.Alone, dv.AloneP = math.Exp(dc[ts.ai]), s.PValue(math.Abs(dc[ts.ai]))
		}
		rc.Times = append(rc.Times, dv)
		if dv.P <= rc.Alpha {
			flagged, relFlag = append(flagged, ts.ai), append(relFlag, ts.rel)
			p := dv.P
			if ts.rel {
				p = dv.AloneP
			}
			aloneP, ownP = append(aloneP, p), append(ownP, dv.P)
			atPoint = atPoint || ts.point
		}
	}
	var named int
	explained := map[int]bool{}
	if len(flagged) > 1 && atPoint && slices.Min(aloneP) <= rc.Alpha {
		var ex []bool
		named, ex = namedAtPoint(flagged, relFlag, aloneP, rc.Alpha)
		for i, a := range flagged {
			explained[a] = ex[i]
		}
	} else if len(flagged) > 1 && atPoint && slices.Contains(relFlag, true) {
		named = mostDeviant(flagged, ownP, aloneP)
		for i, a := range flagged {
			explained[a] = a != named && relFlag[i]
		}
	} else if len(flagged) > 1 && slices.Contains(relFlag, true) {
		var ex []bool
		named, ex = m.explainedBy(dc, flagged, relFlag, rc.Alpha)
		for i, a := range flagged {
			explained[a] = ex[i]
		}
	}
	for k, ts := range tests {
		dv := rc.Times[k]
		if dv.P > rc.Alpha {
			continue
		}
		if explained[ts.ai] {
			rc.Notes = append(rc.Notes, fmt.Sprintf("time of %s: %.3g× against the rest of the run (p = %.2g), as a change of %s alone makes it: not named",
				m.arcName(ts.ai), dv.Ratio, dv.P, m.arcName(named)))
			continue
		}
		rc.Deviations = append(rc.Deviations, dv)
	}
	if testSpeed && rc.Speed.P <= rc.Alpha {
		rc.Deviations = append(rc.Deviations, *rc.Speed)
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
		if d.Point {
			how := ""
			if d.Relative {
				how = fmt.Sprintf(" against the rest of the run (alone %.3g×)", d.Alone)
			}
			return fmt.Sprintf("time of %s: %.3g× the nearest training runs' at its inputs%s, lower decile of its %d transitions, %s (p = %.2g)", arc, d.Ratio, how, d.Count, d.pointInterval(), d.P)
		}
		against := "the usual"
		switch {
		case d.Relative:
			against = fmt.Sprintf("the usual against the rest of the run (alone %.3g×)", d.Alone)
		}
		return fmt.Sprintf("time of %s: %.3g× %s over its %d transitions, %s (p = %.2g)", arc, d.Ratio, against, d.Count, d.interval(), d.P)
	case "speed":
		return fmt.Sprintf("speed of the run: %.3g× the usual time over its timed arcs, %s (p = %.2g)", d.Ratio, d.interval(), d.P)
	}
	return "the run " + d.Why
}

// interval says the interval a ratio had to lie in, or that none can flag it.
func (d *Deviation) interval() string {
	if d.Hi == 0 {
		return "too few training runs to flag it"
	}
	return fmt.Sprintf("outside ×%.3g–%.3g", d.Lo, d.Hi)
}

// pointInterval says how far a run's statistic may lie from the
// training runs' at its inputs for the point test.
func (d *Deviation) pointInterval() string {
	if d.Hi == 0 {
		return "too few training runs to flag it"
	}
	return fmt.Sprintf("beyond ×%.3g of its %s nearest training run", d.Hi, ordinal(PointNeighbours))
}

// ordinal is "first", "second", … for small n.
func ordinal(n int) string {
	if n >= 1 && n <= 3 {
		return []string{"first", "second", "third"}[n-1]
	}
	return strconv.Itoa(n) + "th"
}

// times says "once" or "n times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// mostDeviant is, among the arcs flagged, the one whose test's p-value is the
// smallest — the largest deviation in units of its own training scatter — and
// among equal p-values (the smallest a test of n training runs can give,
// 1/(n + 1), is often reached by several: one arc's change moves the others
// against the rest of the run the other way) the one whose time alone is the
// least usual (the smaller aloneP, though above the level), the first of
// equals. At a training input point, where no flagged arc's time alone is
// unusual (the machine's speed hides the change from every arc alone),
// CheckRun names it and notes the others tested against the rest of the run:
// the formulas' times alone (explainedBy), which the point test does not
// trust, would name by them. This names; it does not test.
func mostDeviant(flagged []int, p, aloneP []float64) int {
	j := 0
	for i := range flagged {
		if p[i] < p[j] || p[i] == p[j] && aloneP[i] < aloneP[j] {
			j = i
		}
	}
	return flagged[j]
}
