package dump

import (
	"slices"
	"testing"

	"github.com/fragprof/fragprof/internal/instrument"
)

// TestAdd: the counts of a unit found in both dumps (by pointer, or by an equal plan
// decoded apart) are added; a unit only the other dump has is appended, copied; the
// sum's main returned only if both did, and it keeps the first signal.
func TestAdd(t *testing.T) {
	a, a2, b := &instrument.Unit{Source: "a.c"}, &instrument.Unit{Source: "a.c"}, &instrument.Unit{Source: "b.c"}
	d := &Dump{MainReturned: true, Units: []Unit{{Unit: a, Counters: []uint64{1, 2}}}}
	o := &Dump{Signal: 11, Units: []Unit{{Unit: a2, Counters: []uint64{10, 20}}, {Unit: b, Counters: []uint64{5}}}}
	if err := d.Add(o); err != nil {
		t.Fatal(err)
	}
	if len(d.Units) != 2 || !slices.Equal(d.Units[0].Counters, []uint64{11, 22}) || d.Units[1].Unit != b || !slices.Equal(d.Units[1].Counters, []uint64{5}) {
		t.Fatalf("units after Add: %+v", d.Units)
	}
	o.Units[1].Counters[0] = 99
	if d.Units[1].Counters[0] != 5 {
		t.Error("an appended unit shares its counters with the other dump")
	}
	if d.MainReturned || d.Signal != 11 {
		t.Errorf("main returned %v, signal %d; want false, 11", d.MainReturned, d.Signal)
	}
	bad := &Dump{Units: []Unit{{Unit: a, Counters: []uint64{1}}}}
	if err := d.Add(bad); err == nil {
		t.Error("a unit with another number of counters was added")
	}
}
