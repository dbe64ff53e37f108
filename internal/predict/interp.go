// This file runs a model: the metalayer's interpreter (docs/methods.md). From the given inputs it
// moves from node to node — the node's rule picks the arc, the arc's time formula
// adds to the clock, its data rules give the target's variables, the counters
// update — until the run reaches END. Probabilistic rules make runs differ: several
// are run, atypical ones dropped by a one-dimensional clustering (the largest
// cluster is kept), and the rest averaged.
//
// A self loop that changes the state only by constant steps (a counter, i := i + 1)
// is not stepped through: its iterations up to the next change of decision are
// added in closed form (fastforward.go), so a prediction costs the same whatever
// the loop's length.

package predict

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"time"

	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/stats"
)

// PredictOptions control Predict.
type PredictOptions struct {
	Runs     int    // interpreted runs when a rule is probabilistic (20)
	Seed     uint64 // of the random choices (1)
	MaxSteps int64  // interpreter steps per run before giving up (2e8)
	// Marks are event counts (ascending, ≥ 1) at which the time since the first
	// event is wanted (Prediction.MarkNs): where a probe of the input stopped.
	Marks []float64
}

// A Prediction is what the model says about one input.
type Prediction struct {
	TimeNs   float64            `json:"predicted_ns"`
	Interval [2]float64         `json:"interval_ns"`
	Vars     map[string]float64 `json:"vars"`
	// UntracedNs estimates the run's time without checkpoints: the predicted time
	// less the checkpoints' own cost (events × the runtime's overhead estimate). It
	// is NaN (absent from JSON) when that cost is 95 % of the predicted time or more:
	// the checkpoints dominate the traced runs, and what would be left is smaller
	// than the error of either figure.
	UntracedNs float64 `json:"untraced_ns,omitempty"`
	Events     float64 `json:"events"` // checkpoints passed
	// Chosen is the predictor behind TimeNs (Selection; "graph" without one);
	// GraphNs the transition-graph model's prediction, CompositionNs the count ×
	// mean arc time composition's, and Candidates every candidate's.
	Chosen        string             `json:"chosen"`
	GraphNs       float64            `json:"graph_ns"`
	CompositionNs float64            `json:"composition_ns"`
	Candidates    map[string]float64 `json:"candidates,omitempty"`
	// Factor is how far the input lies beyond the training range (1 inside;
	// ExtrapolationFactor).
	Factor float64 `json:"extrapolation_factor"`
	Runs   int     `json:"runs"`  // interpreted runs
	Kept   int     `json:"kept"`  // runs in the largest cluster
	Steps  int64   `json:"steps"` // interpreter steps in all
	// Baseline is the direct model's prediction, with its interval.
	Baseline         float64    `json:"baseline_ns"`
	BaselineInterval [2]float64 `json:"baseline_interval_ns"`
	// BaselineVars are the direct models' predictions of the final values.
	BaselineVars map[string]float64 `json:"baseline_vars,omitempty"`
	Visits       map[string]float64 `json:"visits"`
	Elapsed      time.Duration      `json:"elapsed_ns"` // time the prediction took
	// MarkNs[i] is the graph model's time from the first event to event
	// PredictOptions.Marks[i] (NaN when no run gets that far), and GraphTotalNs
	// its time of the whole run, before any Selection: together the share of
	// the run a probe's events are.
	MarkNs       []float64 `json:"-"`
	GraphTotalNs float64   `json:"-"`
	// Probe is what a probe of the input said (Model.ApplyProbe); TimeNs and
	// Interval are then the probe's.
	Probe *ProbeInfo `json:"probe,omitempty"`
	// ProbeHint, without Probe, suggests a probe's budget where the training
	// runs cannot speak for the input (probeHint).
	ProbeHint *ProbeHint `json:"probe_hint,omitempty"`
	// Extrapolated lists inputs outside the training range.
	Extrapolated []string `json:"extrapolated,omitempty"`
	// WorkingSet is the predicted working set in bytes (Model.WorkingSet; absent
	// without a working-set model). Cache is set when it crosses a cache level
	// that no training run crossed: the time per operation the model learnt does
	// not hold there.
	WorkingSet float64        `json:"working_set_bytes,omitempty"`
	Cache      *CacheCrossing `json:"cache_crossing,omitempty"`
	// IntervalLevel is the confidence Interval is claimed at: the selection's
	// conformal level (0.9), about 0.95 for the graph model's own interval, and 0
	// when Cache is set — the interval then assumes the training runs' time per
	// operation, and no level can be claimed for it.
	IntervalLevel float64 `json:"interval_level"`
	// OtherMachine says that the model was built on a machine with other caches
	// (Model.MachineNote; set by the command, which reads this machine's).
	OtherMachine string `json:"other_machine,omitempty"`
	// Diverged, when set, names the first value of an interpreted run that left
	// the finite numbers ("da becomes +Inf at transition 37 (exchange →
	// exchange)"): the data formulas, fitted inside the training range, do not
	// hold on this input. The graph's time (when a time formula reads such a
	// value) and the final values it reaches are then unknown: NaN here, 0 in
	// JSON, with this field saying why.
	Diverged string `json:"diverged,omitempty"`
}

