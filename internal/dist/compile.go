// This file implements the distributions' table and the compilation of a
// definition's syntax tree into a generator, with the checks of every
// argument.

package dist

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// compiled is a compiled expression: a numeric scalar distribution (sd),
// or a generator of another kind (g).
type compiled struct {
	sd scalarDist
	g  gen
}

func (v compiled) kind() Kind {
	if v.sd != nil {
		return v.sd.kind()
	}
	return v.g.kind()
}

// builtin is one distribution of the language.
type builtin struct {
	params  []string // parameter names; nil for choice, which is variadic
	compile func(c *compiler, x *call) (compiled, *Error)
}

var (
	builtins     map[string]builtin
	builtinNames []string // sorted
)

func init() {
	builtins = map[string]builtin{
		"uniform":     {[]string{"a", "b"}, (*compiler).uniform},
		"uniform_int": {[]string{"a", "b"}, (*compiler).uniformInt},
		"normal":      {[]string{"mu", "sigma"}, (*compiler).normal},
		"lognormal":   {[]string{"mu", "sigma"}, (*compiler).normal},
		"exponential": {[]string{"rate"}, (*compiler).exponential},
		"poisson":     {[]string{"l"}, (*compiler).poisson},
		"binomial":    {[]string{"n", "p"}, (*compiler).binomial},
		"bernoulli":   {[]string{"p"}, (*compiler).bernoulli},
		"geometric":   {[]string{"p"}, (*compiler).geometric},
		"choice":      {nil, (*compiler).choice},
		"const":       {[]string{"v"}, (*compiler).constant},
		"array":       {[]string{"len", "dist"}, (*compiler).array},
		"string":      {[]string{"len", "alphabet"}, (*compiler).str},
		"empirical":   {[]string{"file"}, (*compiler).empirical},
		"file":        {[]string{"pattern"}, (*compiler).file},
		"lines":       {[]string{"file"}, (*compiler).lines},
		"rows":        {[]string{"file"}, (*compiler).rows},
		"grammar":     {[]string{"file", "start", "maxdepth"}, (*compiler).grammar},
	}
	for name := range builtins {
		builtinNames = append(builtinNames, name)
	}
	sort.Strings(builtinNames)
}

// compiler compiles the definitions of one model, in dependency order.
type compiler struct {
	m      *Model
	org    origin // of the definition being compiled
	files  map[string]*empirical
	tables map[*call]*table // the files of rows() calls, read by link
}

func (c *compiler) errAt(p pos, hint, format string, args ...any) *Error {
	return c.org.errorAt(p, hint, format, args...)
}

// top compiles a whole definition.
func (c *compiler) top(d *def) (gen, *Error) {
	c.org = d.org
	v, err := c.expr(d.x)
	if err != nil {
		return nil, err
	}
	if v.sd != nil {
		return scalarGen{v.sd}, nil
	}
	return v.g, nil
}

func (c *compiler) expr(x expr) (compiled, *Error) {
	switch x := x.(type) {
	case *numLit:
		if math.IsInf(x.f, 0) {
			return compiled{}, c.errAt(x.p, "", "a value must be finite, got %s", x.text)
		}
		return compiled{sd: constNumber(x)}, nil
	case *strLit:
		return compiled{g: newStringChoice([]string{x.val}, nil)}, nil
	case *nameRef:
		j := c.m.index[x.name]
		return compiled{g: aliasGen{ref: j, k: c.m.Inputs[j].Kind}}, nil
	case *ranged:
		return c.restrict(x)
	case *option:
		return compiled{}, c.errAt(x.p, "", "'%s = …' is an option of file() and rows() only", x.name)
	case *columnRef:
		return compiled{g: &columnGen{row: c.m.index[x.row], col: x.col}}, nil
	case *call:
		b, ok := builtins[x.name]
		if !ok {
			return compiled{}, c.errAt(x.p, didYouMean(x.name, builtinNames), "unknown distribution '%s'", x.name)
		}
		if x.semi != nil && x.name != "choice" && x.name != "file" && x.name != "rows" {
			return compiled{}, c.errAt(*x.semi, "", "only choice takes weights after ';'")
		}
		if b.params != nil && len(x.args) != len(b.params) {
			plural := "s"
			if len(b.params) == 1 {
				plural = ""
			}
			return compiled{}, c.errAt(x.p, "", "%s takes %d argument%s (%s), got %d", x.name, len(b.params), plural, strings.Join(b.params, ", "), len(x.args))
		}
		return b.compile(c, x)
	}
	panic("dist: unknown expression type")
}

