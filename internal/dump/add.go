// This file adds up the dumps of several processes of one run.

package dump

import (
	"fmt"

	"github.com/fragprof/fragprof/internal/instrument"
)

// Add adds to d the counts of o, a dump of other processes of the same run (in
// continuous mode, the forked and exec'd processes' dump beside the first process's
// file: docs/runtime.md, "Processes"). Units are matched by their plan; a unit d
// lacks is appended. The sum ended as d did, with MainReturned only if every process
// returned from main, and the signal (and fault) of d or else of o.
func (d *Dump) Add(o *Dump) error {
	for _, v := range o.Units {
		found := false
		for i := range d.Units {
			u := &d.Units[i]
			if !sameUnit(u.Unit, v.Unit) {
				continue
			}
			if len(u.Counters) != len(v.Counters) {
				return fmt.Errorf("unit %s: %d counters here, %d in the other processes' dump", u.Unit.Source, len(u.Counters), len(v.Counters))
			}
			for k, c := range v.Counters {
				u.Counters[k] += c
			}
			found = true
			break
		}
		if !found {
			d.Units = append(d.Units, Unit{Unit: v.Unit, Counters: append([]uint64(nil), v.Counters...)})
		}
	}
	d.MainReturned = d.MainReturned && o.MainReturned
	if d.Signal == 0 {
		d.Signal = o.Signal
	}
	if d.Fault == nil {
		d.Fault = o.Fault
	}
	return nil
}

// sameUnit reports whether a and b are the plan of one unit: decoded from one blob, or
// of the same source, scheme, functions and counters.
func sameUnit(a, b *instrument.Unit) bool {
	if a == b {
		return true
	}
	if a.Source != b.Source || a.Scheme != b.Scheme || len(a.Funcs) != len(b.Funcs) {
		return false
	}
	for i, f := range a.Funcs {
		g := b.Funcs[i]
		if f.Func.Name != g.Func.Name || len(f.Counters) != len(g.Counters) {
			return false
		}
	}
	return true
}