// MarshalJSON writes the prediction with every value that is not a finite
// number as 0 (jsonnum.OrZero: the prediction schema's consumers read plain
// numbers; Diverged and a missing untraced_ns say which are unknown).
func (p *Prediction) MarshalJSON() ([]byte, error) {
	type plain Prediction
	q := plain(*p)
	fin := jsonnum.OrZero
	finMap := func(m map[string]float64) map[string]float64 {
		if m == nil {
			return nil
		}
		out := make(map[string]float64, len(m))
		for k, v := range m {
			out[k] = fin(v)
		}
		return out
	}
	q.Vars, q.BaselineVars, q.Candidates, q.Visits = finMap(p.Vars), finMap(p.BaselineVars), finMap(p.Candidates), finMap(p.Visits)
	q.TimeNs, q.UntracedNs, q.Baseline, q.WorkingSet = fin(q.TimeNs), fin(q.UntracedNs), fin(q.Baseline), fin(q.WorkingSet)
	q.Events, q.GraphNs, q.CompositionNs, q.Factor = fin(q.Events), fin(q.GraphNs), fin(q.CompositionNs), fin(q.Factor)
	q.Interval = [2]float64{fin(q.Interval[0]), fin(q.Interval[1])}
	q.BaselineInterval = [2]float64{fin(q.BaselineInterval[0]), fin(q.BaselineInterval[1])}
	return json.Marshal(q)
}

// runResult is one interpreted run.
type runResult struct {
	time    float64
	at      []float64 // time from the first event to each mark (NaN: not reached)
	vars    []float64
	visits  []float64
	arcN    []float64 // transitions per arc
	arcTime []float64
	steps   int64
	// diverged names the first value that left the finite numbers: a data
	// formula or a time formula evaluated far from where it was fitted (a
	// polynomial of a variable that grows each iteration overflows within a few
	// hundred steps). The run goes on — its path may still be right — but that
	// variable, and the times that read it, are unknown.
	diverged string
}

// ErrNoEnd is returned when a run does not reach END within MaxSteps.
var ErrNoEnd = errors.New("the model did not reach END")

func pickShare(ss []graph.Share, rng *rand.Rand) (int, float64) {
	if len(ss) == 1 {
		return ss[0].Arc, 1
	}
	q := rng.Float64()
	acc := 0.0
	for _, s := range ss {
		acc += s.P
		if q < acc {
			return s.Arc, s.P
		}
	}
	last := ss[len(ss)-1]
	return last.Arc, last.P
}

