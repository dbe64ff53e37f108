// This file encodes a unit's CFG and counter plan into the metadata blob the binary
// carries, and decodes it back.

package instrument

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"fmt"
	"io"

	"github.com/fragprof/fragprof/cfg"
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
	Edges    [][4]any    `json:"edges"`              // from, to, kind, case
	Counters [][3]int    `json:"counters"`           // block, edge, place
	Scheme   string      `json:"scheme,omitempty"`   // when it differs from the unit's
	Fallback string      `json:"fallback,omitempty"` // why
	Exits    []int       `json:"exits,omitempty"`    // chords: blocks joined to the virtual exit
	Setjmp   bool        `json:"setjmp,omitempty"`
	Shared   bool        `json:"shared,omitempty"` // linkonce/weak/COMDAT: counts add up across units
}

type metaBlock struct {
	Label  string   `json:"l"`
	Start  [3]any   `json:"s"` // file, line, col
	End    [3]any   `json:"e"`
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
				Start:  [3]any{b.Start.File, b.Start.Line, b.Start.Col},
				End:    [3]any{b.End.File, b.End.Line, b.End.Col},
				Lines:  b.Lines,
				Instrs: b.Instrs,
				Calls:  b.Calls,
			})
		}
		for _, e := range f.Edges {
			mf.Edges = append(mf.Edges, [4]any{e.From.ID, e.To.ID, e.Kind.String(), e.Case})
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
	return io.ReadAll(r)
}

// Decode reads a metadata blob back into a unit whose plans can Reconstruct counts.
func Decode(blob []byte) (*Unit, error) {
	js, err := inflate(blob)
	if err != nil {
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
	}
	var mu metaUnit
	if err := json.Unmarshal(js, &mu); err != nil {
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
			b.Start, b.End = pos(mb.Start), pos(mb.End)
			b.Lines, b.Instrs, b.Calls = mb.Lines, mb.Instrs, mb.Calls
		}
		for _, me := range mf.Edges {
			from, to := toInt(me[0]), toInt(me[1])
			if from < 0 || from >= len(f.Blocks) || to < 0 || to >= len(f.Blocks) {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: edge %v", mf.Name, me)
			}
			ks, _ := me[2].(string)
			k, err := cfg.ParseEdgeKind(ks)
			if err != nil {
				return nil, fmt.Errorf("corrupt fragprof metadata: function %s: %v", mf.Name, err)
			}
			c, _ := me[3].(string)
			f.AddEdge(f.Blocks[from], f.Blocks[to], k, c)
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

func pos(a [3]any) cfg.Pos {
	f, _ := a[0].(string)
	return cfg.Pos{File: f, Line: toInt(a[1]), Col: toInt(a[2])}
}

func toInt(v any) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return -1
}
