// This file defines the model — the transition graph with its rules, time and data
// formulas, and the direct baseline — how it is built from traces, and its file
// format (JSON, docs/predict.md).

// Package predict is fragprof's prediction metalayer (docs/methods.md): from checkpoint
// traces (package trace) it learns a transition-graph model of a program — which
// checkpoint follows which, under what condition, how long each transition takes and
// how the recorded variables change — and runs that model, event by event, to
// predict the run time and the data of inputs that were never run. It also fits a
// direct "inputs → total time" model of Extra-P's form as a baseline, and applies
// Amdahl's condition to decide whether parallelising pays.
//
// The stages hand on one type each: []*trace.Trace → Build → *Model (a JSON file,
// docs/predict.md) → (*Model).Predict → *Prediction → advise.Advise.
//
// This package holds the model, which ties the parts together: how it is built
// (model.go), run (interp.go), corrected by probes of the input predicted
// (probe.go), evaluated on held-out runs (eval.go) and printed (render.go), how
// it meets the choice of predictor (candidates.go), and how runs of a changed
// build are checked against it (check.go). The parts
// are packages of their own, each with one job:
//
//	graph      the transition graph, the execution journal and the rules learnt from it
//	regress    the regressions: formulas of times and data, and the direct models
//	           of the total time (Extra-P's normal form, power law, segmented)
//	selection  the cross-validated choice of the time predictor
//	conformal  the chosen predictor's cross-conformal interval
//	advise     Amdahl's condition on a prediction
package predict

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/fragprof/fragprof/internal/jsonerr"
	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// ModelFormat and ModelVersion identify a model file. Version 2 adds an arc's
// Body, whose time its own adds to: a reader of version 1 would leave it out
// and predict too little, so it refuses the file; this one reads both.
const (
	ModelFormat  = "fragprof-model"
	ModelVersion = 2
)

// A Model is a learnt transition-graph model of a program.
//
// Invariants (Check): Nodes[Start] is START and Nodes[End] is END; every arc joins
// two nodes; Rules[i].Node == i and a rule names only its node's out-arcs; shares
// are probabilities summing to 1; every formula and expression names a feature of
// the model (inputs "$x", variables, counters "#node").
type Model struct {
	Format   string            `json:"format"`
	Version  int               `json:"version"`
	Program  string            `json:"program"`
	Family   string            `json:"family"` // regression family of times and data
	Inputs   []string          `json:"inputs"`
	Vars     []string          `json:"vars"`
	Nodes    []ModelNode       `json:"nodes"`
	Arcs     []ModelArc        `json:"arcs"`
	Rules    []graph.Rule      `json:"rules"`
	Baseline *regress.Baseline `json:"baseline,omitempty"`
	// Power is the best power law a + b·x^k of one input (regress.FitPowerLaw).
	Power *regress.PowerLaw `json:"power_law,omitempty"`
	// Segmented is the power law with one change of slope at a fitted breakpoint
	// (regress.FitSegmented).
	Segmented *regress.Segmented `json:"segmented,omitempty"`
	// Selection is the cross-validated choice among the transition-graph model,
	// the direct models and their combination, with the interval of the chosen
	// one (package selection). Absent: the graph model with its own interval.
	Selection *selection.Selection `json:"selection,omitempty"`
	// TimeScale multiplies every transition time the interpreter adds (0 reads as
	// 1): the calibration of model build, the median over the training points of
	// their traced time over the model's prediction (see Calibrate).
	TimeScale float64 `json:"time_scale,omitempty"`
	// DataBaselines are direct models of each variable's final value.
	DataBaselines []*regress.Baseline `json:"data_baselines,omitempty"`
	// Memory is the working set as a function of the inputs, with the caches of
	// the machine the model was built on (memory.go). Absent: the traces did not
	// measure it (an older runtime).
	Memory *Memory `json:"memory,omitempty"`
	// Speed is how much the machine's speed, measured by each run's checkpoint
	// probe, moved the training runs' times (speed.go); absent without probes.
	Speed *Speed `json:"speed,omitempty"`
	// Probe is the error of predictions from probes (probe.go), measured on the
	// training runs; absent when they are too short to cut.
	Probe *ProbeCalibration `json:"probe,omitempty"`
	// CheckCal is how the training runs meet the model, for model check (check.go);
	// absent in models of an older fragprof.
	CheckCal   *CheckCalibration `json:"check,omitempty"`
	Training   Training          `json:"training"`
	Evaluation *Evaluation       `json:"evaluation,omitempty"`
	Warnings   []string          `json:"warnings,omitempty"`
	space      *graph.Space      `json:"-"`
	ff         []ffInfo          `json:"-"`
	tripNodes  []bool            `json:"-"`
	outArcs    [][]int           `json:"-"`
}