// decide picks the arc out of node n: the first condition that holds, else the trip
// rule, else the residual.
func (m *Model) decide(n int, state, trip []float64, rng *rand.Rand) int {
	if a, ok := m.decideDet(n, state, trip); ok {
		return a
	}
	r := &m.Rules[n]
	if r.Trip != nil {
		a, _ := pickShare(r.Trip.Exit, rng)
		return a
	}
	a, _ := pickShare(r.Residual, rng)
	return a
}

// run interprets the model once from the inputs in; marks as in PredictOptions.
func (m *Model) run(in []float64, rng *rand.Rand, maxSteps int64, marks []float64) (*runResult, error) {
	sp := m.space
	F := sp.Len()
	state := make([]float64, F)
	copy(state, in)
	trip := make([]float64, len(m.Nodes))
	res := &runResult{vars: make([]float64, len(m.Vars)), visits: make([]float64, len(m.Nodes)),
		arcN: make([]float64, len(m.Arcs)), arcTime: make([]float64, len(m.Arcs))}
	node := graph.Start
	state[sp.CounterIndex(graph.Start)] = 1
	res.visits[graph.Start] = 1
	newVals := make([]float64, 0, 8)
	force := false // the next decision must leave the self loop (skip)
	// events counts arrivals at checkpoints (every node but END); t1 is the time
	// at the first. reach sets the time of the marks passed, the last step having
	// been iterations of dt each.
	events, t1, mi := 0.0, 0.0, 0
	res.at = make([]float64, len(marks))
	for i := range res.at {
		res.at[i] = math.NaN()
	}
	reach := func(dt float64) {
		for ; mi < len(marks) && marks[mi] <= events; mi++ {
			res.at[mi] = res.time - (events-marks[mi])*dt - t1
		}
	}
	for node != graph.End {
		if res.steps >= maxSteps {
			return res, fmt.Errorf("%w after %d steps (at node %s): a loop whose exit the rules never choose, or --max-steps too low", ErrNoEnd, res.steps, m.Nodes[node].Name)
		}
		res.steps++
		if len(m.outArcs[node]) == 0 {
			return res, fmt.Errorf("%w: node %s has no way out", ErrNoEnd, m.Nodes[node].Name)
		}
		var ai int
		if force {
			ai, force = m.pickExit(node, rng), false
		} else {
			ai = m.decide(node, state, trip, rng)
		}
		a := &m.Arcs[ai]
		dt := m.arcTime(ai, state)
		newVals = newVals[:0]
		for k := range a.Data {
			newVals = append(newVals, a.Data[k].Formula.Eval(state))
		}
		if res.diverged == "" {
			res.diverged = m.divergence(ai, dt, newVals, res.steps)
		}
		res.time += dt
		res.arcN[ai]++
		res.arcTime[ai] += dt
		for k := range a.Data {
			state[sp.VarIndex(slices.Index(m.Vars, a.Data[k].Var))] = newVals[k]
		}
		to := a.To
		ci := sp.CounterIndex(to)
		if a.Resets {
			state[ci] = 0
		}
		state[ci]++
		res.visits[to]++
		if to != graph.End {
			if events++; events == 1 {
				t1 = res.time
			}
			reach(dt)
		}
		if m.tripNodes[to] && to != node {
			t := m.Rules[to].Trip.Count.Eval(state)
			if math.IsNaN(t) {
				t = 1
			}
			trip[to] = math.Max(1, math.Round(t))
		}
		// Fast-forward through the rest of a self loop (fastforward.go).
		if to == node && m.ff[node].ok {
			k, f, poly, err := m.skip(node, state, trip, rng)
			if err != nil {
				return res, err
			}
			force = f
			if k > 0 {
				scale := m.timeScale()
				sum := clampedSum(poly, 0, k) * scale
				t0, e0 := res.time, events
				res.time += sum
				res.arcN[ai] += k
				res.arcTime[ai] += sum
				m.ff[node].advance(state, k)
				res.visits[to] += k
				events += k
				// Marks passed: iteration i (from 0) arrives at event e0 + i + 1.
				for ; mi < len(marks) && marks[mi] <= events; mi++ {
					j := marks[mi] - e0
					i := math.Floor(j)
					at := t0 + clampedSum(poly, 0, i)*scale
					if j > i {
						at += (j - i) * math.Max(0, horner(poly, i)) * scale
					}
					res.at[mi] = at - t1
				}
			}
		}
		node = to
	}
	for k := range m.Vars {
		res.vars[k] = state[sp.VarIndex(k)]
	}
	return res, nil
}

