// This file implements the parser of the input language: definition lines
// and lone expressions (model-file values) into syntax trees.

package dist

// parser parses one text. Errors end the current definition; parseDefs then
// resumes at the next line, so one run reports every bad line.
type parser struct {
	lx   *lexer
	tok  token
	org  origin
	errs ErrorList
}

func newParser(src string, org origin) *parser {
	p := &parser{lx: newLexer(src), org: org}
	p.advance()
	return p
}

func (p *parser) advance() { p.tok = p.lx.next() }

// errorf returns an error at the current token, or the lexer's complaint if
// the token is illegal.
func (p *parser) errorf(hint, format string, args ...any) *Error {
	if p.tok.kind == tIllegal {
		return p.org.errorAt(p.tok.pos, "", "%s", p.tok.val)
	}
	return p.org.errorAt(p.tok.pos, hint, format, args...)
}

// parseDefs parses definition lines until the end of the text:
//
//	text = { [ def ] EOL } .
//	def  = NAME "=" expr .
func (p *parser) parseDefs() []*def {
	var defs []*def
	for p.tok.kind != tEOF {
		if p.tok.kind == tEOL {
			p.advance()
			continue
		}
		d, err := p.parseDef()
		if err != nil {
			p.errs = append(p.errs, err)
			p.skipLine()
			continue
		}
		defs = append(defs, d)
	}
	return defs
}

// skipLine skips to the start of the next line.
func (p *parser) skipLine() {
	for p.tok.kind != tEOL && p.tok.kind != tEOF {
		p.advance()
	}
	p.lx.depth = 0
}

func (p *parser) parseDef() (*def, *Error) {
	if p.tok.kind != tIdent {
		return nil, p.errorf("a definition is NAME = DIST", "expected an input name, got %s", p.tok.describe())
	}
	d := &def{name: p.tok.text, p: p.tok.pos, org: p.org}
	if d.name == "inf" {
		return nil, p.errorf("", "'inf' is reserved for infinity and cannot name an input")
	}
	p.advance()
	if p.tok.kind != tAssign {
		return nil, p.errorf("a definition is NAME = DIST", "expected '=' after '%s', got %s", d.name, p.tok.describe())
	}
	p.advance()
	x, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	d.x = x
	if p.tok.kind != tEOL && p.tok.kind != tEOF {
		return nil, p.trailing("end of line")
	}
	return d, nil
}

// parseValue parses a text that holds one expression and nothing else (a
// model-file value); blank lines and comments around it are allowed.
func (p *parser) parseValue() (expr, *Error) {
	for p.tok.kind == tEOL {
		p.advance()
	}
	if p.tok.kind == tEOF {
		return nil, p.errorf("write a distribution such as uniform(0, 1)", "empty expression")
	}
	x, err := p.parseExpr()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == tEOL {
		p.advance()
	}
	if p.tok.kind != tEOF {
		return nil, p.trailing("end of value")
	}
	return x, nil
}

// trailing reports a token after a complete expression.
func (p *parser) trailing(want string) *Error {
	if p.tok.kind == tIdent {
		return p.errorf("expected 'in [lo, hi]' or "+want, "unexpected %s after the distribution", p.tok.describe())
	}
	return p.errorf("expected "+want, "unexpected %s after the distribution", p.tok.describe())
}

