// This file connects the model to the cross-validated choice of its time predictor
// (package selection): every candidate's prediction from the model's parts, the
// training input points, and how far an input lies beyond the training range.

package predict

import (
	"math"

	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// selectPredictor cross-validates every candidate on the training traces of m
// and sets m.Selection (selection.Select). fit builds a model (graph, calibration
// and direct models) from a subset of the traces; runs is the number of
// interpreted runs per prediction. With fewer than 5 input points it leaves
// m.Selection nil: the graph model is used with its own interval.
//
// force, unless "" or "auto", names the candidate to use whatever the scores.
func (m *Model) selectPredictor(train []*trace.Trace, fit func([]*trace.Trace) (*Model, error), runs int, force string) error {
	refit := func(ts []*trace.Trace) (selection.Predictor, error) {
		fm, err := fit(ts)
		if err != nil {
			return nil, err
		}
		return refitted{fm, runs}, nil
	}
	sel, err := selection.Select(pointsOf(m, train), refit, refitted{m, runs}, force)
	if err != nil {
		return err
	}
	m.Selection = sel
	return nil
}

// refitted is a model as cross-validation sees it (selection.Predictor).
type refitted struct {
	m    *Model
	runs int // interpreted runs per prediction
}

func (r refitted) Candidates(in []float64, maxSteps int64) (map[string]float64, error) {
	pr, err := r.m.predict(in, PredictOptions{Runs: r.runs, MaxSteps: maxSteps})
	if err != nil {
		return r.m.directValues(in), err
	}
	return r.m.candidateValues(in, pr), nil
}

func (r refitted) ExtrapolationFactor(in []float64) float64 { return r.m.ExtrapolationFactor(in) }

// candidateValues returns every candidate's prediction for in, from one run of the
// interpreter (pr, from m.predict).
func (m *Model) candidateValues(in []float64, pr *Prediction) map[string]float64 {
	out := map[string]float64{selection.CandGraph: pr.TimeNs, selection.CandComposition: pr.CompositionNs}
	if m.Baseline != nil {
		out[selection.CandPMNF] = m.Baseline.Eval(in)
		out[selection.CandMix] = (pr.TimeNs + out[selection.CandPMNF]) / 2
	}
	if m.Power != nil {
		out[selection.CandPower] = m.Power.Eval(in)
	}
	if m.Segmented != nil {
		out[selection.CandSegmented] = m.Segmented.Eval(in)
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

// directValues returns the predictions of the candidates that do not run the
// interpreter, and NaN for those that do: every candidate's value when the
// interpreter fails.
func (m *Model) directValues(in []float64) map[string]float64 {
	vals := map[string]float64{selection.CandGraph: math.NaN(), selection.CandComposition: math.NaN()}
	if m.Baseline != nil {
		vals[selection.CandPMNF] = m.Baseline.Eval(in)
		vals[selection.CandMix] = math.NaN()
	}
	if m.Power != nil {
		vals[selection.CandPower] = m.Power.Eval(in)
	}
	if m.Segmented != nil {
		vals[selection.CandSegmented] = m.Segmented.Eval(in)
	}
	return vals
}

// pointsOf groups traces into input points (their inputs by m's input order).
func pointsOf(m *Model, traces []*trace.Trace) []selection.Point {
	idx := graph.InputPoints(traces)
	var pts []selection.Point
	for i, t := range traces {
		if idx[i] == len(pts) {
			p := selection.Point{}
			for _, name := range m.Inputs {
				v, _ := t.Input(name)
				p.Inputs = append(p.Inputs, v)
			}
			pts = append(pts, p)
		}
		p := &pts[idx[i]]
		p.Traces = append(p.Traces, t)
		if th := t.Main(); th != nil && th.Len() > 0 {
			p.Times = append(p.Times, float64(th.Span()))
		}
	}
	for i := range pts {
		pts[i].Median = stats.Median(pts[i].Times)
	}
	return pts
}
