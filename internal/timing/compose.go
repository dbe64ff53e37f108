// This file implements the lab exercise's comparison: a scheme's time computed from
// its measured parts (by the reduction rules and by the Markov chain over the scheme
// function's CFG) against its measured total.

package timing

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/llvmir"
	"github.com/fragprof/fragprof/internal/stats"
)

// A Scheme is a composite to compute and measure.
type Scheme struct {
	Name  string
	Expr  *Expr
	Parts map[string]Fragment // the expression's part names → the fragments measured
	Total Fragment            // the fragment whose time is the scheme's total
	// Func is the function whose CFG the Markov chain runs over ("": none): its blocks
	// take the times of the func: parts they call.
	Func string
}

// CallSites is a build edit that changes nothing: it records, for the named
// functions, the direct callees of every block (in block order, as cfg.Func), which
// the Markov composition maps to the parts' times.
type CallSites struct {
	Funcs []string
	Calls map[string][][]string // function → block index → callees, in order
}

// Apply records the call sites; its signature is that of build.Edit.
func (c *CallSites) Apply(m *llvmir.Module, _ *instrument.Unit) error {
	if c.Calls == nil {
		c.Calls = map[string][][]string{}
	}
	for _, f := range m.Funcs {
		for _, want := range c.Funcs {
			if f.Name != want {
				continue
			}
			blocks := make([][]string, len(f.Blocks))
			for i, b := range f.Blocks {
				for _, in := range b.Instrs {
					if in.Op == "call" && in.Callee != "" {
						blocks[i] = append(blocks[i], in.Callee)
					}
				}
			}
			c.Calls[f.Name] = blocks
		}
	}
	return nil
}

// Composition is the outcome of [Compose].
type Composition struct {
	Scheme      *Scheme
	Parts       map[string]Part
	PartFrags   map[string]*FragResult
	Activations map[string]float64 // per repetition
	// Estimates are the probabilities estimated from the activation counts, by the
	// expression they belong to.
	Estimates map[string]float64
	// Manual and Exact are the reductions; their means, extremes and standard errors
	// agree, their variances differ.
	Manual, Exact           Part
	ManualSteps, ExactSteps []Step
	// Markov is the chain's result over Scheme.Func ("" MarkovErr), and
	// MarkovVisitErr the largest difference between its expected visits and the
	// counts' visits per call (flow conservation makes them equal).
	Markov         *MarkovResult
	MarkovErr      string
	MarkovVisitErr float64
	// Measured is the total, its tail cut on the residual (see Compose).
	Measured *FragResult
	Coef     float64 // u_{(1+γ)/2}
	// ComputedHalf is the computed mean's half-width and ComputedRule its rule
	// ([Part.Interval]); MeasuredHalf the measured interval's half-width.
	ComputedHalf float64
	ComputedRule string
	MeasuredHalf float64
	// RelDiff = (computed − measured) / measured.
	RelDiff float64
	// Within reports computed ∈ measured interval.
	Within bool
	// MarkovReps is how many repetitions' counts the chain's probabilities come from.
	MarkovReps int

	keptReps []int // the repetitions the total kept
}

