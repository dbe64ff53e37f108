package instrument

import (
	"math/rand"
	"reflect"
	"testing"
)

// TestChordsFromCalls: on random CFGs, a plan counted at its call sites has one
// counter fewer, and with the number of calls reconstructs every count exactly.
func TestChordsFromCalls(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for iter := 0; iter < 1000; iter++ {
		f := randomChordFunc(rng, 2+rng.Intn(14))
		p := planFunc(f, Chords, faultsExits, false)
		q := planFunc(f, Chords, faultsExits, true)
		if !q.EntryFromCalls {
			t.Fatalf("graph %d: not counted at its calls", iter)
		}
		if len(q.Counters) != len(p.Counters)-1 {
			t.Fatalf("graph %d: %d counters counted at the calls, %d otherwise", iter, len(q.Counters), len(p.Counters))
		}
		for _, c := range q.Counters {
			if c.Block == 0 && c.Edge < 0 {
				t.Fatalf("graph %d: a counter at the entry", iter)
			}
		}
		truth, vals := simulate(rand.New(rand.NewSource(int64(iter))), q, 1+rng.Intn(5), 0.3, false)
		got, err := q.ReconstructCalls(vals, truth.Blocks[0]-entryReentries(f, truth))
		if err != nil || !reflect.DeepEqual(got, truth) {
			t.Fatalf("graph %d: reconstructed %v (%v), want %v\n%s", iter, got, err, truth, f)
		}
	}
}
