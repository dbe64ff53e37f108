// This file implements the sampled graph's own estimate of its similarity, which
// `fragprof sample --until-similarity` repeats runs on.

package main

import (
	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/sample"
)

// minEstimateBatches is the fewest batches estimateSimilarity judges: below it the
// halves are too small for their hot sets to mean anything.
const minEstimateBatches = 100

// A simEstimate is the sampled graph's own estimate of its similarity to the exact
// graph, made without it (estimateSimilarity).
type simEstimate struct {
	Similarity float64 // |G(first half) ∩ Ĥ| / |Ĥ|
	HotEdges   int     // |Ĥ|
	Batches    int     // all the batches
}

// estimateSimilarity estimates, from the batches alone, the similarity (as
// hotcfg.Compare defines it, with the share hot) of the Bursts graph (inferred edges
// included, as hotcfg builds it by default) to the exact graph: Ĥ is the hot set of
// the graph of all the batches, taken as the exact graph, and the estimate is the
// share of Ĥ that the graph of the first half of the batches already holds, i.e. one
// minus the share of the hot set the second half discovered. On this project's
// programs (docs/benchmarks.md, issue 16) it is below the true similarity of all the
// batches from about 70% up (by 4-8 points at 80-95%: the first half is only half the
// bursts), and above it on small samples, whose own hot set holds only the edges
// that are easy to find; so a stopping rule at 90% stops late rather than early. ok
// is false below minEstimateBatches.
func estimateSimilarity(batches []hotcfg.Batch, insns hotcfg.InsnTable, maps hotcfg.Maps, hot float64) (simEstimate, bool) {
	n := len(batches)
	if n < minEstimateBatches {
		return simEstimate{Batches: n}, false
	}
	code := hotcfg.Chain{insns, sample.NewFiles(maps)}
	build := func(bs []hotcfg.Batch) *hotcfg.Graph {
		b := hotcfg.NewBursts(code)
		b.Infer = true
		for _, bt := range bs {
			b.AddBatch(bt)
		}
		g := b.Graph()
		g.Maps = maps
		return g
	}
	all := build(batches)
	c := hotcfg.Compare(build(batches[:n/2]), all, hot)
	return simEstimate{Similarity: c.Similarity, HotEdges: c.HotEdges, Batches: n}, true
}
