// This file implements grammar("file.ebnf", start, maxdepth): random
// derivations of a context-free grammar.

package dist

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A grammar file is EBNF in this dialect:
//
//	grammar = { rule } .
//	rule    = NAME "=" alts ";" .
//	alts    = alt { "|" alt } .
//	alt     = { item } [ "@" NUMBER ] .
//	item    = STRING | NAME | "[" alts "]" | "{" alts "}" | "(" alts ")" .
//
// STRING is a terminal in double quotes (Go's escapes) or single quotes (taken
// as written); NAME a nonterminal, defined by a rule anywhere in the file; '#'
// starts a comment to the end of the line. "@ w" gives an alternative the weight
// w > 0 (1 when absent); an empty alternative derives the empty string.
//
// A derivation of nonterminal X at depth d (the start symbol at depth 0, the
// nonterminals of an alternative of X at d + 1) picks one of X's alternatives
// with probability proportional to its weight and derives its items in order,
// concatenating their terminals: [ a ] is a with probability 1/2, else nothing;
// { a } is k ≥ 0 copies of a, k with probability 2^−(k+1) (mean 1); ( a ) is
// a. At depth d ≥ maxdepth the derivation is forced to end as soon as it can:
// it picks, by weight, among the alternatives of least height only, leaves out
// options and repetitions. The height h(X) — the least depth of a derivation
// tree of X — is the least fixpoint of
//
//	h(X) = 1 + min over X's alternatives of max over their items of h(item),
//
// with h(terminal) = h([…]) = h({…}) = 0 and h((…)) the least over its
// alternatives; a nonterminal whose height is infinite cannot end, and the
// grammar is refused naming it. A forced derivation of X ends within h(X)
// further levels.

// gkind is the kind of a grammar item.
type gkind uint8

const (
	gTerm  gkind = iota // a terminal
	gRef                // a nonterminal
	gOpt                // [ alts ]
	gRep                // { alts }
	gGroup              // ( alts )
)

// gitem is one item of an alternative.
type gitem struct {
	kind gkind
	text []byte // gTerm
	name string // gRef, as written
	ref  int    // gRef: the rule
	line int    // gRef: where it is named
	alts []*galt
}

// galt is one alternative: items with a weight.
type galt struct {
	items []*gitem
	w     float64
	h     int // height: the max of its items'
}

// grule is one rule of a grammar.
type grule struct {
	name string
	line int
	alts []*galt
	h    int // height; infinite: cannot end
}

// infHeight stands for an infinite height.
const infHeight = math.MaxInt32

// grammarGen draws grammar(file, start, maxdepth).
type grammarGen struct {
	rules    []*grule
	start    int
	maxDepth int
}

func (g *grammarGen) kind() Kind { return KindString }

func (g *grammarGen) draw(s *Sample, v *Value) error {
	steps := 0
	out, err := g.derive(g.rules[g.start].alts, 0, v.Bytes[:0], s, &steps)
	v.Bytes = out
	if err != nil {
		return fmt.Errorf("dist: trial %d: input %s: %v", s.Trial, s.model.Inputs[s.cur].Name, err)
	}
	return nil
}

// maxSteps bounds the alternatives one derivation may expand: a grammar of
// empty strings can grow a huge tree that the output's length does not bound.
const maxSteps = 1 << 24

// derive appends a derivation of one of alts at depth; *steps counts the
// alternatives expanded.
func (g *grammarGen) derive(alts []*galt, depth int, out []byte, s *Sample, steps *int) ([]byte, error) {
	if *steps++; *steps > maxSteps {
		return out, fmt.Errorf("derivation expands more than %d alternatives (lower maxdepth)", maxSteps)
	}
	a := g.pick(alts, depth >= g.maxDepth, s)
	for _, it := range a.items {
		var err error
		switch it.kind {
		case gTerm:
			out = append(out, it.text...)
		case gRef:
			out, err = g.derive(g.rules[it.ref].alts, depth+1, out, s, steps)
		case gGroup:
			out, err = g.derive(it.alts, depth, out, s, steps)
		case gOpt:
			if depth < g.maxDepth && s.rng.IntN(2) == 1 {
				out, err = g.derive(it.alts, depth, out, s, steps)
			}
		case gRep:
			for depth < g.maxDepth && s.rng.IntN(2) == 1 && err == nil {
				out, err = g.derive(it.alts, depth, out, s, steps)
			}
		}
		if err != nil {
			return out, err
		}
		if len(out) > s.model.maxLen {
			return out, fmt.Errorf("derivation longer than %d bytes", s.model.maxLen)
		}
	}
	return out, nil
}

