// This file implements the Model: parsing definitions, resolving the names
// they refer to, ordering them by dependency and compiling them.

package dist

import (
	"strings"
)

const (
	// MaxLen is the largest length of an array or string. A length that can
	// only exceed it is a parse error; a length drawn above it (from an
	// unbounded distribution such as poisson) is a Draw error.
	MaxLen = 1 << 24
	// MinRangeProb is the smallest probability a range "in [lo, hi]" may
	// have under the distribution it restricts. A range less likely than
	// that is almost surely a mistake (a wrong unit, a wrong sign), and
	// would be slow or imprecise to sample.
	MinRangeProb = 1e-9
)

// Options control parsing.
type Options struct {
	// Dir is the directory against which relative empirical("file") paths
	// are resolved; "" means the current directory. ParseFile sets it to
	// the model file's directory.
	Dir string
	// File names the text in error messages; "" for command-line text.
	File string
}

// Model is a parsed and checked set of input definitions, ready to draw.
// A Model is immutable and safe for concurrent use.
type Model struct {
	// Inputs are the inputs in definition order. They must not be modified.
	Inputs []Input

	defs   []*def
	index  map[string]int
	gens   []gen
	keys   []uint64 // stream keys
	order  []int    // a dependency order: every input after those it reads
	maxLen int
}

// Input describes one input of a Model.
type Input struct {
	Name string
	// Kind is the type of the input's values, known before any draw.
	Kind Kind
	// Dist is the definition in canonical form, e.g. "normal(0, 1) in
	// [-3.0, 3.0]": the form Model.String prints and Parse reads back.
	Dist string
	// Column, for a column of a rows() input, names that input; Dist then
	// describes the column, and String leaves the input out (reading the rows
	// definition back makes it again).
	Column string
	// Deps are the inputs whose values this one reads (an array's length,
	// a copied input), in the order they appear.
	Deps []string
	// File, Key, Line and Col say where the input was defined, as in Error.
	File string
	Key  string
	Line int
	Col  int
}

// Parse parses definition lines, "NAME = DIST [in [lo, hi]]", one per line
// (blank lines and # comments allowed), with relative empirical files
// resolved against the current directory. The error, if any, is an
// ErrorList.
func Parse(text string) (*Model, error) {
	return ParseOptions(text, Options{})
}

// ParseOptions is Parse with options.
func ParseOptions(text string, opt Options) (*Model, error) {
	p := newParser(text, origin{file: opt.File, dir: opt.Dir})
	defs := p.parseDefs()
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return link(defs)
}

// With returns a new model: m's definitions with those of text (lines as
// for Parse) put in: a definition of a name m has replaces it in place, a
// new name is added at the end. m is unchanged. This is how command-line
// --input lines override a model file.
func (m *Model) With(text string, opt Options) (*Model, error) {
	p := newParser(text, origin{file: opt.File, dir: opt.Dir})
	defs := p.parseDefs()
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	// Duplicates within text are reported by link; check them here first
	// so that replacing does not hide them.
	seen := map[string]*def{}
	var errs ErrorList
	for _, d := range defs {
		if first, ok := seen[d.name]; ok {
			errs = append(errs, duplicate(d, first))
		}
		seen[d.name] = d
	}
	if len(errs) > 0 {
		return nil, errs
	}
	merged := m.written()
	at := map[string]int{}
	for k, d := range merged {
		at[d.name] = k
	}
	for _, d := range defs {
		if k, ok := at[d.name]; ok {
			merged[k] = d
		} else {
			merged = append(merged, d)
		}
	}
	return link(merged)
}

// written returns m's definitions as written: without the columns of rows()
// inputs, which linking makes again from their files.
func (m *Model) written() []*def {
	var out []*def
	for _, d := range m.defs {
		if !d.column {
			out = append(out, d)
		}
	}
	return out
}

// Lookup returns the index in Inputs of the named input.
func (m *Model) Lookup(name string) (int, bool) {
	k, ok := m.index[name]
	return k, ok
}

// Names returns the input names in definition order.
func (m *Model) Names() []string {
	names := make([]string, len(m.Inputs))
	for k, in := range m.Inputs {
		names[k] = in.Name
	}
	return names
}

// String returns the model in canonical form, one "NAME = DIST" line per
// input in definition order; Parse reads it back to an equal model.
func (m *Model) String() string {
	var b strings.Builder
	for _, in := range m.Inputs {
		if in.Column != "" {
			continue // made again from the rows file
		}
		b.WriteString(in.Name)
		b.WriteString(" = ")
		b.WriteString(in.Dist)
		b.WriteByte('\n')
	}
	return b.String()
}

