// This file renders Monte Carlo frequency estimates (fragprof freq): the text table,
// the JSON object (the count object extended), and DOT with estimates.

package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/jsonnum"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
)

// Freq is a finished estimation with what the report states about it.
type Freq struct {
	Result *montecarlo.Result
	Rule   stats.Thresholds
	// RuleName is the stopping rule (package stopping); Anytime says whether its
	// intervals hold at every n (also on Ctrl-C or --max-time).
	RuleName string
	Anytime  bool
	Seed     uint64
	Counters int
	Inputs   []string // the input model, one definition per line
	// Replay returns the command that reproduces one trial (nil: none).
	Replay func(trial uint64) string
	// Strata describes a stratified population's strata and the trials each
	// gave (nil without strata).
	Strata *FreqStrata
}

// FreqStrata is a stratified population of a run: its input, the key and the
// allocation as written, and each stratum with its size and the trials folded
// from it.
type FreqStrata struct {
	Input  string        `json:"input"`
	Key    string        `json:"key"`
	Alloc  string        `json:"alloc"`
	Strata []JSONStratum `json:"strata"`
}

// JSONStratum is one stratum: its name, its items N_h and its trials n_h.
type JSONStratum struct {
	Name   string `json:"name"`
	Size   uint64 `json:"size"`
	Trials uint64 `json:"trials"`
}

// JSONFreq is the object `freq --json` prints: the count object, extended.
type JSONFreq struct {
	Trials   uint64  `json:"trials"`
	Seed     uint64  `json:"seed"`
	Eps      float64 `json:"eps,omitempty"`
	RelEps   float64 `json:"rel_eps,omitempty"`
	Gamma    float64 `json:"gamma"`
	RuleName string  `json:"rule"`
	Anytime  bool    `json:"anytime_valid"`
	Moment   string  `json:"berry_esseen,omitempty"` // the FreqSys rules only
	Stopped  string  `json:"stopped"`
	Elapsed  float64 `json:"elapsed_s"`
	// Design is how the trials' inputs were drawn: "independent", or "latin:M"
	// for Latin hypercube units of M trials, of which Units were complete (absent
	// when judged from profiles).
	Design   string        `json:"design,omitempty"`
	Units    uint64        `json:"units,omitempty"`
	Inputs   []string      `json:"inputs"`
	Strata   *FreqStrata   `json:"strata,omitempty"`
	Failures []JSONFailure `json:"failures"`
	// Causes tallies the failed trials by cause; Exits the exit statuses of the
	// trials used ("0": …, "1": …).
	Causes    []JSONCause       `json:"failure_causes"`
	Exits     map[string]uint64 `json:"exits"`
	Counters  int               `json:"counters"`
	Functions []JSONFreqFunc    `json:"functions"`
	States    map[string]int    `json:"states"` // how many blocks ended in each state
}

// JSONFailure is a trial whose counts were not used.
type JSONFailure struct {
	Trial  uint64 `json:"trial"`
	Reason string `json:"reason"`
	Exit   int    `json:"exit"`
}

// JSONCause is one cause of failed trials: how many, and the first to replay.
type JSONCause struct {
	Cause  string `json:"cause"`
	Trials uint64 `json:"trials"`
	First  uint64 `json:"first"`
}

// JSONFreqFunc is one function with its estimates.
type JSONFreqFunc struct {
	JSONFuncID
	Calls  float64         `json:"calls"` // the expected number of calls
	Blocks []JSONFreqBlock `json:"blocks"`
	Edges  []JSONFreqEdge  `json:"edges"`
}

// JSONFreqBlock is one block's estimate.
type JSONFreqBlock struct {
	JSONBlockID
	JSONBlockSource
	Mean      float64  `json:"mean"`
	HalfWidth *float64 `json:"halfwidth"` // null when undefined (n < 2, unseen)
	Lo        *float64 `json:"lo"`        // the interval of the mean (exact binomial for 0/1 blocks)
	Hi        *float64 `json:"hi"`
	Ran       uint64   `json:"ran"` // trials in which the block ran
	// ProbLo, ProbHi bound the probability that the block runs (Clopper–Pearson; the
	// rule of three when it never ran), for unseen and rare blocks; for a constant
	// block ProbHi bounds the probability of any other count.
	ProbLo    *float64           `json:"prob_lo,omitempty"`
	ProbHi    *float64           `json:"prob_hi,omitempty"`
	Variance  float64            `json:"variance"`
	N         uint64             `json:"n"`
	State     string             `json:"state"`
	DecidedAt uint64             `json:"decided_at,omitempty"`
	NeedTrial *float64           `json:"need_trials,omitempty"` // for undecided blocks: the projection
	BE        *float64           `json:"berry_esseen,omitempty"`
	Series    []montecarlo.Point `json:"series"`
}

