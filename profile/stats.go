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
	"fmt"
	"math/bits"

	"github.com/fragprof/fragprof/internal/stats"
)

// StatsVersion is the version of the statistics section's encoding that this
// package writes and reads. A statistics section of another version is an error
// (the section is ancillary, so readers that do not know it at all ignore it).
const StatsVersion = 1

// Limits of a Dist: two distributions merge exactly only under the same limits.
const (
	MaxExact   = stats.MaxExact   // distinct values kept exactly
	MaxBuckets = stats.MaxBuckets // buckets of a coarse distribution
	TopLevel   = stats.TopLevel   // the finest bucket level
)

// Dist is the exact distribution of one block's execution count over the trials of
// a Monte Carlo run, the very type the estimators work on (stats.CountDist): either
// the exact table of (count, trials) or, past [MaxExact] distinct counts,
// log-linear buckets with exact integer sums (see docs/statistics.md for the
// bucket layout and why merging is exact and order-independent). Parse checks
// every one it reads with Validate.
type (
	Dist       = stats.CountDist
	ValueCount = stats.ValueCount
	Bucket     = stats.Bucket
)

// HasStats reports whether p carries the statistics section.
func (p *Profile) HasStats() bool { return p.Stats != nil }

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
					for _, w := range []*[4]uint64{(*[4]uint64)(&bk.D1), (*[4]uint64)(&bk.D2), (*[4]uint64)(&bk.D3)} {
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
