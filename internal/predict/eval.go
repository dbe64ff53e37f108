// This file measures a model on held-out runs: the error of the predicted total time
// (the model's and the direct baseline's) and of the predicted final values.

package predict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/trace"
)

// evaluate predicts every held-out input point (one group of repeated runs each)
// from its inputs and compares with the median of its runs.
func (m *Model) evaluate(test [][]*trace.Trace, runs int) (*Evaluation, error) {
	ev := &Evaluation{}
	varErrs := make([][]float64, len(m.Vars))
	baseErrs := make([][]float64, len(m.Vars))
	nonFinite := make([]int, len(m.Vars))
	var predictNs float64
	var nRuns int
	for _, group := range test {
		t := group[0]
		times := make([]float64, len(group))
		events := make([]float64, len(group))
		for i, g := range group {
			th := g.Main()
			times[i] = float64(th.Span())
			events[i] = float64(th.Len())
		}
		nRuns += len(group)
		actual := stats.Median(times)
		in := map[string]float64{}
		for _, name := range m.Inputs {
			v, _ := t.Input(name)
			in[name] = v
		}
		start := time.Now()
		p, err := m.Predict(in, PredictOptions{Runs: runs})
		if err != nil {
			return nil, err
		}
		predictNs += float64(time.Since(start).Nanoseconds())
		row := EvalRow{Trial: t.Header.Trial, ActualNs: actual, TimesNs: times, Predicted: p.TimeNs,
			Lo: p.Interval[0], Hi: p.Interval[1], BaselineNs: p.Baseline,
			Events: stats.Median(events), PredEvents: p.Events, Factor: p.Factor, Candidates: p.Candidates}
		for _, name := range m.Inputs {
			row.Inputs = append(row.Inputs, in[name])
		}
		var ws []float64
		for _, g := range group {
			if w, ok := g.WorkingSet(); ok {
				ws = append(ws, w)
			}
		}
		if len(ws) > 0 {
			row.WorkingSet = stats.Median(ws)
		}
		row.PredWorkingSet = p.WorkingSet
		if c := p.Cache; c != nil {
			row.Cache = fmt.Sprintf("%s L%d", c.Direction, c.Level)
		}
		ev.Rows = append(ev.Rows, row)
		ev.ActualNs += actual
		// Final values: the last value of each variable in each run's trace.
		for _, g := range group {
			final := lastValues(g, m.Vars)
			for k, v := range m.Vars {
				want := final[k]
				if math.IsNaN(want) {
					continue
				}
				if got := p.Vars[v]; math.IsNaN(got) || math.IsInf(got, 0) {
					nonFinite[k]++
				} else {
					varErrs[k] = append(varErrs[k], relErr(got, want))
				}
				if b, ok := p.BaselineVars[v]; ok && !math.IsNaN(b) && !math.IsInf(b, 0) {
					baseErrs[k] = append(baseErrs[k], relErr(b, want))
				}
			}
		}
	}
	n := float64(len(ev.Rows))
	ev.Runs = len(ev.Rows)
	ev.RunsPerPoint = float64(nRuns) / n
	ev.ActualNs /= n
	ev.PredictNs = predictNs / n
	for _, r := range ev.Rows {
		e := math.Abs(r.Predicted-r.ActualNs) / r.ActualNs
		b := math.Abs(r.BaselineNs-r.ActualNs) / r.ActualNs
		ev.MAPE += e / n
		ev.BaselineMAPE += b / n
		ev.MaxAPE = math.Max(ev.MaxAPE, e)
		ev.EventsMAPE += math.Abs(r.PredEvents-r.Events) / r.Events / n
		ev.BaselineMax = math.Max(ev.BaselineMax, b)
		var dev float64
		for _, t := range r.TimesNs {
			ev.SingleMAPE += math.Abs(r.Predicted-t) / t / float64(nRuns)
			ev.BaselineSingleMAPE += math.Abs(r.BaselineNs-t) / t / float64(nRuns)
			dev += math.Abs(t-r.ActualNs) / r.ActualNs / float64(len(r.TimesNs))
		}
		ev.TruthScatter += dev / n
		if R := float64(len(r.TimesNs)); R > 1 {
			ev.TruthError += 1.2533 * 1.2533 * dev / math.Sqrt(R) / n
		}
	}
	ev.Chosen = selection.CandGraph
	if m.Selection != nil {
		ev.Chosen = m.Selection.Chosen
		for _, c := range selection.Candidates {
			me := ModelError{Name: c}
			ok := true
			for _, r := range ev.Rows {
				y, has := r.Candidates[c]
				if !has {
					ok = false
					break
				}
				e := math.Abs(y-r.ActualNs) / r.ActualNs
				me.MAPE += e / n
				me.MaxAPE = math.Max(me.MaxAPE, e)
			}
			if ok {
				ev.Models = append(ev.Models, me)
			}
		}
	} else {
		// Without a selection the graph model's own interval (formula errors) is
		// widened by its held-out error, as Predict does once the evaluation exists.
		for i := range ev.Rows {
			r := &ev.Rows[i]
			s := 2 * 1.2533 * ev.MAPE * r.Predicted
			r.Lo = math.Max(0, r.Predicted-math.Hypot(r.Predicted-r.Lo, s))
			r.Hi = r.Predicted + math.Hypot(r.Hi-r.Predicted, s)
		}
	}
	for i := range ev.Rows {
		r := &ev.Rows[i]
		if r.ActualNs >= r.Lo && r.ActualNs <= r.Hi {
			ev.Covered++
		}
		if r.Cache != "" {
			ev.CachePoints++
		}
		for _, t := range r.TimesNs {
			in := t >= r.Lo && t <= r.Hi
			ev.RunsTotal++
			if in {
				ev.RunsCovered++
			}
			if r.Cache != "" {
				ev.CacheRuns++
				if in {
					ev.CacheRunsCovered++
				}
			}
		}
	}
	for k, v := range m.Vars {
		if len(varErrs[k]) == 0 && nonFinite[k] == 0 {
			continue
		}
		ve := VarError{Var: v, NonFinite: nonFinite[k]}
		if len(varErrs[k]) > 0 {
			ve.Model, ve.MaxModel = stats.Median(varErrs[k]), maxOf(varErrs[k])
		}
		if len(baseErrs[k]) > 0 {
			ve.Baseline = stats.Median(baseErrs[k])
		}
		ev.Vars = append(ev.Vars, ve)
	}
	sort.SliceStable(ev.Vars, func(i, j int) bool { return ev.Vars[i].Var < ev.Vars[j].Var })
	for i := range ev.Rows {
		ev.Rows[i].Lo, ev.Rows[i].Hi = jsonnum.OrZero(ev.Rows[i].Lo), jsonnum.OrZero(ev.Rows[i].Hi)
	}
	return ev, nil
}

// lastValues returns the last recorded value of each named variable in t's main
// thread (NaN if never recorded).
func lastValues(t *trace.Trace, vars []string) []float64 {
	out := make([]float64, len(vars))
	for i := range out {
		out[i] = math.NaN()
	}
	th := t.Main()
	slot := make([][]int, len(t.Sites))
	for i, s := range t.Sites {
		for _, v := range s.Vars {
			slot[i] = append(slot[i], slices.Index(vars, v.Name))
		}
	}
	for k := 0; k < th.Len(); k++ {
		for i, v := range th.Values(k) {
			if j := slot[th.Site[k]][i]; j >= 0 {
				out[j] = v
			}
		}
	}
	return out
}

// relErr is |got − want| / |want|, or |got − want| when want is 0.
func relErr(got, want float64) float64 {
	d := math.Abs(got - want)
	if want == 0 {
		return d
	}
	return d / math.Abs(want)
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	return m
}
