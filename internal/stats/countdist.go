// This file implements CountDist, the exact and mergeable distribution of a block's
// per-trial execution counts.

package stats

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// Limits of a CountDist's memory. They are constants, not options, because two
// CountDists can only merge exactly when they follow the same limits.
const (
	// MaxExact is the number of distinct values a CountDist keeps exactly, 16 bytes
	// each (16 KiB at most), before it turns into buckets.
	MaxExact = 1024
	// MaxBuckets is the number of buckets a coarse CountDist keeps, 128 bytes each
	// (64 KiB at most); past it, the buckets are coarsened one level.
	MaxBuckets = 512
	// TopLevel is the level of the first coarse representation: values below
	// 2^TopLevel keep a bucket each, larger ones share buckets of relative width at
	// most 2^-TopLevel (about 0.1 %).
	TopLevel = 10
)

// A ValueCount says that a block ran exactly V times in N trials.
type ValueCount struct {
	V uint64
	N uint64
}

// A Bucket holds the trials of a coarse CountDist whose count x lies in
// [Lo, Lo + width), width given by the level (see [CountDist]). It keeps exact sums
// of the powers of the offsets d = x − Lo, so that moments about any point can be
// recovered without the individual values.
//
// Invariants: N > 0; Lo ≤ Min ≤ Max < Lo + width; D1 = Σ d, D2 = Σ d², D3 = Σ d³
// over the N trials.
type Bucket struct {
	Lo       uint64
	N        uint64
	Min, Max uint64
	D1       Wide
	D2       Wide
	D3       Wide
}

// CountDist is the distribution of one block's execution count over trials: it
// answers n, mean, M2, M3 and the absolute third central sum Σ|x − x̄|³ (see
// [CountDist.Summary]) and merges exactly. The zero value is empty and ready to use.
//
// Representation. While the block has taken at most [MaxExact] distinct counts,
// Values is the exact table of (count, trials), sorted by count, with no zero
// entries, and Buckets is nil; everything is then exact. Past MaxExact the table turns
// into log-linear buckets (Values nil, Buckets sorted by Lo): at level L a count
// x < 2^L has a bucket of its own, and a count x with 2^e ≤ x < 2^(e+1), e ≥ L,
// shares the bucket of width 2^(e−L) aligned on a multiple of it (the layout of
// HdrHistogram, G. Tene). Level starts at [TopLevel] and drops by one, merging
// bucket pairs, whenever there are more than [MaxBuckets] buckets; level 0 has at
// most 65 buckets. Each bucket keeps exact integer sums (see [Bucket]), so n, the
// mean, M2 and M3 stay exact up to the final floating-point evaluation; only Σ|x − x̄|³
// inside the one bucket that straddles the mean is bounded rather than known (see
// [Summary]).
//
// Exact merging. The state after adding a multiset of counts does not depend on the
// order of the additions or on how they were split into shards and merged: the table
// is a multiset; the level is always the largest L ≤ TopLevel at which the counts
// seen need at most MaxBuckets buckets (bucket counts only grow with more data and
// with finer levels, so a stream and any merge of its shards reach the same L); and
// all sums are integers. So Merge is associative and commutative bit for bit, and
// Summary, a deterministic function of the state, is the same on any number of
// workers.
//
// The fields are exported so that a profile can store a CountDist and merge it later;
// call [CountDist.Validate] on one read from outside.
type CountDist struct {
	Values  []ValueCount
	Level   int
	Buckets []Bucket
}

// Exact reports whether d still holds the exact table of counts.
func (d *CountDist) Exact() bool { return len(d.Buckets) == 0 }

// N returns the number of trials added.
func (d *CountDist) N() uint64 {
	var n uint64
	for _, v := range d.Values {
		n += v.N
	}
	for _, b := range d.Buckets {
		n += b.N
	}
	return n
}

// Add records one trial in which the block ran x times.
func (d *CountDist) Add(x uint64) { d.AddN(x, 1) }

