//go:build integration

package main

import (
	"strings"
	"testing"
	"time"
)

// TestRefusedLimits: flags whose value would be ignored, or leave fragprof working
// for nothing, are refused with a message that names the flag and says what to give,
// before anything is built or run. Before, a negative --timeout or --max-time meant
// no limit, time --cpu 4096 ran unpinned with status 0, freq --jobs 0 or -1 ran one
// job, and time --fragment region:NOSUCH ran every repetition before saying the
// region never ran.
func TestRefusedLimits(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"count", "testdata/kill.c", "--timeout", "-5s"}, 2, "count: --timeout -5s: a duration cannot be negative"},
		{[]string{"freq", "../../examples/newton.c", "--input", "ask = 3", "--max-time", "-1m"}, 2, "freq: --max-time -1m0s: a duration cannot be negative"},
		{[]string{"time", "testdata/kill.c", "--fragment", "program", "--timeout", "-1s"}, 2, "time: --timeout -1s: a duration cannot be negative"},
		{[]string{"freq", "../../examples/newton.c", "--input", "ask = 3", "--jobs", "0"}, 2, "freq: --jobs 0: want at least 1"},
		{[]string{"freq", "../../examples/newton.c", "--input", "ask = 3", "--jobs", "-1"}, 2, "freq: --jobs -1: want at least 1"},
		{[]string{"time", "testdata/kill.c", "--fragment", "program", "--cpu", "4096"}, 2, "time: --cpu 4096: fragprof may run on CPUs"},
		{[]string{"time", "testdata/kill.c", "--fragment", "program", "--cpu", "-2"}, 2, "time: --cpu -2: fragprof may run on CPUs"},
		{[]string{"timers", "--cpu", "4096"}, 2, "timers: --cpu 4096: fragprof may run on CPUs"},
		{[]string{"time", "../../examples/lab.c", "--fragment", "region:nosuch", "--reps", "1000000"}, 1,
			`time: --fragment region:nosuch: ../../examples/lab.c has no FP_BEGIN("nosuch") or FP_END("nosuch") (the regions it marks: `},
	} {
		start := time.Now()
		var stdout, stderr strings.Builder
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("fragprof %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(c.args, " "), code, stderr.String(), c.code, c.want)
		}
		if strings.Contains(stderr.String(), "repetitions") {
			t.Errorf("fragprof %s ran repetitions (%v) before refusing", strings.Join(c.args, " "), time.Since(start))
		}
	}
}