// constNumber returns the distribution of the one value n.
func constNumber(n *numLit) *finiteDist {
	if n.isInt {
		return newFinite(KindInt, []float64{n.f}, nil)
	}
	return newFinite(KindFloat, []float64{n.f}, nil)
}

// describe names the value of an expression for a message.
func describe(x expr) string {
	switch x := x.(type) {
	case *nameRef:
		return "input name '" + x.name + "'"
	case *strLit:
		return "string " + strconv.Quote(x.val)
	}
	return exprString(x)
}

// num returns argument i of x, which must be a finite number.
func (c *compiler) num(x *call, i int) (*numLit, *Error) {
	param := builtins[x.name].params[i]
	a := x.args[i]
	n, ok := a.(*numLit)
	if !ok {
		hint := "parameters are numbers; only the length of an array or string may be a name or a distribution"
		return nil, c.errAt(a.exprPos(), hint, "%s needs a number for %s, got %s", x.name, param, describe(a))
	}
	if math.IsInf(n.f, 0) {
		return nil, c.errAt(n.p, "", "%s needs a finite %s, got %s", x.name, param, n.text)
	}
	return n, nil
}

// integer returns argument i of x, which must be an integer.
func (c *compiler) integer(x *call, i int) (*numLit, *Error) {
	n, err := c.num(x, i)
	if err != nil {
		return nil, err
	}
	if !n.isInt {
		return nil, c.errAt(n.p, "", "%s needs an integer for %s, got %s", x.name, builtins[x.name].params[i], n.text)
	}
	return n, nil
}

// positive returns argument i of x, which must be a number > 0.
func (c *compiler) positive(x *call, i int) (*numLit, *Error) {
	n, err := c.num(x, i)
	if err != nil {
		return nil, err
	}
	if !(n.f > 0) {
		return nil, c.errAt(n.p, "", "%s needs %s > 0, got %s", x.name, builtins[x.name].params[i], n.text)
	}
	return n, nil
}

// prob returns argument i of x, which must be a probability in [0, 1].
func (c *compiler) prob(x *call, i int) (*numLit, *Error) {
	n, err := c.num(x, i)
	if err != nil {
		return nil, err
	}
	if !(0 <= n.f && n.f <= 1) {
		return nil, c.errAt(n.p, "", "%s needs %s in [0, 1], got %s", x.name, builtins[x.name].params[i], n.text)
	}
	return n, nil
}

func (c *compiler) uniform(x *call) (compiled, *Error) {
	a, err := c.num(x, 0)
	if err != nil {
		return compiled{}, err
	}
	b, err := c.num(x, 1)
	if err != nil {
		return compiled{}, err
	}
	if !(a.f < b.f) {
		hint := ""
		if a.f == b.f {
			hint = "for a fixed value write const(" + a.text + ")"
		}
		return compiled{}, c.errAt(b.p, hint, "uniform needs a < b, got a = %s, b = %s", a.text, b.text)
	}
	if math.IsInf(b.f-a.f, 0) {
		return compiled{}, c.errAt(x.p, "", "uniform(%s, %s) is too wide: b - a overflows", a.text, b.text)
	}
	return compiled{sd: uniformDist{a.f, b.f}}, nil
}

func (c *compiler) uniformInt(x *call) (compiled, *Error) {
	a, err := c.integer(x, 0)
	if err != nil {
		return compiled{}, err
	}
	b, err := c.integer(x, 1)
	if err != nil {
		return compiled{}, err
	}
	if a.i > b.i {
		return compiled{}, c.errAt(b.p, "", "uniform_int needs a <= b, got a = %s, b = %s", a.text, b.text)
	}
	return compiled{sd: uniformIntDist{a.i, b.i}}, nil
}

// normal compiles normal and lognormal.
func (c *compiler) normal(x *call) (compiled, *Error) {
	mu, err := c.num(x, 0)
	if err != nil {
		return compiled{}, err
	}
	sigma, err := c.positive(x, 1)
	if err != nil {
		return compiled{}, err
	}
	return compiled{sd: &normalDist{mu: mu.f, sigma: sigma.f, log: x.name == "lognormal"}}, nil
}

func (c *compiler) exponential(x *call) (compiled, *Error) {
	rate, err := c.positive(x, 0)
	if err != nil {
		return compiled{}, err
	}
	return compiled{sd: &expDist{rate: rate.f, c: 1}}, nil
}

// maxMean bounds the means of poisson and binomial, so that their draws
// stay well inside int64 and their CDFs converge.
const maxMean = 1e15

