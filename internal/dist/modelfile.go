// This file implements model files: TOML holding the inputs and the
// templates and seed a run of fragprof freq needs.

package dist

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// File is a parsed model file:
//
//	seed = 42                          # optional: the default seed
//	stdin = "{ask}\n"                  # optional: the program's stdin
//	args = ["-n", "{n}"]               # optional: argv[1:], one template each
//
//	[inputs]                           # the inputs, in order
//	ask = "uniform(100, 800)"          # a distribution, as after NAME = on a line
//	n = 5                              # a bare number is const(5)
//
//	[files]                            # optional: input files written per trial
//	"data.txt" = "{n}\n{a}\n"          # file name → template
//
// Templates in a model file take no backslash escapes of their own: TOML
// decodes them in "..." strings and keeps them in '...' strings. Any other
// key is an error.
type File struct {
	Path    string // as given to ParseFile; Options.File for ParseTOML
	Model   *Model
	Seed    uint64 // valid if HasSeed
	HasSeed bool
	Stdin   *Template // nil if absent
	Args    []*Template
	Files   []NamedTemplate // in file order

	data []byte
	opt  Options
	src  rawFile
}

// NamedTemplate is the template of one input file.
type NamedTemplate struct {
	Name     string
	Template *Template
}

// rawFile is a model file as TOML decodes it.
type rawFile struct {
	Seed   *int64            `toml:"seed"`
	Stdin  *string           `toml:"stdin"`
	Args   []string          `toml:"args"`
	Files  map[string]string `toml:"files"`
	Inputs map[string]any    `toml:"inputs"`
	order  []string          // input names in file order
	forder []string          // file names in file order
}

var fileKeys = []string{"seed", "stdin", "args", "inputs", "files"}

// ParseFile reads and parses the model file at path. Relative empirical
// files are taken from the model file's directory.
func ParseFile(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := ParseTOML(data, Options{Dir: filepath.Dir(path), File: path})
	if err != nil {
		return nil, err
	}
	f.Path = path
	return f, nil
}

// ParseTOML parses a model file's content. opt.File names it in errors.
// Errors are an ErrorList of *Error, each with the file, the key and the
// key's line, and the line and column inside the key's value.
func ParseTOML(data []byte, opt Options) (*File, error) {
	f := &File{Path: opt.File, data: data, opt: opt}
	md, err := toml.Decode(string(data), &f.src)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, ErrorList{{File: opt.File, Line: pe.Position.Line, Col: pe.Position.Col, Msg: pe.Message}}
		}
		return nil, ErrorList{{File: opt.File, Msg: strings.TrimPrefix(err.Error(), "toml: ")}}
	}
	var errs ErrorList
	for _, k := range md.Undecoded() {
		e := &Error{File: opt.File, FileLine: locateKey(data, k), Msg: "unknown key '" + k.String() + "'"}
		if len(k) == 1 {
			e.Hint = didYouMean(k[0], fileKeys)
		}
		errs = append(errs, e)
	}
	for _, k := range md.Keys() {
		switch {
		case len(k) == 2 && k[0] == "inputs":
			f.src.order = append(f.src.order, k[1])
		case len(k) == 2 && k[0] == "files":
			f.src.forder = append(f.src.forder, k[1])
		}
	}
	if f.src.Seed != nil {
		if *f.src.Seed < 0 {
			errs = append(errs, &Error{File: opt.File, Key: "seed", FileLine: locateKey(data, toml.Key{"seed"}), Msg: "seed must be >= 0, got " + strconv.FormatInt(*f.src.Seed, 10)})
		}
		f.Seed, f.HasSeed = uint64(*f.src.Seed), true
	}
	if len(errs) > 0 {
		return nil, errs
	}

	// Inputs.
	var defs []*def
	for _, name := range f.src.order {
		key := toml.Key{"inputs", name}
		org := origin{file: opt.File, key: key.String(), fileLine: locateKey(data, key), dir: opt.Dir}
		if !isIdent(name) || name == "inf" {
			errs = append(errs, &Error{File: opt.File, Key: org.key, FileLine: org.fileLine, Msg: "input name '" + name + "' is not a name (a letter or _ then letters, digits, _)"})
			continue
		}
		d := &def{name: name, p: pos{1, 1}, org: org}
		switch v := f.src.Inputs[name].(type) {
		case string:
			p := newParser(v, org)
			x, err := p.parseValue()
			if err != nil {
				errs = append(errs, err)
				continue
			}
			d.x = x
		case int64:
			d.x = &numLit{p: pos{1, 1}, text: strconv.FormatInt(v, 10), f: float64(v), i: v, isInt: true}
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				errs = append(errs, &Error{File: opt.File, Key: org.key, FileLine: org.fileLine, Msg: "a value must be finite"})
				continue
			}
			d.x = &numLit{p: pos{1, 1}, text: formatFloatLit(v), f: v}
		default:
			errs = append(errs, &Error{File: opt.File, Key: org.key, FileLine: org.fileLine, Msg: "an input must be a string holding a distribution, or a number", Hint: `for example ` + name + ` = "uniform(0, 1)"`})
			continue
		}
		defs = append(defs, d)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	m, err := link(defs)
	if err != nil {
		return nil, err
	}
	if err := f.bind(m); err != nil {
		return nil, err
	}
	return f, nil
}

