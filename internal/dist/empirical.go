// This file implements empirical("file"): reading recorded values.

package dist

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// empirical is the content of one data file: its values, and whether all
// of them are integers (then the input is an Int).
type empirical struct {
	vals   []float64
	allInt bool
}

// empirical compiles empirical("file"): a draw is one of the file's values,
// each occurrence equally likely (so a value recorded twice is twice as
// likely). Values are separated by white space or newlines; '#' starts a
// comment that runs to the end of the line. A relative path is taken from
// the Options.Dir of the text that holds the definition.
func (c *compiler) empirical(x *call) (compiled, *Error) {
	s, ok := x.args[0].(*strLit)
	if !ok {
		return compiled{}, c.errAt(x.args[0].exprPos(), `for example empirical("sizes.txt")`, "empirical needs a quoted file name, got %s", describe(x.args[0]))
	}
	path := s.val
	if !filepath.IsAbs(path) && c.org.dir != "" {
		path = filepath.Join(c.org.dir, path)
	}
	e, ok := c.files[path]
	if !ok {
		var err *Error
		e, err = c.readEmpirical(s, path)
		if err != nil {
			return compiled{}, err
		}
		c.files[path] = e
	}
	k := KindFloat
	if e.allInt {
		k = KindInt
	}
	return compiled{sd: newFinite(k, e.vals, nil)}, nil
}

func (c *compiler) readEmpirical(s *strLit, path string) (*empirical, *Error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, c.errAt(s.p, "", "empirical: cannot read %s: %v", strconv.Quote(s.val), unwrapPath(err))
	}
	e := &empirical{allInt: true}
	for i, line := range strings.Split(string(data), "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		for _, f := range strings.Fields(line) {
			n, ok := parseDataNumber(f)
			if !ok {
				return nil, c.errAt(s.p, "", "empirical file %s, line %d: %q is not a number", strconv.Quote(s.val), i+1, f)
			}
			e.vals = append(e.vals, n.f)
			e.allInt = e.allInt && n.isInt
		}
	}
	if len(e.vals) == 0 {
		return nil, c.errAt(s.p, "", "empirical file %s holds no values", strconv.Quote(s.val))
	}
	return e, nil
}

// parseDataNumber parses one recorded value: a finite number literal of the
// language with an optional sign.
func parseDataNumber(f string) (*numLit, bool) {
	sign := ""
	if f[0] == '-' || f[0] == '+' {
		sign, f = f[:1], f[1:]
	}
	t := newLexer(f).next()
	if t.kind != tNumber || t.text != f {
		return nil, false
	}
	n, ok := parseNumber(pos{}, sign, f)
	return n, ok && !math.IsInf(n.f, 0)
}

// unwrapPath returns the cause of a *PathError, whose path the message
// already quotes.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