// pick draws an alternative by weight; forced, among those of least height.
func (g *grammarGen) pick(alts []*galt, forced bool, s *Sample) *galt {
	least := infHeight
	if forced {
		for _, a := range alts {
			least = min(least, a.h)
		}
	}
	total := 0.0
	for _, a := range alts {
		if a.h <= least {
			total += a.w
		}
	}
	u := s.rng.Float64() * total
	var last *galt
	for _, a := range alts {
		if a.h > least {
			continue
		}
		last = a
		if u -= a.w; u < 0 {
			return a
		}
	}
	return last
}

// grammar compiles grammar("file", start, maxdepth).
func (c *compiler) grammar(x *call) (compiled, *Error) {
	s, err := c.quotedArg(x, `grammar("sql.ebnf", query, 12)`)
	if err != nil {
		return compiled{}, err
	}
	var start string
	switch a := x.args[1].(type) {
	case *nameRef:
		start = a.name
	case *strLit:
		start = a.val
	default:
		return compiled{}, c.errAt(a.exprPos(), "", "grammar needs a start symbol, a rule's name, got %s", describe(a))
	}
	depth, err := c.integer(x, 2)
	if err != nil {
		return compiled{}, err
	}
	if depth.i < 0 || depth.i > 10000 {
		return compiled{}, c.errAt(depth.p, "", "grammar needs maxdepth in [0, 10000], got %s", depth.text)
	}
	data, _, err := c.readData(x, s)
	if err != nil {
		return compiled{}, err
	}
	rules, perr := parseGrammar(string(data))
	if perr != "" {
		return compiled{}, c.errAt(s.p, "", "grammar %s: %s", strconv.Quote(s.val), perr)
	}
	g := &grammarGen{rules: rules, start: -1, maxDepth: int(depth.i)}
	var names []string
	for k, r := range rules {
		names = append(names, r.name)
		if r.name == start {
			g.start = k
		}
	}
	if g.start < 0 {
		return compiled{}, c.errAt(x.args[1].exprPos(), didYouMean(start, names), "grammar %s has no rule '%s'", strconv.Quote(s.val), start)
	}
	return compiled{g: g}, nil
}

// parseGrammar parses a grammar file, resolves its names and computes the
// heights; the error is "LINE:COL: message".
func parseGrammar(src string) ([]*grule, string) {
	p := &gparser{src: src, line: 1}
	var rules []*grule
	index := map[string]int{}
	for p.skip(); p.off < len(p.src); p.skip() {
		line, col := p.line, p.col()
		name := p.ident()
		if name == "" {
			return nil, p.errf("expected a rule name")
		}
		if _, dup := index[name]; dup {
			return nil, fmt.Sprintf("%d:%d: rule '%s' defined twice (first at line %d)", line, col, name, rules[index[name]].line)
		}
		p.skip()
		if !p.eat('=') {
			return nil, p.errf("expected '=' after '%s'", name)
		}
		alts, msg := p.alts()
		if msg != "" {
			return nil, msg
		}
		if !p.eat(';') {
			return nil, p.errf("expected ';' at the end of rule '%s'", name)
		}
		index[name] = len(rules)
		rules = append(rules, &grule{name: name, line: line, alts: alts, h: infHeight})
	}
	if len(rules) == 0 {
		return nil, "holds no rule"
	}
	var msg string
	for _, r := range rules {
		walkRefs(r.alts, func(it *gitem) {
			k, ok := index[it.name]
			if !ok && msg == "" {
				msg = fmt.Sprintf("line %d: rule '%s' names '%s', which no rule defines", it.line, r.name, it.name)
			}
			it.ref = k
		})
	}
	if msg != "" {
		return nil, msg
	}
	// Heights by fixpoint iteration: each pass can only lower them.
	for changed := true; changed; {
		changed = false
		for _, r := range rules {
			if h := altsHeight(r.alts, rules); h < infHeight && h+1 < r.h {
				r.h, changed = h+1, true
			}
		}
	}
	for _, r := range rules {
		if r.h == infHeight {
			return nil, fmt.Sprintf("line %d: rule '%s' cannot end: each of its derivations names a rule that cannot end (give it an alternative without such a rule)", r.line, r.name)
		}
		altsHeight(r.alts, rules) // sets the alternatives' final heights
	}
	return rules, ""
}

// altsHeight sets the height of each of alts from the rules' current heights
// and returns the least.
func altsHeight(alts []*galt, rules []*grule) int {
	least := infHeight
	for _, a := range alts {
		a.h = 0
		for _, it := range a.items {
			var h int
			switch it.kind {
			case gRef:
				h = rules[it.ref].h
			case gGroup:
				h = altsHeight(it.alts, rules)
			case gOpt, gRep:
				altsHeight(it.alts, rules)
			}
			a.h = max(a.h, h)
		}
		least = min(least, a.h)
	}
	return least
}

// walkRefs calls f on every nonterminal item of alts.
func walkRefs(alts []*galt, f func(*gitem)) {
	for _, a := range alts {
		for _, it := range a.items {
			if it.kind == gRef {
				f(it)
			}
			walkRefs(it.alts, f)
		}
	}
}