// AddN records n trials in which the block ran x times each. The total number of
// trials must stay below 2⁶⁴.
func (d *CountDist) AddN(x, n uint64) {
	if n == 0 {
		return
	}
	if d.Exact() {
		// A binary search written out, without the generic search's call of a
		// comparison function per step: this is a freq trial's innermost loop (a
		// trial of sqlite3 adds 7,000 counts).
		v := d.Values
		i, j := 0, len(v)
		for i < j {
			if m := int(uint(i+j) >> 1); v[m].V < x {
				i = m + 1
			} else {
				j = m
			}
		}
		if i < len(v) && v[i].V == x {
			v[i].N += n
			return
		}
		d.Values = slices.Insert(d.Values, i, ValueCount{V: x, N: n})
		if len(d.Values) > MaxExact {
			d.Buckets, d.Level, d.Values = valuesToBuckets(d.Values, TopLevel), TopLevel, nil
			d.shrink()
		}
		return
	}
	lo := bucketLo(x, d.Level)
	i, ok := slices.BinarySearchFunc(d.Buckets, lo, func(b Bucket, lo uint64) int { return cmp.Compare(b.Lo, lo) })
	if !ok {
		d.Buckets = slices.Insert(d.Buckets, i, Bucket{Lo: lo, Min: x, Max: x})
	}
	d.Buckets[i].add(x, n)
	d.shrink()
}

// Merge adds the trials recorded in o to d, exactly as if they had been added one by
// one; o is not changed and shares no memory with d afterwards.
func (d *CountDist) Merge(o *CountDist) {
	if len(o.Values) == 0 && len(o.Buckets) == 0 {
		return
	}
	if d.Exact() && o.Exact() {
		d.Values = mergeValues(d.Values, o.Values)
		if len(d.Values) > MaxExact {
			d.Buckets, d.Level, d.Values = valuesToBuckets(d.Values, TopLevel), TopLevel, nil
			d.shrink()
		}
		return
	}
	level := min(d.level(), o.level())
	d.Buckets = mergeBuckets(d.bucketsAt(level), o.bucketsAt(level))
	d.Values, d.Level = nil, level
	d.shrink()
}

// Clone returns a deep copy of d.
func (d *CountDist) Clone() *CountDist {
	return &CountDist{Values: slices.Clone(d.Values), Level: d.Level, Buckets: slices.Clone(d.Buckets)}
}

// level is the bucket level d has or would start at.
func (d *CountDist) level() int {
	if d.Exact() {
		return TopLevel
	}
	return d.Level
}

// bucketsAt returns d's trials as buckets of the given level, which must not be finer
// than d's own.
func (d *CountDist) bucketsAt(level int) []Bucket {
	if d.Exact() {
		return valuesToBuckets(d.Values, level)
	}
	if level == d.Level {
		return d.Buckets
	}
	return rebucket(d.Buckets, level)
}

// shrink coarsens d until it has at most MaxBuckets buckets.
func (d *CountDist) shrink() {
	for len(d.Buckets) > MaxBuckets {
		d.Level--
		d.Buckets = rebucket(d.Buckets, d.Level)
	}
}

// bucketLo returns the lower bound of the level-L bucket holding x.
func bucketLo(x uint64, level int) uint64 {
	s := bucketShift(x, level)
	return x >> s << s
}

// bucketShift returns log2 of the width of the level-L bucket holding x.
func bucketShift(x uint64, level int) uint {
	e := bits.Len64(x) - 1 // ⌊log2 x⌋, −1 for 0
	if e < level {
		return 0
	}
	return uint(e - level)
}

// add records n trials of count x, which must belong to b.
func (b *Bucket) add(x, n uint64) {
	b.N += n
	b.Min, b.Max = min(b.Min, x), max(b.Max, x)
	if dx := x - b.Lo; dx != 0 {
		b.D1 = b.D1.mustAdd(pow(dx, 1).mustMul(n))
		b.D2 = b.D2.mustAdd(pow(dx, 2).mustMul(n))
		b.D3 = b.D3.mustAdd(pow(dx, 3).mustMul(n))
	}
}

