// This file implements the similarity of a sampled graph to the exact one.

package hotcfg

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// A Comparison measures a sampled graph G against the hot part H of an exact graph,
// as the thesis does. Edges are identified by EdgeKey (the address of the source
// block's last instruction and the destination address), made load-independent with
// each graph's Maps, so that blocks cut differently in the two graphs still match
// when they end in the same branch and lead to the same address.
type Comparison struct {
	Similarity float64 `json:"similarity"` // |G ∩ H| / |H|
	Precision  float64 `json:"precision"`  // |G ∩ H| / |G|
	Weighted   float64 `json:"weighted"`   // Σ count over G ∩ H / Σ count over H (exact counts)
	Valid      float64 `json:"valid"`      // |G ∩ E| / |G|: G's edges that exist at all in the exact graph E
	// SampledFraction is the share of executed instructions the sampled graph was
	// built from: G.Sampled / instructions (G's own count when known, else E's).
	SampledFraction float64 `json:"sampled_fraction"`
	Edges           int     `json:"edges"`     // |G|
	HotEdges        int     `json:"hot_edges"` // |H|
	Common          int     `json:"common"`    // |G ∩ H|
	ExactEdges      int     `json:"exact_edges"`
	// Inferred is the number of G's edges marked Inferred (not observed, implied by
	// the code); InferredHot how many of them are in H.
	Inferred    int     `json:"inferred"`
	InferredHot int     `json:"inferred_hot"`
	Hot         float64 `json:"hot"` // the share of transitions that defines H
}

// Summary is c in one line: similarity, precision and weighted share in percent,
// with the hot edges found and the share of instructions sampled.
func (c Comparison) Summary() string {
	return fmt.Sprintf("similarity %.1f%% (%d of %d hot edges), precision %.1f%%, weighted %.1f%%, sampled %.4f%% of instructions",
		100*c.Similarity, c.Common, c.HotEdges, 100*c.Precision, 100*c.Weighted, 100*c.SampledFraction)
}

// WriteJSON writes c to w as one JSON object, indented by a space a level.
func (c Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(c)
}

type locKey struct{ src, dst Loc }

func keyOf(m Maps, k EdgeKey) locKey { return locKey{m.Loc(k.Src), m.Loc(k.Dst)} }

// HotEdges returns the edges of exact with the most transitions that together carry
// at least share of all its transitions, most frequent first (ties by address).
func HotEdges(exact *Graph, share float64) []*Edge {
	es := append([]*Edge(nil), exact.Edges...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Count != es[j].Count {
			return es[i].Count > es[j].Count
		}
		ki, kj := es[i].Key(), es[j].Key()
		if ki.Src != kj.Src {
			return ki.Src < kj.Src
		}
		return ki.Dst < kj.Dst
	})
	total := exact.TotalTransitions()
	var acc float64
	for i, e := range es {
		if acc >= share*total {
			return es[:i]
		}
		acc += e.Count
	}
	return es
}

// Compare measures sampled against the share-hot part of exact.
func Compare(sampled, exact *Graph, share float64) Comparison {
	hot := HotEdges(exact, share)
	H := make(map[locKey]float64, len(hot))
	var hotTotal float64
	for _, e := range hot {
		H[keyOf(exact.Maps, e.Key())] += e.Count
		hotTotal += e.Count
	}
	E := make(map[locKey]bool, len(exact.Edges))
	for _, e := range exact.Edges {
		E[keyOf(exact.Maps, e.Key())] = true
	}
	c := Comparison{Edges: len(sampled.Edges), HotEdges: len(H), ExactEdges: len(exact.Edges), Hot: share}
	seen := map[locKey]bool{}
	var covered float64
	valid := 0
	for _, e := range sampled.Edges {
		k := keyOf(sampled.Maps, e.Key())
		if seen[k] {
			continue
		}
		seen[k] = true
		if E[k] {
			valid++
		}
		n, hot := H[k]
		if hot {
			c.Common++
			covered += n
		}
		if e.Inferred {
			c.Inferred++
			if hot {
				c.InferredHot++
			}
		}
	}
	if len(H) > 0 {
		c.Similarity = float64(c.Common) / float64(len(H))
	}
	if len(seen) > 0 {
		c.Precision = float64(c.Common) / float64(len(seen))
		c.Valid = float64(valid) / float64(len(seen))
	}
	if hotTotal > 0 {
		c.Weighted = covered / hotTotal
	}
	total := sampled.Instructions
	if total == 0 {
		total = exact.Instructions
	}
	if total > 0 {
		c.SampledFraction = float64(sampled.Sampled) / float64(total)
	}
	return c
}