// gparser scans a grammar file.
type gparser struct {
	src       string
	off       int
	line      int
	lineStart int
	depth     int
}

func (p *gparser) col() int { return utf8.RuneCountInString(p.src[p.lineStart:p.off]) + 1 }

func (p *gparser) errf(format string, args ...any) string {
	got := "end of file"
	if p.off < len(p.src) {
		r, _ := utf8.DecodeRuneInString(p.src[p.off:])
		got = strconv.QuoteRune(r)
	}
	return fmt.Sprintf("%d:%d: %s, got %s", p.line, p.col(), fmt.Sprintf(format, args...), got)
}

// skip skips white space and comments.
func (p *gparser) skip() {
	for p.off < len(p.src) {
		switch c := p.src[p.off]; {
		case c == '\n':
			p.off++
			p.line++
			p.lineStart = p.off
		case c == ' ' || c == '\t' || c == '\r':
			p.off++
		case c == '#':
			for p.off < len(p.src) && p.src[p.off] != '\n' {
				p.off++
			}
		default:
			return
		}
	}
}

func (p *gparser) eat(c byte) bool {
	p.skip()
	if p.off < len(p.src) && p.src[p.off] == c {
		p.off++
		return true
	}
	return false
}

func (p *gparser) ident() string {
	start := p.off
	if p.off < len(p.src) && isIdentStart(p.src[p.off]) {
		for p.off < len(p.src) && isIdentChar(p.src[p.off]) {
			p.off++
		}
	}
	return p.src[start:p.off]
}

// alts parses alternatives up to a closing ';', ']', '}' or ')'.
func (p *gparser) alts() ([]*galt, string) {
	if p.depth++; p.depth > 100 {
		return nil, p.errf("brackets nested deeper than 100")
	}
	defer func() { p.depth-- }()
	var alts []*galt
	for {
		a, msg := p.alt()
		if msg != "" {
			return nil, msg
		}
		alts = append(alts, a)
		if !p.eat('|') {
			return alts, ""
		}
	}
}

// alt parses one alternative and its weight.
func (p *gparser) alt() (*galt, string) {
	a := &galt{w: 1}
	closers := map[byte]gkind{'[': gOpt, '{': gRep, '(': gGroup}
	ends := map[gkind]byte{gOpt: ']', gRep: '}', gGroup: ')'}
	for {
		p.skip()
		if p.off >= len(p.src) {
			return a, ""
		}
		c := p.src[p.off]
		switch {
		case c == '"' || c == '\'':
			text, msg := p.terminal()
			if msg != "" {
				return nil, msg
			}
			a.items = append(a.items, &gitem{kind: gTerm, text: []byte(text)})
		case isIdentStart(c):
			line := p.line
			a.items = append(a.items, &gitem{kind: gRef, name: p.ident(), line: line})
		case closers[c] != 0:
			k := closers[c]
			p.off++
			alts, msg := p.alts()
			if msg != "" {
				return nil, msg
			}
			if !p.eat(ends[k]) {
				return nil, p.errf("expected '%c'", ends[k])
			}
			a.items = append(a.items, &gitem{kind: k, alts: alts})
		case c == '@':
			p.off++
			p.skip()
			start := p.off
			for p.off < len(p.src) && (isDigit(p.src[p.off]) || p.src[p.off] == '.' || p.src[p.off] == 'e') {
				p.off++
			}
			w, err := strconv.ParseFloat(p.src[start:p.off], 64)
			if err != nil || !(w > 0) || math.IsInf(w, 0) {
				p.off = start
				return nil, p.errf("expected a weight > 0 after '@'")
			}
			a.w = w
			return a, ""
		default:
			return a, ""
		}
	}
}

// terminal scans a quoted terminal.
func (p *gparser) terminal() (string, string) {
	q := p.src[p.off]
	end := strings.IndexAny(p.src[p.off+1:], string(q)+"\n")
	if q == '"' {
		// Skip escaped quotes.
		i := p.off + 1
		for i < len(p.src) && p.src[i] != '"' && p.src[i] != '\n' {
			if p.src[i] == '\\' && i+1 < len(p.src) {
				i++
			}
			i++
		}
		end = i - p.off - 1
		if i >= len(p.src) || p.src[i] != '"' {
			end = -1
		}
	}
	if end < 0 || p.src[p.off+1+end] != q {
		return "", p.errf("unterminated terminal")
	}
	raw := p.src[p.off : p.off+end+2]
	p.off += end + 2
	if q == '\'' {
		return raw[1 : len(raw)-1], ""
	}
	s, err := strconv.Unquote(raw)
	if err != nil {
		p.off -= len(raw)
		return "", p.errf("invalid escape in terminal %s", raw)
	}
	return s, ""
}
