// This file implements the graph-reduction rules of the timing guide (docs/methods.md,
// "Analytical calculation by graph reduction") and their exact forms, over a small
// expression language for schemes built from fragments.

package timing

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// A Part is the time of a fragment or of a composite: its mean, variance and
// extremes, and the squared standard error of the mean (what the mean's uncertainty
// adds up from). Times are in nanoseconds.
type Part struct {
	Mean, Var float64
	Min, Max  float64
	SE2       float64 // squared standard error of Mean
	// Normal reports that every measured part under it passed the normality test.
	Normal bool
}

// Form chooses the variance rules.
type Form uint8

const (
	// Manual applies the manual's rules as printed: the variance of a branch or a
	// loop ignores the randomness of the branch taken and of the number of passes.
	Manual Form = iota
	// Exact applies the law of total variance: a branch adds p(1−p)(m1 − m2)², a
	// geometric loop Var[K]·(m1 + m2)² with Var[K] = p/(1−p)².
	Exact
)

func (f Form) String() string {
	if f == Manual {
		return "manual rules"
	}
	return "exact (law of total variance)"
}

// Seq is rule 1, a sequence: means, variances, extremes and squared standard errors
// add.
func Seq(a, b Part) Part {
	return Part{Mean: a.Mean + b.Mean, Var: a.Var + b.Var, Min: a.Min + b.Min, Max: a.Max + b.Max,
		SE2: a.SE2 + b.SE2, Normal: a.Normal && b.Normal}
}

// Branch is rule 3: a with probability p, else b.
//
//	m = p·m1 + (1−p)·m2
//	σ² = p·σ1² + (1−p)·σ2²                      (manual)
//	σ² = p·σ1² + (1−p)·σ2² + p(1−p)(m1 − m2)²    (exact: law of total variance)
//	t_min = min(t_min1, t_min2), t_max = max(t_max1, t_max2)
//
// The mean's squared standard error is p²·SE1² + (1−p)²·SE2² (p known).
func Branch(p float64, a, b Part, f Form) Part {
	q := 1 - p
	r := Part{Mean: p*a.Mean + q*b.Mean, Var: p*a.Var + q*b.Var, Min: math.Min(a.Min, b.Min),
		Max: math.Max(a.Max, b.Max), SE2: p*p*a.SE2 + q*q*b.SE2, Normal: a.Normal && b.Normal}
	if f == Exact {
		d := a.Mean - b.Mean
		r.Var += p * q * d * d
	}
	return r
}

// Loop is rule 2: block a, then with probability p block b and back to a; the number
// K of passes through b is geometric, P(K = k) = (1−p)·p^k, E[K] = p/(1−p),
// Var[K] = p/(1−p)².
//
//	m = m1 + (m1 + m2)·p/(1−p)
//	σ² = σ1² + (σ1² + σ2²)·p/(1−p)                               (manual)
//	σ² = σ1² + (σ1² + σ2²)·p/(1−p) + (m1 + m2)²·p/(1−p)²          (exact)
//	t_min = t_min1
//	t_max = t_max1 + (t_max1 + t_max2)·p/(1−p)   (the manual's; a heuristic: a
//	                                            geometric loop has no finite maximum)
//
// The mean's squared standard error is (1 + E[K])²·SE1² + E[K]²·SE2².
func Loop(p float64, a, b Part, f Form) Part {
	k := p / (1 - p)
	r := Part{Mean: a.Mean + (a.Mean+b.Mean)*k, Var: a.Var + (a.Var+b.Var)*k, Min: a.Min,
		Max: a.Max + (a.Max+b.Max)*k, SE2: (1+k)*(1+k)*a.SE2 + k*k*b.SE2, Normal: a.Normal && b.Normal}
	if f == Exact {
		m := a.Mean + b.Mean
		r.Var += m * m * p / ((1 - p) * (1 - p))
	}
	return r
}

// Interval returns the half-width of the composite's mean at the given confidence:
// u_{(1+γ)/2}·√SE2 (the propagated standard error) when every measured part was
// normal; otherwise the manual's interval arithmetic, max(t_max − m, m − t_min),
// as for a measured total that is not normal. The string names the rule.
func (p Part) Interval(coef float64) (float64, string) {
	if p.Normal {
		return coef * math.Sqrt(p.SE2), "propagated standard error (every part normal)"
	}
	return math.Max(p.Max-p.Mean, p.Mean-p.Min), "interval arithmetic max(t_max − m, m − t_min) (a part is not normal)"
}