// Compose computes the scheme's time from the parts measured in res and compares it
// with the measured total.
//
// The total's preemption tail cannot be cut by the manual's rule on the totals
// themselves: a scheme with a branch or a loop has genuinely different totals (one
// more loop pass is a real, long run, not preemption). So a repetition is cut from
// the totals when the rule ([stats.CutTail], median + k·1.4826·MAD) cut one of its
// parts' samples, or cuts its residual
//
//	r = T − Σ (the samples of its parts in that repetition)
//
// the time spent between the parts (the glue, and whatever interrupted it). The
// parts' statistics, their activation counts and the probabilities estimated from
// them are all taken over the repetitions kept, so that computed and measured
// describe the same runs: a load that slows some repetitions and not others then
// cannot favour one side.
func Compose(res *Result, s *Scheme, calls map[string][][]string, o stats.TimingOptions) (*Composition, error) {
	c := &Composition{Scheme: s, Parts: map[string]Part{}, PartFrags: map[string]*FragResult{},
		Activations: map[string]float64{}, Estimates: map[string]float64{}, Coef: stats.NormalCoefficient(o.Confidence)}
	total := res.Frag(s.Total.String())
	if total == nil {
		return nil, fmt.Errorf("compose: the total %s was not measured", s.Total)
	}
	names := s.Expr.Leaves()
	for _, n := range names {
		fr := res.Frag(s.Parts[n].String())
		if fr == nil {
			return nil, fmt.Errorf("compose: part %s (%s) was not measured", n, s.Parts[n])
		}
		c.PartFrags[n] = fr
	}

	oo := o // the statistics of what the repetitions' cut left: no further cut
	oo.Warmup, oo.TailK = 0, -1

	// The measured total: repetitions cut as the doc comment says.
	type repTotal struct {
		i       int
		t, r    float64
		partCut bool
	}
	var rts []repTotal
	for i, t := range total.ByRep {
		if i < res.Warmup || len(t) != 1 {
			continue // a total must run once per repetition
		}
		rt := repTotal{i: i, t: t[0], r: t[0]}
		for _, n := range names {
			fr := c.PartFrags[n]
			for _, x := range fr.ByRep[i] {
				rt.r -= x
				if x > fr.Summary.Tail.Threshold {
					rt.partCut = true
				}
			}
		}
		rts = append(rts, rt)
	}
	if len(rts) < 2 {
		return nil, fmt.Errorf("compose: the total %s ran once in only %d repetitions after the warm-up", s.Total, len(rts))
	}
	cut := stats.TailCut{Median: math.NaN(), Scale: math.NaN(), Threshold: math.Inf(1)}
	thr := math.Inf(1)
	if o.TailK >= 0 {
		var resid []float64
		for _, rt := range rts {
			resid = append(resid, rt.r)
		}
		rc := stats.CutTail(resid, o.TailK)
		cut.Median, cut.Scale, cut.Threshold, thr = rc.Median, rc.Scale, rc.Threshold, rc.Threshold
	}
	act := map[string]int{}
	kept := 0
	c.keptReps = nil
	for _, rt := range rts {
		if o.TailK >= 0 && (rt.partCut || rt.r > thr) {
			cut.Cut = append(cut.Cut, rt.t)
			continue
		}
		cut.Kept = append(cut.Kept, rt.t)
		c.keptReps = append(c.keptReps, rt.i)
		kept++
		for _, n := range names {
			act[n] += len(c.PartFrags[n].ByRep[rt.i])
		}
	}
	if kept < 2 {
		return nil, fmt.Errorf("compose: the tail rule cut %d of %d repetitions of %s; too few are left (try --tail-k -1)", len(cut.Cut), len(rts), s.Total)
	}
	for _, n := range names {
		c.Activations[n] = float64(act[n]) / float64(kept)
	}
	// The parts, over the repetitions kept: their samples there (none of which the
	// tail rule cut), and the samples of the repetitions cut listed as cut.
	keep := map[int]bool{}
	for _, i := range c.keptReps {
		keep[i] = true
	}
	for _, n := range names {
		fr := *c.PartFrags[n]
		var in, out []float64
		for i, x := range fr.ByRep {
			if i < res.Warmup {
				continue
			}
			if keep[i] {
				in = append(in, x...)
			} else {
				out = append(out, x...)
			}
		}
		thr := fr.Summary.Tail
		fr.Samples = in
		fr.Summary = stats.SummarizeTimes(in, oo)
		fr.Summary.Warmup = c.PartFrags[n].Summary.Warmup
		fr.Summary.Tail = stats.TailCut{Kept: in, Cut: out, Median: thr.Median, Scale: thr.Scale, Threshold: thr.Threshold}
		if fr.Summary.N >= 2 {
			fr.NeededN = stats.SampleSizeMean(o.Confidence, fr.Summary.Mean, fr.Summary.StdDev, fr.RelTarget)
			fr.RelErr = stats.RelErrMean(o.Confidence, fr.Summary.Mean, fr.Summary.StdDev, fr.Summary.N)
		}
		c.PartFrags[n] = &fr
		sum := fr.Summary
		if sum.N == 0 {
			c.Parts[n] = Part{Normal: true} // never ran in these repetitions: no time
			continue
		}
		p := Part{Mean: sum.Mean, Var: sum.StdDev * sum.StdDev, Min: sum.Min, Max: sum.Max,
			SE2: sum.StdErr * sum.StdErr, Normal: sum.Normal}
		if sum.N < 2 {
			p.Var, p.SE2 = 0, 0
		}
		c.Parts[n] = p
	}
	est, err := s.Expr.Estimate(c.Activations)
	if err != nil {
		return nil, err
	}
	for e, p := range est {
		c.Estimates[e.String()] = p
	}
	if c.Manual, c.ManualSteps, err = Reduce(s.Expr, c.Parts, est, Manual); err != nil {
		return nil, err
	}
	if c.Exact, c.ExactSteps, err = Reduce(s.Expr, c.Parts, est, Exact); err != nil {
		return nil, err
	}
	c.ComputedHalf, c.ComputedRule = c.Exact.Interval(c.Coef)

	m := *total
	m.Samples = cut.Kept
	m.Summary = stats.SummarizeTimes(cut.Kept, oo)
	m.Summary.Tail = cut
	m.Summary.Warmup = total.Summary.Warmup
	c.Measured = &m
	c.MeasuredHalf = m.Summary.Interval.HalfWidth()
	comp := c.Exact.Mean
	c.RelDiff = (comp - m.Summary.Mean) / m.Summary.Mean
	c.Within = m.Summary.Interval.Contains(comp)

	if s.Func != "" {
		if err := c.markov(res, s, calls); err != nil {
			c.MarkovErr = err.Error()
		}
	}
	return c, nil
}

