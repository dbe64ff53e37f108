package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/montecarlo"
)

// TestFreqBadNumbers: precisions and confidences out of range are refused with the
// valid range, never silently replaced (--eps 0 must not become ±1 % relative).
func TestFreqBadNumbers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--eps", "0"}, "--eps 0: want an absolute precision > 0"},
		{[]string{"--eps", "-1"}, "--eps -1: want an absolute precision > 0"},
		{[]string{"--eps", "NaN"}, "--eps NaN: want an absolute precision > 0"},
		{[]string{"--eps", "+Inf"}, "--eps +Inf: want an absolute precision > 0"},
		{[]string{"--rel-eps", "0"}, "--rel-eps 0: want a relative precision > 0"},
		{[]string{"--rel-eps", "-0.5"}, "--rel-eps -0.5: want a relative precision > 0"},
		{[]string{"--gamma", "0"}, "--gamma 0: want a confidence with 0 < gamma < 1"},
		{[]string{"--gamma", "1"}, "--gamma 1: want a confidence with 0 < gamma < 1"},
		{[]string{"--gamma", "NaN"}, "--gamma NaN: want a confidence with 0 < gamma < 1"},
		{[]string{"--ignore-rare", "1"}, "--ignore-rare 1: want a probability with 0 ≤ P < 1"},
		{[]string{"--max-fail", "0"}, "--max-fail 0: want a fraction"},
		{[]string{"--n-min", "0"}, "--n-min 0: want at least 1"},
		{[]string{"--rule", "bogus"}, `--rule "bogus": want one of clt, anytime`},
		{[]string{"--eps", "0.3", "--rel-eps", "0.1"}, "give --eps or --rel-eps, not both"},
	} {
		_, code, stderr := freq(t, append([]string{"../../examples/newton.c"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestProgressText: the progress line names the block deciding the budget, the
// trials it projects and the time left.
func TestProgressText(t *testing.T) {
	got := progressText(montecarlo.Progress{Trials: 1500, Elapsed: 3 * time.Second, Decided: 10, Blocks: 12,
		Deciding: "sort:for.body", Need: 4500, HalfWidth: 0.25, Left: 6 * time.Second})
	want := "fragprof freq: 1500 trials, 500/s, 10/12 blocks decided; deciding: sort:for.body ±0.25, needs ~4500 trials (~6s left)"
	if got != want {
		t.Errorf("progress line\n got %q\nwant %q", got, want)
	}
	if s := progressText(montecarlo.Progress{Trials: 10, Elapsed: time.Second}); strings.Contains(s, "deciding") {
		t.Errorf("no deciding block: %q", s)
	}
}