// A ModelNode is a checkpoint of the model.
type ModelNode struct {
	Name   string   `json:"name"`
	Places []string `json:"places,omitempty"`
	Vars   []string `json:"vars,omitempty"`
	Visits int64    `json:"visits"`
	Header bool     `json:"loop_header,omitempty"`
}

// A ModelArc is a transition with its time and data rules.
type ModelArc struct {
	From   int             `json:"from"`
	To     int             `json:"to"`
	Count  int64           `json:"count"`
	Back   bool            `json:"back,omitempty"`
	Resets bool            `json:"resets,omitempty"`
	Time   regress.Formula `json:"time"`
	// Body, when set, is the index of the self arc of the loop this arc leaves,
	// whose time at the same state the arc's time adds to its own (then a
	// constant tail): the exit of a loop whose checkpoint heads its body runs
	// the body once more (regress.FitTail).
	Body *int       `json:"body,omitempty"`
	Data []DataRule `json:"data,omitempty"`
	// MeanNs is the mean time of the arc's transitions in training: the block
	// time of the count × time composition.
	MeanNs float64 `json:"mean_ns,omitempty"`
}

// A DataRule gives the value of a variable recorded at the arc's target.
type DataRule struct {
	Var     string          `json:"var"`
	Formula regress.Formula `json:"formula"`
}

// Training describes the traces a model was built from.
type Training struct {
	Runs int `json:"runs"`
	// Points is the number of distinct input points (Runs / Points runs each with
	// fragprof trace --repeat).
	Points       int          `json:"points"`
	Skipped      int          `json:"skipped"` // traces left out (bad status, no events, truncated)
	Events       int64        `json:"events"`
	Sampled      bool         `json:"sampled"`     // hot arcs were sampled in the journal
	OverheadNs   float64      `json:"overhead_ns"` // the runtime's estimate of one checkpoint's cost
	MeanTimeNs   float64      `json:"mean_time_ns"`
	BuildSeconds float64      `json:"build_seconds"`
	Holdout      float64      `json:"holdout"`
	Ranges       []InputRange `json:"input_ranges"`
}

