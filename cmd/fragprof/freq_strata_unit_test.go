package main

import (
	"testing"

	"github.com/fragprof/fragprof/internal/dist"
)

// TestStrataInput: the stratified input of a profile is found in the lines
// populationLines writes; a population without strata names none.
func TestStrataInput(t *testing.T) {
	for _, c := range []struct{ inputs, want string }{
		{"f = file(\"c/**/*\"; strata = dir)\nf: population of 44 items of \"c/**/*\", drawn without replacement, stratified by dir (3 strata), proportional allocation, sha256 ab", "f"},
		{"g: population of 9 items of \"c/*\", drawn without replacement, sha256 ab\nfinite population: N = 9, drawn without replacement by seed 1, nothing else random", ""},
		{"", ""},
	} {
		if got := strataInput(c.inputs); got != c.want {
			t.Errorf("strataInput(%q) = %q, want %q", c.inputs, got, c.want)
		}
	}
}

// TestPinReplay: --replay N or N:H:K; the second form needs strata, a stratum
// in range and, for a trial whose stratum follows from N, the same one; a
// Neyman trial past the pilot needs it.
func TestPinReplay(t *testing.T) {
	st := &dist.Strata{Input: "f", Alloc: dist.Neyman, Names: []string{"a", "b"}, Sizes: []uint64{20, 60},
		Schedule: dist.NewSchedule([]uint64{20, 60}, dist.Neyman)}
	if i, err := pinReplay("5", st); err != nil || i != 5 {
		t.Errorf("--replay 5 (the pilot): %d, %v", i, err)
	}
	if _, err := pinReplay("25", st); err == nil {
		t.Errorf("--replay 25 past the pilot, not planned: no error")
	}
	if i, err := pinReplay("25:1:17", st); err != nil || i != 25 {
		t.Errorf("--replay 25:1:17: %d, %v", i, err)
	} else if h, k, err := st.Schedule.Stratum(25); err != nil || h != 1 || k != 17 {
		t.Errorf("trial 25 pinned: stratum %d draw %d (%v), want 1, 17", h, k, err)
	}
	for _, bad := range []string{"25:1", "x", "25:2:0", "5:1:0"} {
		if _, err := pinReplay(bad, st); err == nil {
			t.Errorf("--replay %s: no error", bad)
		}
	}
	if _, err := pinReplay("3:0:3", nil); err == nil {
		t.Errorf("--replay 3:0:3 without strata: no error")
	}
}
