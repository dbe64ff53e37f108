// Package dump reads the counter dumps that the fragprof runtime writes (layout in
// docs/runtime.md) and turns them into a profile: each unit's metadata blob gives its
// CFG and counter plan, and the plan reconstructs every block and edge count.
package dump

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/profile"
)

// Magic opens every dump.
const Magic = "FPDUMP\x00\x01"

// A Dump is one process's counters.
type Dump struct {
	MainReturned bool // main returned (rather than exit(), a signal, ...)
	Signal       int  // the fatal signal that caused the dump, or 0
	Pid          int
	Units        []Unit
}

// A Unit is one translation unit's plan and counter values.
type Unit struct {
	Unit     *instrument.Unit
	Counters []uint64
}

// maxSize bounds the sizes a header may claim, so a hostile file cannot make the
// reader allocate without limit.
const maxSize = 1 << 30

// Parse reads a dump. name is used in errors.
func Parse(name string, data []byte) (*Dump, error) {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%s: not a valid fragprof dump: %s", name, fmt.Sprintf(f, a...))
	}
	if len(data) < 32 || !bytes.Equal(data[:8], []byte(Magic)) {
		return nil, bad("bad header (was the program built by fragprof, and did it run to a dump?)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != 1 {
		return nil, bad("version %d, this fragprof reads version 1", v)
	}
	n := le.Uint32(data[12:])
	d := &Dump{MainReturned: le.Uint32(data[16:]) != 0, Signal: int(le.Uint32(data[20:])), Pid: int(le.Uint32(data[24:]))}
	off := 32
	for i := uint32(0); i < n; i++ {
		if off+8 > len(data) {
			return nil, bad("truncated at unit %d", i)
		}
		nc, ml := int(le.Uint32(data[off:])), int(le.Uint32(data[off+4:]))
		off += 8
		pad := (8 - ml%8) % 8
		if nc > maxSize/8 || ml > maxSize || off+ml+pad+8*nc > len(data) {
			return nil, bad("truncated at unit %d", i)
		}
		u, err := instrument.Decode(data[off : off+ml])
		if err != nil {
			return nil, fmt.Errorf("%s: unit %d: %v", name, i, err)
		}
		off += ml + pad
		if u.NumCounters() != nc {
			return nil, bad("unit %s has %d counters but its plan needs %d", u.Source, nc, u.NumCounters())
		}
		vals := make([]uint64, nc)
		for k := range vals {
			vals[k] = le.Uint64(data[off+8*k:])
		}
		off += 8 * nc
		d.Units = append(d.Units, Unit{Unit: u, Counters: vals})
	}
	if off != len(data) {
		return nil, bad("%d bytes of trailing data", len(data)-off)
	}
	return d, nil
}

// Flow returns how strictly flow conservation can be checked on this dump's counts:
// Conserved when main returned, Entered otherwise.
func (d *Dump) Flow() cfg.Flow {
	if d.MainReturned {
		return cfg.Conserved
	}
	return cfg.Entered
}

// Profile reconstructs every block and edge count and returns them as a profile,
// functions in source order. It checks flow conservation and fails rather than return
// counts that contradict each other.
func (d *Dump) Profile() (*profile.Profile, error) {
	p := &profile.Profile{Program: &cfg.Program{}, Runs: 1}
	counts := map[*cfg.Func]cfg.Counts{}
	for _, u := range d.Units {
		off := 0
		for _, fp := range u.Unit.Funcs {
			c, err := fp.Reconstruct(u.Counters[off : off+len(fp.Counters)])
			if err != nil {
				return nil, err
			}
			off += len(fp.Counters)
			p.Program.Funcs = append(p.Program.Funcs, fp.Func)
			counts[fp.Func] = c
			p.Counters += len(fp.Counters)
		}
	}
	p.Program.SortFuncs()
	for _, f := range p.Program.Funcs {
		p.Counts = append(p.Counts, counts[f])
	}
	for i, f := range p.Program.Funcs {
		if err := f.CheckFlow(p.Counts[i], d.Flow()); err != nil {
			return nil, fmt.Errorf("counts fail flow conservation (please report this as a fragprof bug): %v", err)
		}
	}
	return p, nil
}