// markov composes over the CFG of s.Func.
func (c *Composition) markov(res *Result, s *Scheme, calls map[string][][]string) error {
	if res.Prog == nil {
		return fmt.Errorf("no profile was collected")
	}
	var f *cfg.Func
	var counts cfg.Counts
	for i, g := range res.Prog.Funcs {
		if g.Name != s.Func {
			continue
		}
		// The edge probabilities of the repetitions the measured total kept, when
		// each repetition's counts are known; else of all of them.
		f, counts = g, res.Counts[i]
		c.MarkovReps = res.ProfileReps
		if len(res.RepCounts) > 0 {
			counts = cfg.NewCounts(g)
			c.MarkovReps = 0
			for _, r := range c.keptReps {
				if r < len(res.RepCounts) && res.RepCounts[r] != nil {
					counts.Add(res.RepCounts[r][i])
					c.MarkovReps++
				}
			}
		}
	}
	if f == nil {
		return fmt.Errorf("function %s is not in the profile", s.Func)
	}
	if c.MarkovReps == 0 {
		return fmt.Errorf("no counts of %s in the repetitions kept", s.Func)
	}
	bc := calls[s.Func]
	if len(bc) != len(f.Blocks) {
		return fmt.Errorf("function %s: %d blocks in the profile, %d with call sites", s.Func, len(f.Blocks), len(bc))
	}
	byFunc := map[string]Part{}
	for n, fr := range s.Parts {
		if fr.Kind == FuncFrag {
			byFunc[fr.Name] = c.Parts[n]
		}
	}
	ch, err := NewChain(f, counts, func(b *cfg.Block) Part {
		p := Part{Normal: true}
		for _, callee := range bc[b.ID] {
			if q, ok := byFunc[callee]; ok {
				p = Seq(p, q)
			}
		}
		return p
	})
	if err != nil {
		return err
	}
	r, err := ch.Solve()
	if err != nil {
		return err
	}
	for i, b := range ch.States {
		want := float64(counts.Blocks[b.ID]) / float64(counts.Blocks[0])
		c.MarkovVisitErr = math.Max(c.MarkovVisitErr, math.Abs(r.Visits[i]-want)/math.Max(want, 1))
	}
	c.Markov = &r
	return nil
}

// EstimateList returns the estimated probabilities as "expr: p̂" lines, sorted.
func (c *Composition) EstimateList() []string {
	var out []string
	for e, p := range c.Estimates {
		out = append(out, fmt.Sprintf("%s: p̂ = %.4g", e, p))
	}
	sort.Strings(out)
	return out
}

// LabScheme returns scheme A, B or C of examples/lab.c: parts D (bubble_sort), E
// (insertion_sort), F (factor), G (mat_mul); totals region:A, region:B, region:C;
// the schemes' functions scheme_A, scheme_B, scheme_C.
//
//	A  seq(D, E, F, G)                  a sequence
//	B  seq(D, branch(?, E, G), F)       E when r < p, else G
//	C  loop(?, E, G)                    E, then while r < p: G, E
//
// The probabilities are estimated from the activation counts (the design p of the
// run is what they estimate).
func LabScheme(name string) (*Scheme, error) {
	exprs := map[string]string{
		"A": "seq(D, E, F, G)",
		"B": "seq(D, branch(?, E, G), F)",
		"C": "loop(?, E, G)",
	}
	text, ok := exprs[strings.ToUpper(name)]
	if !ok {
		return nil, fmt.Errorf("unknown lab scheme %q (want A, B or C)", name)
	}
	name = strings.ToUpper(name)
	e, err := ParseExpr(text)
	if err != nil {
		return nil, err
	}
	return &Scheme{
		Name: name, Expr: e,
		Parts: map[string]Fragment{
			"D": {Kind: FuncFrag, Name: "bubble_sort"}, "E": {Kind: FuncFrag, Name: "insertion_sort"},
			"F": {Kind: FuncFrag, Name: "factor"}, "G": {Kind: FuncFrag, Name: "mat_mul"},
		},
		Total: Fragment{Kind: RegionFrag, Name: name},
		Func:  "scheme_" + name,
	}, nil
}

