// This file defines the typed errors of the input language.

package dist

import (
	"strconv"
	"strings"
)

// Error is one error in input-language text: a definition line, a model-file
// value or a template.
//
// Line and Col (1-based; Col counts characters, not bytes) locate the
// offending character within the text that was parsed: for text given to
// Parse, line N is the text's N-th line; for a value in a model file (Key
// set), they count within that value's string. FileLine, when known, is the
// model-file line holding Key. A zero Line means the error has no position
// inside an expression (a missing file, an unknown model-file key).
type Error struct {
	File     string // model file or other named source; "" for command-line text
	Key      string // model-file key holding the text, e.g. "inputs.ask"; "" if none
	FileLine int    // line of Key in File, 0 if unknown
	Line     int
	Col      int
	Msg      string // what is wrong, e.g. "unknown distribution 'unifrom'"
	Hint     string // a suggestion, e.g. "did you mean 'uniform'?"; may be ""
}

// Error formats the error as
//
//	MSG at LINE:COL (HINT)                        text without a file name
//	FILE:LINE:COL: MSG (HINT)                     a named text file
//	FILE:FILELINE: KEY: MSG at LINE:COL (HINT)    a value in a model file
//
// leaving out the parts that are unknown.
func (e *Error) Error() string {
	var b strings.Builder
	pos := ""
	if e.Line > 0 {
		pos = strconv.Itoa(e.Line) + ":" + strconv.Itoa(e.Col)
	}
	switch {
	case e.File != "" && e.Key == "":
		b.WriteString(e.File)
		if pos != "" {
			b.WriteString(":" + pos)
		} else if e.FileLine > 0 {
			b.WriteString(":" + strconv.Itoa(e.FileLine))
		}
		b.WriteString(": ")
		b.WriteString(e.Msg)
	case e.Key != "":
		if e.File != "" {
			b.WriteString(e.File)
			if e.FileLine > 0 {
				b.WriteString(":" + strconv.Itoa(e.FileLine))
			}
			b.WriteString(": ")
		}
		b.WriteString(e.Key + ": " + e.Msg)
		if pos != "" {
			b.WriteString(" at " + pos)
		}
	default:
		b.WriteString(e.Msg)
		if pos != "" {
			b.WriteString(" at " + pos)
		}
	}
	if e.Hint != "" {
		b.WriteString(" (" + e.Hint + ")")
	}
	return b.String()
}

// ErrorList is the list of errors found in one parse, in the order found
// (by line, then by definition). Parsing goes on after an error so that one
// run reports every independent mistake.
type ErrorList []*Error

// Error returns the errors one per line.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the errors so that errors.As finds the first *Error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// err returns the list as an error: nil when empty.
func (l ErrorList) err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// origin says where a piece of input-language text came from; errors made
// while parsing it carry it.
type origin struct {
	file     string
	key      string
	fileLine int
	dir      string // where its relative empirical files are
}

// errorAt returns an error at p in text from o.
func (o origin) errorAt(p pos, hint, format string, args ...any) *Error {
	return &Error{File: o.file, Key: o.key, FileLine: o.fileLine, Line: p.line, Col: p.col, Msg: sprintf(format, args...), Hint: hint}
}