// parseExpr parses
//
//	expr    = primary [ "in" "[" number "," number "]" ] .
//	primary = number | STRING | NAME | NAME "(" [ args ] ")" .
//	args    = arg { "," arg } [ ";" arg { "," arg } ] .
//	arg     = expr | NAME "=" expr .
//	number  = [ "-" | "+" ] ( NUMBER | "inf" ) .
func (p *parser) parseExpr() (expr, *Error) {
	x, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tIdent || p.tok.text != "in" {
		return x, nil
	}
	r := &ranged{x: x, in: p.tok.pos}
	p.advance()
	if p.tok.kind != tLBrack {
		return nil, p.errorf("a range is written in [lo, hi]", "expected '[' after 'in', got %s", p.tok.describe())
	}
	r.lbrack = p.tok.pos
	p.advance()
	if r.lo, err = p.parseBound("lower"); err != nil {
		return nil, err
	}
	if p.tok.kind != tComma {
		return nil, p.errorf("a range is written in [lo, hi]", "expected ',' after the lower bound, got %s", p.tok.describe())
	}
	p.advance()
	if r.hi, err = p.parseBound("upper"); err != nil {
		return nil, err
	}
	if p.tok.kind != tRBrack {
		return nil, p.errorf("a range is written in [lo, hi]", "expected ']' after the upper bound, got %s", p.tok.describe())
	}
	p.advance()
	if r.lo.f > r.hi.f {
		return nil, p.org.errorAt(r.lbrack, "", "range [%s, %s] is empty (lo > hi)", r.lo.text, r.hi.text)
	}
	return r, nil
}

func (p *parser) parseBound(which string) (*numLit, *Error) {
	if !p.atNumber() {
		return nil, p.errorf("a range is written in [lo, hi]", "expected a number for the %s bound of the range, got %s", which, p.tok.describe())
	}
	return p.parseNumber()
}

// atNumber reports whether the current token starts a number.
func (p *parser) atNumber() bool {
	switch p.tok.kind {
	case tNumber, tMinus, tPlus:
		return true
	case tIdent:
		return p.tok.text == "inf"
	}
	return false
}

func (p *parser) parseNumber() (*numLit, *Error) {
	start, sign := p.tok.pos, ""
	if p.tok.kind == tMinus || p.tok.kind == tPlus {
		sign = p.tok.text
		p.advance()
	}
	if p.tok.kind != tNumber && (p.tok.kind != tIdent || p.tok.text != "inf") {
		return nil, p.errorf("", "expected a number after '%s', got %s", sign, p.tok.describe())
	}
	n, ok := parseNumber(start, sign, p.tok.text)
	if !ok {
		return nil, p.org.errorAt(start, "", "number %s is out of range", n.text)
	}
	if sign == "+" {
		n.text = n.text[1:]
	}
	p.advance()
	return n, nil
}

func (p *parser) parsePrimary() (expr, *Error) {
	switch p.tok.kind {
	case tNumber, tMinus, tPlus:
		return p.parseNumber()
	case tString:
		s := &strLit{p: p.tok.pos, val: p.tok.val}
		p.advance()
		return s, nil
	case tIdent:
		if p.tok.text == "inf" {
			return p.parseNumber()
		}
	default:
		return nil, p.errorf("", "expected a distribution, number or name, got %s", p.tok.describe())
	}
	name, at := p.tok.text, p.tok.pos
	p.advance()
	if p.tok.kind != tLParen {
		return &nameRef{p: at, name: name}, nil
	}
	c := &call{p: at, name: name, lparen: p.tok.pos}
	p.advance()
	if p.tok.kind == tRParen {
		p.advance()
		return c, nil
	}
	list := &c.args
	for {
		a, err := p.parseExpr()
		if err != nil {
			return nil, err
		}
		if r, ok := a.(*nameRef); ok && p.tok.kind == tAssign {
			p.advance()
			v, err := p.parseExpr()
			if err != nil {
				return nil, err
			}
			a = &option{p: r.p, name: r.name, x: v}
		}
		*list = append(*list, a)
		switch p.tok.kind {
		case tComma:
			p.advance()
			continue
		case tSemi:
			if c.semi != nil {
				return nil, p.errorf("", "second ';' in the arguments of %s", name)
			}
			semi := p.tok.pos
			c.semi = &semi
			list = &c.weights
			p.advance()
			continue
		case tRParen:
			p.advance()
			return c, nil
		}
		hint := ""
		if p.tok.pos.line > c.lparen.line {
			hint = "the '(' at " + posString(c.lparen) + " is not closed"
		}
		return nil, p.errorf(hint, "expected ',' or ')' in the arguments of %s, got %s", name, p.tok.describe())
	}
}

// posString formats p as LINE:COL.
func posString(p pos) string { return sprintf("%d:%d", p.line, p.col) }