// divergence names the first value of transition step over arc ai (its time
// dt, the new data values) that is not a finite number, or returns "". It
// allocates nothing while every value is finite: it runs at every step.
func (m *Model) divergence(ai int, dt float64, vals []float64, step int64) string {
	a := &m.Arcs[ai]
	where := func() string {
		return fmt.Sprintf("at transition %d (%s → %s)", step, m.Nodes[a.From].Name, m.Nodes[a.To].Name)
	}
	if !jsonnum.Finite(dt) {
		return fmt.Sprintf("the time is %g %s", dt, where())
	}
	for k, v := range vals {
		if !jsonnum.Finite(v) {
			return fmt.Sprintf("%s becomes %g %s", a.Data[k].Var, v, where())
		}
	}
	return ""
}

// decideDet returns the decision at node n when no random choice is involved.
func (m *Model) decideDet(n int, state, trip []float64) (int, bool) {
	r := &m.Rules[n]
	for k := range r.Conds {
		if r.Conds[k].Match(state) {
			return r.Conds[k].Arc, true
		}
	}
	if r.Trip != nil {
		if state[m.space.CounterIndex(n)] < trip[n] {
			return r.Trip.Arc, true
		}
		for k := range r.Trip.Conds {
			if r.Trip.Conds[k].Match(state) {
				return r.Trip.Conds[k].Arc, true
			}
		}
		if len(r.Trip.Exit) == 1 {
			return r.Trip.Exit[0].Arc, true
		}
		return 0, false
	}
	if len(r.Residual) == 1 {
		return r.Residual[0].Arc, true
	}
	return 0, false
}

// pickExit chooses among the residual's arcs other than the self arc, by their
// renormalised shares.
func (m *Model) pickExit(n int, rng *rand.Rand) int {
	self := m.ff[n].self
	var ss []graph.Share
	tot := 0.0
	for _, s := range m.Rules[n].Residual {
		if s.Arc != self {
			ss = append(ss, s)
			tot += s.P
		}
	}
	for i := range ss {
		ss[i].P /= tot
	}
	a, _ := pickShare(ss, rng)
	return a
}

// MaxInput is the largest magnitude of an input's value, 2⁵³: beyond it a float64
// no longer counts one by one (x + 1 = x), so a loop whose counter the input drives
// could never be followed to its end.
const MaxInput = 1 << 53

// CheckInput tells whether v can be the value of the input name: a finite number
// of magnitude at most MaxInput. The error says which and why.
func CheckInput(name string, v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("input %s = %v: want a finite number", name, v)
	case math.Abs(v) > MaxInput:
		return fmt.Errorf("input %s = %g: want a magnitude of at most 2^53 (%.0f), where numbers still count one by one", name, v, float64(MaxInput))
	}
	return nil
}

