// This file implements the statistics section (type 6): the exact per-block
// distribution of per-trial execution counts that `fragprof freq --profile` writes,
// so that Monte Carlo shards run anywhere merge exactly.
//
// Layout of the section (all numbers uvarints unless said otherwise):
//
//	u16 version (1), u16 flags (0), u32 number of functions F (= the summary's)
//	per function, in the order of the function headers:
//	  B (= the function's number of blocks), then B distributions
//	a distribution:
//	  form 0 (exact): k ≤ 1024, then k × (value gap, trials): values strictly
//	    increase (gap from 0 for the first, ≥ 1 after), trials ≥ 1
//	  form 1 (buckets): level ≤ 10, k in 1..512, then k × (lo gap, trials, min − lo,
//	    max − min, D1, D2, D3), each D a word count w ≤ 4 then w words, least
//	    significant first
//
// docs/profile-format.md documents it for other implementations.

package profile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// StatsVersion is the version of the statistics section's encoding that this
// package writes and reads. A statistics section of another version is an error
// (the section is ancillary, so readers that do not know it at all ignore it).
const StatsVersion = 1

// Limits of a Dist, the same as those of fragprof's internal count distribution
// (internal/stats.CountDist): two distributions merge exactly only under the same
// limits.
const (
	MaxExact   = 1024 // distinct values kept exactly
	MaxBuckets = 512  // buckets of a coarse distribution
	TopLevel   = 10   // the finest bucket level
)

// Dist is the exact distribution of one block's execution count over the trials of
// a Monte Carlo run: either the exact table of (count, trials) or, past [MaxExact]
// distinct counts, log-linear buckets with exact integer sums. It mirrors the state
// of fragprof's internal CountDist field for field (see docs/statistics.md for the
// bucket layout and why merging is exact and order-independent).
//
// Invariants (Parse checks them): Values and Buckets are not both non-empty; Values
// is sorted by V, strictly, with N ≥ 1 and at most MaxExact entries; Buckets, when
// present, has 1..MaxBuckets entries at Level (0..TopLevel) sorted strictly by Lo,
// each a level-Level bucket boundary, with Lo ≤ Min ≤ Max in the same bucket, N ≥ 1,
// and D1, D2, D3 = Σd, Σd², Σd³ of the offsets d = x − Lo within their bounds
// N·(Min−Lo)^k ≤ Dk ≤ N·(Max−Lo)^k; the trials total less than 2⁶⁴.
type Dist struct {
	Values  []ValueCount
	Level   int
	Buckets []Bucket
}

// A ValueCount says that the block ran exactly V times in N trials.
type ValueCount struct {
	V, N uint64
}

// A Bucket holds N trials whose counts x lie in the bucket starting at Lo, with
// Min and Max the smallest and largest of them and Dk = Σ (x − Lo)^k, each a 256-bit
// unsigned integer stored as four words, least significant first.
type Bucket struct {
	Lo       uint64
	N        uint64
	Min, Max uint64
	D1       [4]uint64
	D2       [4]uint64
	D3       [4]uint64
}

// N returns the number of trials in d.
func (d *Dist) N() uint64 {
	var n uint64
	for _, v := range d.Values {
		n += v.N
	}
	for _, b := range d.Buckets {
		n += b.N
	}
	return n
}

// Sum returns Σx, the total count of the block over d's trials, as a 128-bit number
// (hi, lo). It is exact: for a profile written by `fragprof freq` it equals the
// block's count.
func (d *Dist) Sum() (hi, lo uint64) {
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

// HasStats reports whether p carries the statistics section.
func (p *Profile) HasStats() bool { return p.Stats != nil }

// Validate checks d's invariants (see [Dist]) without allocating.
func (d *Dist) Validate() error {
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
		if err := checkBucket(b, d.Level); err != nil {
			return fmt.Errorf("bucket %d (lo %d): %v", i, b.Lo, err)
		}
		if !addN(b.N) {
			return errors.New("2⁶⁴ or more trials")
		}
	}
	return nil
}

func bucketLo(x uint64, level int) uint64 {
	e := bits.Len64(x) - 1
	if e < level {
		return x
	}
	s := uint(e - level)
	return x >> s << s
}

func checkBucket(b Bucket, level int) error {
	if b.N == 0 {
		return errors.New("no trials")
	}
	if bucketLo(b.Lo, level) != b.Lo {
		return fmt.Errorf("not a level-%d bucket boundary", level)
	}
	if b.Min < b.Lo || b.Min > b.Max || bucketLo(b.Min, level) != b.Lo || bucketLo(b.Max, level) != b.Lo {
		return fmt.Errorf("min %d and max %d do not fit the bucket", b.Min, b.Max)
	}
	lo, hi := wide{b.N}, wide{b.N} // N·(Min−Lo)^k and N·(Max−Lo)^k
	for k, dk := range [][4]uint64{b.D1, b.D2, b.D3} {
		lo, hi = lo.mul(b.Min-b.Lo), hi.mul(b.Max-b.Lo)
		if wide(dk).less(lo) || hi.less(wide(dk)) {
			return fmt.Errorf("sum of offsets to the power %d outside its bounds", k+1)
		}
	}
	return nil
}