// JSONFreqEdge is one edge's mean count.
type JSONFreqEdge struct {
	JSONEdgeID
	Mean float64 `json:"mean"`
	Prob float64 `json:"prob"` // mean / mean count of the source block (0 when it never ran)
}

// FreqJSON converts an estimation to its JSON form.
func FreqJSON(f *Freq) JSONFreq {
	r := f.Result
	out := JSONFreq{
		Trials: r.Trials, Seed: f.Seed, Eps: f.Rule.Eps, Gamma: f.Rule.Gamma, RuleName: f.ruleName(), Anytime: f.Anytime,
		Stopped: r.Stopped, Elapsed: r.Elapsed.Seconds(), Inputs: f.Inputs, Counters: f.Counters,
		Failures: []JSONFailure{}, Functions: []JSONFreqFunc{}, States: map[string]int{},
		Causes: []JSONCause{}, Exits: map[string]uint64{}, Design: f.design(), Strata: f.Strata,
	}
	if r.Unit > 1 {
		out.Units = r.Units
	}
	if strings.HasPrefix(out.RuleName, "freqsys-") {
		out.Moment = f.Rule.Moment.String()
	}
	for _, c := range r.Causes {
		out.Causes = append(out.Causes, JSONCause{Cause: c.Cause, Trials: c.Trials, First: c.First})
	}
	for code, n := range r.Exits {
		out.Exits[fmt.Sprint(code)] = n
	}
	if f.Rule.Eps == 0 {
		out.RelEps = f.Rule.RelEps
	}
	if out.Inputs == nil {
		out.Inputs = []string{}
	}
	for _, fl := range r.Failures {
		out.Failures = append(out.Failures, JSONFailure{Trial: fl.Trial, Reason: fl.Reason, Exit: fl.Exit})
	}
	for fi, fn := range r.Prog.Funcs {
		jf := JSONFreqFunc{JSONFuncID: funcID(fn), Blocks: []JSONFreqBlock{}, Edges: []JSONFreqEdge{}}
		for b, blk := range fn.Blocks {
			be := r.Blocks[fi][b]
			d := be.Decision
			jb := JSONFreqBlock{
				JSONBlockID: blockID(blk), JSONBlockSource: blockSource(blk), Mean: d.Mean, HalfWidth: jsonnum.Ptr(d.HalfWidth),
				Lo: jsonnum.Ptr(d.Lo), Hi: jsonnum.Ptr(d.Hi), Ran: d.Ran,
				N: d.N, State: d.State.String(), DecidedAt: be.DecidedAt, Series: be.Series,
			}
			if d.Ran == 0 {
				// Never ran: mean 0 at every n, its bound the rule of three's. Left
				// out, as most blocks of a large program are such (sqlite3: 90 % of
				// 70,000 blocks made an 80-trial report 388 MB).
				jb.Series = []montecarlo.Point{}
			}
			jb.ProbLo, jb.ProbHi = jsonnum.Ptr(d.ProbLo), jsonnum.Ptr(d.ProbHi)
			if s := d.StdDev; !math.IsNaN(s) {
				jb.Variance = s * s
			}
			if d.State == stats.Unconverged {
				jb.NeedTrial = jsonnum.Ptr(d.Need)
			}
			jb.BE = jsonnum.Ptr(d.BE)
			if b == 0 {
				jf.Calls = d.Mean
			}
			out.States[jb.State]++
			jf.Blocks = append(jf.Blocks, jb)
		}
		for e, edge := range fn.Edges {
			m := r.Edges[fi][e].Mean
			je := JSONFreqEdge{JSONEdgeID: edgeID(edge), Mean: m}
			if src := r.Blocks[fi][edge.From.ID].Decision.Mean; src > 0 {
				je.Prob = min(1, m/src) // the two means round apart: 1.0000000000000002
			}
			jf.Edges = append(jf.Edges, je)
		}
		out.Functions = append(out.Functions, jf)
	}
	return out
}

// design returns how the trials' inputs were drawn: "independent" or "latin:M",
// or "" when the result was rebuilt from profiles, which do not say.
func (f *Freq) design() string {
	switch {
	case f.Result.Unit > 1:
		return fmt.Sprintf("latin:%d", f.Result.Unit)
	case f.Result.Unit == 1:
		return "independent"
	}
	return ""
}