func (c *compiler) poisson(x *call) (compiled, *Error) {
	l, err := c.positive(x, 0)
	if err != nil {
		return compiled{}, err
	}
	if l.f > maxMean {
		return compiled{}, c.errAt(l.p, "", "poisson needs l <= 1e15, got %s", l.text)
	}
	return compiled{sd: poissonDist{l.f}}, nil
}

func (c *compiler) binomial(x *call) (compiled, *Error) {
	n, err := c.integer(x, 0)
	if err != nil {
		return compiled{}, err
	}
	if n.i < 0 || n.f > maxMean {
		return compiled{}, c.errAt(n.p, "", "binomial needs n in [0, 1e15], got %s", n.text)
	}
	p, err := c.prob(x, 1)
	if err != nil {
		return compiled{}, err
	}
	switch {
	case n.i == 0 || p.f == 0:
		return compiled{sd: newFinite(KindInt, []float64{0}, nil)}, nil
	case p.f == 1:
		return compiled{sd: newFinite(KindInt, []float64{n.f}, nil)}, nil
	}
	return compiled{sd: binomialDist{n.f, p.f}}, nil
}

func (c *compiler) bernoulli(x *call) (compiled, *Error) {
	p, err := c.prob(x, 0)
	if err != nil {
		return compiled{}, err
	}
	return compiled{sd: bernoulliDist{p.f}}, nil
}

func (c *compiler) geometric(x *call) (compiled, *Error) {
	p, err := c.num(x, 0)
	if err != nil {
		return compiled{}, err
	}
	if !(0 < p.f && p.f <= 1) {
		return compiled{}, c.errAt(p.p, "", "geometric needs p in (0, 1], got %s", p.text)
	}
	if p.f == 1 {
		return compiled{sd: newFinite(KindInt, []float64{0}, nil)}, nil
	}
	return compiled{sd: newGeometric(p.f)}, nil
}

func (c *compiler) choice(x *call) (compiled, *Error) {
	if len(x.args) == 0 {
		return compiled{}, c.errAt(x.p, "", "choice takes at least 1 value (v1, v2, ... [; w1, w2, ...]), got 0")
	}
	var weights []float64
	if x.semi != nil {
		if len(x.weights) != len(x.args) {
			return compiled{}, c.errAt(*x.semi, "", "choice has %d values but %d weights", len(x.args), len(x.weights))
		}
		total := 0.0
		for _, w := range x.weights {
			n, ok := w.(*numLit)
			if !ok || !(n.f >= 0) || math.IsInf(n.f, 0) {
				return compiled{}, c.errAt(w.exprPos(), "", "choice weights must be finite numbers >= 0, got %s", describe(w))
			}
			weights = append(weights, n.f)
			total += n.f
		}
		if !(total > 0) || math.IsInf(total, 0) {
			return compiled{}, c.errAt(*x.semi, "", "choice weights must have a positive, finite sum")
		}
	}
	if s, ok := x.args[0].(*strLit); ok {
		vals := []string{s.val}
		for _, a := range x.args[1:] {
			s, ok := a.(*strLit)
			if !ok {
				return compiled{}, c.errAt(a.exprPos(), "", "choice values must be all numbers or all strings, got %s after a string", describe(a))
			}
			vals = append(vals, s.val)
		}
		return compiled{g: newStringChoice(vals, weights)}, nil
	}
	k := KindInt
	vals := make([]float64, len(x.args))
	for i, a := range x.args {
		n, ok := a.(*numLit)
		if !ok {
			if _, isStr := a.(*strLit); isStr {
				return compiled{}, c.errAt(a.exprPos(), "", "choice values must be all numbers or all strings, got %s after a number", describe(a))
			}
			return compiled{}, c.errAt(a.exprPos(), "", "choice needs values (numbers or strings), got %s", describe(a))
		}
		if math.IsInf(n.f, 0) {
			return compiled{}, c.errAt(n.p, "", "choice values must be finite, got %s", n.text)
		}
		if !n.isInt {
			k = KindFloat
		}
		vals[i] = n.f
	}
	return compiled{sd: newFinite(k, vals, weights)}, nil
}

func (c *compiler) constant(x *call) (compiled, *Error) {
	switch a := x.args[0].(type) {
	case *numLit, *strLit:
		return c.expr(a)
	}
	a := x.args[0]
	return compiled{}, c.errAt(a.exprPos(), "", "const needs a number or a string, got %s", describe(a))
}

