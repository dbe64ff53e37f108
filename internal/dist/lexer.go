// This file implements the scanner of the input language.

package dist

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// pos is a 1-based line and column (in characters) within parsed text.
type pos struct{ line, col int }

// tokKind is the kind of a token.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tEOL             // a newline outside brackets
	tIdent           // name
	tNumber          // unsigned number literal
	tString          // double-quoted string literal
	tLParen          // (
	tRParen          // )
	tLBrack          // [
	tRBrack          // ]
	tComma           // ,
	tSemi            // ;
	tAssign          // =
	tMinus           // -
	tPlus            // +
	tIllegal         // a character or literal that cannot start a token
)

// token is one token with its position; for tString, val holds the
// unquoted string; for tIllegal, val holds the reason.
type token struct {
	kind tokKind
	text string
	val  string
	pos  pos
	off  int // byte offset of text in the source
}

// describe returns the token as messages quote it.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of input"
	case tEOL:
		return "end of line"
	case tString:
		if len(t.text) > 20 {
			return "string " + t.text[:17] + "..."
		}
		return "string " + t.text
	}
	return "'" + t.text + "'"
}

// lexer splits input-language text into tokens. Newlines inside parentheses
// or brackets are spaces, so a long definition may span lines there. A '#'
// starts a comment that runs to the end of the line.
type lexer struct {
	src       string
	off       int
	line      int
	lineStart int
	depth     int
}

func newLexer(src string) *lexer { return &lexer{src: src, line: 1} }

// posAt returns the position of byte offset off, which must be on the
// current line.
func (l *lexer) posAt(off int) pos {
	return pos{l.line, utf8.RuneCountInString(l.src[l.lineStart:off]) + 1}
}

// next returns the next token.
func (l *lexer) next() token {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			l.off++
			continue
		case c == '#':
			for l.off < len(l.src) && l.src[l.off] != '\n' {
				l.off++
			}
			continue
		case c == '\n':
			p := l.posAt(l.off)
			l.off++
			l.line++
			l.lineStart = l.off
			if l.depth > 0 {
				continue
			}
			return token{kind: tEOL, text: "\n", pos: p, off: l.off - 1}
		}
		break
	}
	if l.off >= len(l.src) {
		return token{kind: tEOF, pos: l.posAt(l.off), off: l.off}
	}
	start := l.off
	p := l.posAt(start)
	c := l.src[start]
	single := func(k tokKind) token {
		l.off++
		return token{kind: k, text: l.src[start:l.off], pos: p, off: start}
	}
	switch {
	case isIdentStart(c):
		for l.off < len(l.src) && isIdentChar(l.src[l.off]) {
			l.off++
		}
		return token{kind: tIdent, text: l.src[start:l.off], pos: p, off: start}
	case isDigit(c) || c == '.' && start+1 < len(l.src) && isDigit(l.src[start+1]):
		return l.number(start, p)
	case c == '"':
		return l.str(start, p)
	case c == '(':
		l.depth++
		return single(tLParen)
	case c == '[':
		l.depth++
		return single(tLBrack)
	case c == ')':
		l.depth = max(l.depth-1, 0)
		return single(tRParen)
	case c == ']':
		l.depth = max(l.depth-1, 0)
		return single(tRBrack)
	case c == ',':
		return single(tComma)
	case c == ';':
		return single(tSemi)
	case c == '=':
		return single(tAssign)
	case c == '-':
		return single(tMinus)
	case c == '+':
		return single(tPlus)
	}
	_, size := utf8.DecodeRuneInString(l.src[start:])
	l.off += size
	return token{kind: tIllegal, text: l.src[start:l.off], val: "unexpected character '" + l.src[start:l.off] + "'", pos: p, off: start}
}

// number scans a number literal: decimal digits with an optional fraction
// and exponent (1, 1.5, .5, 1e6, 2.5E-3) or a hexadecimal integer (0xff).
func (l *lexer) number(start int, p pos) token {
	s := l.src
	i := start
	if s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X') {
		i += 2
		for i < len(s) && isHexDigit(s[i]) {
			i++
		}
	} else {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
		if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
			j := i + 1
			if j < len(s) && (s[j] == '+' || s[j] == '-') {
				j++
			}
			if j < len(s) && isDigit(s[j]) {
				for j < len(s) && isDigit(s[j]) {
					j++
				}
				i = j
			}
		}
	}
	// A letter, digit or point glued to the literal makes it malformed.
	end := i
	for end < len(s) && (isIdentChar(s[end]) || s[end] == '.') {
		end++
	}
	l.off = end
	if end > i || i == start+2 && (s[start+1] == 'x' || s[start+1] == 'X') {
		return token{kind: tIllegal, text: s[start:end], val: "malformed number '" + s[start:end] + "'", pos: p, off: start}
	}
	return token{kind: tNumber, text: s[start:end], pos: p, off: start}
}

// str scans a double-quoted string with Go's escapes (\n, \t, \\, \", \xHH,
// \u1234, ...).
func (l *lexer) str(start int, p pos) token {
	s := l.src
	i := start + 1
	for i < len(s) && s[i] != '"' && s[i] != '\n' {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] != '\n' {
			i++
		}
		i++
	}
	if i >= len(s) || s[i] != '"' {
		l.off = i
		return token{kind: tIllegal, text: s[start:i], val: "unterminated string", pos: p, off: start}
	}
	l.off = i + 1
	text := s[start:l.off]
	v, err := strconv.Unquote(text)
	if err != nil {
		return token{kind: tIllegal, text: text, val: "invalid escape in string " + text, pos: p, off: start}
	}
	return token{kind: tString, text: text, val: v, pos: p, off: start}
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool   { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentChar(c byte) bool  { return isIdentStart(c) || isDigit(c) }

// isIdent reports whether s is a name: a letter or '_' followed by letters,
// digits and '_'.
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf || !isIdentChar(byte(r)) }) < 0
}
