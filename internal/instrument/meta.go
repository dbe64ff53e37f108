// This file encodes a unit's CFG and counter plan into the metadata blob the binary
// carries, and decodes it back.

package instrument

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"

	"github.com/fragprof/fragprof/cfg"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The blob is compact JSON compressed with zlib (RFC 1950); docs/runtime.md documents
// it. Compression takes sqlite3.c's blob from 6.2 MB to 1.1 MB: the binary carries
// it, every dump written outside the fork server copies it, and the instrumented
// IR spells it out as an escaped string (8.1 MB of text, 2.4 MB compressed).
// Blobs of fragprof before compression (plain JSON, starting with '{') still read.
type metaUnit struct {
	Version int        `json:"v"`
	Source  string     `json:"src"`
	Scheme  string     `json:"scheme"`
	Mem     bool       `json:"mem,omitempty"` // Unit.InMemory
	Funcs   []metaFunc `json:"funcs"`
	// Promoted: some counters live in locals inside loops (Unit.Promoted).
	Promoted bool `json:"promoted,omitempty"`
}

type metaFunc struct {
	Name     string      `json:"name"`
	File     string      `json:"file"`
	Line     int         `json:"line"`
	Blocks   []metaBlock `json:"blocks"`
	Edges    []metaEdge  `json:"edges"`              // from, to, kind, case
	Counters [][3]int    `json:"counters"`           // block, edge, place
	Scheme   string      `json:"scheme,omitempty"`   // when it differs from the unit's
	Fallback string      `json:"fallback,omitempty"` // why
	Exits    []int       `json:"exits,omitempty"`    // chords: blocks joined to the virtual exit
	Setjmp   bool        `json:"setjmp,omitempty"`
	Shared   bool        `json:"shared,omitempty"` // linkonce/weak/COMDAT: counts add up across units
}

type metaBlock struct {
	Label  string   `json:"l"`
	Start  metaPos  `json:"s"` // file, line, col
	End    metaPos  `json:"e"`
	Lines  []int    `json:"ln,omitempty"`
	Instrs int      `json:"n"`
	Calls  []string `json:"c,omitempty"` // cfg.Block.Calls; absent in blobs of fragprof before call edges
}

