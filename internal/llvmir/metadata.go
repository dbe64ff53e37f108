// This file implements the metadata the reader resolves: DILocation, the scopes above
// it, and DIFile, so that instructions map to file:line:col.

package llvmir

import (
	"path/filepath"
	"strconv"
	"strings"
)

// An MDNode is a specialised metadata node such as !DILocation(line: 3, ...), whose
// top-level fields Field returns as raw text. Other nodes (tuples, strings) have
// Kind ""; a tuple of references, !{!1, !2}, has them in Elems. A node keeps its
// fields as the module's text and reads them when asked (a module with clang's -g
// information has a few hundred thousand nodes, most of which nobody asks about).
type MDNode struct {
	Distinct bool
	Kind     string // "DILocation", "DISubprogram", ...
	Elems    []int  // the metadata numbers of a tuple's elements (other elements: -1)
	body     string // a specialised node's text after its opening parenthesis
}

// Field returns the raw value of field k (`5`, `!17`, `"t.c"`), or "" if the node
// has no such field.
func (n *MDNode) Field(k string) string {
	body := n.body
	depth, start, inStr := 0, 0, false
	match := func(end int) (string, bool) {
		part := strings.TrimSpace(body[start:end])
		if len(part) > len(k)+1 && strings.HasPrefix(part, k) && part[len(k)] == ':' && part[len(k)+1] == ' ' {
			return part[len(k)+2:], true
		}
		return "", false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '(' || c == '{' || c == '[':
			depth++
		case c == ')' || c == '}' || c == ']':
			if depth == 0 {
				v, _ := match(i)
				return v
			}
			depth--
		case c == ',' && depth == 0:
			if v, ok := match(i); ok {
				return v
			}
			start = i + 1
		}
	}
	return ""
}

// Int returns field k as an integer (0 if absent or not a number).
func (n *MDNode) Int(k string) int {
	v, _ := strconv.Atoi(n.Field(k))
	return v
}

// Ref returns the metadata number field k refers to, or -1.
func (n *MDNode) Ref(k string) int {
	v := n.Field(k)
	if !strings.HasPrefix(v, "!") {
		return -1
	}
	r, err := strconv.Atoi(v[1:])
	if err != nil {
		return -1
	}
	return r
}

// Str returns field k as an unquoted string.
func (n *MDNode) Str(k string) string {
	s, _ := unquote(n.Field(k))
	return s
}

func parseMD(s string) *MDNode {
	n := &MDNode{}
	if strings.HasPrefix(s, "distinct ") {
		n.Distinct = true
		s = s[len("distinct "):]
	}
	if strings.HasPrefix(s, "!{") && strings.HasSuffix(s, "}") {
		for _, e := range strings.FieldsFunc(s[2:len(s)-1], func(r rune) bool { return r == ',' }) {
			r, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(e), "!"))
			if err != nil || !strings.HasPrefix(strings.TrimSpace(e), "!") {
				r = -1
			}
			n.Elems = append(n.Elems, r)
		}
		return n
	}
	if !strings.HasPrefix(s, "!DI") && !strings.HasPrefix(s, "!Gen") {
		return n
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return n
	}
	n.Kind = s[1:open]
	n.body = s[open+1:]
	return n
}

// Loc is a resolved source location.
type Loc struct {
	File string // as clang recorded it: the name given on its command line
	Dir  string // the compilation directory
	Line int
	Col  int
}

// Path returns File made absolute with Dir.
func (l Loc) Path() string {
	if l.File == "" || filepath.IsAbs(l.File) {
		return l.File
	}
	return filepath.Join(l.Dir, l.File)
}

// Location resolves the metadata number of a DILocation (an instruction's !dbg). The
// file comes from the nearest scope that names one. ok is false when id is not a
// DILocation.
func (m *Module) Location(id int) (Loc, bool) {
	n := m.Meta[id]
	if n == nil || n.Kind != "DILocation" {
		return Loc{}, false
	}
	l := Loc{Line: n.Int("line"), Col: n.Int("column")}
	l.File, l.Dir = m.scopeFile(n.Ref("scope"))
	l.File = m.asGiven(l)
	return l, true
}

// SetSource tells the module the name its main source file was given under on the
// command line. clang records a file under the compilation directory relative to it
// (and may spell it otherwise); locations in that file then report the name as given,
// as fragprof's reports promise.
func (m *Module) SetSource(given string) {
	if abs, err := filepath.Abs(given); err == nil {
		m.given, m.givenAbs = given, filepath.Clean(abs)
	}
}

// asGiven returns the name to report for the file of l.
func (m *Module) asGiven(l Loc) string {
	if m.given != "" && l.File != "" && filepath.Clean(l.Path()) == m.givenAbs {
		return m.given
	}
	return l.File
}

// Subprogram returns the name, file and line of a DISubprogram.
func (m *Module) Subprogram(id int) (name string, loc Loc, ok bool) {
	n := m.Meta[id]
	if n == nil || n.Kind != "DISubprogram" {
		return "", Loc{}, false
	}
	loc.Line = n.Int("line")
	loc.File, loc.Dir = m.fileOf(n)
	loc.File = m.asGiven(loc)
	return n.Str("name"), loc, true
}

// scopeFile follows scopes up from metadata id until one names a file.
func (m *Module) scopeFile(id int) (file, dir string) {
	for depth := 0; depth < 1000 && id >= 0; depth++ {
		n := m.Meta[id]
		if n == nil {
			return "", ""
		}
		if f, d := m.fileOf(n); f != "" {
			return f, d
		}
		id = n.Ref("scope")
	}
	return "", ""
}

func (m *Module) fileOf(n *MDNode) (file, dir string) {
	if n.Kind == "DIFile" {
		return n.Str("filename"), n.Str("directory")
	}
	if f := m.Meta[n.Ref("file")]; f != nil && f.Kind == "DIFile" {
		return f.Str("filename"), f.Str("directory")
	}
	return "", ""
}