// NewScheme returns the scheme of a time expression (ParseExpr) whose parts are
// given as NAME=FRAGMENT (ParseFragment), and whose total is the fragment total;
// its Markov function is fn ("": none). Every part the expression names must be
// given; an error names the argument at fault in the words of the compose command's
// flags.
func NewScheme(expr, total string, parts []string, fn string) (*Scheme, error) {
	e, err := ParseExpr(expr)
	if err != nil {
		return nil, fmt.Errorf("--expr: %v", err)
	}
	s := &Scheme{Name: "total", Expr: e, Parts: map[string]Fragment{}, Func: fn}
	if s.Total, err = ParseFragment(total); err != nil {
		return nil, fmt.Errorf("--total: %v", err)
	}
	for _, pt := range parts {
		name, frag, ok := strings.Cut(pt, "=")
		if !ok {
			return nil, fmt.Errorf("--part %q: want NAME=FRAGMENT", pt)
		}
		f, err := ParseFragment(frag)
		if err != nil {
			return nil, fmt.Errorf("--part %s: %v", name, err)
		}
		s.Parts[name] = f
	}
	for _, l := range e.Leaves() {
		if _, ok := s.Parts[l]; !ok {
			return nil, fmt.Errorf("--expr names part %s, but no --part %s=FRAGMENT says what it is", l, l)
		}
	}
	for _, f := range s.Fragments() {
		if f.Kind == ProgramFrag {
			return nil, errors.New("the program fragment cannot be a part or the total; use a region")
		}
	}
	return s, nil
}

// SchemeOptions say which scheme to compose, in the compose command's flags: a lab
// scheme (Lab, with its design probability P), or an expression with its parts and
// total (NewScheme); Markov, when MarkovSet, names the function of the Markov
// composition in place of the lab scheme's own.
type SchemeOptions struct {
	Lab         string  // A, B or C (LabScheme); "": none
	P           float64 // the lab scheme's design probability, in [0, 1)
	Expr, Total string
	Parts       []string // NAME=FRAGMENT
	Markov      string
	MarkovSet   bool
}

// Scheme returns the scheme o names; an error names the flag at fault.
func (o SchemeOptions) Scheme() (*Scheme, error) {
	var s *Scheme
	var err error
	switch {
	case o.Lab != "" && (o.Expr != "" || len(o.Parts) > 0):
		return nil, errors.New("give --scheme, or --expr with --part and --total, not both")
	case o.Lab != "":
		if s, err = LabScheme(o.Lab); err != nil {
			return nil, fmt.Errorf("--scheme: %v", err)
		}
		if !(o.P >= 0 && o.P < 1) {
			return nil, fmt.Errorf("--p %g: want a probability in [0, 1)", o.P)
		}
	case o.Expr == "" || o.Total == "":
		return nil, errors.New("give --scheme A|B|C, or --expr, --part and --total")
	default:
		if s, err = NewScheme(o.Expr, o.Total, o.Parts, o.Markov); err != nil {
			return nil, err
		}
	}
	if o.MarkovSet {
		s.Func = o.Markov
	}
	return s, nil
}

// LabInputs returns inputs and args (input definitions and program arguments),
// each, when empty, replaced by what runs lab scheme s of examples/lab.c with
// design probability p: a seed drawn for each run; the scheme's name, the seed and
// p as the program's arguments.
func (s *Scheme) LabInputs(p float64, inputs, args []string) ([]string, []string) {
	if len(inputs) == 0 {
		inputs = []string{"seed = uniform_int(0, 2147483647)"}
	}
	if len(args) == 0 {
		args = []string{s.Name, "{seed}", fmt.Sprint(p)}
	}
	return inputs, args
}

// Fragments returns the fragments a measurement of s must time: its total, then its
// parts in the order the expression names them.
func (s *Scheme) Fragments() []Fragment {
	frags := []Fragment{s.Total}
	for _, l := range s.Expr.Leaves() {
		frags = append(frags, s.Parts[l])
	}
	return frags
}