// Predict runs the model from the inputs (by name; every model input is needed).
func (m *Model) Predict(inputs map[string]float64, opt PredictOptions) (*Prediction, error) {
	start := time.Now()
	for _, name := range m.Inputs {
		if _, ok := inputs[name]; !ok {
			return nil, fmt.Errorf("input %s is not given (the model's inputs: %v)", name, m.Inputs)
		}
	}
	in := m.inputVector(inputs)
	for name, v := range inputs {
		if slices.Index(m.Inputs, name) < 0 {
			return nil, fmt.Errorf("the model has no input %s (its inputs: %v)", name, m.Inputs)
		}
		if err := CheckInput(name, v); err != nil {
			return nil, err
		}
	}
	p, err := m.predict(in, opt)
	if err != nil {
		return nil, err
	}
	m.choose(in, p)
	p.IntervalLevel = 0.95
	if m.Selection != nil {
		p.IntervalLevel = m.Selection.Interval.Level
	}
	if ws := m.WorkingSet(in); !math.IsNaN(ws) && !math.IsInf(ws, 0) {
		p.WorkingSet = math.Max(0, ws)
		if p.Cache = m.cacheCrossing(in); p.Cache != nil {
			p.IntervalLevel = 0
		}
	}
	for _, r := range m.Training.Ranges {
		v := inputs[r.Name]
		if v < r.Min || v > r.Max {
			f := extrapFactor([]InputRange{r}, []string{r.Name}, []float64{v})
			p.Extrapolated = append(p.Extrapolated, fmt.Sprintf("%s = %g is %.3g× beyond the training range [%g, %g]", r.Name, v, f, r.Min, r.Max))
		}
	}
	p.ProbeHint = probeHint(p)
	p.Elapsed = time.Since(start)
	return p, nil
}

// inputVector orders inputs by m.Inputs (0 for one not given).
func (m *Model) inputVector(inputs map[string]float64) []float64 {
	in := make([]float64, len(m.Inputs))
	for k, name := range m.Inputs {
		in[k] = inputs[name]
	}
	return in
}

// choose sets the prediction's time and interval from the model's Selection:
// the chosen candidate's value, and its conformal interval widened for the
// extrapolation factor.
func (m *Model) choose(in []float64, p *Prediction) {
	p.GraphNs = p.TimeNs
	p.Chosen = selection.CandGraph
	p.Factor = m.ExtrapolationFactor(in)
	s := m.Selection
	if s == nil {
		return
	}
	p.Candidates = m.candidateValues(in, p)
	y, ok := p.Candidates[s.Chosen]
	if !ok || math.IsNaN(y) {
		return
	}
	p.Chosen = s.Chosen
	p.TimeNs = y
	h := s.Interval.HalfWidth(in, p.Factor)
	p.Interval = [2]float64{y * math.Exp(-h), y * math.Exp(h)}
	if !math.IsNaN(p.UntracedNs) {
		p.UntracedNs = y - p.Events*m.Training.OverheadNs
		if p.UntracedNs < 0.05*y {
			p.UntracedNs = math.NaN()
		}
	}
}

