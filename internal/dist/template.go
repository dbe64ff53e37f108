// This file implements templates: text with {name} fields that a trial's
// values fill, rendered into the caller's buffer.

package dist

import (
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escapes selects how a template reads backslashes.
type Escapes uint8

const (
	// NoEscapes reads a backslash as itself. Model-file templates use it:
	// TOML has already decoded the escapes of its strings.
	NoEscapes Escapes = iota
	// BackslashEscapes decodes \n (newline), \t (tab), \r (carriage
	// return), \0 (NUL), \\ (backslash), \" and \' (quotes) and \xHH (the
	// byte HH, two hex digits); any other backslash is an error.
	// Command-line templates use it, since a shell passes '{ask}\n' with a
	// literal backslash.
	BackslashEscapes
)

// String returns the mode's name.
func (e Escapes) String() string {
	if e == BackslashEscapes {
		return "backslash escapes"
	}
	return "no escapes"
}

// Template is text with fields that a trial's values fill:
//
//	{name}          the value of input name in its default form (Value.AppendText):
//	                an array as its elements separated by single spaces
//	{name:%.3f}     the value formatted by a printf verb, an array element by element
//	{{ and }}       a literal { and }
//
// A file("glob") input has its own fields: {f} and {f:path} the file's absolute
// path, {f:name} its last element, {f:size} its size in bytes, {f:contents} its
// bytes.
//
// A format is one verb with optional flags, width and precision,
// %[+- #0][width][.prec]verb (width at most 1000, precision at most 100), and the
// verb must suit the input's kind:
// for an int d v x X o b or (converted to float) e E f F g G; for a float
// e E f F g G v; for a string s q v x X. A Template is parsed against a
// Model, so unknown names and unsuitable verbs are errors before any trial
// runs. A Template is immutable and safe for concurrent use.
type Template struct {
	text  string
	model *Model
	parts []tmplPart
	tail  []byte // literal text after the last field
	names []string
}

// tmplPart is literal text followed by a field.
type tmplPart struct {
	lit  []byte
	in   int // index of the input
	f    *format
	file *fileGen // the input's generator when it is a file() input
	part filePart
}

// filePart is what a field of a file() input shows.
type filePart int8

const (
	filePath     filePart = iota // {f}, {f:path}: the absolute path
	fileName                     // {f:name}: the last element of the path
	fileSize                     // {f:size}: the size in bytes, in decimal
	fileContents                 // {f:contents}: the bytes of the file
)

// filePartOf returns the part spec names, or -1.
func filePartOf(spec string) filePart {
	for p, n := range []string{"path", "name", "size", "contents"} {
		if spec == n {
			return filePart(p)
		}
	}
	return -1
}

// appendFilePart appends part p of the file v holds.
func appendFilePart(dst []byte, g *fileGen, p filePart, v *Value) []byte {
	switch p {
	case fileName:
		return append(dst, filepath.Base(g.paths[v.Int])...)
	case fileSize:
		return strconv.AppendInt(dst, int64(len(v.Bytes)), 10)
	case fileContents:
		return append(dst, v.Bytes...)
	}
	return append(dst, g.paths[v.Int]...)
}

// ParseTemplate parses text as a template of m's inputs, reading
// backslashes as esc says. The error, if any, is an *Error whose Line and
// Col point into text.
func ParseTemplate(text string, m *Model, esc Escapes) (*Template, error) {
	t, err := parseTemplate(text, m, esc, origin{})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// tmplScanner walks a template's text, keeping the position for errors.
type tmplScanner struct {
	text      string
	off       int
	line      int
	lineStart int
}

func (s *tmplScanner) pos(off int) pos {
	return pos{s.line, utf8.RuneCountInString(s.text[s.lineStart:off]) + 1}
}

func parseTemplate(text string, m *Model, esc Escapes, org origin) (*Template, *Error) {
	t := &Template{text: text, model: m}
	sc := &tmplScanner{text: text, line: 1}
	var lit []byte
	seen := map[int]bool{}
	for sc.off < len(text) {
		c := text[sc.off]
		switch {
		case c == '\n':
			lit = append(lit, c)
			sc.off++
			sc.line++
			sc.lineStart = sc.off
		case c == '{' && strings.HasPrefix(text[sc.off:], "{{"):
			lit = append(lit, '{')
			sc.off += 2
		case c == '}' && strings.HasPrefix(text[sc.off:], "}}"):
			lit = append(lit, '}')
			sc.off += 2
		case c == '}':
			return nil, org.errorAt(sc.pos(sc.off), "write }} for a literal '}'", "single '}' in template")
		case c == '{':
			part, err := sc.field(m, org)
			if err != nil {
				return nil, err
			}
			part.lit = lit
			lit = nil
			t.parts = append(t.parts, part)
			if !seen[part.in] {
				seen[part.in] = true
				t.names = append(t.names, m.Inputs[part.in].Name)
			}
		case c == '\\' && esc == BackslashEscapes:
			b, err := sc.escape(org)
			if err != nil {
				return nil, err
			}
			lit = append(lit, b)
		default:
			lit = append(lit, c)
			sc.off++
		}
	}
	t.tail = lit
	return t, nil
}

// field parses {name} or {name:format} at sc.off.
func (sc *tmplScanner) field(m *Model, org origin) (tmplPart, *Error) {
	open := sc.off
	end := strings.IndexAny(sc.text[open+1:], "}\n")
	if end < 0 || sc.text[open+1+end] != '}' {
		return tmplPart{}, org.errorAt(sc.pos(open), "write {{ for a literal '{'", "unclosed '{' in template")
	}
	body := sc.text[open+1 : open+1+end]
	sc.off = open + end + 2
	name, spec, hasSpec := strings.Cut(body, ":")
	namePos := sc.pos(open + 1)
	switch {
	case name == "":
		return tmplPart{}, org.errorAt(namePos, "write {{ for a literal '{'", "empty field '{%s}' in template", body)
	case !isIdent(name):
		return tmplPart{}, org.errorAt(namePos, "", "bad input name '%s' in template", name)
	}
	k, ok := m.index[name]
	if !ok {
		return tmplPart{}, org.errorAt(namePos, didYouMean(name, m.Names()), "unknown input '%s' in template", name)
	}
	part := tmplPart{in: k}
	if g, ok := m.gens[k].(*fileGen); ok {
		part.file = g
		part.part = filePath
		if hasSpec {
			part.part = filePartOf(spec)
			if part.part < 0 {
				return tmplPart{}, org.errorAt(sc.pos(open+1+len(name)+1), "a file input's fields are {"+name+"}, {"+name+":path}, {"+name+":name}, {"+name+":size} and {"+name+":contents}", "unknown part '%s' of file input %s", spec, name)
			}
		}
		return part, nil
	}
	if hasSpec && filePartOf(spec) >= 0 {
		return tmplPart{}, org.errorAt(sc.pos(open+1+len(name)+1), "", "':%s' is a part of a file() input, but %s is %s", spec, name, m.Inputs[k].Dist)
	}
	if hasSpec {
		f, msg, hint := parseFormat(spec, m.Inputs[k])
		if msg != "" {
			return tmplPart{}, org.errorAt(sc.pos(open+1+len(name)+1), hint, "%s", msg)
		}
		part.f = f
	}
	return part, nil
}

// escape decodes the backslash escape at sc.off.
func (sc *tmplScanner) escape(org origin) (byte, *Error) {
	at := sc.off
	const hint = `escapes are \n \t \r \0 \\ \" \' \xHH`
	if at+1 >= len(sc.text) {
		return 0, org.errorAt(sc.pos(at), hint, "template ends with a lone '\\'")
	}
	sc.off += 2
	switch c := sc.text[at+1]; c {
	case 'n':
		return '\n', nil
	case 't':
		return '\t', nil
	case 'r':
		return '\r', nil
	case '0':
		return 0, nil
	case '\\', '"', '\'':
		return c, nil
	case 'x':
		if at+4 <= len(sc.text) && isHexDigit(sc.text[at+2]) && isHexDigit(sc.text[at+3]) {
			sc.off += 2
			return unhex(sc.text[at+2])<<4 | unhex(sc.text[at+3]), nil
		}
		return 0, org.errorAt(sc.pos(at), hint, "\\x needs two hex digits")
	}
	_, size := utf8.DecodeRuneInString(sc.text[at+1:])
	return 0, org.errorAt(sc.pos(at), hint, "unknown escape '\\%s' in template", sc.text[at+1:at+1+size])
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// String returns the template's text as written.
func (t *Template) String() string { return t.text }

// Names returns the inputs the template uses, in order of first use.
func (t *Template) Names() []string { return t.names }

// Append renders the template with the values of s, appending to dst, and
// returns the extended buffer, like strconv.AppendInt. With dst reused from
// trial to trial it allocates nothing for fields without a format or with a
// plain e, f, g or d verb. s must come from the Model the template was
// parsed against.
func (t *Template) Append(dst []byte, s *Sample) []byte {
	if s.model != t.model {
		panic("dist: Template.Append with a Sample of another Model")
	}
	for i := range t.parts {
		p := &t.parts[i]
		dst = append(dst, p.lit...)
		v := &s.Values[p.in]
		if p.file != nil {
			dst = appendFilePart(dst, p.file, p.part, v)
			continue
		}
		if p.f == nil {
			dst = v.AppendText(dst)
			continue
		}
		dst = p.f.appendValue(dst, v)
	}
	return append(dst, t.tail...)
}