// wide is a 256-bit unsigned integer, least significant word first.
type wide [4]uint64

// mul returns w·m; the products checkBucket forms are at most 2⁶⁴·(2⁶⁴)³ < 2²⁵⁶.
func (w wide) mul(m uint64) wide {
	var r wide
	var carry uint64
	for i := range w {
		hi, lo := bits.Mul64(w[i], m)
		var c uint64
		r[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	return r
}

func (w wide) less(v wide) bool {
	for i := 3; i >= 0; i-- {
		if w[i] != v[i] {
			return w[i] < v[i]
		}
	}
	return false
}

// encodeStats returns the body of the statistics section of p.
func (p *Profile) encodeStats() ([]byte, error) {
	if len(p.Stats) != len(p.Program.Funcs) {
		return nil, fmt.Errorf("profile: %d statistics sets for %d functions", len(p.Stats), len(p.Program.Funcs))
	}
	out := make([]byte, 8, 64)
	le.PutUint16(out[0:], StatsVersion)
	le.PutUint32(out[4:], uint32(len(p.Stats)))
	for fi, f := range p.Program.Funcs {
		ds := p.Stats[fi]
		if len(ds) != len(f.Blocks) {
			return nil, fmt.Errorf("profile: function %s: %d distributions for %d blocks", f.Name, len(ds), len(f.Blocks))
		}
		out = binary.AppendUvarint(out, uint64(len(ds)))
		for b := range ds {
			d := &ds[b]
			if err := d.Validate(); err != nil {
				return nil, fmt.Errorf("profile: function %s, block %d: count distribution: %v", f.Name, b, err)
			}
			if len(d.Buckets) == 0 {
				out = append(out, 0)
				out = binary.AppendUvarint(out, uint64(len(d.Values)))
				prev := uint64(0)
				for _, v := range d.Values {
					out = binary.AppendUvarint(out, v.V-prev)
					out = binary.AppendUvarint(out, v.N)
					prev = v.V
				}
				continue
			}
			out = append(out, 1)
			out = binary.AppendUvarint(out, uint64(d.Level))
			out = binary.AppendUvarint(out, uint64(len(d.Buckets)))
			prev := uint64(0)
			for _, bk := range d.Buckets {
				out = binary.AppendUvarint(out, bk.Lo-prev)
				out = binary.AppendUvarint(out, bk.N)
				out = binary.AppendUvarint(out, bk.Min-bk.Lo)
				out = binary.AppendUvarint(out, bk.Max-bk.Min)
				for _, w := range [][4]uint64{bk.D1, bk.D2, bk.D3} {
					n := 4
					for n > 0 && w[n-1] == 0 {
						n--
					}
					out = binary.AppendUvarint(out, uint64(n))
					for _, x := range w[:n] {
						out = binary.AppendUvarint(out, x)
					}
				}
				prev = bk.Lo
			}
		}
	}
	return out, nil
}

// decodeStats parses the statistics section body b (at file offset off) into p,
// whose functions and counts are already read. Every claimed length is checked
// against the bytes left before anything is allocated: a block needs at least 2
// bytes, an exact value 2 and a bucket 7.
func (p *Profile) decodeStats(b []byte, off int) error {
	if len(b) < 8 {
		return bad(off, "statistics section: too short")
	}
	if v := le.Uint16(b[0:]); v != StatsVersion {
		return bad(off, "statistics section: encoding version %d, this fragprof reads version %d", v, StatsVersion)
	}
	if fl := le.Uint16(b[2:]); fl != 0 {
		return bad(off+2, "statistics section: unknown flags %#x", fl)
	}
	if nf := le.Uint32(b[4:]); uint64(nf) != uint64(len(p.Program.Funcs)) {
		return bad(off+4, "statistics section: %d functions, the profile has %d", nf, len(p.Program.Funcs))
	}
	r := &varReader{b: b, i: 8}
	stats := make([][]Dist, len(p.Program.Funcs))
	for fi, f := range p.Program.Funcs {
		at := off + r.i
		fail := func(blk int, format string, a ...any) error {
			where := fmt.Sprintf("statistics section: function %s", f.Name)
			if blk >= 0 {
				where += fmt.Sprintf(", block %d", blk)
			}
			return bad(at, "%s: %s", where, fmt.Sprintf(format, a...))
		}
		nb := r.u()
		if r.err != nil {
			return fail(-1, "%v", r.err)
		}
		if nb != uint64(len(f.Blocks)) {
			return fail(-1, "%d distributions for %d blocks", nb, len(f.Blocks))
		}
		if nb > uint64(len(b)-r.i)/2 {
			return fail(-1, "%d distributions cannot fit in %d bytes", nb, len(b)-r.i)
		}
		ds := make([]Dist, nb)
		for k := range ds {
			at = off + r.i
			d := &ds[k]
			form := r.u()
			switch form {
			case 0:
				n := r.u()
				if r.err == nil && (n > MaxExact || n > uint64(len(b)-r.i)/2) {
					return fail(k, "%d exact values (limit %d) cannot fit in %d bytes", n, MaxExact, len(b)-r.i)
				}
				if r.err == nil && n > 0 {
					d.Values = make([]ValueCount, n)
				}
				prev := uint64(0)
				for j := range d.Values {
					gap, cnt := r.u(), r.u()
					v, c := bits.Add64(prev, gap, 0)
					if r.err == nil && (c != 0 || j > 0 && gap == 0) {
						return fail(k, "value %d out of order or out of range", j)
					}
					d.Values[j] = ValueCount{V: v, N: cnt}
					prev = v
				}
			case 1:
				lv, n := r.u(), r.u()
				if r.err == nil && lv > TopLevel {
					return fail(k, "bucket level %d outside [0, %d]", lv, TopLevel)
				}
				if r.err == nil && (n == 0 || n > MaxBuckets || n > uint64(len(b)-r.i)/7) {
					return fail(k, "%d buckets (limit %d) cannot fit in %d bytes", n, MaxBuckets, len(b)-r.i)
				}
				d.Level = int(lv)
				if r.err == nil {
					d.Buckets = make([]Bucket, n)
				}
				prev := uint64(0)
				for j := range d.Buckets {
					bk := &d.Buckets[j]
					var c1, c2, c3 uint64
					bk.Lo, c1 = bits.Add64(prev, r.u(), 0)
					bk.N = r.u()
					bk.Min, c2 = bits.Add64(bk.Lo, r.u(), 0)
					bk.Max, c3 = bits.Add64(bk.Min, r.u(), 0)
					for _, w := range []*[4]uint64{&bk.D1, &bk.D2, &bk.D3} {
						nw := r.u()
						if r.err == nil && nw > 4 {
							return fail(k, "bucket %d: a sum of %d words, limit 4", j, nw)
						}
						for x := uint64(0); x < nw && r.err == nil; x++ {
							w[x] = r.u()
						}
					}
					if r.err == nil && (c1|c2|c3 != 0 || j > 0 && bk.Lo == prev) {
						return fail(k, "bucket %d out of order or out of range", j)
					}
					prev = bk.Lo
				}
			default:
				if r.err == nil {
					return fail(k, "unknown distribution form %d", form)
				}
			}
			if r.err != nil {
				return fail(k, "%v", r.err)
			}
			if err := d.Validate(); err != nil {
				return fail(k, "%v", err)
			}
		}
		stats[fi] = ds
	}
	if r.i != len(b) {
		return bad(off+r.i, "statistics section: %d bytes left over", len(b)-r.i)
	}
	p.Stats = stats
	if err := p.CheckStats(); err != nil {
		return &FormatError{Offset: int64(off), Msg: "statistics section: " + err.Error()}
	}
	return nil
}

// CheckStats verifies that p's statistics fit the rest of the profile: one valid
// distribution per block; within a function every block has the same number of
// trials (every trial counts every block, if only as 0), at most p.Runs; and, when
// p has counts, every block's Σx over its distribution equals its count (the counts
// of a Monte Carlo profile are the sums over its trials).
func (p *Profile) CheckStats() error {
	if p.Stats == nil {
		return nil
	}
	if len(p.Stats) != len(p.Program.Funcs) {
		return fmt.Errorf("%d statistics sets for %d functions", len(p.Stats), len(p.Program.Funcs))
	}
	for fi, f := range p.Program.Funcs {
		ds := p.Stats[fi]
		if len(ds) != len(f.Blocks) {
			return fmt.Errorf("function %s: %d distributions for %d blocks", f.Name, len(ds), len(f.Blocks))
		}
		for b := range ds {
			if err := ds[b].Validate(); err != nil {
				return fmt.Errorf("function %s, block %d: %v", f.Name, b, err)
			}
			n := ds[b].N()
			if n != ds[0].N() {
				return fmt.Errorf("function %s: block %d has %d trials, block 0 has %d", f.Name, b, n, ds[0].N())
			}
			if n > uint64(p.Runs) {
				return fmt.Errorf("function %s: %d trials, more than the profile's %d runs", f.Name, n, p.Runs)
			}
			if p.Counts != nil {
				hi, lo := ds[b].Sum()
				if hi != 0 || lo != p.Counts[fi].Blocks[b] {
					return fmt.Errorf("function %s, block %d: the distribution sums to %s, the count is %d",
						f.Name, b, u128(hi, lo), p.Counts[fi].Blocks[b])
				}
			}
		}
	}
	return nil
}

func u128(hi, lo uint64) string {
	if hi == 0 {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d·2⁶⁴+%d", hi, lo)
}

// String prints d compactly: "n=N exact {v:n ...}" or "n=N level L [lo,min,max:n ...]".
func (d *Dist) String() string {
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