func (m *Model) predict(in []float64, opt PredictOptions) (*Prediction, error) {
	if opt.Runs <= 0 {
		opt.Runs = 20
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.MaxSteps <= 0 {
		opt.MaxSteps = 2e8
	}
	runs := opt.Runs
	if !m.Probabilistic() {
		runs = 1
	}
	var results []*runResult
	var steps int64
	for r := 0; r < runs; r++ {
		rng := rand.New(rand.NewPCG(opt.Seed, uint64(r)))
		res, err := m.run(in, rng, opt.MaxSteps, opt.Marks)
		steps += res.steps
		if err != nil {
			return nil, err
		}
		results = append(results, res)
	}
	kept := keepLargestCluster(results)
	p := &Prediction{Runs: runs, Kept: len(kept), Steps: steps, Vars: map[string]float64{}, Visits: map[string]float64{}}
	for _, r := range kept {
		if r.diverged != "" {
			p.Diverged = r.diverged
			break
		}
	}
	p.MarkNs = make([]float64, len(opt.Marks))
	var times []float64
	for _, r := range kept {
		times = append(times, r.time)
		p.TimeNs += r.time / float64(len(kept))
		for i, t := range r.at {
			p.MarkNs[i] += t / float64(len(kept))
		}
		for k, v := range m.Vars {
			p.Vars[v] += r.vars[k] / float64(len(kept))
		}
		for n, v := range r.visits {
			p.Visits[m.Nodes[n].Name] += v / float64(len(kept))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(p.Visits)) { // a fixed order: the same sum every run
		if n != "START" && n != "END" {
			p.Events += p.Visits[n]
		}
	}
	for ai := range m.Arcs {
		for _, r := range kept {
			p.CompositionNs += r.arcN[ai] * m.Arcs[ai].MeanNs / float64(len(kept))
		}
	}
	// The interval: the spread of the runs, the time formulas' errors, and the
	// model's held-out error, as independent parts; ±2 standard deviations.
	_, sdRuns := stats.MeanSD(times)
	var v float64
	v += sdRuns * sdRuns
	for ai := range m.Arcs {
		var n float64
		for _, r := range kept {
			n += r.arcN[ai] / float64(len(kept))
		}
		q := m.Arcs[ai].Time.Fit
		if n == 0 || q.N == 0 {
			continue
		}
		sigma := q.CVRMSE * m.timeScale()
		v += n*sigma*sigma + (n*sigma)*(n*sigma)/float64(q.N)
	}
	// A trip rule gives a loop's expected length; each actual episode differs from
	// it by the regression's residual (σ_T): over e episodes, e·σ_T² transitions of
	// the self arc's time squared.
	for n := range m.Rules {
		tr := m.Rules[n].Trip
		if tr == nil {
			continue
		}
		var episodes, selfN, selfT float64
		for _, r := range kept {
			for ai := range m.Arcs {
				if m.Arcs[ai].To == n && m.Arcs[ai].From != n {
					episodes += r.arcN[ai] / float64(len(kept))
				}
			}
			selfN += r.arcN[tr.Arc]
			selfT += r.arcTime[tr.Arc]
		}
		if selfN > 0 {
			dt := selfT / selfN
			sd := tr.Count.Fit.CVRMSE
			v += episodes * sd * sd * dt * dt
		}
	}
	if ev := m.Evaluation; ev != nil {
		s := 1.2533 * ev.MAPE * p.TimeNs // E|X| = σ·√(2/π) for a normal error
		v += s * s
	}
	s := math.Sqrt(v)
	p.Interval = [2]float64{math.Max(0, p.TimeNs-2*s), p.TimeNs + 2*s}
	p.GraphTotalNs = p.TimeNs
	p.UntracedNs = p.TimeNs - p.Events*m.Training.OverheadNs
	if p.UntracedNs < 0.05*p.TimeNs {
		p.UntracedNs = math.NaN()
	}
	if b := m.Baseline; b != nil {
		p.Baseline = b.Eval(in)
		e := 2 * 1.2533 * b.CVMAPE * math.Abs(p.Baseline)
		p.BaselineInterval = [2]float64{math.Max(0, p.Baseline-e), p.Baseline + e}
	}
	if len(m.DataBaselines) > 0 {
		p.BaselineVars = map[string]float64{}
		for _, b := range m.DataBaselines {
			p.BaselineVars[b.Target] = b.Eval(in)
		}
	}
	return p, nil
}

// keepLargestCluster sorts the runs by time, cuts where consecutive times are further
// apart than 3 robust standard deviations (1.4826·MAD), and keeps the largest piece.
func keepLargestCluster(rs []*runResult) []*runResult {
	if len(rs) < 3 {
		return rs
	}
	s := append([]*runResult(nil), rs...)
	sort.Slice(s, func(i, j int) bool { return s[i].time < s[j].time })
	times := make([]float64, len(s))
	for i, r := range s {
		times[i] = r.time
	}
	med := stats.Median(times)
	dev := make([]float64, len(times))
	for i, t := range times {
		dev[i] = math.Abs(t - med)
	}
	h := 3 * 1.4826 * stats.Median(dev)
	if h == 0 {
		h = 1e-9 * math.Abs(med)
	}
	bestLo, bestHi := 0, 0
	lo := 0
	for i := 1; i <= len(s); i++ {
		if i == len(s) || times[i]-times[i-1] > h {
			if i-lo > bestHi-bestLo {
				bestLo, bestHi = lo, i
			}
			lo = i
		}
	}
	return s[bestLo:bestHi]
}