// combine adds o, a bucket with the same Lo, to b.
func (b *Bucket) combine(o Bucket) {
	b.N += o.N
	b.Min, b.Max = min(b.Min, o.Min), max(b.Max, o.Max)
	b.D1 = b.D1.mustAdd(o.D1)
	b.D2 = b.D2.mustAdd(o.D2)
	b.D3 = b.D3.mustAdd(o.D3)
}

// rebase returns b with its sums taken about lo ≤ b.Lo instead of b.Lo. With
// δ = b.Lo − lo and d' = d + δ, by the binomial theorem:
//
//	Σd' = D1 + δN,  Σd'² = D2 + 2δD1 + δ²N,  Σd'³ = D3 + 3δD2 + 3δ²D1 + δ³N.
//
// Every term is at most the new sum, which fits 256 bits, so nothing overflows.
func (b Bucket) rebase(lo uint64) Bucket {
	delta := b.Lo - lo
	if delta == 0 {
		return b
	}
	n := wideOf(b.N)
	dN := n.mustMul(delta)
	d2N := dN.mustMul(delta)
	d3N := d2N.mustMul(delta)
	dD1 := b.D1.mustMul(delta)
	d2D1 := dD1.mustMul(delta)
	dD2 := b.D2.mustMul(delta)
	b.D3 = b.D3.mustAdd(dD2.mustMul(3)).mustAdd(d2D1.mustMul(3)).mustAdd(d3N)
	b.D2 = b.D2.mustAdd(dD1.mustMul(2)).mustAdd(d2N)
	b.D1 = b.D1.mustAdd(dN)
	b.Lo = lo
	return b
}

// rebucket returns bs, sorted by Lo, regrouped at a coarser level.
func rebucket(bs []Bucket, level int) []Bucket {
	var out []Bucket
	for _, b := range bs {
		r := b.rebase(bucketLo(b.Lo, level))
		if k := len(out) - 1; k >= 0 && out[k].Lo == r.Lo {
			out[k].combine(r)
			continue
		}
		out = append(out, r)
	}
	return out
}

// valuesToBuckets returns the sorted table vs as buckets of the given level.
func valuesToBuckets(vs []ValueCount, level int) []Bucket {
	var out []Bucket
	for _, v := range vs {
		lo := bucketLo(v.V, level)
		if k := len(out) - 1; k < 0 || out[k].Lo != lo {
			out = append(out, Bucket{Lo: lo, Min: v.V, Max: v.V})
		}
		out[len(out)-1].add(v.V, v.N)
	}
	return out
}