// An Expr is a scheme: fragments composed by sequence, branch and loop.
//
//	expr   = NAME | "seq(" expr { "," expr } ")"
//	       | "branch(" prob "," expr "," expr ")"     a with probability p, else b
//	       | "loop(" prob "," expr "," expr ")"       a, then while r < p: b, a
//	prob   = NUMBER | "?"
//
// NAME is a part (a letter, then letters, digits, '_'); "?" asks for the probability
// to be estimated from the parts' activation counts ([Expr.Estimate]).
type Expr struct {
	Op   ExprOp
	Name string  // Leaf
	P    float64 // Branch, Loop; NaN for "?"
	Args []*Expr
	Pos  int // byte offset in the text, for errors
}

// ExprOp is the kind of an expression node.
type ExprOp uint8

// The expression kinds.
const (
	Leaf ExprOp = iota
	SeqOp
	BranchOp
	LoopOp
)

func (e *Expr) String() string {
	p := func() string {
		if math.IsNaN(e.P) {
			return "?"
		}
		return strconv.FormatFloat(e.P, 'g', -1, 64)
	}
	var args []string
	for _, a := range e.Args {
		args = append(args, a.String())
	}
	switch e.Op {
	case SeqOp:
		return "seq(" + strings.Join(args, ", ") + ")"
	case BranchOp:
		return "branch(" + p() + ", " + strings.Join(args, ", ") + ")"
	case LoopOp:
		return "loop(" + p() + ", " + strings.Join(args, ", ") + ")"
	}
	return e.Name
}

// Leaves returns the part names in order of appearance.
func (e *Expr) Leaves() []string {
	if e.Op == Leaf {
		return []string{e.Name}
	}
	var out []string
	for _, a := range e.Args {
		out = append(out, a.Leaves()...)
	}
	return out
}

// ParseExpr reads a scheme expression. Errors give the column.
func ParseExpr(s string) (*Expr, error) {
	p := &exprParser{s: s}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(s) {
		return nil, p.errf("unexpected %q after the expression", s[p.i:])
	}
	return e, nil
}

type exprParser struct {
	s string
	i int
}

func (p *exprParser) errf(f string, a ...any) error {
	return fmt.Errorf("scheme %q at column %d: %s", p.s, p.i+1, fmt.Sprintf(f, a...))
}

func (p *exprParser) space() {
	for p.i < len(p.s) && unicode.IsSpace(rune(p.s[p.i])) {
		p.i++
	}
}

func (p *exprParser) ident() string {
	p.space()
	j := p.i
	for j < len(p.s) && (p.s[j] == '_' || unicode.IsLetter(rune(p.s[j])) || (j > p.i && unicode.IsDigit(rune(p.s[j])))) {
		j++
	}
	id := p.s[p.i:j]
	p.i = j
	return id
}

func (p *exprParser) expect(c byte) error {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != c {
		return p.errf("expected %q", string(c))
	}
	p.i++
	return nil
}

func (p *exprParser) expr() (*Expr, error) {
	p.space()
	pos := p.i
	id := p.ident()
	if id == "" {
		return nil, p.errf("expected a part name, seq(...), branch(...) or loop(...)")
	}
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '(' {
		return &Expr{Op: Leaf, Name: id, Pos: pos}, nil
	}
	p.i++
	e := &Expr{Pos: pos}
	switch id {
	case "seq":
		e.Op = SeqOp
	case "branch":
		e.Op = BranchOp
	case "loop":
		e.Op = LoopOp
	default:
		p.i = pos
		return nil, p.errf("unknown operator %q (want seq, branch or loop)", id)
	}
	if e.Op != SeqOp {
		p.space()
		j := p.i
		for j < len(p.s) && p.s[j] != ',' && p.s[j] != ')' {
			j++
		}
		txt := strings.TrimSpace(p.s[p.i:j])
		if txt == "?" {
			e.P = math.NaN()
		} else {
			v, err := strconv.ParseFloat(txt, 64)
			if err != nil || !(v >= 0 && v <= 1) || (e.Op == LoopOp && v == 1) {
				return nil, p.errf("probability %q: want a number in [0, 1] (a loop's below 1) or ?", txt)
			}
			e.P = v
		}
		p.i = j
		if err := p.expect(','); err != nil {
			return nil, err
		}
	}
	for {
		a, err := p.expr()
		if err != nil {
			return nil, err
		}
		e.Args = append(e.Args, a)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		break
	}
	if e.Op != SeqOp && len(e.Args) != 2 {
		p.i = pos
		return nil, p.errf("%s takes a probability and two schemes, got %d", id, len(e.Args))
	}
	if e.Op == SeqOp && len(e.Args) == 0 {
		return nil, p.errf("seq() is empty")
	}
	return e, nil
}

