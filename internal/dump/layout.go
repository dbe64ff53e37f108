// This file caches where each unit's functions go in a profile: a Monte Carlo run
// turns thousands of dumps of one binary into profiles, and sorting its functions
// into source order and finding the copies of shared ones was, for sqlite3's 3,000
// functions, a tenth of fragprof's time a trial.

package dump

import (
	"fmt"
	"slices"
	"sync"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
)

// layout is the shape of the profiles of dumps of one set of units: its functions in
// source order (shared functions once), the position of every unit's function in
// that list, and the warnings the set always gives.
type layout struct {
	units    []*instrument.Unit
	funcs    []*cfg.Func // source order (cfg.Program.SortFuncs)
	dest     [][]int     // dest[u][j]: the index in funcs of unit u's function j
	offs     [][]int     // offs[u][j]: the first counter of unit u's function j; offs[u][len]: their number
	warnings []string
}

var (
	layoutMu sync.Mutex
	layouts  []*layout // the most recently used last
)

// maxLayouts bounds the cache; the oldest entry goes first.
const maxLayouts = 8

// layoutOf returns the layout of the units of d, computed once per set of decoded
// units (decodeMeta gives every dump of a binary the same ones).
func layoutOf(d *Dump) *layout {
	us := make([]*instrument.Unit, len(d.Units))
	for i, u := range d.Units {
		us[i] = u.Unit
	}
	layoutMu.Lock()
	defer layoutMu.Unlock()
	for i, l := range layouts {
		if slices.Equal(l.units, us) {
			layouts = append(slices.Delete(layouts, i, i+1), l)
			return l
		}
	}
	l := newLayout(us)
	if len(layouts) == maxLayouts {
		layouts = slices.Delete(layouts, 0, 1)
	}
	layouts = append(layouts, l)
	return l
}

func newLayout(us []*instrument.Unit) *layout {
	l := &layout{units: us, dest: make([][]int, len(us)), offs: make([][]int, len(us))}
	for ui, u := range us {
		offs := make([]int, len(u.Funcs)+1)
		for j, fp := range u.Funcs {
			offs[j+1] = offs[j] + len(fp.Counters)
		}
		l.offs[ui] = offs
	}
	shared := sharedFuncs{}
	index := map[*cfg.Func]int{} // before sorting: position in funcs
	for ui, u := range us {
		l.dest[ui] = make([]int, len(u.Funcs))
		for j, fp := range u.Funcs {
			if fp.Shared {
				if first := shared.find(fp.Func); first != nil {
					// Another unit's copy of the same function: one function, counts added.
					l.dest[ui][j] = index[first]
					continue
				}
				if shared.differs(fp.Func) {
					l.warnings = append(l.warnings, fmt.Sprintf("function %s is defined with different CFGs in several translation units (different macros or flags, an ODR violation?): their counts are shown separately", fp.Func.Name))
				}
				shared.add(fp.Func)
			}
			index[fp.Func] = len(l.funcs)
			l.dest[ui][j] = len(l.funcs)
			l.funcs = append(l.funcs, fp.Func)
		}
	}
	p := &cfg.Program{Funcs: slices.Clone(l.funcs)}
	p.SortFuncs()
	pos := make([]int, len(l.funcs)) // unsorted index → sorted index
	for i, f := range p.Funcs {
		pos[index[f]] = i
	}
	for _, d := range l.dest {
		for j := range d {
			d[j] = pos[d[j]]
		}
	}
	l.funcs = p.Funcs[:len(p.Funcs):len(p.Funcs)] // an append by a caller copies
	return l
}