// duplicate returns the error for d defining a name first already defines.
func duplicate(d, first *def) *Error {
	where := posString(first.p)
	if first.org.file != d.org.file || first.org.key != d.org.key {
		switch {
		case first.org.key != "":
			where = first.org.key
			if first.org.file != "" {
				where = first.org.file + ": " + where
			}
		case first.org.file != "":
			where = first.org.file + ":" + where
		}
	}
	hint := "first defined at " + where
	if cr, ok := first.x.(*columnRef); ok {
		hint = "first defined as a column of rows input " + cr.row + " at " + where
	}
	return d.org.errorAt(d.p, hint, "duplicate input '%s'", d.name)
}

// link checks defs as a whole and compiles them into a Model: duplicate
// names, names that refer to no input, cycles of references, then each
// definition in dependency order. An input whose dependencies failed is
// not compiled, so one mistake gives one error.
func link(written []*def) (*Model, error) {
	defs, tables, errs := expandRows(written)
	if len(errs) > 0 {
		return nil, errs
	}
	m := &Model{
		defs:   defs,
		index:  make(map[string]int, len(defs)),
		maxLen: MaxLen,
	}
	for k, d := range defs {
		if first, ok := m.index[d.name]; ok {
			errs = append(errs, duplicate(d, defs[first]))
			continue
		}
		m.index[d.name] = k
	}
	if len(errs) > 0 {
		return nil, errs
	}
	names := make([]string, len(defs))
	for k, d := range defs {
		names[k] = d.name
	}

	// Resolve references.
	deps := make([][]int, len(defs))
	failed := make([]bool, len(defs))
	m.Inputs = make([]Input, len(defs))
	for k, d := range defs {
		in := &m.Inputs[k]
		*in = Input{Name: d.name, Dist: exprString(d.x), File: d.org.file, Key: d.org.key, Line: d.p.line, Col: d.p.col}
		if cr, ok := d.x.(*columnRef); ok {
			in.Column = cr.row
		}
		for _, r := range refs(d.x, true, nil) {
			j, ok := m.index[r.name]
			if !ok {
				errs = append(errs, d.org.errorAt(r.p, didYouMean(r.name, names), "unknown input '%s'", r.name))
				failed[k] = true
				continue
			}
			deps[k] = append(deps[k], j)
			in.Deps = append(in.Deps, r.name)
		}
	}

	// Order by dependency (depth-first post-order from each input in
	// definition order) and find cycles.
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(defs))
	var stack []int
	var visit func(k int)
	visit = func(k int) {
		color[k] = grey
		stack = append(stack, k)
		for _, j := range deps[k] {
			switch color[j] {
			case grey:
				i := len(stack) - 1
				for stack[i] != j {
					i--
				}
				cycle := stack[i:]
				path := make([]string, 0, len(cycle)+1)
				for _, c := range cycle {
					path = append(path, defs[c].name)
					failed[c] = true
				}
				path = append(path, defs[j].name)
				d := defs[j]
				errs = append(errs, d.org.errorAt(d.p, "", "input '%s' depends on itself: %s", d.name, strings.Join(path, " -> ")))
			case white:
				visit(j)
			}
			if failed[j] {
				failed[k] = true
			}
		}
		stack = stack[:len(stack)-1]
		color[k] = black
		m.order = append(m.order, k)
	}
	for k := range defs {
		if color[k] == white {
			visit(k)
		}
	}

	// Compile in dependency order.
	c := &compiler{m: m, files: map[string]*empirical{}, tables: tables}
	m.gens = make([]gen, len(defs))
	m.keys = make([]uint64, len(defs))
	cerrs := make([]*Error, len(defs))
	for _, k := range m.order {
		if failed[k] {
			continue
		}
		for _, j := range deps[k] {
			if m.gens[j] == nil {
				failed[k] = true
			}
		}
		if failed[k] {
			continue
		}
		d := defs[k]
		g, err := c.top(d)
		if err != nil {
			cerrs[k] = err
			continue
		}
		m.gens[k] = g
		m.keys[k] = streamKey(d.name)
		m.Inputs[k].Kind = g.kind()
	}
	// One population at most is stratified: the engine judges one set of strata.
	stratified := -1
	for k, g := range m.gens {
		if p := popOf(g); p != nil && p.strata != nil {
			if stratified >= 0 {
				d := defs[k]
				cerrs[k] = d.org.errorAt(d.p, "stratify one of them", "inputs %s and %s are both stratified populations", defs[stratified].name, d.name)
			}
			stratified = k
		}
	}
	// Report compile errors in definition order.
	for _, err := range cerrs {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return m, nil
}

// refs appends to list the input names x refers to where a name is allowed:
// the whole of a definition (a copy), and the length of an array or string.
func refs(x expr, top bool, list []*nameRef) []*nameRef {
	switch x := x.(type) {
	case *nameRef:
		if top {
			list = append(list, x)
		}
	case *columnRef:
		list = append(list, &nameRef{p: x.p, name: x.row})
	case *call:
		if (x.name == "array" || x.name == "string") && len(x.args) > 0 {
			list = refs(x.args[0], true, list)
		}
	}
	return list
}
