// This file prints models and predictions for people. The renderers only format:
// everything they show was computed by Build and Predict.

package predict

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/predict/selection"
	"github.com/fragprof/fragprof/internal/textout"
)

// RuleLines returns node n's rule as lines such as "inner → inner when j < i".
func (m *Model) RuleLines(n int) []string {
	r := &m.Rules[n]
	name := func(arc int) string { return m.arcName(arc) }
	var out []string
	for k := range r.Conds {
		c := &r.Conds[k]
		out = append(out, fmt.Sprintf("%s when %s", name(c.Arc), c.String()))
	}
	if t := r.Trip; t != nil {
		node := m.Nodes[n].Name
		out = append(out, fmt.Sprintf("%s while #%s < T, T = %s on entering the loop (R² %.3f, cv ±%.3g)",
			name(t.Arc), node, t.Count.String(), t.Count.Fit.R2, t.Count.Fit.CVRMSE))
		for k := range t.Conds {
			c := &t.Conds[k]
			out = append(out, fmt.Sprintf("%s then, when %s", name(c.Arc), c.String()))
		}
		word := "then"
		if len(t.Conds) > 0 {
			word = "then, otherwise"
		}
		out = append(out, shareLines(m, t.Exit, word)...)
		return out
	}
	if len(r.Residual) == 1 {
		if len(out) == 0 {
			return []string{name(r.Residual[0].Arc) + " always"}
		}
		return append(out, name(r.Residual[0].Arc)+" otherwise")
	}
	return append(out, shareLines(m, r.Residual, "otherwise")...)
}

func shareLines(m *Model, ss []graph.Share, word string) []string {
	if len(ss) == 1 {
		return []string{m.arcName(ss[0].Arc) + " " + word}
	}
	var out []string
	for _, s := range ss {
		out = append(out, fmt.Sprintf("%s %s, with probability %.4g", m.arcName(s.Arc), word, s.P))
	}
	return out
}

