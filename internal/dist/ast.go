// This file defines the syntax tree of the input language and prints it in
// canonical form.

package dist

import (
	"math"
	"strconv"
	"strings"
)

// expr is an expression: a number, a string, an input name, a call of a
// distribution, or any of these restricted to a range.
type expr interface {
	exprPos() pos
	format(b *strings.Builder)
}

// numLit is a number literal, with its sign. It is an integer (isInt, value
// in i and f) when written without a decimal point and its value is a whole
// number that fits int64 (1e6 is an integer, 2.0 is not); otherwise only f
// holds the value.
type numLit struct {
	p     pos
	text  string // as written, with the sign
	f     float64
	i     int64
	isInt bool
}

// strLit is a string literal; val is unquoted.
type strLit struct {
	p   pos
	val string
}

// nameRef names another input.
type nameRef struct {
	p    pos
	name string
}

// call is a distribution: name(args [; weights]).
type call struct {
	p       pos
	name    string
	args    []expr
	weights []expr // after ';' (choice only)
	semi    *pos   // position of ';', nil if none
	lparen  pos
}

// ranged is x in [lo, hi].
type ranged struct {
	x      expr
	in     pos // position of "in"
	lbrack pos
	lo, hi *numLit
}

// option is a named argument, NAME = x, as in file("…"; weight = size).
type option struct {
	p    pos
	name string
	x    expr
}

// columnRef is the value of one column of the row a rows() input drew: the
// definition of a column input, made when the rows file is read.
type columnRef struct {
	p   pos
	row string // the rows input
	col *column
}

// def is one definition NAME = x.
type def struct {
	name string
	p    pos // position of the name
	x    expr
	org  origin
	// column is true for the definition of a column of a rows() input, made
	// from the file's header rather than written.
	column bool
}

func (n *numLit) exprPos() pos    { return n.p }
func (s *strLit) exprPos() pos    { return s.p }
func (r *nameRef) exprPos() pos   { return r.p }
func (c *call) exprPos() pos      { return c.p }
func (r *ranged) exprPos() pos    { return r.x.exprPos() }
func (o *option) exprPos() pos    { return o.p }
func (c *columnRef) exprPos() pos { return c.p }

func (o *option) format(b *strings.Builder) {
	b.WriteString(o.name)
	b.WriteString(" = ")
	o.x.format(b)
}

func (c *columnRef) format(b *strings.Builder) {
	b.WriteString("column '" + c.col.name + "' of rows input " + c.row)
}

func (n *numLit) format(b *strings.Builder) { b.WriteString(formatNumber(n)) }
func (s *strLit) format(b *strings.Builder) { b.WriteString(strconv.Quote(s.val)) }
func (r *nameRef) format(b *strings.Builder) {
	b.WriteString(r.name)
}

func (c *call) format(b *strings.Builder) {
	b.WriteString(c.name)
	b.WriteByte('(')
	for i, a := range c.args {
		if i > 0 {
			b.WriteString(", ")
		}
		a.format(b)
	}
	if c.semi != nil {
		b.WriteString("; ")
		for i, w := range c.weights {
			if i > 0 {
				b.WriteString(", ")
			}
			w.format(b)
		}
	}
	b.WriteByte(')')
}

func (r *ranged) format(b *strings.Builder) {
	r.x.format(b)
	b.WriteString(" in [")
	r.lo.format(b)
	b.WriteString(", ")
	r.hi.format(b)
	b.WriteByte(']')
}

// exprString returns x in canonical form: ", " between arguments, "; "
// before weights, integers in decimal, floats with a decimal point.
func exprString(x expr) string {
	var b strings.Builder
	x.format(&b)
	return b.String()
}

// formatNumber prints a literal so that it reads back as the same literal:
// integers in decimal, floats always with a decimal point (2.0, 1.0e+300),
// infinities as inf and -inf.
func formatNumber(n *numLit) string {
	if n.isInt {
		return strconv.FormatInt(n.i, 10)
	}
	return formatFloatLit(n.f)
}

// formatFloatLit prints f as a float literal of the language.
func formatFloatLit(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case f == math.Trunc(f) && math.Abs(f) < 1e21:
		return strconv.FormatFloat(f, 'f', -1, 64) + ".0"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if strings.ContainsAny(s, ".") {
		return s
	}
	if i := strings.IndexAny(s, "e"); i >= 0 {
		return s[:i] + ".0" + s[i:]
	}
	return s + ".0"
}

// parseNumber makes the literal for text (an unsigned number token) with
// sign neg; ok is false if the value is out of range.
func parseNumber(p pos, sign, text string) (n *numLit, ok bool) {
	n = &numLit{p: p, text: sign + text}
	lower := strings.ToLower(text)
	switch {
	case text == "inf":
		n.f = math.Inf(1)
		if sign == "-" {
			n.f = math.Inf(-1)
		}
		return n, true
	case strings.HasPrefix(lower, "0x"):
		i, err := strconv.ParseInt(sign+text, 0, 64)
		if err != nil {
			return n, false
		}
		n.i, n.f, n.isInt = i, float64(i), true
		return n, true
	}
	f, err := strconv.ParseFloat(sign+text, 64)
	if err != nil || math.IsInf(f, 0) {
		return n, false
	}
	n.f = f
	if strings.Contains(text, ".") {
		return n, true
	}
	if !strings.ContainsAny(lower, "e") {
		if i, err := strconv.ParseInt(sign+text, 10, 64); err == nil {
			n.i, n.isInt = i, true
		}
		return n, true
	}
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		n.i, n.isInt = int64(f), true
	}
	return n, true
}
