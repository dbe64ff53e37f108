package profile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// strataProfile folds trials into a profile with statistics and strata, trial
// i drawn from stratum i mod len(sizes), named "s0", "s1", ....
func strataProfile(trials [][]cfg.Counts, first int, sizes []uint64) *Profile {
	p := statsProfile(trials)
	for h, size := range sizes {
		var mine [][]cfg.Counts
		for i := range trials {
			if (first+i)%len(sizes) == h {
				mine = append(mine, trials[i])
			}
		}
		st := Stratum{Name: "s" + string(rune('0'+h)), Size: size, Stats: statsProfile(mine).Stats}
		if len(mine) == 0 {
			st.Stats = statsProfile(nil).Stats
		}
		p.Strata = append(p.Strata, st)
	}
	return p
}

// TestStrataRoundTripAndMerge: the strata section survives parse → write bit
// for bit; shards of a stratified run merge, stratum by stratum, to the bits of
// one profile of all the trials; strata that differ are dropped, not summed.
func TestStrataRoundTripAndMerge(t *testing.T) {
	sizes := []uint64{500, 300, 200}
	trials := trialRuns(7, 900, 1<<20)
	whole := strataProfile(trials, 0, sizes)
	data := encode(t, whole)
	q, err := Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Strata, whole.Strata) || q.Strata[1].Trials() != 300 {
		t.Fatalf("parse(write(p)) changed the strata (stratum s1 holds %d trials, want 300)", q.Strata[1].Trials())
	}
	if again := encode(t, q); !bytes.Equal(again, data) {
		t.Fatalf("parse → write changed the file")
	}
	a, b := strataProfile(trials[:400], 0, sizes), strataProfile(trials[400:], 400, sizes)
	m, err := Merge([]*Profile{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if got := encode(t, m); !bytes.Equal(got, data) {
		t.Fatalf("the two shards merged differ from one profile of all the trials")
	}
	b.Strata[2].Size++
	if m, err = Merge([]*Profile{a, b}); err != nil || m.Strata != nil || m.Stats == nil {
		t.Fatalf("merging profiles of different strata: strata %v, statistics kept %v, error %v; want the strata dropped", m.Strata, m.Stats != nil, err)
	}
}

// TestStrataCorrupt: strata whose trials do not add up to the statistics'
// are refused, on writing and on reading.
func TestStrataCorrupt(t *testing.T) {
	trials := trialRuns(3, 30, 50)
	p := strataProfile(trials, 0, []uint64{10, 20})
	p.Strata[0].Stats = statsProfile(trials[:5]).Stats
	if _, err := p.encode(); err == nil || !strings.Contains(err.Error(), "the strata hold 20 trials, the statistics 30") {
		t.Errorf("writing strata of 5 + 15 trials over statistics of 30: %v; want them refused", err)
	}
	// The strata section of 20 trials in a file of 30.
	body, err := strataProfile(trials[:20], 0, []uint64{10, 20}).encodeStrata()
	if err != nil {
		t.Fatal(err)
	}
	p.Strata, p.Extra = nil, []Section{{Type: SecStrata, Data: body}}
	_, err = Parse(bytes.NewReader(encode(t, p)))
	if err == nil || !strings.Contains(err.Error(), "the strata hold 20 trials, the statistics 30") {
		t.Errorf("reading strata of 20 trials over statistics of 30: %v; want them refused", err)
	}
}