// mergeValues returns the union of two sorted tables in a new slice.
func mergeValues(a, b []ValueCount) []ValueCount {
	out := make([]ValueCount, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].V < b[j].V:
			out = append(out, a[i])
			i++
		case a[i].V > b[j].V:
			out = append(out, b[j])
			j++
		default:
			out = append(out, ValueCount{V: a[i].V, N: a[i].N + b[j].N})
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// mergeBuckets returns the union of two sorted bucket lists of one level in a new
// slice.
func mergeBuckets(a, b []Bucket) []Bucket {
	out := make([]Bucket, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].Lo < b[j].Lo:
			out = append(out, a[i])
			i++
		case a[i].Lo > b[j].Lo:
			out = append(out, b[j])
			j++
		default:
			m := a[i]
			m.combine(b[j])
			out = append(out, m)
			i, j = i+1, j+1
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// Validate checks the invariants of d documented on [CountDist] and [Bucket] and
// returns the first violation, without allocating. Call it on a CountDist read from
// a file. (It cannot check that the level is the largest the data allow; a smaller
// one is still exact but will not merge bit for bit with a stream of the same data.)
func (d *CountDist) Validate() error {
	if len(d.Values) > 0 && len(d.Buckets) > 0 {
		return errors.New("both exact values and buckets")
	}
	if len(d.Values) > MaxExact {
		return fmt.Errorf("%d exact values, limit %d", len(d.Values), MaxExact)
	}
	var total uint64
	addN := func(n uint64) bool {
		var c uint64
		total, c = bits.Add64(total, n, 0)
		return c == 0
	}
	for i, v := range d.Values {
		if v.N == 0 {
			return fmt.Errorf("value %d has no trials", v.V)
		}
		if i > 0 && d.Values[i-1].V >= v.V {
			return fmt.Errorf("values not strictly increasing at %d", v.V)
		}
		if !addN(v.N) {
			return errors.New("2⁶⁴ or more trials")
		}
	}
	if len(d.Buckets) == 0 {
		if d.Level != 0 {
			return fmt.Errorf("exact table with bucket level %d", d.Level)
		}
		return nil
	}
	if d.Level < 0 || d.Level > TopLevel {
		return fmt.Errorf("bucket level %d outside [0, %d]", d.Level, TopLevel)
	}
	if len(d.Buckets) > MaxBuckets {
		return fmt.Errorf("%d buckets, limit %d", len(d.Buckets), MaxBuckets)
	}
	for i, b := range d.Buckets {
		if i > 0 && d.Buckets[i-1].Lo >= b.Lo {
			return fmt.Errorf("buckets not strictly increasing at lo %d", b.Lo)
		}
		if err := b.check(d.Level); err != nil {
			return fmt.Errorf("bucket %d (lo %d): %v", i, b.Lo, err)
		}
		if !addN(b.N) {
			return errors.New("2⁶⁴ or more trials")
		}
	}
	return nil
}

// check verifies one bucket's invariants at the given level: a boundary of that
// level, Min and Max inside it, and each Dk = Σ (x − Lo)^k between N·(Min−Lo)^k
// and N·(Max−Lo)^k (those products are below 2⁶⁴·(2⁶⁴)³ = 2²⁵⁶).
func (b Bucket) check(level int) error {
	if b.N == 0 {
		return errors.New("no trials")
	}
	if bucketLo(b.Lo, level) != b.Lo {
		return fmt.Errorf("not a level-%d bucket boundary", level)
	}
	if b.Min < b.Lo || b.Min > b.Max || bucketLo(b.Min, level) != b.Lo || bucketLo(b.Max, level) != b.Lo {
		return fmt.Errorf("min %d and max %d do not fit the bucket", b.Min, b.Max)
	}
	lo, hi := Wide{b.N}, Wide{b.N}
	for k, dk := range []Wide{b.D1, b.D2, b.D3} {
		lo, hi = lo.mustMul(b.Min-b.Lo), hi.mustMul(b.Max-b.Lo)
		if dk.less(lo) || hi.less(dk) {
			return fmt.Errorf("sum of offsets to the power %d outside its bounds", k+1)
		}
	}
	return nil
}

// Sum returns Σx, the total count of the block over d's trials, as a 128-bit number
// (hi, lo), exactly.
func (d *CountDist) Sum() (hi, lo uint64) {
	add := func(h, l uint64) {
		var c uint64
		lo, c = bits.Add64(lo, l, 0)
		hi += h + c
	}
	for _, v := range d.Values {
		add(bits.Mul64(v.V, v.N))
	}
	for _, b := range d.Buckets {
		add(bits.Mul64(b.Lo, b.N))
		add(b.D1[1], b.D1[0])
	}
	return hi, lo
}

// String prints d compactly: "n=N exact {v:n ...}" or "n=N level L [lo,min,max:n ...]".
func (d *CountDist) String() string {
	var sb []byte
	sb = fmt.Appendf(sb, "n=%d", d.N())
	if len(d.Buckets) == 0 {
		sb = append(sb, " exact {"...)
		for i, v := range d.Values {
			if i > 0 {
				sb = append(sb, ' ')
			}
			sb = fmt.Appendf(sb, "%d:%d", v.V, v.N)
		}
		return string(append(sb, '}'))
	}
	sb = fmt.Appendf(sb, " level %d [", d.Level)
	for i, b := range d.Buckets {
		if i > 0 {
			sb = append(sb, ' ')
		}
		sb = fmt.Appendf(sb, "%d,%d,%d:%d", b.Lo, b.Min, b.Max, b.N)
	}
	return string(append(sb, ']'))
}