// WriteText prints the model: its graph, rules, formulas and fit quality.
func (m *Model) WriteText(w io.Writer) error {
	bw := &textout.Writer{W: w}
	tr := &m.Training
	fmt.Fprintf(bw, "model of %s: %d checkpoints, %d transitions, from %d runs (%d events)\n",
		m.Program, len(m.Nodes)-2, len(m.Arcs), tr.Runs, tr.Events)
	var ranges []string
	for _, r := range tr.Ranges {
		ranges = append(ranges, fmt.Sprintf("$%s ∈ [%g, %g]", r.Name, r.Min, r.Max))
	}
	if len(ranges) > 0 {
		fmt.Fprintf(bw, "inputs: %s\n", strings.Join(ranges, ", "))
	}
	fmt.Fprintf(bw, "times and data: %s regression; mean traced time %s; checkpoint cost %.3g ns; built in %.3g s\n",
		m.Family, textout.Ns(tr.MeanTimeNs), tr.OverheadNs, tr.BuildSeconds)
	for _, w := range m.Warnings {
		fmt.Fprintf(bw, "warning: %s\n", w)
	}

	fmt.Fprintf(bw, "\ncheckpoints\n")
	tw := tabwriter.NewWriter(bw, 2, 8, 2, ' ', 0)
	for i, n := range m.Nodes {
		if i == graph.Start || i == graph.End {
			continue
		}
		places := strings.Join(n.Places, " ")
		if len(places) > 50 {
			places = places[:47] + "..."
		}
		vars := ""
		if len(n.Vars) > 0 {
			vars = "records " + strings.Join(n.Vars, ", ")
		}
		hdr := ""
		if n.Header {
			hdr = "loop header"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d visits\t%s\t%s\n", n.Name, places, n.Visits, vars, hdr)
	}
	tw.Flush()

	fmt.Fprintf(bw, "\ntransitions: count, time Δt of one transition (ns), data; R² and cross-validated error\n")
	tw = tabwriter.NewWriter(bw, 2, 8, 2, ' ', 0)
	for i, a := range m.Arcs {
		flags := ""
		if a.Back {
			flags += " (back"
			if a.Resets {
				flags += ", resets"
			}
			flags += ")"
		} else if a.Resets {
			flags += " (enters loop)"
		}
		q := a.Time.Fit
		fit := ""
		if a.Time.Kind != regress.Const || q.RMSE > 0 {
			fit = fmt.Sprintf("R² %.3f, cv ±%.3g%%", q.R2, 100*q.CVRel())
		}
		dt := a.Time.String()
		if a.Body != nil {
			// the loop's body once more, and a tail
			if a.Time.Kind == regress.Const && a.Time.Value < 0 {
				neg := regress.Formula{Kind: regress.Const, Value: -a.Time.Value}
				dt = fmt.Sprintf("Δt(%s) − %s", m.arcName(*a.Body), neg.String())
			} else {
				dt = fmt.Sprintf("Δt(%s) + %s", m.arcName(*a.Body), dt)
			}
		}
		fmt.Fprintf(tw, "  %s%s\t%d\tΔt = %s\t%s\n", m.arcName(i), flags, a.Count, dt, fit)
		for _, d := range a.Data {
			q := d.Formula.Fit
			fit := "exact"
			if d.Formula.Kind == regress.Poly || d.Formula.Kind == regress.GMDH {
				fit = fmt.Sprintf("R² %.6g, cv ±%.3g", q.R2, q.CVRMSE)
			}
			fmt.Fprintf(tw, "  \t\t%s := %s\t%s\n", d.Var, d.Formula.String(), fit)
		}
	}
	tw.Flush()

	fmt.Fprintf(bw, "\nrules\n")
	for n := range m.Nodes {
		if n == graph.End {
			continue
		}
		for _, l := range m.RuleLines(n) {
			fmt.Fprintf(bw, "  %s\n", l)
		}
	}
	if b := m.Baseline; b != nil {
		fmt.Fprintf(bw, "\ndirect baseline (Extra-P form, %d hypotheses): time = %s ns; cross-validated MAPE %.3g%%\n",
			b.Tried, b.String(), 100*b.CVMAPE)
	}
	if p := m.Power; p != nil {
		fmt.Fprintf(bw, "power law: time = %s ns; cross-validated MAPE %.3g%%\n", p.String(), 100*p.CVMAPE)
	}
	if sg := m.Segmented; sg != nil {
		where := ""
		if sg.Cache > 0 {
			where = fmt.Sprintf(" (the breakpoint is where the working set reaches L%d's size)", sg.Cache)
		}
		fmt.Fprintf(bw, "segmented power law: time = %s ns%s; cross-validated MAPE %.3g%%\n", sg.String(), where, 100*sg.CVMAPE)
	}
	if sp := m.Speed; sp != nil {
		fmt.Fprintf(bw, "\n%s\n", sp)
	}
	if pc := m.Probe; pc != nil {
		var qs []string
		for i, k := range pc.Events {
			unit := ""
			if i == 0 {
				unit = " checkpoints"
			}
			q := fmt.Sprintf("±%.3g%% after %d%s", 100*(math.Exp(pc.Q[i])-1), k, unit)
			if i < len(pc.Bias) && pc.Bias[i] != 0 {
				q += fmt.Sprintf(" (%s, corrected)", biasWords(pc.Bias[i]))
			}
			qs = append(qs, q)
		}
		fmt.Fprintf(bw, "\nprobes (model predict --probe), calibrated on the training runs cut short: 90%% of the predictions within %s (plus the run-to-run noise and the probe's test of the model's shape)\n",
			strings.Join(qs, ", "))
	}
	if mem := m.Memory; mem != nil {
		fmt.Fprintln(bw)
		for _, l := range mem.Describe() {
			fmt.Fprintln(bw, l)
		}
	}
	if s := m.Selection; s != nil {
		fmt.Fprintf(bw, "\n%s\n", s.Summary())
		tw := tabwriter.NewWriter(bw, 2, 8, 2, ' ', 0)
		fmt.Fprintf(tw, "  predictor\tCV MAPE\t± s.e.\tinterpolating\textrapolating\tworst\t\n")
		for _, cs := range s.Candidates {
			mark := ""
			if cs.Name == s.Chosen {
				mark = "← chosen"
			}
			if cs.Unstable {
				mark += fmt.Sprintf(" (unstable: 4× beyond the range, %.3g× its folds' fits)", cs.FarRatio)
			}
			fmt.Fprintf(tw, "  %s\t%.3g%%\t%.2g\t%.3g%%\t%.3g%%\t%.3g%%\t%s\n", cs.Name, 100*cs.MAPE, 100*cs.SE, 100*cs.InterpMAPE, 100*cs.ExtrapMAPE, 100*cs.MaxAPE, mark)
		}
		tw.Flush()
		iv := s.Interval
		fmt.Fprintf(bw, "  %.0f%% interval of a run: the model's error ×e^±%.3g (±%.3g%%) inside the range, from %d held-out points, ×(1 + %.3g·log2 f) at f× beyond it; with the runs' own scatter in quadrature\n",
			100*iv.Level, iv.Q, 100*(math.Exp(iv.Q)-1), iv.Scores, iv.Widen)
		if s.Apart != "" {
			fmt.Fprintf(bw, "  %s\n", s.Apart)
		}
		for _, f := range s.Failed {
			fmt.Fprintf(bw, "  warning: %s\n", f)
		}
	}
	if ev := m.Evaluation; ev != nil {
		fmt.Fprintf(bw, "\n%s: time MAPE %.3g%% (max %.3g%%, %s), direct baseline %.3g%% (max %.3g%%); %d of %d inside the predicted interval, %d of %d single runs\n",
			ev.Heading(), 100*ev.MAPE, 100*ev.MaxAPE, ev.Chosen, 100*ev.BaselineMAPE, 100*ev.BaselineMax, ev.Covered, ev.Runs, ev.RunsCovered, ev.RunsTotal)
		for _, me := range ev.Models {
			fmt.Fprintf(bw, "  %s: MAPE %.3g%% (max %.3g%%)\n", me.Name, 100*me.MAPE, 100*me.MaxAPE)
		}
		if ev.CachePoints > 0 {
			fmt.Fprintf(bw, "  %d of the %d points crossed a cache level that no training run crossed (their intervals claim no level): %d of their %d runs inside\n",
				ev.CachePoints, ev.Runs, ev.CacheRunsCovered, ev.CacheRuns)
		}
		if ev.RunsPerPoint > 1 {
			fmt.Fprintf(bw, "  the truth's own noise: one run lies %.3g%% from its input's median on average; the median's error ±%.3g%%\n",
				100*ev.TruthScatter, 100*ev.TruthError)
			fmt.Fprintf(bw, "  against single runs: time MAPE %.3g%%, direct baseline %.3g%%\n", 100*ev.SingleMAPE, 100*ev.BaselineSingleMAPE)
		}
		fmt.Fprintf(bw, "  checkpoints passed: MAPE %.3g%% (the structure's error, free of timing noise)\n", 100*ev.EventsMAPE)
		for _, v := range ev.Vars {
			diverged := ""
			if v.NonFinite > 0 {
				diverged = fmt.Sprintf("; %d runs' predictions not finite (the model's data rule diverged), left out", v.NonFinite)
			}
			fmt.Fprintf(bw, "  final %s: median relative error %.3g (max %.3g), direct baseline %.3g%s\n", v.Var, v.Model, v.MaxModel, v.Baseline, diverged)
		}
		fmt.Fprintf(bw, "  a prediction took %s; the runs took %s (traced)\n", textout.Ns(ev.PredictNs), textout.Ns(ev.ActualNs))
	}
	return bw.Err
}

// Heading names the held-out set: "held-out runs (8)", or with repetitions
// "held-out inputs (8, 5 runs each, against their median)".
func (ev *Evaluation) Heading() string {
	if ev.RunsPerPoint > 1 {
		return fmt.Sprintf("held-out inputs (%d, %.3g runs each, against their median)", ev.Runs, ev.RunsPerPoint)
	}
	return fmt.Sprintf("held-out runs (%d)", ev.Runs)
}

// unknownNs is textout.Ns for a time that is a finite number, "unknown" for
// one that is not (Prediction.Diverged says why).
func unknownNs(ns float64) string {
	if !jsonnum.Finite(ns) {
		return "unknown"
	}
	return textout.Ns(ns)
}

// WriteText prints a prediction.
func (p *Prediction) WriteText(w io.Writer, m *Model) error {
	bw := &textout.Writer{W: w}
	fmt.Fprintf(bw, "predicted time: %s  [%s, %s]", unknownNs(p.TimeNs), unknownNs(p.Interval[0]), unknownNs(p.Interval[1]))
	switch {
	case p.Probe != nil:
		fmt.Fprintf(bw, "  (probe; %.0f%% interval)", 100*p.IntervalLevel)
	case p.Cache != nil:
		fmt.Fprintf(bw, "  (%s; no confidence level: the interval assumes the training runs' time per operation, and the working set %s L%d — see below)",
			p.Chosen, map[string]string{"beyond": "leaves", "within": "fits in"}[p.Cache.Direction], p.Cache.Level)
	case m.Selection != nil:
		fmt.Fprintf(bw, "  (%s; %.0f%% interval", p.Chosen, 100*m.Selection.Interval.Level)
		if p.Factor > 1 {
			fmt.Fprintf(bw, ", widened for %.3g× beyond the training range", p.Factor)
		}
		fmt.Fprintf(bw, ")")
	}
	if p.Runs > 1 {
		fmt.Fprintf(bw, "  (mean of %d of %d interpreted runs)", p.Kept, p.Runs)
	}
	fmt.Fprintln(bw)
	if math.IsNaN(p.UntracedNs) {
		fmt.Fprintf(bw, "without the checkpoints' own cost: unknown (%.0f events cost about %s, most of the predicted time: the checkpoints dominate the traced runs)\n",
			p.Events, textout.Ns(p.Events*m.Training.OverheadNs))
	} else {
		fmt.Fprintf(bw, "without the checkpoints' own cost (%.0f events): about %s\n", p.Events, textout.Ns(p.UntracedNs))
	}
	if pr := p.Probe; pr != nil {
		fmt.Fprintf(bw, "probe: %d run(s) passed %.0f checkpoints in %s, %.3g%% of the run by the model; they ran %.3g× the model's time for that part\n",
			pr.Probes, pr.Events, textout.Ns(pr.MeasuredNs), 100*pr.Share, pr.Rate)
		if pr.Bias != 0 {
			fmt.Fprintf(bw, "probe estimate corrected: the training runs cut after %d checkpoints gave %s\n", pr.CalibratedEvents, biasWords(pr.Bias))
		}
		fmt.Fprintf(bw, "without the probe: %s (%s)\n", textout.Ns(pr.ModelNs), pr.ModelChosen)
		for _, n := range pr.Notes {
			fmt.Fprintf(bw, "note: %s\n", n)
		}
	}
	if m.Baseline != nil {
		fmt.Fprintf(bw, "direct baseline: %s  [%s, %s]\n", textout.Ns(p.Baseline), textout.Ns(p.BaselineInterval[0]), textout.Ns(p.BaselineInterval[1]))
	}
	if m.Selection != nil && p.Chosen != selection.CandGraph {
		fmt.Fprintf(bw, "transition-graph model: %s\n", unknownNs(p.GraphNs))
	}
	if p.Diverged != "" {
		fmt.Fprintf(bw, "warning: the model's formulas diverge on this input: %s; what reads that value is unknown (the formulas were fitted on the training runs' range)\n", p.Diverged)
	}
	if len(p.Vars) > 0 {
		names := make([]string, 0, len(p.Vars))
		for n := range p.Vars {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(bw, "final values:\n")
		for _, n := range names {
			if v := p.Vars[n]; jsonnum.Finite(v) {
				fmt.Fprintf(bw, "  %s = %.17g", n, v)
			} else {
				fmt.Fprintf(bw, "  %s = unknown (%g: diverged)", n, v)
			}
			if b, ok := p.BaselineVars[n]; ok {
				fmt.Fprintf(bw, "   (direct baseline %.6g)", b)
			}
			fmt.Fprintln(bw)
		}
	}
	for _, e := range p.Extrapolated {
		fmt.Fprintf(bw, "warning: %s: the prediction extrapolates\n", e)
	}
	if p.OtherMachine != "" {
		fmt.Fprintf(bw, "warning: %s\n", p.OtherMachine)
	}
	if c := p.Cache; c != nil && p.Probe != nil {
		where := map[string]string{"beyond": "past", "within": "inside"}[c.Direction]
		fmt.Fprintf(bw, "note: at %s = %g the working set is about %s, %s the %s L%d, where no training run was; the probe ran there\n",
			c.Input, c.Value, textout.Bytes(c.WorkingSet), where, textout.Bytes(float64(c.CacheBytes)), c.Level)
	} else if p.Cache != nil {
		fmt.Fprintf(bw, "warning: %s\n", p.Cache)
	} else if m.Memory != nil {
		fmt.Fprintf(bw, "working set: about %s, on the side of every cache level that the training runs were on\n", textout.Bytes(p.WorkingSet))
	}
	if h := p.ProbeHint; h != nil {
		fmt.Fprintf(bw, "hint: a probe measures what the training runs cannot: trace this input with --stop-events %d (5%% of the %.0f checkpoints the model predicts, at least %d) or --stop-after %v (5%% of its predicted time), and pass its directory to --probe (docs/predict.md, \"Probing a large input\")\n",
			h.StopEvents, p.Events, minSelfTest, time.Duration(h.StopAfterNs).Round(time.Millisecond))
	}
	fmt.Fprintf(bw, "interpreted in %s (%d steps)\n", textout.Ns(float64(p.Elapsed.Nanoseconds())), p.Steps)
	return bw.Err
}

// biasWords says how far the probe estimates of the training runs ran from
// their truth, for a bias B = median ln(actual / estimate).
func biasWords(b float64) string {
	f := math.Exp(-b) // estimate / actual
	if f < 1 {
		return fmt.Sprintf("estimates %.2g%% low", 100*(1-f))
	}
	return fmt.Sprintf("estimates %.2g%% high", 100*(f-1))
}