// An InputRange is the span of an input over the training runs.
type InputRange struct {
	Name string  `json:"name"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// Evaluation holds the model's errors on the held-out input points.
//
// A point's actual time is the median of its runs' traced times (one run unless
// traced with --repeat). MAPE is the mean over the points of |predicted − actual| /
// actual. Beside it, the truth's own noise: TruthScatter, how far one run lies from
// its point's median on average (the MAPE a perfect predictor of the median would
// score against single runs), and TruthError, the median's own relative standard
// error — the floor under MAPE that no model can go below on these points.
type Evaluation struct {
	Runs         int     `json:"runs"`           // held-out input points
	RunsPerPoint float64 `json:"runs_per_point"` // runs of each, on average
	MAPE         float64 `json:"mape"`           // mean |predicted − actual| / actual of the total time
	MaxAPE       float64 `json:"max_ape"`        // the largest
	BaselineMAPE float64 `json:"baseline_mape"`  // the direct baseline's
	BaselineMax  float64 `json:"baseline_max_ape"`
	// SingleMAPE and BaselineSingleMAPE compare the predictions with every run
	// alone (the figure without repetitions).
	SingleMAPE         float64 `json:"single_run_mape"`
	BaselineSingleMAPE float64 `json:"baseline_single_run_mape"`
	// TruthScatter is the mean over the points of mean |run − median| / median;
	// TruthError the mean of the median's relative standard error, estimated as
	// 1.2533·σ/√R/median with σ = 1.2533·mean |run − median| (0 with one run).
	TruthScatter float64 `json:"truth_scatter"`
	TruthError   float64 `json:"truth_error"`
	Covered      int     `json:"covered"` // points whose time fell in the predicted interval
	// RunsCovered of RunsTotal single runs fell in their point's predicted
	// interval (conformal.Level: 90%).
	RunsCovered int `json:"runs_covered"`
	RunsTotal   int `json:"runs_total"`
	// CachePoints of the points crossed a cache level no training run crossed
	// (EvalRow.Cache): their intervals claim no level. CacheRunsCovered of their
	// CacheRuns runs fell inside them (counted in RunsCovered too).
	CachePoints      int `json:"cache_points,omitempty"`
	CacheRuns        int `json:"cache_runs,omitempty"`
	CacheRunsCovered int `json:"cache_runs_covered,omitempty"`
	// Chosen is the predictor evaluated as the model (Selection.Chosen, or
	// "graph"); Models every candidate's errors on the same points.
	Chosen string       `json:"chosen"`
	Models []ModelError `json:"models,omitempty"`
	// EventsMAPE is the error of the predicted number of checkpoints passed: the
	// structure's error alone, free of the machine's timing noise.
	EventsMAPE float64    `json:"events_mape"`
	Vars       []VarError `json:"vars,omitempty"`
	// PredictNs and ActualNs are the mean time to predict a run and the mean traced
	// time of the runs predicted.
	PredictNs float64   `json:"predict_ns"`
	ActualNs  float64   `json:"actual_ns"`
	Rows      []EvalRow `json:"rows"`
}

// A ModelError is one candidate predictor's error on the held-out points.
type ModelError struct {
	Name   string  `json:"name"`
	MAPE   float64 `json:"mape"`
	MaxAPE float64 `json:"max_ape"`
}

// An EvalRow is one held-out input point.
type EvalRow struct {
	Trial    uint64    `json:"trial"`
	Inputs   []float64 `json:"inputs"`
	ActualNs float64   `json:"actual_ns"` // the median of TimesNs
	// TimesNs are the traced times of the point's runs.
	TimesNs    []float64 `json:"times_ns"`
	Predicted  float64   `json:"predicted_ns"`
	Lo         float64   `json:"lo_ns"`
	Hi         float64   `json:"hi_ns"`
	BaselineNs float64   `json:"baseline_ns"`
	Events     float64   `json:"events"` // checkpoints passed: the median over the runs
	PredEvents float64   `json:"predicted_events"`
	// Factor is the extrapolation factor of the point's inputs (1 inside the
	// training range); Candidates every candidate's prediction.
	Factor     float64            `json:"extrapolation_factor"`
	Candidates map[string]float64 `json:"candidates,omitempty"`
	// WorkingSet is the median of the runs' measured working sets (bytes) and
	// PredWorkingSet the model's (absent without them); Cache names the cache
	// level the prediction crossed ("beyond L2", "within L1"; Prediction.Cache),
	// where its interval claims no level.
	WorkingSet     float64 `json:"working_set_bytes,omitempty"`
	PredWorkingSet float64 `json:"predicted_working_set_bytes,omitempty"`
	Cache          string  `json:"cache,omitempty"`
}

// A VarError compares the final value of a variable predicted by the model and by
// the direct baseline with the run's, as the median relative error over the
// held-out runs.
type VarError struct {
	Var      string  `json:"var"`
	Model    float64 `json:"model"`
	Baseline float64 `json:"baseline"`
	MaxModel float64 `json:"max_model"`
	// NonFinite counts the runs whose predicted final value was not a finite
	// number (a data rule that diverged, as w := 2·w in a loop whose exit rule
	// the model got wrong); Model and MaxModel are over the others.
	NonFinite int `json:"non_finite,omitempty"`
}

// Options control Build.
type Options struct {
	Program string
	Fit     regress.FitOptions
	Rules   graph.RuleOptions
	Journal graph.JournalOptions
	// Holdout is the share of the runs kept out of learning to measure the model's
	// error (0: none).
	Holdout float64
	// EvalRuns is the number of interpreted runs per held-out prediction (10).
	EvalRuns int
	// Predictor names the candidate to use (Candidates), or "" / "auto" for the
	// one with the lowest cross-validated error.
	Predictor string
	// Test holds sets of traces (each set from one trace directory: its input
	// points are told apart by seed and trial) to evaluate on, besides the
	// held-out share: typically larger inputs, to measure extrapolation.
	Test [][]*trace.Trace
	// SpeedAdjust divides every run's times by its slowdown measured by the
	// probe, when the training runs show a dependence (Speed), before learning
	// and evaluating: the model then predicts the time at the machine's normal
	// speed.
	SpeedAdjust bool
}

// ParseFamily reads the name of a regression family of times and data (model build
// --time-model): poly, gmdh or auto.
func ParseFamily(s string) (regress.Family, error) { return regress.ParseFamily(s) }

// DefaultOptions are model build's defaults.
var DefaultOptions = Options{Fit: regress.DefaultFitOptions, Rules: graph.DefaultRuleOptions, Holdout: 0.2, EvalRuns: 10}

// usable reports why a trace cannot be learnt from, or "".
func usable(t *trace.Trace) string {
	switch {
	case t.Header.ExitCode != 0:
		return t.Header.Status
	case !t.Finished:
		return "the trace is incomplete (no END record)"
	case t.Truncated || t.Lost > 0:
		return "the trace was truncated (--max-events)"
	case t.Stopped:
		return "a probe stopped by its budget (trace --stop-after, --stop-events; for model predict --probe)"
	case t.Main() == nil || t.Main().Len() == 0:
		return "no checkpoint was passed"
	}
	return ""
}

// Build learns a model from traces.
func Build(traces []*trace.Trace, opt Options) (*Model, error) {
	start := time.Now()
	var ok []*trace.Trace
	var warnings []string
	skipped := 0
	for _, t := range traces {
		if why := usable(t); why != "" {
			skipped++
			if skipped <= 5 {
				warnings = append(warnings, fmt.Sprintf("%s: left out: %s", t.Name, why))
			}
			continue
		}
		if len(t.Threads) > 1 {
			warnings = append(warnings, fmt.Sprintf("%s: %d threads passed checkpoints; the model follows the first", t.Name, len(t.Threads)))
		}
		ok = append(ok, t)
	}
	if skipped > 5 {
		warnings = append(warnings, fmt.Sprintf("… %d traces left out in all", skipped))
	}
	if len(ok) < 2 {
		return nil, fmt.Errorf("predict: %d usable traces: a model needs at least 2 (and more to generalise)", len(ok))
	}
	sort.SliceStable(ok, func(i, j int) bool {
		a, b := ok[i].Header, ok[j].Header
		return a.Trial < b.Trial || a.Trial == b.Trial && a.Rep < b.Rep
	})
	train, test := splitHoldout(ok, opt.Holdout)
	speed := fitSpeed(train)
	if speed != nil && opt.SpeedAdjust && speed.Significant() {
		speed.Adjusted = true
		train = speed.adjust(train)
		for i := range test {
			test[i] = speed.adjust(test[i])
		}
	}
	fit := func(ts []*trace.Trace) (*Model, error) {
		m, err := buildFrom(ts, opt)
		if err != nil {
			return nil, err
		}
		if err := m.Calibrate(ts, opt.EvalRuns); err != nil {
			return nil, err
		}
		return m, nil
	}
	m, err := fit(train)
	if err != nil {
		return nil, err
	}
	if err := m.selectPredictor(train, fit, opt.EvalRuns, opt.Predictor); err != nil {
		return nil, err
	}
	m.Memory = fitMemory(train, m.Inputs)
	m.Speed = speed
	m.calibrateProbe(train, opt.EvalRuns)
	m.calibrateCheck(slices.Concat(append([][]*trace.Trace{train}, test...)...))
	m.Warnings = append(warnings, m.Warnings...)
	m.Training.Skipped = skipped
	m.Training.Holdout = opt.Holdout
	for _, set := range opt.Test {
		var usableTest []*trace.Trace
		for _, t := range set {
			if usable(t) == "" {
				usableTest = append(usableTest, t)
			}
		}
		sort.SliceStable(usableTest, func(i, j int) bool {
			a, b := usableTest[i].Header, usableTest[j].Header
			return a.Trial < b.Trial || a.Trial == b.Trial && a.Rep < b.Rep
		})
		if speed != nil && speed.Adjusted {
			usableTest = speed.adjust(usableTest)
		}
		idx := graph.InputPoints(usableTest)
		var groups [][]*trace.Trace
		for i, t := range usableTest {
			if idx[i] == len(groups) {
				groups = append(groups, nil)
			}
			groups[idx[i]] = append(groups[idx[i]], t)
		}
		test = append(test, groups...)
	}
	if len(test) > 0 {
		ev, err := m.evaluate(test, opt.EvalRuns)
		if err != nil {
			return nil, err
		}
		m.Evaluation = ev
	}
	m.Training.BuildSeconds = time.Since(start).Seconds()
	return m, nil
}

// Calibrate sets m.TimeScale from the training traces: the median, over their input
// points, of the point's traced time (the median of its runs) over the model's
// prediction for it. The per-transition formulas are fitted on a sample of the
// transitions with the lost time slices set aside, and on a shared machine the
// rest — the interrupts and short stalls that tax every run in proportion to its
// length, the gap between a heavy-tailed mean and a typical run — is in the runs'
// totals but in no single transition. One factor for the whole model restores it;
// it uses the training runs only. Fewer than 3 points leave the scale at 1.
func (m *Model) Calibrate(traces []*trace.Trace, runs int) error {
	m.TimeScale = 0
	point := graph.InputPoints(traces)
	times := map[int][]float64{}
	first := map[int]*trace.Trace{}
	var order []int
	for i, t := range traces {
		th := t.Main()
		if th == nil || th.Len() == 0 {
			continue
		}
		if _, ok := first[point[i]]; !ok {
			first[point[i]] = t
			order = append(order, point[i])
		}
		times[point[i]] = append(times[point[i]], float64(th.Span()))
	}
	if len(order) < 3 {
		return nil
	}
	steps := maxSteps(traces)
	var ratios []float64
	failed := 0
	for _, pt := range order {
		in := map[string]float64{}
		for _, name := range m.Inputs {
			v, _ := first[pt].Input(name)
			in[name] = v
		}
		p, err := m.Predict(in, PredictOptions{Runs: runs, MaxSteps: steps})
		if err != nil {
			failed++
			if failed == 1 {
				m.Warnings = append(m.Warnings, fmt.Sprintf("%s: the model cannot predict its own training input: %v", first[pt].Name, err))
			}
			continue
		}
		if p.TimeNs > 0 {
			ratios = append(ratios, stats.Median(times[pt])/p.TimeNs)
		}
	}
	if c := stats.Median(ratios); len(ratios) >= 3 && c > 0 && !math.IsInf(c, 0) {
		m.TimeScale = c
	}
	return nil
}

// maxSteps bounds the interpretation of a training input: a prediction that passes
// ten times more checkpoints than any training run is broken (a data rule that
// never meets its loop's exit), and is given up early.
func maxSteps(traces []*trace.Trace) int64 {
	var most int64
	for _, t := range traces {
		if th := t.Main(); th != nil {
			most = max(most, int64(th.Len()))
		}
	}
	return 10*most + 10000
}

// timeScale is TimeScale, 1 when unset.
func (m *Model) timeScale() float64 {
	if m.TimeScale > 0 {
		return m.TimeScale
	}
	return 1
}

// splitHoldout puts an evenly spread share h of the input points (by trial order)
// in test, with all their repetitions, leaving at least 2 points for training and
// never holding out an extreme point. Each
// test element holds one point's runs.
func splitHoldout(ts []*trace.Trace, h float64) (train []*trace.Trace, test [][]*trace.Trace) {
	point := graph.InputPoints(ts)
	var groups [][]*trace.Trace
	for i, t := range ts {
		if point[i] == len(groups) {
			groups = append(groups, nil)
		}
		groups[point[i]] = append(groups[point[i]], t)
	}
	if h <= 0 {
		return ts, nil
	}
	// The extremes stay in training: the smallest and the largest value of every
	// input, and the shortest and the longest point. A model is asked about the
	// sizes users care about, at or beyond the largest run; held out, the largest
	// would make every such prediction an extrapolation.
	extreme := make([]bool, len(groups))
	mark := func(key func(g []*trace.Trace) float64) {
		lo, hi := -1, -1
		for i, g := range groups {
			v := key(g)
			if math.IsNaN(v) {
				continue
			}
			if lo < 0 || v < key(groups[lo]) {
				lo = i
			}
			if hi < 0 || v > key(groups[hi]) {
				hi = i
			}
		}
		if lo >= 0 {
			extreme[lo], extreme[hi] = true, true
		}
	}
	for _, in := range ts[0].Header.Inputs {
		name := in.Name
		mark(func(g []*trace.Trace) float64 {
			v, ok := g[0].Input(name)
			if !ok {
				return math.NaN()
			}
			return v
		})
	}
	mark(func(g []*trace.Trace) float64 {
		var times []float64
		for _, t := range g {
			if th := t.Main(); th != nil && th.Len() > 0 {
				times = append(times, float64(th.Span()))
			}
		}
		return stats.Median(times)
	})
	eligible := 0
	for i := range groups {
		if !extreme[i] {
			eligible++
		}
	}
	// An evenly spread share h of all the points, taken from the eligible ones.
	h = math.Min(1, h*float64(len(groups))/math.Max(1, float64(eligible)))
	k := 0
	for i, g := range groups {
		if extreme[i] {
			train = append(train, g...)
			continue
		}
		k++
		if math.Floor(float64(k)*h) > math.Floor(float64(k-1)*h) && len(groups)-len(test) > 2 {
			test = append(test, g)
		} else {
			train = append(train, g...)
		}
	}
	return train, test
}

func buildFrom(traces []*trace.Trace, opt Options) (*Model, error) {
	g := graph.Build(traces)
	if err := g.Check(); err != nil {
		return nil, err
	}
	j, err := graph.BuildJournal(g, traces, opt.Journal)
	if err != nil {
		return nil, err
	}
	sp := j.Space
	m := &Model{Format: ModelFormat, Version: ModelVersion, Program: opt.Program, Family: opt.Fit.Family.String(),
		Inputs: sp.Inputs, Vars: sp.Vars}
	if m.Program == "" && len(traces) > 0 {
		m.Program = traces[0].Header.Program
	}
	for _, n := range g.Nodes {
		m.Nodes = append(m.Nodes, ModelNode{Name: n.Name, Places: n.Places, Vars: n.Vars, Visits: n.Visits, Header: n.Header})
	}
	names := make([]string, sp.Len())
	for f := range names {
		names[f] = sp.Name(f)
	}
	speed := runSpeeds(j)
	problems := make([]*regress.Problem, len(g.Arcs)) // the arcs' time problems
	for _, a := range g.Arcs {
		ma := ModelArc{From: a.From.ID, To: a.To.ID, Count: a.Count, Back: a.Back, Resets: a.Resets}
		rows := j.Rows[a.From.ID]
		var idx []int
		for r := 0; r < rows.Len(); r++ {
			if int(rows.Arc[r]) == a.ID && rows.Weight[r] > 0 {
				idx = append(idx, r)
			}
		}
		if len(idx) == 0 { // only boundary rows: use them
			for r := 0; r < rows.Len(); r++ {
				if int(rows.Arc[r]) == a.ID {
					idx = append(idx, r)
				}
			}
		}
		p := &regress.Problem{Names: names, Run: make([]int32, len(idx)), Y: pick(rows.Dt, idx), Nonneg: true, PerPoint: true}
		perRun := map[int32]float64{}
		for _, r := range idx {
			perRun[rows.Run[r]]++
		}
		// A run's transitions share its conditions (a slower run is slower in all
		// of them), so they are not independent: a run of m transitions weighs √m
		// in all (each row 1/√m), between one vote per row and one per run.
		for i, r := range idx {
			p.Y[i] /= speed[rows.Run[r]]
		}
		p.W = make([]float64, len(idx))
		var wsum float64
		for i, r := range idx {
			p.W[i] = 1 / math.Sqrt(perRun[rows.Run[r]])
			wsum += p.W[i]
			p.Run[i] = j.Group[rows.Run[r]] // folds keep an input point's repetitions together
		}
		for i := range p.W {
			p.W[i] *= float64(len(idx)) / wsum
		}
		for f := range names {
			p.Cols = append(p.Cols, pick(rows.X[f], idx))
		}
		var tw, tsum float64
		for _, r := range idx {
			w := rows.Weight[r]
			if w <= 0 {
				w = 1
			}
			tw += w
			tsum += w * rows.Dt[r]
		}
		if tw > 0 {
			ma.MeanNs = tsum / tw
		}
		if a.To.ID == graph.End {
			ma.Time = regress.Formula{Kind: regress.Const, Fit: regress.Quality{N: len(idx), R2: 1}}
		} else {
			ma.Time = regress.FitTime(p, opt.Fit)
			problems[len(m.Arcs)] = p // m.Arcs[i] is g.Arcs[i]
		}
		for _, v := range a.To.Vars {
			k := slices.Index(sp.Vars, v)
			var keep []int
			for i, r := range idx {
				if !math.IsNaN(rows.Next[k][r]) {
					keep = append(keep, i)
				}
			}
			if len(keep) == 0 {
				continue
			}
			q := &regress.Problem{Names: names, Y: make([]float64, len(keep)), Run: make([]int32, len(keep))} // unweighted: data rules are exact or fitted row by row
			for i, r := range keep {
				q.Y[i] = rows.Next[k][idx[r]]
				q.Run[i] = p.Run[r]
			}
			for f := range names {
				q.Cols = append(q.Cols, pick(p.Cols[f], keep))
			}
			ma.Data = append(ma.Data, DataRule{Var: v, Formula: regress.FitFormula(q, opt.Fit, true)})
		}
		m.Arcs = append(m.Arcs, ma)
	}
	m.fitTails(problems)
	for _, n := range g.Nodes {
		m.Rules = append(m.Rules, graph.LearnRule(j, n, opt.Rules, opt.Fit))
	}
	// The direct baselines, and what the runs were. The time baseline is fitted,
	// as Extra-P fits repeated measurements, to the median time of each input
	// point's runs.
	var X [][]float64
	var y []float64
	byPoint := map[int32][]float64{}
	m.Training.Runs = len(j.Runs)
	m.Training.Sampled = j.Sampled
	for r, rs := range j.Runs {
		g := j.Group[r]
		if _, ok := byPoint[g]; !ok {
			X = append(X, rs.Inputs)
		}
		byPoint[g] = append(byPoint[g], rs.TimeNs)
		m.Training.Events += rs.Events
		m.Training.OverheadNs += rs.OverheadNs / float64(len(j.Runs))
		m.Training.MeanTimeNs += rs.TimeNs / float64(len(j.Runs))
	}
	m.Training.Points = len(X)
	seen := map[int32]bool{}
	for r := range j.Runs {
		if g := j.Group[r]; !seen[g] {
			seen[g] = true
			y = append(y, stats.Median(byPoint[g]))
		}
	}
	for k, in := range sp.Inputs {
		ir := InputRange{Name: in, Min: math.Inf(1), Max: math.Inf(-1)}
		for r := range X {
			ir.Min, ir.Max = math.Min(ir.Min, X[r][k]), math.Max(ir.Max, X[r][k])
		}
		ir.Min, ir.Max = jsonnum.OrZero(ir.Min), jsonnum.OrZero(ir.Max)
		m.Training.Ranges = append(m.Training.Ranges, ir)
	}
	m.Baseline = regress.FitBaseline("time", sp.Inputs, X, y, true)
	m.Power = regress.FitPowerLaw(sp.Inputs, X, y)
	var breaks []regress.Break
	if mem := fitMemory(traces, sp.Inputs); mem != nil {
		breaks = mem.Breaks()
	}
	m.Segmented = regress.FitSegmented(sp.Inputs, X, y, breaks...)
	for k, v := range sp.Vars {
		fy := make([]float64, 0, len(j.Runs))
		var fx [][]float64
		for _, rs := range j.Runs {
			if !math.IsNaN(rs.Final[k]) {
				fy = append(fy, rs.Final[k])
				fx = append(fx, rs.Inputs)
			}
		}
		if len(fy) >= 2 {
			m.DataBaselines = append(m.DataBaselines, regress.FitBaseline(v, sp.Inputs, fx, fy, false))
		}
	}
	if err := m.compile(); err != nil {
		return nil, fmt.Errorf("predict: the model just built is not valid: %v", err)
	}
	return m, nil
}

// runSpeeds returns, for every run of the journal, how slow the machine was during
// it relative to the other runs of its input point (fragprof trace --repeat): its
// time per checkpoint passed over the median of its point's. On a shared machine a
// run is slowed as a whole — another program's cache traffic, a busy sibling core —
// by 5–20%, in all its transitions alike. Dividing a run's transition times by its
// factor makes every point's runs weigh in as its median run, which is what the
// held-out evaluation compares with; the shape across points is untouched, and the
// time per checkpoint, unlike the total, does not change with nuisance data
// (--vary). Runs of points run fewer than 3 times get 1.
func runSpeeds(j *graph.Journal) []float64 {
	speed := make([]float64, len(j.Runs))
	byPoint := map[int32][]float64{}
	for r, rs := range j.Runs {
		speed[r] = 1
		if rs.Events > 0 && rs.TimeNs > 0 {
			byPoint[j.Group[r]] = append(byPoint[j.Group[r]], rs.TimeNs/float64(rs.Events))
		}
	}
	for r, rs := range j.Runs {
		pt := byPoint[j.Group[r]]
		if len(pt) < 3 || rs.Events == 0 || rs.TimeNs <= 0 {
			continue
		}
		speed[r] = rs.TimeNs / float64(rs.Events) / stats.Median(pt)
	}
	return speed
}

func pick(x []float64, idx []int) []float64 {
	out := make([]float64, len(idx))
	for i, k := range idx {
		out[i] = x[k]
	}
	return out
}

// Space returns the model's feature space.
func (m *Model) Space() *graph.Space { return m.space }

// fitTails refits the time of each arc that leaves a loop — an arc from a node
// with a self arc to another node — as the self arc's time plus a tail, where
// regress.FitTail finds that as good (problems: the arcs' time problems, nil
// for arcs to END).
func (m *Model) fitTails(problems []*regress.Problem) {
	self := map[int]int{}
	for i, a := range m.Arcs {
		if a.From == a.To {
			self[a.From] = i
		}
	}
	for i := range m.Arcs {
		a := &m.Arcs[i]
		s, ok := self[a.From]
		if !ok || a.To == a.From || problems[i] == nil {
			continue
		}
		if tail, ok := regress.FitTail(problems[i], &m.Arcs[s].Time, &a.Time); ok {
			a.Time, a.Body = tail, &s
		}
	}
}

// compile checks the model and prepares it for the interpreter.
func (m *Model) compile() error {
	if m.Format != ModelFormat {
		return fmt.Errorf("not a fragprof model (format %q)", m.Format)
	}
	if m.Version < 1 || m.Version > ModelVersion {
		return fmt.Errorf("model version %d, this fragprof reads 1 to %d", m.Version, ModelVersion)
	}
	if len(m.Nodes) < 2 || m.Nodes[graph.Start].Name != "START" || m.Nodes[graph.End].Name != "END" {
		return fmt.Errorf("nodes 0 and 1 must be START and END")
	}
	sp := &graph.Space{Inputs: m.Inputs, Vars: m.Vars}
	for _, n := range m.Nodes {
		sp.Nodes = append(sp.Nodes, n.Name)
	}
	m.space = sp
	m.outArcs = make([][]int, len(m.Nodes))
	for i := range m.Arcs {
		a := &m.Arcs[i]
		if a.From < 0 || a.From >= len(m.Nodes) || a.To < 0 || a.To >= len(m.Nodes) || a.From == graph.End || a.To == graph.Start {
			return fmt.Errorf("arc %d joins nodes %d → %d", i, a.From, a.To)
		}
		m.outArcs[a.From] = append(m.outArcs[a.From], i)
		if err := a.Time.Compile(sp); err != nil {
			return fmt.Errorf("arc %s: time: %v", m.arcName(i), err)
		}
		if b := a.Body; b != nil && (*b < 0 || *b >= len(m.Arcs) || m.Arcs[*b].From != a.From || m.Arcs[*b].To != a.From || *b == i) {
			return fmt.Errorf("arc %s: body %d is not the self arc of node %d", m.arcName(i), *b, a.From)
		}
		for k := range a.Data {
			if slices.Index(m.Vars, a.Data[k].Var) < 0 {
				return fmt.Errorf("arc %s: data rule for unknown variable %q", m.arcName(i), a.Data[k].Var)
			}
			if err := a.Data[k].Formula.Compile(sp); err != nil {
				return fmt.Errorf("arc %s: %s: %v", m.arcName(i), a.Data[k].Var, err)
			}
		}
	}
	if len(m.Rules) != len(m.Nodes) {
		return fmt.Errorf("%d rules for %d nodes", len(m.Rules), len(m.Nodes))
	}
	m.tripNodes = make([]bool, len(m.Nodes))
	for i := range m.Rules {
		r := &m.Rules[i]
		if r.Node != i {
			return fmt.Errorf("rule %d is for node %d", i, r.Node)
		}
		own := func(arc int) error {
			if arc < 0 || arc >= len(m.Arcs) || m.Arcs[arc].From != i {
				return fmt.Errorf("node %s: rule names arc %d, not one of its own", m.Nodes[i].Name, arc)
			}
			return nil
		}
		for k := range r.Conds {
			c := &r.Conds[k]
			if err := own(c.Arc); err != nil {
				return err
			}
			if err := c.Expr.Compile(sp); err != nil {
				return fmt.Errorf("node %s: %v", m.Nodes[i].Name, err)
			}
			if len(c.Pieces) == 0 {
				return fmt.Errorf("node %s: condition without predicates", m.Nodes[i].Name)
			}
		}
		checkShares := func(ss []graph.Share) error {
			sum := 0.0
			for _, s := range ss {
				if err := own(s.Arc); err != nil {
					return err
				}
				if !(s.P >= 0 && s.P <= 1) {
					return fmt.Errorf("node %s: share %v is not a probability", m.Nodes[i].Name, s.P)
				}
				sum += s.P
			}
			if len(ss) > 0 && math.Abs(sum-1) > 1e-9 {
				return fmt.Errorf("node %s: shares sum to %v", m.Nodes[i].Name, sum)
			}
			return nil
		}
		if r.Trip != nil {
			if err := own(r.Trip.Arc); err != nil {
				return err
			}
			if r.Trip.Count == nil {
				return fmt.Errorf("node %s: trip rule without a count", m.Nodes[i].Name)
			}
			if err := r.Trip.Count.Compile(sp); err != nil {
				return fmt.Errorf("node %s: trip count: %v", m.Nodes[i].Name, err)
			}
			if len(r.Trip.Exit) == 0 {
				return fmt.Errorf("node %s: trip rule without an exit", m.Nodes[i].Name)
			}
			for k := range r.Trip.Conds {
				c := &r.Trip.Conds[k]
				if err := own(c.Arc); err != nil {
					return err
				}
				if err := c.Expr.Compile(sp); err != nil {
					return fmt.Errorf("node %s: %v", m.Nodes[i].Name, err)
				}
			}
			if err := checkShares(r.Trip.Exit); err != nil {
				return err
			}
			m.tripNodes[i] = true
		} else if i != graph.End && len(r.Residual) == 0 && len(m.outArcs[i]) > 0 {
			return fmt.Errorf("node %s: rule has no default", m.Nodes[i].Name)
		}
		if err := checkShares(r.Residual); err != nil {
			return err
		}
	}
	if m.Baseline != nil && len(m.Baseline.Inputs) != len(m.Inputs) {
		return fmt.Errorf("baseline over %d inputs, model has %d", len(m.Baseline.Inputs), len(m.Inputs))
	}
	if m.Power != nil {
		if err := m.Power.Compile(m.Inputs); err != nil {
			return err
		}
	}
	if m.Segmented != nil {
		if err := m.Segmented.Compile(m.Inputs); err != nil {
			return err
		}
	}
	if mem := m.Memory; mem != nil {
		if mem.Fit == nil {
			return fmt.Errorf("memory: no working-set fit")
		}
		if err := mem.Fit.Compile(m.Inputs); err != nil {
			return fmt.Errorf("memory: %v", err)
		}
	}
	if s := m.Selection; s != nil {
		if _, ok := s.Score(s.Chosen); !ok {
			return fmt.Errorf("selection: chosen predictor %q has no score", s.Chosen)
		}
		if (s.Chosen == selection.CandPMNF || s.Chosen == selection.CandMix) && m.Baseline == nil || s.Chosen == selection.CandPower && m.Power == nil ||
			s.Chosen == selection.CandSegmented && m.Segmented == nil {
			return fmt.Errorf("selection: chosen predictor %q is not in the model", s.Chosen)
		}
	}
	m.prepareFastForward()
	return nil
}

// Check verifies the invariants stated on Model.
func (m *Model) Check() error { return m.compile() }

func (m *Model) arcName(i int) string {
	a := m.Arcs[i]
	return m.Nodes[a.From].Name + " → " + m.Nodes[a.To].Name
}

// Probabilistic reports whether any rule chooses at random.
func (m *Model) Probabilistic() bool {
	for i := range m.Rules {
		if m.Rules[i].Probabilistic() {
			return true
		}
	}
	return false
}

// Write writes the model as indented JSON.
func (m *Model) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// Parse reads a model file; name is used in errors.
func Parse(name string, r io.Reader) (*Model, error) {
	var m Model
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a valid model file ('fragprof model build' writes them): %v", name, jsonerr.Explain(data, err))
	}
	if err := m.compile(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &m, nil
}

// ReadFile reads the model file at path.
func ReadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(path, f)
}
