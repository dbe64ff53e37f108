// This file implements the rates section (type 9): the statistics of a profile
// built from sampled program counters (`fragprof hotcfg --format profile`), each
// edge's estimated rate with its standard error.
//
// Layout of the section:
//
//	u64 program hash (as in the identity section)
//	u64 instructions executed (0: unknown), u64 program counters sampled
//	per function, in the order of the function headers:
//	  uvarint E (= the function's number of edges), then E edges:
//	    u8 flags: bit 0 estimated, bit 1 inferred (other bits zero)
//	    when estimated: f64 rate, f64 standard error (IEEE 754, little-endian)
//
// docs/profile-format.md documents it for other implementations.

package profile

import (
	"encoding/binary"
	"fmt"
	"math"
)

// SecRates is the section type of the edge rates of a sampled profile (ancillary).
const SecRates = 9

// Rates are the statistics of a profile built from samples: how many instructions
// the sampled runs executed and how many of them were sampled, and every edge's
// estimated rate with its standard error.
type Rates struct {
	// Instructions is the number of instructions the sampled runs executed, when
	// it was counted; 0 if unknown.
	Instructions uint64
	// Sampled is the number of program counters the profile was built from.
	Sampled uint64
	// Edges is parallel to Program.Funcs and, within a function, to its Edges.
	Edges [][]EdgeRate
}

// An EdgeRate is the estimate of one edge's rate.
type EdgeRate struct {
	// Estimated says whether Rate and StdErr hold an estimate. Edges the profile
	// adds to close the flow of a function (from its synthetic entry block, and
	// from a call to its return site) have none.
	Estimated bool
	// Inferred marks an edge that was not observed but is implied by the decoded
	// code (hotcfg.Edge.Inferred); its count and rate are estimates.
	Inferred bool
	// Rate is the estimated number of transitions per executed instruction, and
	// StdErr its standard error (hotcfg.Bursts documents the estimator).
	Rate, StdErr float64
}

const (
	rateEstimated = 1 << iota
	rateInferred
)

// encodeRates returns the body of the rates section of p.
func (p *Profile) encodeRates() ([]byte, error) {
	r := p.Rates
	if len(r.Edges) != len(p.Program.Funcs) {
		return nil, fmt.Errorf("profile: %d rate sets for %d functions", len(r.Edges), len(p.Program.Funcs))
	}
	out := le.AppendUint64(nil, p.Hash())
	out = le.AppendUint64(out, r.Instructions)
	out = le.AppendUint64(out, r.Sampled)
	for fi, f := range p.Program.Funcs {
		es := r.Edges[fi]
		if len(es) != len(f.Edges) {
			return nil, fmt.Errorf("profile: function %s: %d rates for %d edges", f.Name, len(es), len(f.Edges))
		}
		out = binary.AppendUvarint(out, uint64(len(es)))
		for k, e := range es {
			var fl byte
			if e.Inferred {
				fl |= rateInferred
			}
			if !e.Estimated {
				if e.Rate != 0 || e.StdErr != 0 {
					return nil, fmt.Errorf("profile: function %s, edge %d: a rate without an estimate", f.Name, k)
				}
				out = append(out, fl)
				continue
			}
			if err := checkRate(e); err != nil {
				return nil, fmt.Errorf("profile: function %s, edge %d: %v", f.Name, k, err)
			}
			out = append(out, fl|rateEstimated)
			out = le.AppendUint64(out, math.Float64bits(e.Rate))
			out = le.AppendUint64(out, math.Float64bits(e.StdErr))
		}
	}
	return out, nil
}

// checkRate verifies that an estimate is a finite, non-negative rate and error.
func checkRate(e EdgeRate) error {
	if !(e.Rate >= 0) || math.IsInf(e.Rate, 0) || !(e.StdErr >= 0) || math.IsInf(e.StdErr, 0) {
		return fmt.Errorf("rate %v ± %v is not finite and non-negative", e.Rate, e.StdErr)
	}
	return nil
}

// parseRates reads the rates section at offset off into p, whose functions must be
// read already. Errors name the section, the function and the edge.
func (p *Profile) parseRates(data []byte, off int) error {
	if len(data) < 24 {
		return bad(off, "rates section too short")
	}
	if h := le.Uint64(data); h != p.Hash() {
		return bad(off, "rates section's program hash %016x is not the functions' hash %016x", h, p.Hash())
	}
	r := &Rates{Instructions: le.Uint64(data[8:]), Sampled: le.Uint64(data[16:]), Edges: make([][]EdgeRate, len(p.Program.Funcs))}
	vr := &varReader{b: data, i: 24}
	for fi, f := range p.Program.Funcs {
		at := vr.i
		ne := vr.u()
		if vr.err != nil || ne != uint64(len(f.Edges)) {
			return bad(off+at, "rates section: function %s: %d rates, its graph has %d edges", f.Name, ne, len(f.Edges))
		}
		// Every edge takes at least its flags byte: check before allocating.
		if ne > uint64(len(data)-vr.i) {
			return bad(off+at, "rates section: function %s: %d rates cannot fit in %d bytes", f.Name, ne, len(data)-vr.i)
		}
		es := make([]EdgeRate, ne)
		for k := range es {
			at := vr.i
			fail := func(format string, a ...any) error {
				return bad(off+at, "rates section: function %s, edge %d: %s", f.Name, k, fmt.Sprintf(format, a...))
			}
			if vr.i >= len(data) {
				return fail("truncated")
			}
			fl := data[vr.i]
			vr.i++
			if fl&^(rateEstimated|rateInferred) != 0 {
				return fail("unknown flags %#x", fl)
			}
			es[k].Inferred = fl&rateInferred != 0
			if fl&rateEstimated == 0 {
				continue
			}
			if len(data)-vr.i < 16 {
				return fail("truncated")
			}
			es[k].Estimated = true
			es[k].Rate = math.Float64frombits(le.Uint64(data[vr.i:]))
			es[k].StdErr = math.Float64frombits(le.Uint64(data[vr.i+8:]))
			vr.i += 16
			if err := checkRate(es[k]); err != nil {
				return fail("%v", err)
			}
		}
		r.Edges[fi] = es
	}
	if vr.i != len(data) {
		return bad(off+vr.i, "rates section: %d bytes left over after the last function", len(data)-vr.i)
	}
	p.Rates = r
	return nil
}