// A Step is one application of a rule, for the report.
type Step struct {
	Rule   string // "sequence", "branch p=0.5", "loop p=0.3"
	Expr   string
	Result Part
}

// Reduce computes the time of e from its parts by the rules in form f. Probabilities
// written "?" come from est (see [Expr.Estimate]); steps lists the rules applied,
// innermost first.
func Reduce(e *Expr, parts map[string]Part, est map[*Expr]float64, f Form) (Part, []Step, error) {
	var steps []Step
	var rec func(e *Expr) (Part, error)
	rec = func(e *Expr) (Part, error) {
		if e.Op == Leaf {
			p, ok := parts[e.Name]
			if !ok {
				return Part{}, fmt.Errorf("scheme part %q was not measured", e.Name)
			}
			return p, nil
		}
		var args []Part
		for _, a := range e.Args {
			p, err := rec(a)
			if err != nil {
				return Part{}, err
			}
			args = append(args, p)
		}
		prob := e.P
		if math.IsNaN(prob) {
			v, ok := est[e]
			if !ok {
				return Part{}, fmt.Errorf("no estimate for the probability of %s", e)
			}
			prob = v
		}
		var r Part
		var rule string
		switch e.Op {
		case SeqOp:
			r, rule = args[0], "sequence"
			for _, a := range args[1:] {
				r = Seq(r, a)
			}
		case BranchOp:
			r, rule = Branch(prob, args[0], args[1], f), fmt.Sprintf("branch p=%.4g", prob)
		case LoopOp:
			if prob >= 1 {
				return Part{}, fmt.Errorf("%s: loop probability %g: the loop never ends", e, prob)
			}
			r, rule = Loop(prob, args[0], args[1], f), fmt.Sprintf("loop p=%.4g", prob)
		}
		steps = append(steps, Step{Rule: rule, Expr: e.String(), Result: r})
		return r, nil
	}
	p, err := rec(e)
	return p, steps, err
}

// Estimate estimates every "?" probability of e from how often each part ran
// (activations summed over the repetitions), by maximum likelihood:
//
//	branch(?, a, b): p̂ = entries(a) / (entries(a) + entries(b))
//	loop(?, a, b):   p̂ = entries(b) / entries(a)   (each pass through a is followed
//	                 by one decision, and b runs once per "continue")
//
// where entries(x) counts how often x was entered: a part's activations; a sequence's
// first element; a branch's two arms together; a loop's body minus its back part.
// Every part must appear once.
func (e *Expr) Estimate(activations map[string]float64) (map[*Expr]float64, error) {
	seen := map[string]bool{}
	for _, l := range e.Leaves() {
		if seen[l] {
			return nil, fmt.Errorf("scheme %s: part %s appears twice; its probabilities cannot be estimated from activation counts (give numbers)", e, l)
		}
		seen[l] = true
	}
	est := map[*Expr]float64{}
	var entries func(x *Expr) (float64, error)
	entries = func(x *Expr) (float64, error) {
		var n []float64
		for _, a := range x.Args {
			v, err := entries(a)
			if err != nil {
				return 0, err
			}
			n = append(n, v)
		}
		switch x.Op {
		case Leaf:
			v, ok := activations[x.Name]
			if !ok {
				return 0, fmt.Errorf("no activation count for part %s", x.Name)
			}
			return v, nil
		case SeqOp:
			return n[0], nil
		case BranchOp:
			if math.IsNaN(x.P) {
				if n[0]+n[1] == 0 {
					return 0, fmt.Errorf("%s never ran: its probability cannot be estimated", x)
				}
				est[x] = n[0] / (n[0] + n[1])
			}
			return n[0] + n[1], nil
		default: // LoopOp
			if math.IsNaN(x.P) {
				if n[0] == 0 {
					return 0, fmt.Errorf("%s never ran: its probability cannot be estimated", x)
				}
				est[x] = n[1] / n[0]
			}
			return n[0] - n[1], nil
		}
	}
	if _, err := entries(e); err != nil {
		return nil, err
	}
	return est, nil
}
