// This file implements GFCGaussiano's self-organising bins of window means.

package hotcfg

import (
	"math"
	"sort"
)

// A Bin groups windows whose address means lie close together: its centroid is the
// mean of the distinct window means it holds, its count the number of windows added.
type Bin struct {
	Centroid float64
	Count    int
	windows  map[float64]bool
	sum      float64
}

func newBin(w float64) *Bin {
	return &Bin{Centroid: w, Count: 1, windows: map[float64]bool{w: true}, sum: w}
}

// Bins is the array of bins sorted by centroid.
type Bins []*Bin

// search returns the index of the first bin whose centroid is ≥ x (the insertion
// position of the binary search).
func (bs Bins) search(x float64) int {
	return sort.Search(len(bs), func(i int) bool { return bs[i].Centroid >= x })
}

// Nearest returns the index of the bin nearest to x among R_{b−1}, R_b, R_{b+1}
// around the binary search's position b, and its distance; (-1, +Inf) when there
// are no bins.
func (bs Bins) Nearest(x float64) (int, float64) {
	if len(bs) == 0 {
		return -1, math.Inf(1)
	}
	b := bs.search(x)
	best, dist := -1, math.Inf(1)
	for k := b - 1; k <= b+1; k++ {
		if k < 0 || k >= len(bs) {
			continue
		}
		if d := math.Abs(bs[k].Centroid - x); d < dist {
			best, dist = k, d
		}
	}
	return best, dist
}

// Add files one window mean w as lowStddevBatchProcess does: into the nearest bin
// when its distance is ≤ binSize (count+1; w joins the bin's windows if new and the
// centroid is recomputed), else into a new bin at the position the search found.
// It returns the index of the bin that took w.
func (bs *Bins) Add(w, binSize float64) int {
	k, d := bs.Nearest(w)
	if k >= 0 && d <= binSize {
		b := (*bs)[k]
		b.Count++
		if !b.windows[w] {
			b.windows[w] = true
			b.sum += w
			b.Centroid = b.sum / float64(len(b.windows))
		}
		return bs.resort(k)
	}
	pos := bs.search(w)
	*bs = append(*bs, nil)
	copy((*bs)[pos+1:], (*bs)[pos:])
	(*bs)[pos] = newBin(w)
	return pos
}

// resort moves bin k to its place after its centroid changed, so the array stays
// sorted (a centroid moves by less than binSize and rarely passes a neighbour).
func (bs Bins) resort(k int) int {
	for k > 0 && bs[k-1].Centroid > bs[k].Centroid {
		bs[k-1], bs[k] = bs[k], bs[k-1]
		k--
	}
	for k+1 < len(bs) && bs[k+1].Centroid < bs[k].Centroid {
		bs[k+1], bs[k] = bs[k], bs[k+1]
		k++
	}
	return k
}

// ForAddress returns the bin of an instruction address: the bin with the nearest
// centroid (binary search), provided it lies within reach; reach ≤ 0 means any
// distance. Nil when there is no such bin.
func (bs Bins) ForAddress(addr uint64, reach float64) *Bin {
	k, d := bs.Nearest(float64(addr))
	if k < 0 || (reach > 0 && d > reach) {
		return nil
	}
	return bs[k]
}

// WindowMeans returns the n_w = M − N_w + 1 means of the sliding windows of size nw
// over pcs (none when M < N_w), computed with a running sum.
func WindowMeans(pcs []uint64, nw int) []float64 {
	if nw <= 0 || len(pcs) < nw {
		return nil
	}
	// Sum offsets from the first PC so that float64 keeps every bit of the addresses.
	base := pcs[0]
	off := func(i int) float64 { return float64(int64(pcs[i] - base)) }
	means := make([]float64, 0, len(pcs)-nw+1)
	var s float64
	for i := 0; i < nw; i++ {
		s += off(i)
	}
	means = append(means, float64(base)+s/float64(nw))
	for i := nw; i < len(pcs); i++ {
		s += off(i) - off(i-nw)
		means = append(means, float64(base)+s/float64(nw))
	}
	return means
}

// StdDev returns the population standard deviation of xs (0 for fewer than two).
func StdDev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var v float64
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)))
}
