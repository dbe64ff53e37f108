// This file implements the sampled graph's own estimate of its similarity, which
// `fragprof sample --until-similarity` repeats runs on, and the rule that stops them.

package sample

import (
	"github.com/fragprof/fragprof/hotcfg"
)

// MinEstimateBatches is the fewest batches EstimateSimilarity judges: below it the
// halves are too small for their hot sets to mean anything.
const MinEstimateBatches = 200

// A SimilarityEstimate is the sampled graph's own estimate of its similarity to the
// exact graph, made without it (EstimateSimilarity).
type SimilarityEstimate struct {
	Similarity float64 // min over the two halves h of |G(h) ∩ Ĥ| / |Ĥ|
	HotEdges   int     // |Ĥ|
	Batches    int     // all the batches
}

// EstimateSimilarity estimates, from the batches alone, the similarity (as
// hotcfg.Compare defines it, with the share hot) of the Bursts graph (inferred edges
// included, as hotcfg builds it by default) to the exact graph: Ĥ is the hot set of
// the graph of all the batches, taken as the exact graph, and the estimate is the
// smaller of the shares of Ĥ that the graphs of the first and of the second half of
// the batches hold on their own (one minus the share of the hot set that only the
// other half found). It measures convergence, not bias: a hot edge that no burst
// reaches (code too fast for time-based sampling to land in) is in neither Ĥ nor
// the estimate. On the programs of bench/sampling.sh it runs below the
// true similarity from about 80% up on large hot sets (sqlite3: 83.6% against 89.9%
// at 5,000 batches), and above it on small samples, whose own hot set holds only the
// edges that are easy to find (gzip, 100 batches: 93.9% against 86.8%; one half
// alone, on lua5.4 at 700 batches: 90.9% against 81.0%, which taking the smaller
// half brings to 85.4%). ok is false below MinEstimateBatches.
func EstimateSimilarity(batches []hotcfg.Batch, insns hotcfg.InsnTable, maps hotcfg.Maps, hot float64) (SimilarityEstimate, bool) {
	n := len(batches)
	if n < MinEstimateBatches {
		return SimilarityEstimate{Batches: n}, false
	}
	code := hotcfg.Chain{insns, NewFiles(maps)}
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
	first := hotcfg.Compare(build(batches[:n/2]), all, hot)
	second := hotcfg.Compare(build(batches[n/2:]), all, hot)
	return SimilarityEstimate{Similarity: min(first.Similarity, second.Similarity), HotEdges: first.HotEdges, Batches: n}, true
}

// DefaultUntilRuns bounds the runs of --until-similarity when --repeat is not given.
const DefaultUntilRuns = 100000

// minStopBatches is the fewest batches --until-similarity stops at. Below it the
// estimate ran far above the true similarity where the hot set is dominated by a
// few loops (prefixes of bench/sampling.sh's batches, a diagnosis: xz
// at 250 batches, 96.0% estimated against 53.2% true; it stopped one run at 80.3%);
// from 1,000 batches on it was within 7 points on xz, sqlite3, gzip and bzip2.
//
// It also stops no earlier than one batch per hot edge of the estimate (|Ĥ|): on
// large hot sets the split halves agree on the edges a burst reaches easily long
// before the rest are in. The stopping rule replayed on eight overlapping sequences
// of 12,332 batches of sqlite3's short workload (2,800–3,100 hot edges; three runs of
// sample, bursts of 200; a diagnosis): at 1,000 batches it stopped at
// 1,199–1,499 batches with 87.0–93.2% true similarity, 4 of 8 below 90%; at one
// batch per hot edge, at 2,929–3,662 with 89.9–94.4%, 1 of 8 below (and the truth
// levels off near 94% from 2,000 batches on, where no burst reaches the rest).
const minStopBatches = 1000

// untilStops reports whether --until-similarity stops: at reached checks in a row at
// or above the target, with batches batches and an estimated hot set of hotEdges
// edges (minStopBatches).
func untilStops(reached, batches, hotEdges int) bool {
	return reached >= 2 && batches >= max(minStopBatches, hotEdges)
}

// UntilBurst is the in-process burst length of --until-similarity when --burst is
// not given. Short runs leave most of the cost bound unused (a CPU-time timer gives
// at most one burst per tick), so longer bursts cost nothing against it there; in
// long runs the interval grows with the burst's cost and the bound holds.
//
// Measured on sqlite3's short workload (four hand runs each, a
// diagnosis): bursts of 100 stopped at 87.8–91.4% true similarity (mean 89.7%),
// bursts of 200 at 88.4–92.8% (mean 91.4%) in as many runs (9,400–10,700); xz,
// gzip, bzip2 and lua5.4 stopped at 97.3–100% with 200.
const UntilBurst = 200

// An untilRule follows --until-similarity over a session: it checks the estimate
// each time the batches have grown by a quarter, so that the checks cost a few
// times one estimate in all, and stops at two checks in a row at the target (one
// estimate alone at the target stopped sqlite3 at 89.4%: docs/sampling.md) with
// enough batches (untilStops).
type untilRule struct {
	target    float64 // the share to reach; 0: no rule
	nextCheck int     // the batches at the next check
	reached   int     // consecutive checks at or above target
	est       SimilarityEstimate
	estOK     bool
}

// newUntilRule returns the rule for the target share (0: none).
func newUntilRule(target float64) *untilRule {
	return &untilRule{target: target, nextCheck: MinEstimateBatches}
}

// stop reports whether the runs stop, with the batches so far.
func (u *untilRule) stop(batches []hotcfg.Batch, insns hotcfg.InsnTable, maps hotcfg.Maps) bool {
	if u.target <= 0 || len(batches) < u.nextCheck {
		return false
	}
	u.nextCheck = len(batches) + (len(batches)+3)/4
	if u.est, u.estOK = EstimateSimilarity(batches, insns, maps, 0.9); u.estOK && u.est.Similarity >= u.target {
		u.reached++
	} else {
		u.reached = 0
	}
	return untilStops(u.reached, len(batches), u.est.HotEdges)
}

// final returns the estimate of all the batches: the last check's when it saw them
// all, else a new one (ok false below MinEstimateBatches).
func (u *untilRule) final(batches []hotcfg.Batch, insns hotcfg.InsnTable, maps hotcfg.Maps) (SimilarityEstimate, bool) {
	if len(batches) >= MinEstimateBatches && (!u.estOK || u.est.Batches != len(batches)) {
		u.est, u.estOK = EstimateSimilarity(batches, insns, maps, 0.9)
	}
	return u.est, u.estOK
}
