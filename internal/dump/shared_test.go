package dump

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
)

// unit returns a unit of one function named name — entry, a loop, its exit (and one
// more block when extraBlock) — as the runtime would hand it over, called calls times
// with loops back edges in all.
func unit(t *testing.T, name string, shared bool, extraBlock bool, calls, loops uint64) Unit {
	t.Helper()
	f := &cfg.Func{Name: name, File: "lib.hpp", Line: 3}
	a, b, c := f.AddBlock("entry"), f.AddBlock("loop"), f.AddBlock("done")
	f.AddEdge(a, b, cfg.Unconditional, "")
	f.AddEdge(b, b, cfg.True, "")
	f.AddEdge(b, c, cfg.False, "")
	if extraBlock {
		f.AddEdge(c, f.AddBlock("extra"), cfg.Unconditional, "")
	}
	p := instrument.PlanFunc(f, instrument.Edges)
	p.Shared = shared
	blob, err := (&instrument.Unit{Source: "u.cpp", Scheme: instrument.Edges, Funcs: []*instrument.FuncPlan{p}}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	u, err := instrument.Decode(blob)
	if err != nil {
		t.Fatal(err)
	}
	// Edges scheme: the entry, then every edge in order.
	vals := []uint64{calls, calls, loops, calls}
	if extraBlock {
		vals = append(vals, calls)
	}
	return Unit{Unit: u, Counters: vals}
}

// TestSharedFunctions: a function that several units define (linkonce_odr: inline
// functions, templates) is one function of the profile with the units' counts added
// up; functions that merely share a name (static ones) stay apart, and so do shared
// ones whose CFGs differ, with a warning.
func TestSharedFunctions(t *testing.T) {
	d := &Dump{MainReturned: true, Finished: true, Units: []Unit{
		unit(t, "_Z3sumIiEvv", true, false, 2, 5),
		unit(t, "_Z3sumIiEvv", true, false, 0, 0), // the copy the linker discarded
		unit(t, "_Z3sumIiEvv", true, false, 1, 4), // inlined into this unit's callers
		unit(t, "helper", false, false, 1, 1),
		unit(t, "helper", false, false, 3, 3),
	}}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	var sums, helpers int
	for i, f := range p.Program.Funcs {
		switch f.Name {
		case "_Z3sumIiEvv":
			sums++
			if c := p.Counts[i]; c.Blocks[0] != 3 || c.Blocks[1] != 12 || c.Edges[1] != 9 {
				t.Errorf("shared function counts %+v, want entry 3, loop 12 (3 + 9 back edges)", c)
			}
		case "helper":
			helpers++
		}
	}
	if sums != 1 || helpers != 2 {
		t.Errorf("%d copies of the shared function, %d of the static ones; want 1 and 2", sums, helpers)
	}
	if len(d.Warnings) != 0 {
		t.Errorf("warnings %v", d.Warnings)
	}

	d = &Dump{MainReturned: true, Finished: true, Units: []Unit{
		unit(t, "_Z1fv", true, false, 1, 1),
		unit(t, "_Z1fv", true, true, 1, 1),
	}}
	p, err = d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Program.Funcs) != 2 || len(d.Warnings) != 1 || !strings.Contains(d.Warnings[0], "different CFGs") {
		t.Errorf("differing definitions: %d functions, warnings %v; want 2 and one warning", len(p.Program.Funcs), d.Warnings)
	}
}

// TestSparseProfile: SparseProfile gives the counts of Profile for every function
// that ran, the zero cfg.Counts for one that did not, and the shared function's
// copies added whichever of them ran first — the idle copy first, then the copy
// that ran, then a second that ran.
func TestSparseProfile(t *testing.T) {
	units := func() []Unit {
		return []Unit{
			unit(t, "_Z3sumIiEvv", true, false, 0, 0), // idle copy first
			unit(t, "_Z3sumIiEvv", true, false, 2, 5),
			unit(t, "_Z3sumIiEvv", true, false, 1, 4),
			unit(t, "idle", false, false, 0, 0),
			unit(t, "helper", false, false, 3, 3),
		}
	}
	dense, err := (&Dump{MainReturned: true, Finished: true, Units: units()}).Profile()
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := (&Dump{MainReturned: true, Finished: true, Units: units()}).SparseProfile()
	if err != nil {
		t.Fatal(err)
	}
	if len(dense.Program.Funcs) != 3 || len(sparse.Program.Funcs) != 3 {
		t.Fatalf("%d and %d functions, want 3", len(dense.Program.Funcs), len(sparse.Program.Funcs))
	}
	for i, f := range sparse.Program.Funcs {
		d, s := dense.Counts[i], sparse.Counts[i]
		switch {
		case f.Name == "idle":
			if s.Blocks != nil || s.Edges != nil || d.Blocks == nil || d.Blocks[0] != 0 {
				t.Errorf("idle: sparse %+v, dense %+v; want nil and zeros", s, d)
			}
		case !reflect.DeepEqual(d, s):
			t.Errorf("%s: sparse %+v, dense %+v", f.Name, s, d)
		case f.Name == "_Z3sumIiEvv" && s.Blocks[1] != 12:
			t.Errorf("shared function's loop %d, want 12", s.Blocks[1])
		}
	}
}
