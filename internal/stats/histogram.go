// This file implements the Sturges histogram of the timing protocol.

package stats

import "math/bits"

// SturgesBins returns K = ⌊log₂ N⌋ + 1, the number of bins of Sturges' rule
// (H. A. Sturges, "The choice of a class interval", JASA 21(153), 1926, as the timing guide uses it),
// or 0 for N ≤ 0.
func SturgesBins(n int) int {
	if n <= 0 {
		return 0
	}
	return bits.Len(uint(n)) // ⌊log₂ n⌋ + 1, exactly
}

// Histogram counts samples in equal-width bins: bin i holds the x with
// Edges[i] ≤ x < Edges[i+1], the last bin also x = Edges[K]. len(Edges) = K + 1 and
// len(Counts) = K. Edges[0] is the minimum and Edges[K] the maximum of the samples.
type Histogram struct {
	Edges  []float64
	Counts []int
}

// NewHistogram returns the histogram of xs with k equal-width bins between the
// minimum and the maximum, or with [SturgesBins](len(xs)) bins when k ≤ 0. When all
// samples are equal it has one bin of zero width holding them all; without samples
// it is empty.
func NewHistogram(xs []float64, k int) Histogram {
	if len(xs) == 0 {
		return Histogram{}
	}
	if k <= 0 {
		k = SturgesBins(len(xs))
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	if lo == hi {
		return Histogram{Edges: []float64{lo, hi}, Counts: []int{len(xs)}}
	}
	h := Histogram{Edges: make([]float64, k+1), Counts: make([]int, k)}
	w := (hi - lo) / float64(k)
	for i := range k {
		h.Edges[i] = lo + float64(i)*w
	}
	h.Edges[k] = hi
	for _, x := range xs {
		i := min(int((x-lo)/w), k-1)
		// Settle rounding at the edges so that the stated rule holds exactly.
		for i > 0 && x < h.Edges[i] {
			i--
		}
		for i < k-1 && x >= h.Edges[i+1] {
			i++
		}
		h.Counts[i]++
	}
	return h
}
