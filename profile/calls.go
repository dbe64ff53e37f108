// This file implements the calls section (type 8, since format 1.2): the direct
// callees of every block (cfg.Block.Calls), from which reports derive call edges and
// their counts (cfg.Func.CallEdges).

package profile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// SecCalls is the section type of the blocks' direct callees (ancillary).
const SecCalls = 8

// hasCalls reports whether some block of p records calls.
func (p *Profile) hasCalls() bool {
	for _, f := range p.Program.Funcs {
		for _, b := range f.Blocks {
			if len(b.Calls) > 0 {
				return true
			}
		}
	}
	return false
}

// encodeCalls is the calls section: the program hash (u64, as in the identity
// section, so that a section left behind by a tool that changed the functions is
// caught), the callee names (a uvarint count, then each a uvarint length and its
// bytes: the section's own name table, so that it stays valid whatever a writer that
// does not know it does to the main one), then per function in the order of the
// function headers its number of blocks B and, per block, the number of calls K and
// K indexes into the section's names, all uvarints.
func (p *Profile) encodeCalls() []byte {
	index := map[string]uint64{}
	var list []string
	for _, f := range p.Program.Funcs {
		for _, b := range f.Blocks {
			for _, c := range b.Calls {
				if _, ok := index[c]; !ok {
					index[c] = uint64(len(list))
					list = append(list, c)
				}
			}
		}
	}
	out := le.AppendUint64(nil, p.Hash())
	out = binary.AppendUvarint(out, uint64(len(list)))
	for _, s := range list {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	for _, f := range p.Program.Funcs {
		out = binary.AppendUvarint(out, uint64(len(f.Blocks)))
		for _, b := range f.Blocks {
			out = binary.AppendUvarint(out, uint64(len(b.Calls)))
			for _, c := range b.Calls {
				out = binary.AppendUvarint(out, index[c])
			}
		}
	}
	return out
}

// parseCalls reads the calls section at offset off into the blocks of p, whose
// functions must be read already. Errors name the section and the function.
func (p *Profile) parseCalls(data []byte, off int) error {
	if len(data) < 8 {
		return bad(off, "calls section too short")
	}
	if h := le.Uint64(data); h != p.Hash() {
		return bad(off, "calls section's program hash %016x is not the functions' hash %016x", h, p.Hash())
	}
	r := &varReader{b: data, i: 8}
	n := r.u()
	// Every name takes at least its length byte: check before allocating.
	if r.err != nil || n > uint64(len(data)-r.i) {
		return bad(off+r.i, "calls section: %d callee names cannot fit in %d bytes", n, len(data)-r.i)
	}
	list := make([]string, n)
	for i := range list {
		l := r.u()
		if r.err != nil || l > uint64(len(data)-r.i) {
			return bad(off+r.i, "calls section: callee name %d truncated", i)
		}
		list[i] = string(data[r.i : r.i+int(l)])
		r.i += int(l)
	}
	for _, f := range p.Program.Funcs {
		at := r.i
		if nb := r.u(); r.err == nil && nb != uint64(len(f.Blocks)) {
			return bad(off+at, "calls section: function %s: %d blocks, its graph has %d", f.Name, nb, len(f.Blocks))
		}
		for _, b := range f.Blocks {
			at := r.i
			k := r.u()
			if r.err == nil && k > uint64(len(data)-r.i) {
				r.err = fmt.Errorf("%d calls cannot fit in %d bytes", k, len(data)-r.i)
			}
			if r.err != nil {
				return bad(off+at, "calls section: function %s, block %s: %v", f.Name, b.Label, r.err)
			}
			if k == 0 {
				continue
			}
			b.Calls = make([]string, k)
			for j := range b.Calls {
				c := r.u()
				if r.err == nil && c >= n {
					r.err = errors.New("callee index out of range")
				}
				if r.err != nil {
					return bad(off+at, "calls section: function %s, block %s: %v", f.Name, b.Label, r.err)
				}
				b.Calls[j] = list[c]
			}
		}
	}
	if r.i != len(data) {
		return bad(off+r.i, "calls section: %d bytes left over after the last function", len(data)-r.i)
	}
	return nil
}
