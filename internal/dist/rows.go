// This file implements rows("file.csv"): recorded calls, one row per trial,
// every column an input of its own.

package dist

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strconv"
	"strings"
)

// table is a CSV file read for rows(): its columns, each of one kind.
type table struct {
	cols   []column
	rows   int
	digest string
}

// column is one column of a table: its name, kind and values (ints, floats or
// strs, by kind).
type column struct {
	name   string
	kind   Kind
	ints   []int64
	floats []float64
	strs   [][]byte
}

// readTable reads the CSV file of rows(s): a header of column names, each an
// input name optionally followed by ":int", ":float" or ":string", then one
// record per row with as many fields. A column without a declared kind is int
// when every cell is an integer, float when every cell is a number, else
// string; a declared kind makes a cell that is not of it an error.
func (c *compiler) readTable(x *call, s *strLit) (*table, *Error) {
	data, digest, err := c.readData(x, s)
	if err != nil {
		return nil, err
	}
	name := strconv.Quote(s.val)
	bad := func(hint, format string, args ...any) *Error {
		return c.errAt(s.p, hint, "rows file %s, %s", name, sprintf(format, args...))
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = false
	records, rerr := r.ReadAll()
	if rerr != nil {
		var pe *csv.ParseError
		if errors.As(rerr, &pe) {
			hint := ""
			if errors.Is(pe.Err, csv.ErrFieldCount) {
				hint = "every row needs one field per column of the header"
			}
			return nil, bad(hint, "line %d: %v", pe.Line, pe.Err)
		}
		return nil, bad("", "%v", rerr)
	}
	if len(records) < 2 {
		return nil, bad("the first line names the columns, then one row per line", "holds no rows")
	}
	t := &table{rows: len(records) - 1, digest: digest}
	declared := make([]bool, len(records[0]))
	seen := map[string]bool{}
	for j, h := range records[0] {
		h = strings.TrimSpace(h)
		nm, kind, hasKind := strings.Cut(h, ":")
		col := column{name: nm}
		if !isIdent(nm) || nm == "inf" {
			return nil, bad("column names are input names: a letter or '_', then letters, digits, '_'", "line 1: column %d's name %q is not an input name", j+1, nm)
		}
		if seen[nm] {
			return nil, bad("", "line 1: column '%s' appears twice", nm)
		}
		seen[nm] = true
		if hasKind {
			switch kind {
			case "int":
				col.kind = KindInt
			case "float":
				col.kind = KindFloat
			case "string":
				col.kind = KindString
			default:
				return nil, bad("the kinds are int, float and string", "line 1: unknown kind '%s' of column '%s'", kind, nm)
			}
			declared[j] = true
		}
		t.cols = append(t.cols, col)
	}
	for j := range t.cols {
		col := &t.cols[j]
		if !declared[j] {
			col.kind = inferKind(records[1:], j)
		}
		for i, rec := range records[1:] {
			cell := rec[j]
			switch col.kind {
			case KindString:
				col.strs = append(col.strs, []byte(cell))
				continue
			}
			n, ok := parseDataNumber(strings.TrimSpace(cell))
			if !ok || col.kind == KindInt && !n.isInt {
				return nil, bad("the column's declared kind is "+col.kind.String(), "line %d: column '%s': %q is not %s", i+2, col.name, cell, col.kind.article())
			}
			col.ints = append(col.ints, n.i)
			col.floats = append(col.floats, n.f)
		}
	}
	return t, nil
}

// inferKind returns the kind of column j of records: int when every cell is
// an integer, float when every cell is a number, else string.
func inferKind(records [][]string, j int) Kind {
	k := KindInt
	for _, rec := range records {
		cell := strings.TrimSpace(rec[j])
		if cell == "" {
			return KindString
		}
		n, ok := parseDataNumber(cell)
		switch {
		case !ok:
			return KindString
		case !n.isInt:
			k = KindFloat
		}
	}
	return k
}

// rowGen draws the row of rows("file"): its value is the row's number, 1 for
// the first row after the header.
type rowGen struct {
	pop population
	t   *table
}

func (g *rowGen) kind() Kind { return KindInt }

func (g *rowGen) draw(s *Sample, v *Value) error {
	i, err := g.pop.index(s)
	if err != nil {
		return err
	}
	v.Int = int64(i) + 1
	return nil
}

// columnGen reads one column of the row its rows input drew.
type columnGen struct {
	row int // index of the rows input
	col *column
}

func (g *columnGen) kind() Kind { return g.col.kind }

func (g *columnGen) draw(s *Sample, v *Value) error {
	i := s.Values[g.row].Int - 1
	switch g.col.kind {
	case KindInt:
		v.Int = g.col.ints[i]
	case KindFloat:
		v.Float = g.col.floats[i]
	default:
		v.Bytes = append(v.Bytes[:0], g.col.strs[i]...)
	}
	return nil
}

// rows compiles rows("file"), whose table link has read.
func (c *compiler) rows(x *call) (compiled, *Error) {
	t := c.tables[x]
	s, err := c.quotedArg(x, `rows("calls.csv")`)
	if err != nil || t == nil {
		return compiled{}, err
	}
	for _, o := range x.weights {
		if opt, ok := o.(*option); ok && opt.name == "weight" {
			return compiled{}, c.errAt(opt.p, `write rows("calls.csv"; strata = COLUMN, alloc = neyman)`, "rows takes no option 'weight'")
		}
	}
	st, err := c.strataOptions(x, `rows("calls.csv"; strata = COLUMN, alloc = neyman)`, func(opt *option) (*stratified, *Error) {
		return c.rowStrata(opt, t)
	})
	if err != nil {
		return compiled{}, err
	}
	return compiled{g: &rowGen{t: t, pop: population{n: t.rows, digest: t.digest, source: s.val, strata: st}}}, nil
}

// expandRows returns defs with, after each rows() definition, one definition
// per column of its file, and the tables read. A file that cannot be read is
// an error; its columns are then missing.
func expandRows(defs []*def) ([]*def, map[*call]*table, ErrorList) {
	tables := map[*call]*table{}
	var out []*def
	var errs ErrorList
	for _, d := range defs {
		out = append(out, d)
		x, ok := d.x.(*call)
		if !ok || x.name != "rows" || len(x.args) != 1 {
			continue
		}
		c := &compiler{org: d.org}
		s, err := c.quotedArg(x, `rows("calls.csv")`)
		if err != nil {
			continue // compile reports it
		}
		t, err := c.readTable(x, s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tables[x] = t
		for j := range t.cols {
			out = append(out, &def{name: t.cols[j].name, p: d.p, org: d.org, column: true,
				x: &columnRef{p: d.p, row: d.name, col: &t.cols[j]}})
		}
	}
	return out, tables, errs
}