// Encode returns the unit's metadata blob.
func (u *Unit) Encode() ([]byte, error) {
	mu := metaUnit{Version: FormatVersion, Source: u.Source, Scheme: u.Scheme.String(), Mem: u.InMemory, Promoted: u.Promoted}
	for _, p := range u.Funcs {
		f := p.Func
		mf := metaFunc{Name: f.Name, File: f.File, Line: f.Line}
		for _, b := range f.Blocks {
			mf.Blocks = append(mf.Blocks, metaBlock{
				Label:  b.Label,
				Start:  metaPos(b.Start),
				End:    metaPos(b.End),
				Lines:  b.Lines,
				Instrs: b.Instrs,
				Calls:  b.Calls,
			})
		}
		for _, e := range f.Edges {
			mf.Edges = append(mf.Edges, metaEdge{e.From.ID, e.To.ID, e.Kind.String(), e.Case})
		}
		for _, c := range p.Counters {
			mf.Counters = append(mf.Counters, [3]int{c.Block, c.Edge, int(c.Place)})
		}
		if p.Scheme != u.Scheme {
			mf.Scheme = p.Scheme.String()
		}
		mf.Fallback, mf.Exits, mf.Setjmp, mf.Shared = p.Fallback, p.Exits, f.ReturnsTwice, p.Shared
		mu.Funcs = append(mu.Funcs, mf)
	}
	js, err := json.Marshal(mu)
	if err != nil {
		return nil, err
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if _, err := w.Write(js); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// inflate returns a blob's JSON: the blob itself when it is plain JSON (fragprof
// before compression), else its zlib stream decompressed.
func inflate(blob []byte) ([]byte, error) {
	if len(blob) > 0 && blob[0] == '{' {
		return blob, nil
	}
	r, err := zlib.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// JSON metadata compresses about 6:1 (sqlite3.c's: 6.2 MB in 1.1 MB); reading into
	// room for 8:1 spares io.ReadAll's regrowing copies (sqlite3.c's blob decoded in
	// 95 ms instead of 99, best of 8, a diagnosis).
	out := bytes.NewBuffer(make([]byte, 0, 8*len(blob)+512))
	if _, err := out.ReadFrom(r); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// Decode reads a metadata blob back into a unit whose plans can Reconstruct counts.
func Decode(blob []byte) (*Unit, error) {
	js, err := inflate(blob)
	if err != nil {
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
	}
	var mu metaUnit
	if err := jsonv2.Unmarshal(js, &mu); err != nil {
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
	}
	if mu.Version != FormatVersion {
		return nil, fmt.Errorf("fragprof metadata version %d, this fragprof reads version %d: rebuild the program", mu.Version, FormatVersion)
	}
	s, err := ParseScheme(mu.Scheme)
	if err != nil {
		return nil, err
	}
	u := &Unit{Source: mu.Source, Scheme: s, InMemory: mu.Mem, Promoted: mu.Promoted}
	for _, mf := range mu.Funcs {
		f := &cfg.Func{Name: mf.Name, File: mf.File, Line: mf.Line, ReturnsTwice: mf.Setjmp}
		for _, mb := range mf.Blocks {
			b := f.AddBlock(mb.Label)
			b.Start, b.End = cfg.Pos(mb.Start), cfg.Pos(mb.End)
			b.Lines, b.Instrs, b.Calls = mb.Lines, mb.Instrs, mb.Calls
		}
		for _, me := range mf.Edges {
			if me.From < 0 || me.From >= len(f.Blocks) || me.To < 0 || me.To >= len(f.Blocks) {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: edge %v", mf.Name, me)
			}
			k, err := cfg.ParseEdgeKind(me.Kind)
			if err != nil {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: %v", mf.Name, err)
			}
			f.AddEdge(f.Blocks[me.From], f.Blocks[me.To], k, me.Case)
		}
		if err := f.Check(); err != nil {
			return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
		}
		p := &FuncPlan{Func: f, Scheme: s, Fallback: mf.Fallback, Shared: mf.Shared}
		if mf.Scheme != "" {
			if p.Scheme, err = ParseScheme(mf.Scheme); err != nil {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: %v", mf.Name, err)
			}
		}
		for _, b := range mf.Exits {
			if b < 0 || b >= len(f.Blocks) {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: exit block %d", mf.Name, b)
			}
		}
		p.Exits = mf.Exits
		for _, mc := range mf.Counters {
			if mc[0] >= len(f.Blocks) || mc[1] >= len(f.Edges) || (mc[0] < 0) == (mc[1] < 0) {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: counter %v", mf.Name, mc)
			}
			p.Counters = append(p.Counters, Counter{Block: mc[0], Edge: mc[1], Place: Place(mc[2])})
		}
		u.Funcs = append(u.Funcs, p)
	}
	return u, nil
}

// metaPos is a source position, written [file, line, col].
type metaPos cfg.Pos

// metaEdge is an edge, written [from, to, kind, case].
type metaEdge struct {
	From, To   int
	Kind, Case string
}

func (p metaPos) MarshalJSON() ([]byte, error) { return json.Marshal([3]any{p.File, p.Line, p.Col}) }

func (e metaEdge) MarshalJSON() ([]byte, error) {
	return json.Marshal([4]any{e.From, e.To, e.Kind, e.Case})
}

// UnmarshalJSONFrom reads [file, line, col] token by token: a sqlite3.c blob holds
// 140,000 positions, and decoding each as an array of interfaces was most of the
// blob's decoding time.
func (p *metaPos) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return readTuple(d, &p.File, &p.Line, &p.Col)
}

// UnmarshalJSONFrom reads [from, to, kind, case] token by token.
func (e *metaEdge) UnmarshalJSONFrom(d *jsontext.Decoder) error {
	return readTuple(d, &e.From, &e.To, &e.Kind, &e.Case)
}

// readTuple reads a JSON array whose elements are, in order, a string or an integer
// as fields says (*string, *int).
func readTuple(d *jsontext.Decoder, fields ...any) error {
	if t, err := d.ReadToken(); err != nil {
		return err
	} else if t.Kind() != '[' {
		return fmt.Errorf("want an array, got %v", t)
	}
	for _, f := range fields {
		t, err := d.ReadToken()
		if err != nil {
			return err
		}
		switch f := f.(type) {
		case *string:
			if t.Kind() != '"' {
				return fmt.Errorf("want a string, got %v", t)
			}
			*f = t.String()
		case *int:
			if t.Kind() != '0' {
				return fmt.Errorf("want a number, got %v", t)
			}
			*f = int(t.Int())
		}
	}
	if t, err := d.ReadToken(); err != nil {
		return err
	} else if t.Kind() != ']' {
		return fmt.Errorf("want the end of an array, got %v", t)
	}
	return nil
}