func (c *compiler) array(x *call) (compiled, *Error) {
	n, err := c.length(x, x.args[0])
	if err != nil {
		return compiled{}, err
	}
	a := x.args[1]
	if r, ok := a.(*nameRef); ok {
		return compiled{}, c.errAt(r.p, "for example array(n, uniform_int(0, 100))", "array elements need a distribution, not the input '%s'", r.name)
	}
	e, err := c.expr(a)
	if err != nil {
		return compiled{}, err
	}
	if e.sd == nil {
		hint := ""
		if e.kind().IsArray() {
			hint = "arrays do not nest; draw one flat array"
		}
		return compiled{}, c.errAt(a.exprPos(), hint, "array elements must be numbers; %s is %s", exprString(a), e.kind().article())
	}
	return compiled{g: &arrayGen{n: n, elem: e.sd}}, nil
}

func (c *compiler) str(x *call) (compiled, *Error) {
	n, err := c.length(x, x.args[0])
	if err != nil {
		return compiled{}, err
	}
	s, ok := x.args[1].(*strLit)
	if !ok {
		return compiled{}, c.errAt(x.args[1].exprPos(), `for example string(8, "abc")`, "string needs a quoted alphabet, got %s", describe(x.args[1]))
	}
	if s.val == "" {
		return compiled{}, c.errAt(s.p, "", "string alphabet is empty")
	}
	return compiled{g: newStringGen(n, s.val)}, nil
}

// length compiles the length of an array or string x: a whole number, the
// name of an integer input, or an integer distribution, whose values must
// lie in [0, MaxLen] (an unbounded upper end is checked at each draw).
func (c *compiler) length(x *call, a expr) (lenSource, *Error) {
	var lo, hi float64
	what := describe(a)
	src := lenSource{ref: -1}
	switch a := a.(type) {
	case *numLit:
		if !a.isInt {
			return src, c.errAt(a.p, "", "%s length must be a whole number, got %s", x.name, a.text)
		}
		src.n = a.i
		lo, hi = a.f, a.f
		what = a.text
	case *nameRef:
		j := c.m.index[a.name]
		if k := c.m.Inputs[j].Kind; k != KindInt {
			return src, c.errAt(a.p, "", "%s length '%s' must be an integer input, but %s is %s", x.name, a.name, a.name, k.article())
		}
		src.ref = j
		lo, hi = c.support(j)
		what = "'" + a.name + "' = " + c.m.Inputs[j].Dist
	default:
		v, err := c.expr(a)
		if err != nil {
			return src, err
		}
		if v.sd == nil || v.sd.kind() != KindInt {
			return src, c.errAt(a.exprPos(), "", "%s length must be an integer; %s is %s", x.name, exprString(a), v.kind().article())
		}
		src.d = v.sd
		lo, hi = v.sd.support()
	}
	switch {
	case lo < 0:
		return src, c.errAt(a.exprPos(), "restrict it with in [0, ...]", "%s length can be negative: %s", x.name, what)
	case lo > float64(c.m.maxLen) || hi > float64(c.m.maxLen) && !math.IsInf(hi, 1):
		return src, c.errAt(a.exprPos(), "", "%s length can exceed the limit %d: %s", x.name, c.m.maxLen, what)
	}
	return src, nil
}

// support returns the support of compiled integer input j.
func (c *compiler) support(j int) (lo, hi float64) {
	switch g := c.m.gens[j].(type) {
	case scalarGen:
		return g.d.support()
	case aliasGen:
		return c.support(g.ref)
	}
	return math.Inf(-1), math.Inf(1)
}

// restrict compiles x in [lo, hi].
func (c *compiler) restrict(r *ranged) (compiled, *Error) {
	if n, ok := r.x.(*nameRef); ok {
		return compiled{}, c.errAt(r.in, "restrict the definition of '"+n.name+"' instead", "in [lo, hi] cannot restrict a copy of input '%s'", n.name)
	}
	v, err := c.expr(r.x)
	if err != nil {
		return compiled{}, err
	}
	if v.sd == nil {
		hint := ""
		if v.kind().IsArray() {
			hint = "restrict the elements: array(len, DIST in [lo, hi])"
		}
		return compiled{}, c.errAt(r.in, hint, "in [lo, hi] restricts a number, but %s is %s", exprString(r.x), v.kind().article())
	}
	d, mass := v.sd.restrict(r.lo.f, r.hi.f)
	if d == nil || mass < MinRangeProb {
		hint := "widen the range or change the distribution"
		if d == nil || mass == 0 {
			return compiled{}, c.errAt(r.lbrack, hint, "range [%s, %s] has probability 0 under %s", r.lo.text, r.hi.text, exprString(r.x))
		}
		return compiled{}, c.errAt(r.lbrack, hint, "range [%s, %s] has probability %.2g under %s, below the minimum %g", r.lo.text, r.hi.text, mass, exprString(r.x), MinRangeProb)
	}
	return compiled{sd: d}, nil
}