// ruleName returns the rule's name, or the FreqSys rule the thresholds describe.
func (f *Freq) ruleName() string {
	if f.RuleName != "" {
		return f.RuleName
	}
	return "freqsys-" + f.Rule.Moment.String()
}

// WriteFreqJSON writes the estimation as indented JSON.
func WriteFreqJSON(w io.Writer, f *Freq) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(FreqJSON(f))
}

// WriteFreqText writes the estimation as a table in source order, with a header
// that states the precision asked for, the confidence, and why the run stopped.
func WriteFreqText(w io.Writer, f *Freq, src Sources) error {
	r := f.Result
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	prec := fmt.Sprintf("±%g", f.Rule.Eps)
	if f.Rule.Eps == 0 {
		prec = fmt.Sprintf("±%g%%", 100*f.Rule.RelEps)
	}
	rule := f.ruleName()
	if strings.HasPrefix(rule, "freqsys-") {
		rule += fmt.Sprintf(" (C0 = %g)", f.Rule.C0)
	}
	fmt.Fprintf(tw, "fragprof freq: %d trials, seed %d, precision %s at γ = %g, rule %s\n",
		r.Trials, f.Seed, prec, f.Rule.Gamma, rule)
	if f.ruleName() == "freqsys-signed" {
		fmt.Fprintln(tw, "warning: the signed third moment reproduces the paper but is not rigorous (see docs/freq.md)")
	}
	if !f.Anytime && r.Stopped != "" && !strings.Contains(r.Stopped, "decided") {
		fmt.Fprintln(tw, "note: the run did not stop by its rule; the intervals hold for a number of trials fixed in advance, not for a stop chosen by watching them (--rule anytime holds at every n)")
	}
	fmt.Fprintf(tw, "stopped: %s after %.2fs\n", r.Stopped, r.Elapsed.Seconds())
	if r.Unit > 1 {
		fmt.Fprintf(tw, "design: Latin hypercube units of %d trials (%d complete); a block is judged on its counts summed over each unit, or on the trials as if independent, whichever converges first\n", r.Unit, r.Units)
	}
	for _, in := range f.Inputs {
		fmt.Fprintf(tw, "input: %s\n", in)
	}
	if st := f.Strata; st != nil {
		var parts []string
		for _, h := range st.Strata {
			parts = append(parts, fmt.Sprintf("%s %d of %d", h.Name, h.Trials, h.Size))
		}
		fmt.Fprintf(tw, "strata: %s by %s, %s allocation; trials of each stratum's items: %s\n", st.Input, st.Key, st.Alloc, strings.Join(parts, ", "))
	}
	for fi, fn := range r.Prog.Funcs {
		var lines []string
		if src != nil {
			lines = src(fn.File)
		}
		fmt.Fprintf(tw, "\n%s  (%s:%d)  expected calls %s\n", fn.DisplayName(), fn.File, fn.Line, num(r.Blocks[fi][0].Decision.Mean))
		fmt.Fprintln(tw, "  block\tlabel\tlines\testimate\t± half-width\tstate\tn\tsource")
		for _, b := range sourceOrder(fn) {
			d := r.Blocks[fi][b.ID].Decision
			hw := "-"
			if !math.IsNaN(d.HalfWidth) && d.State != stats.Constant {
				hw = "± " + num(d.HalfWidth)
			}
			state := d.State.String()
			switch d.State {
			case stats.Converged:
				if at := r.Blocks[fi][b.ID].DecidedAt; at > 0 {
					state += fmt.Sprintf(" @%d", at)
				}
			case stats.Unconverged:
				if !math.IsNaN(d.Need) {
					state += fmt.Sprintf(" (needs ~%.0f)", d.Need)
				}
			case stats.Unseen:
				if !math.IsNaN(d.ProbHi) {
					state += fmt.Sprintf(" (runs in < %.2g of executions)", d.ProbHi)
				}
			case stats.Rare:
				if !math.IsNaN(d.ProbHi) {
					state += fmt.Sprintf(" (ran in %d trials; runs in %.2g–%.2g of executions)", d.Ran, d.ProbLo, d.ProbHi)
				}
			case stats.Constant:
				if !math.IsNaN(d.ProbHi) {
					state += fmt.Sprintf(" (other counts in < %.2g)", d.ProbHi)
				}
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", b.ID, b.Label, compactLines(b), num(d.Mean), hw, state, d.N, excerpt(lines, fn.File, b.Start))
		}
	}
	if len(r.Failures) > 0 {
		fmt.Fprintf(tw, "\n%d trials failed and were left out:\n", len(r.Failures))
		for k, fl := range r.Failures {
			if k == 10 {
				fmt.Fprintf(tw, "  ... and %d more (see --json)\n", len(r.Failures)-10)
				break
			}
			fmt.Fprintf(tw, "  trial %d: %s", fl.Trial, fl.Reason)
			if f.Replay != nil {
				fmt.Fprintf(tw, "   (replay: %s)", f.Replay(fl.Trial))
			}
			fmt.Fprintln(tw)
		}
	}
	if len(r.Causes) > 0 {
		fmt.Fprintf(tw, "failures by cause:")
		for _, c := range r.Causes {
			fmt.Fprintf(tw, "  %s ×%d", c.Cause, c.Trials)
		}
		fmt.Fprintln(tw)
	}
	var codes []string
	for code, n := range r.Exits {
		if code != 0 {
			codes = append(codes, fmt.Sprintf("status %d ×%d", code, n))
		}
	}
	if len(codes) > 0 {
		sort.Strings(codes)
		fmt.Fprintf(tw, "warning: trials used exited non-zero: %s (their counts are in the estimates; --fail-nonzero leaves them out)\n", strings.Join(codes, ", "))
	}
	fmt.Fprintf(tw, "\nstates: converged = mean known to the precision at γ; constant = same count in every trial;\n")
	fmt.Fprintf(tw, "unseen = ran in no trial (bound: the rule of three); rare = ran in too few trials to estimate (bound: Clopper–Pearson);\n")
	fmt.Fprintf(tw, "inadequate = Berry–Esseen cannot be met (FreqSys rules); unconverged = budget spent;\n")
	fmt.Fprintf(tw, "exact = every item of a finite population drawn once: the population's mean, no sampling error.\n")
	return tw.Flush()
}

func excerpt(lines []string, file string, start cfg.Pos) string {
	if start.Line <= 0 || start.Line > len(lines) || start.File != file {
		return ""
	}
	s := strings.TrimSpace(lines[start.Line-1])
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// num prints an estimate with 4 significant digits.
func num(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.4g", x)
}

// WriteFreqDOT draws every function's CFG with each block's estimate ± half-width
// and state, and each edge's probability.
func WriteFreqDOT(w io.Writer, f *Freq) error {
	r := f.Result
	var sb strings.Builder
	sb.WriteString("digraph fragprof {\n  node [shape=box fontname=\"monospace\" fontsize=10];\n  edge [fontname=\"monospace\" fontsize=9];\n")
	for fi, fn := range r.Prog.Funcs {
		fmt.Fprintf(&sb, "  subgraph cluster_%d {\n    label=%s;\n", fi, quote(fmt.Sprintf("%s (%s:%d)", fn.DisplayName(), fn.File, fn.Line)))
		for _, b := range fn.Blocks {
			d := r.Blocks[fi][b.ID].Decision
			est := num(d.Mean)
			if !math.IsNaN(d.HalfWidth) && d.State != stats.Constant {
				est += " ± " + num(d.HalfWidth)
			}
			style := ""
			switch d.State {
			case stats.Constant:
				style = ` style=dashed`
			case stats.Inadequate, stats.Rare:
				style = ` color=orange penwidth=2`
			case stats.Unseen:
				style = ` style=dotted`
			case stats.Unconverged:
				style = ` color=red penwidth=2`
			}
			label := fmt.Sprintf("%s\\n%s\\ne = %s\\n%s", b.Label, linesText(b), est, d.State)
			fmt.Fprintf(&sb, "    f%d_b%d [label=\"%s\"%s];\n", fi, b.ID, escapeDot(label), style)
		}
		for _, e := range fn.Edges {
			p := 0.0
			if src := r.Blocks[fi][e.From.ID].Decision.Mean; src > 0 {
				p = r.Edges[fi][e.ID].Mean / src
			}
			fmt.Fprintf(&sb, "    f%d_b%d -> f%d_b%d [label=%s];\n", fi, e.From.ID, fi, e.To.ID, quote(fmt.Sprintf("%.3g", p)))
		}
		sb.WriteString("  }\n")
	}
	sb.WriteString("}\n")
	_, err := io.WriteString(w, sb.String())
	return err
}
