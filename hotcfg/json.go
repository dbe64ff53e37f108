// This file implements the JSON form of a graph (written and read back).

package hotcfg

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/fragprof/fragprof/cfg"
)

// The JSON schema (documented in docs/sampling.md). Addresses are hex strings.
type jsonGraph struct {
	Instructions uint64         `json:"instructions"`
	Sampled      uint64         `json:"sampled"`
	Batches      int            `json:"batches"`
	Maps         []jsonMap      `json:"maps,omitempty"`
	Functions    []jsonFunc     `json:"functions"`
	Calls        []jsonCall     `json:"calls"`
	Compare      *Comparison    `json:"compare,omitempty"`
	Extra        map[string]any `json:"extra,omitempty"`
}

type jsonMap struct {
	Start  string `json:"start"`
	End    string `json:"end"`
	Offset string `json:"offset"`
	Path   string `json:"path"`
}

type jsonFunc struct {
	Name   string      `json:"name"`
	File   string      `json:"file"`
	Line   int         `json:"line"`
	Blocks []jsonBlock `json:"blocks"`
	Edges  []jsonEdge  `json:"edges"`
}

type jsonBlock struct {
	ID    int     `json:"id"`
	Label string  `json:"label"`
	Addr  string  `json:"addr"`
	Last  string  `json:"last"`
	End   string  `json:"end,omitempty"`
	Insns int     `json:"insns"`
	Lines []int   `json:"lines"`
	Count float64 `json:"count"`
}

type jsonEdge struct {
	From     int     `json:"from"`
	To       int     `json:"to"`
	Kind     string  `json:"kind"`
	Count    float64 `json:"count"`
	Rate     float64 `json:"rate,omitempty"`
	StdErr   float64 `json:"stderr,omitempty"`
	Inferred bool    `json:"inferred,omitempty"`
}

type jsonCall struct {
	From     string  `json:"from"` // "function:block id"
	To       string  `json:"to"`
	Src      string  `json:"from_addr"`
	Dst      string  `json:"to_addr"`
	Kind     string  `json:"kind"`
	Count    float64 `json:"count"`
	Rate     float64 `json:"rate,omitempty"`
	StdErr   float64 `json:"stderr,omitempty"`
	Inferred bool    `json:"inferred,omitempty"`
}

func hex(x uint64) string { return "0x" + strconv.FormatUint(x, 16) }

func unhex(s string) (uint64, error) { return strconv.ParseUint(s, 0, 64) }

