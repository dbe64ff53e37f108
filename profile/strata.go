// This file implements the strata section (type 10): the exact per-block count
// distributions of a stratified Monte Carlo run, one set per stratum, so that
// shards and cluster tasks merge per stratum and a merged profile is judged by
// the stratified mean.
//
// Layout of the section (numbers uvarints unless said otherwise):
//
//	u16 version (1), u16 flags (0), u32 number of strata H
//	per stratum: name length, name bytes (UTF-8), size N_h, body length, then a
//	  body laid out as the statistics section's (stats.go): the distribution of
//	  each block's count over the stratum's trials
//
// docs/profile-format.md documents it for other implementations.

package profile

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// SecStrata is the type of the strata section.
const SecStrata = 10

// StrataVersion is the version of the strata section's encoding.
const StrataVersion = 1

// A Stratum is one stratum of a stratified population with the distribution of
// each block's count over the trials that drew from it: Stats is parallel to
// Program.Funcs, as Profile.Stats is, and holds the stratum's trials only.
type Stratum struct {
	Name  string
	Size  uint64
	Stats [][]Dist
}

// Trials returns the number of trials the stratum holds (0 for a profile of no
// function).
func (s *Stratum) Trials() uint64 {
	for _, ds := range s.Stats {
		if len(ds) > 0 {
			return ds[0].N()
		}
	}
	return 0
}

// encodeStrata returns the body of the strata section of p.
func (p *Profile) encodeStrata() ([]byte, error) {
	if err := p.CheckStrata(); err != nil {
		return nil, fmt.Errorf("profile: %v", err)
	}
	out := make([]byte, 8, 64)
	le.PutUint16(out[0:], StrataVersion)
	le.PutUint32(out[4:], uint32(len(p.Strata)))
	for _, st := range p.Strata {
		body, err := (&Profile{Program: p.Program, Stats: st.Stats}).encodeStats()
		if err != nil {
			return nil, fmt.Errorf("stratum %s: %v", st.Name, err)
		}
		out = binary.AppendUvarint(out, uint64(len(st.Name)))
		out = append(out, st.Name...)
		out = binary.AppendUvarint(out, st.Size)
		out = binary.AppendUvarint(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

// decodeStrata parses the strata section body b (at file offset off) into p,
// whose statistics are already read.
func (p *Profile) decodeStrata(b []byte, off int) error {
	if len(b) < 8 {
		return bad(off, "strata section: too short")
	}
	if v := le.Uint16(b[0:]); v != StrataVersion {
		return bad(off, "strata section: encoding version %d, this fragprof reads version %d", v, StrataVersion)
	}
	if fl := le.Uint16(b[2:]); fl != 0 {
		return bad(off+2, "strata section: unknown flags %#x", fl)
	}
	if p.Stats == nil {
		return bad(off, "strata section without a statistics section")
	}
	nh := uint64(le.Uint32(b[4:]))
	if nh > uint64(len(b)-8)/3 {
		return bad(off+4, "strata section: %d strata cannot fit in %d bytes", nh, len(b)-8)
	}
	r := &varReader{b: b, i: 8}
	strata := make([]Stratum, nh)
	for h := range strata {
		at := off + r.i
		n := r.u()
		if r.err != nil || n > uint64(len(b)-r.i) {
			return bad(at, "strata section: stratum %d: name outside the section", h)
		}
		name := string(b[r.i : r.i+int(n)])
		r.i += int(n)
		size, blen := r.u(), r.u()
		if r.err != nil || blen > uint64(len(b)-r.i) {
			return bad(at, "strata section: stratum %d (%s): body outside the section", h, name)
		}
		sp := &Profile{Program: p.Program, Runs: p.Runs}
		if err := sp.decodeStats(b[r.i:r.i+int(blen)], off+r.i); err != nil {
			return bad(at, "strata section: stratum %d (%s): %v", h, name, err)
		}
		r.i += int(blen)
		strata[h] = Stratum{Name: name, Size: size, Stats: sp.Stats}
	}
	if r.i != len(b) {
		return bad(off+r.i, "strata section: %d bytes left over", len(b)-r.i)
	}
	p.Strata = strata
	if err := p.CheckStrata(); err != nil {
		return &FormatError{Offset: int64(off), Msg: "strata section: " + err.Error()}
	}
	return nil
}

// CheckStrata verifies that p's strata fit its statistics: every function's
// trials in the strata add up to its trials in the statistics section.
func (p *Profile) CheckStrata() error {
	if p.Strata == nil {
		return nil
	}
	if p.Stats == nil {
		return fmt.Errorf("strata without statistics")
	}
	for fi, f := range p.Program.Funcs {
		if len(f.Blocks) == 0 {
			continue
		}
		var n uint64
		for h := range p.Strata {
			st := &p.Strata[h]
			if len(st.Stats) != len(p.Program.Funcs) || len(st.Stats[fi]) != len(f.Blocks) {
				return fmt.Errorf("stratum %s: not one distribution per block", st.Name)
			}
			n += st.Stats[fi][0].N()
		}
		if n != p.Stats[fi][0].N() {
			return fmt.Errorf("function %s: the strata hold %d trials, the statistics %d", f.Name, n, p.Stats[fi][0].N())
		}
	}
	return nil
}

// sameStrata reports whether every source has strata, the same names and sizes.
func sameStrata(srcs []*Profile) bool {
	for _, p := range srcs {
		if p.Strata == nil || !slices.EqualFunc(p.Strata, srcs[0].Strata, func(a, b Stratum) bool { return a.Name == b.Name && a.Size == b.Size }) {
			return false
		}
	}
	return true
}

// mergeStrata merges the strata of srcs into out, stratum by stratum, as
// mergeStats merges the statistics.
func mergeStrata(out *Profile, srcs []*Profile, index map[funcKey]int) error {
	out.Strata = make([]Stratum, len(srcs[0].Strata))
	for h, st := range srcs[0].Strata {
		parts := make([]*Profile, len(srcs))
		for i, p := range srcs {
			parts[i] = &Profile{Program: p.Program, Stats: p.Strata[h].Stats}
		}
		m := &Profile{Program: out.Program}
		if err := mergeStats(m, parts, index); err != nil {
			return fmt.Errorf("stratum %s: %v", st.Name, err)
		}
		out.Strata[h] = Stratum{Name: st.Name, Size: st.Size, Stats: m.Stats}
	}
	return nil
}
