// This file implements the JSON form of a graph: the machine-level graph by
// address, which the "graph" member of fragprof's JSON document holds
// (docs/json.md) next to the functions of the graph's profile.

package hotcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/fragprof/fragprof/cfg"
)

// graphJSON is a Graph by address: blocks in address order, edges naming blocks by
// their index in it.
type graphJSON struct {
	Instructions uint64     `json:"instructions"`
	Sampled      uint64     `json:"sampled"`
	Batches      int        `json:"batches"`
	Maps         []Mapping  `json:"maps"`
	Blocks       []*Block   `json:"blocks"`
	Edges        []edgeJSON `json:"edges"`
}

// edgeJSON is an Edge with its blocks' indexes.
type edgeJSON struct {
	From     int     `json:"from"`
	To       int     `json:"to"`
	Kind     string  `json:"kind"`
	Count    float64 `json:"count"`
	Rate     float64 `json:"rate,omitempty"`
	StdErr   float64 `json:"stderr,omitempty"`
	Inferred bool    `json:"inferred,omitempty"`
}

// MarshalJSON writes g by address: its totals, its mappings, its blocks (start,
// last instruction, end, instructions, count) in address order and its edges,
// which name blocks by their index among them (docs/json.md, "graph").
func (g *Graph) MarshalJSON() ([]byte, error) {
	out := graphJSON{Instructions: g.Instructions, Sampled: g.Sampled, Batches: g.Batches,
		Maps: append([]Mapping{}, g.Maps...), Blocks: append([]*Block{}, g.Blocks...), Edges: []edgeJSON{}}
	for _, e := range g.Edges {
		out.Edges = append(out.Edges, edgeJSON{e.From.ID, e.To.ID, e.Kind.String(), e.Count, e.Rate, e.StdErr, e.Inferred})
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a graph MarshalJSON wrote (without symbols: Symbolize
// restores them from the program files its mappings name).
func (g *Graph) UnmarshalJSON(data []byte) error {
	var in graphJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&in); err != nil {
		return err
	}
	h := Graph{Instructions: in.Instructions, Sampled: in.Sampled, Batches: in.Batches}
	for _, m := range in.Maps {
		h.Maps.Add(m)
	}
	for i, b := range in.Blocks {
		if b == nil {
			return fmt.Errorf("hotcfg: graph: block %d is null", i)
		}
		if i > 0 && b.Start <= in.Blocks[i-1].Start {
			return fmt.Errorf("hotcfg: graph: block %d at %#x out of address order", i, b.Start)
		}
		b.ID = i
		h.Blocks = append(h.Blocks, b)
	}
	for i, je := range in.Edges {
		if je.From < 0 || je.From >= len(h.Blocks) || je.To < 0 || je.To >= len(h.Blocks) {
			return fmt.Errorf("hotcfg: graph: edge %d: %d→%d names a missing block", i, je.From, je.To)
		}
		k, err := cfg.ParseEdgeKind(je.Kind)
		if err != nil {
			return fmt.Errorf("hotcfg: graph: edge %d: %v", i, err)
		}
		h.Edges = append(h.Edges, &Edge{From: h.Blocks[je.From], To: h.Blocks[je.To], Kind: k,
			Count: je.Count, Rate: je.Rate, StdErr: je.StdErr, Inferred: je.Inferred})
	}
	sort.SliceStable(h.Edges, func(i, j int) bool {
		if h.Edges[i].From.Start != h.Edges[j].From.Start {
			return h.Edges[i].From.Start < h.Edges[j].From.Start
		}
		return h.Edges[i].To.Start < h.Edges[j].To.Start
	})
	for i, e := range h.Edges {
		e.ID = i
		e.From.Succs = append(e.From.Succs, e)
		e.To.Preds = append(e.To.Preds, e)
	}
	if err := h.Check(); err != nil {
		return err
	}
	*g = h
	return nil
}