// WriteJSON writes g (symbolized beforehand if labels are wanted) with an optional
// comparison, indented. lines gives each block's source lines (nil: none).
func (g *Graph) WriteJSON(w io.Writer, cmp *Comparison, lines func(*Block) []int) error {
	funcs, cross := g.Split()
	out := jsonGraph{Instructions: g.Instructions, Sampled: g.Sampled, Batches: g.Batches, Compare: cmp,
		Functions: []jsonFunc{}, Calls: []jsonCall{}}
	for _, m := range g.Maps {
		out.Maps = append(out.Maps, jsonMap{hex(m.Start), hex(m.End), hex(m.Offset), m.Path})
	}
	where := map[*Block]string{}
	for _, f := range funcs {
		jf := jsonFunc{Name: f.Name, File: f.File, Line: f.Line, Blocks: []jsonBlock{}, Edges: []jsonEdge{}}
		for i, b := range f.Blocks {
			jb := jsonBlock{ID: i, Label: b.Label(), Addr: hex(b.Start), Last: hex(b.Last), End: hex(b.End), Insns: b.Insns, Count: b.Count, Lines: []int{}}
			if lines != nil {
				if ls := lines(b); ls != nil {
					jb.Lines = ls
				}
			}
			jf.Blocks = append(jf.Blocks, jb)
			where[b] = fmt.Sprintf("%s:%d", f.Name, i)
		}
		for _, e := range f.Edges {
			jf.Edges = append(jf.Edges, jsonEdge{f.index(e.From), f.index(e.To), e.Kind.String(), e.Count, e.Rate, e.StdErr, e.Inferred})
		}
		out.Functions = append(out.Functions, jf)
	}
	for _, e := range cross {
		out.Calls = append(out.Calls, jsonCall{where[e.From], where[e.To], hex(e.From.Last), hex(e.To.Start), e.Kind.String(), e.Count, e.Rate, e.StdErr, e.Inferred})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// ReadJSON reads a graph written by WriteJSON. Symbols are not restored beyond the
// function name of each block.
func ReadJSON(r io.Reader) (*Graph, error) {
	var in jsonGraph
	if err := json.NewDecoder(r).Decode(&in); err != nil {
		return nil, fmt.Errorf("hotcfg: reading graph: %w", err)
	}
	g := &Graph{Instructions: in.Instructions, Sampled: in.Sampled, Batches: in.Batches}
	for _, m := range in.Maps {
		s, err1 := unhex(m.Start)
		e, err2 := unhex(m.End)
		o, err3 := unhex(m.Offset)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("hotcfg: bad mapping %v", m)
		}
		g.Maps.Add(Mapping{s, e, o, m.Path})
	}
	type fb struct {
		f  int
		id int
	}
	blocks := map[fb]*Block{}
	byAddr := map[uint64]*Block{}
	for fi, f := range in.Functions {
		for _, jb := range f.Blocks {
			a, err := unhex(jb.Addr)
			if err != nil {
				return nil, fmt.Errorf("hotcfg: function %s: block %d: bad address %q", f.Name, jb.ID, jb.Addr)
			}
			l, err := unhex(jb.Last)
			if err != nil {
				l = a
			}
			b := &Block{Start: a, Last: l, End: parseEnd(jb.End), Insns: jb.Insns, Count: jb.Count, Symbol: Symbol{Func: f.Name, DefFile: f.File, DefLine: f.Line}}
			blocks[fb{fi, jb.ID}] = b
			byAddr[a] = b
			g.Blocks = append(g.Blocks, b)
		}
	}
	sort.Slice(g.Blocks, func(i, j int) bool { return g.Blocks[i].Start < g.Blocks[j].Start })
	for i, b := range g.Blocks {
		b.ID = i
	}
	add := func(from, to *Block, kind string, n, rate, se float64, inferred bool) error {
		k, err := cfg.ParseEdgeKind(kind)
		if err != nil {
			return err
		}
		e := &Edge{From: from, To: to, Kind: k, Count: n, Rate: rate, StdErr: se, Inferred: inferred}
		g.Edges = append(g.Edges, e)
		return nil
	}
	for fi, f := range in.Functions {
		for _, je := range f.Edges {
			from, to := blocks[fb{fi, je.From}], blocks[fb{fi, je.To}]
			if from == nil || to == nil {
				return nil, fmt.Errorf("hotcfg: function %s: edge %d→%d names a missing block", f.Name, je.From, je.To)
			}
			if err := add(from, to, je.Kind, je.Count, je.Rate, je.StdErr, je.Inferred); err != nil {
				return nil, err
			}
		}
	}
	for _, c := range in.Calls {
		s, err1 := unhex(c.Src)
		d, err2 := unhex(c.Dst)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("hotcfg: bad call edge %s→%s", c.From, c.To)
		}
		var from *Block
		if i := sort.Search(len(g.Blocks), func(i int) bool { return g.Blocks[i].Start > s }); i > 0 {
			from = g.Blocks[i-1]
		}
		to := byAddr[d]
		if from == nil || to == nil {
			return nil, fmt.Errorf("hotcfg: call edge %s→%s names a missing block", c.From, c.To)
		}
		if err := add(from, to, c.Kind, c.Count, c.Rate, c.StdErr, c.Inferred); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(g.Edges, func(i, j int) bool {
		if g.Edges[i].From.Start != g.Edges[j].From.Start {
			return g.Edges[i].From.Start < g.Edges[j].From.Start
		}
		return g.Edges[i].To.Start < g.Edges[j].To.Start
	})
	for i, e := range g.Edges {
		e.ID = i
		e.From.Succs = append(e.From.Succs, e)
		e.To.Preds = append(e.To.Preds, e)
	}
	return g, g.Check()
}

func parseEnd(s string) uint64 {
	x, _ := unhex(s)
	return x
}