// bind parses f's templates against m and makes m f's model.
func (f *File) bind(m *Model) error {
	f.Model = m
	f.Stdin, f.Args, f.Files = nil, nil, nil
	var errs ErrorList
	parse := func(key toml.Key, label, text string) *Template {
		org := origin{file: f.opt.File, key: label, fileLine: locateKey(f.data, key)}
		t, err := parseTemplate(text, m, NoEscapes, org)
		if err != nil {
			errs = append(errs, err)
		}
		return t
	}
	if f.src.Stdin != nil {
		f.Stdin = parse(toml.Key{"stdin"}, "stdin", *f.src.Stdin)
	}
	for i, a := range f.src.Args {
		f.Args = append(f.Args, parse(toml.Key{"args"}, "args["+strconv.Itoa(i)+"]", a))
	}
	for _, name := range f.src.forder {
		key := toml.Key{"files", name}
		f.Files = append(f.Files, NamedTemplate{name, parse(key, key.String(), f.src.Files[name])})
	}
	return errs.err()
}

// WithInputs returns a copy of f whose model is f.Model.With(text, opt)
// (command-line input lines replacing or adding to the file's) and whose
// templates are parsed again against it. f is unchanged.
func (f *File) WithInputs(text string, opt Options) (*File, error) {
	m, err := f.Model.With(text, opt)
	if err != nil {
		return nil, err
	}
	g := *f
	if err := g.bind(m); err != nil {
		return nil, err
	}
	return &g, nil
}

// locateKey returns the line of data that defines key, 0 if it cannot tell.
// It reads just enough TOML to know it: table headers, bare, quoted and
// dotted keys, and multi-line strings (skipped).
func locateKey(data []byte, key toml.Key) int {
	var table []string
	inMulti := ""
	for i, line := range strings.Split(string(data), "\n") {
		s := strings.TrimSpace(line)
		if inMulti != "" {
			if strings.Count(s, inMulti)%2 == 1 {
				inMulti = ""
			}
			continue
		}
		switch {
		case s == "" || s[0] == '#':
			continue
		case strings.HasPrefix(s, "[["):
			table, _ = splitKey(strings.TrimPrefix(s, "[["))
			continue
		case s[0] == '[':
			var ok bool
			table, ok = splitKey(s[1:])
			if ok && keyEqual(table, key) {
				return i + 1
			}
			continue
		}
		k, ok := splitKey(s)
		if !ok {
			continue
		}
		full := append(append([]string(nil), table...), k...)
		if keyEqual(full, key) {
			return i + 1
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(s, q)%2 == 1 {
				inMulti = q
			}
		}
	}
	return 0
}

func keyEqual(a []string, b toml.Key) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splitKey reads a dotted key at the start of s, up to '=' or ']'.
func splitKey(s string) ([]string, bool) {
	var parts []string
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, false
		}
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, false
			}
			part := s[1 : 1+end]
			if s[0] == '"' {
				if u, err := strconv.Unquote(s[:end+2]); err == nil {
					part = u
				}
			}
			parts = append(parts, part)
			s = s[end+2:]
		default:
			end := strings.IndexAny(s, " \t.=]")
			if end <= 0 {
				return nil, false
			}
			parts = append(parts, s[:end])
			s = s[end:]
		}
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return nil, false
		}
		switch s[0] {
		case '.':
			s = s[1:]
		case '=', ']':
			return parts, true
		default:
			return nil, false
		}
	}
}
