//go:build integration

package trace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/runner"
)

// The runtime's side of tracing (runtime/c/trace.c), end to end: C programs built by
// fragprof, run through the fork server by a Collector, their traces read back.

var testRoot string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "fragprof-trace-test")
	if err != nil {
		panic(err)
	}
	testRoot = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

func buildProg(t *testing.T, tc *build.Toolchain, name, src string, edits ...build.Edit) string {
	t.Helper()
	dir, err := os.MkdirTemp(testRoot, name)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	var msg bytes.Buffer
	spec := build.Spec{Sources: []string{file}, Edits: edits, Instr: instrument.Options{Atomic: true}}
	if _, err := tc.Build(context.Background(), &msg, spec, dir, bin); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, msg.String())
	}
	return bin
}

func toolchain(t *testing.T) *build.Toolchain {
	t.Helper()
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// collect runs trials of bin with stdin text and returns their traces.
func collect(t *testing.T, bin, stdin string, trials uint64, env ...string) []*Trace {
	t.Helper()
	m, err := dist.Parse("")
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := dist.ParseTemplate(stdin, m, dist.BackslashEscapes)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := os.MkdirTemp(testRoot, "run")
	c := &Collector{Binary: bin, Program: "test", Inputs: &dist.File{Model: m, Stdin: tmpl}, Dir: dir}
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "FRAGPROF_TRACE_MAX="); ok {
			var n uint64
			for _, ch := range v {
				n = n*10 + uint64(ch-'0')
			}
			c.MaxEvents = n
		}
		if v, ok := strings.CutPrefix(e, "FRAGPROF_TRACE_STOP_EVENTS="); ok {
			fmt.Sscan(v, &c.StopEvents)
		}
		if v, ok := strings.CutPrefix(e, "FRAGPROF_TRACE_STOP="); ok {
			d, err := time.ParseDuration(v)
			if err != nil {
				t.Fatal(err)
			}
			c.StopAfter = d
		}
	}
	var out []*Trace
	err = c.Run(context.Background(), 0, trials, 1, func(r Result) error {
		if r.Err != nil {
			return r.Err
		}
		var b bytes.Buffer
		if err := Write(&b, r.Header, r.Extra); err != nil {
			return err
		}
		tr, err := Parse("trial", b.Bytes())
		if err != nil {
			return err
		}
		out = append(out, tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// memProg touches n MB either before its first checkpoint and frees them before
// its end (where the kernel's own peak may lag: the runtime's reading at the first
// checkpoint holds it), or after it and keeps them to the end (the kernel's peak).
const memProg = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fragprof.h"
int main(void) {
	long n, late; if (scanf("%ld %ld", &n, &late) != 2) return 2;
	char *a = 0;
	if (!late) { a = malloc(n << 20); memset(a, 1, n << 20); }
	FP_POINT("start");
	if (late) { a = malloc(n << 20); memset(a, 1, n << 20); }
	long s = 0;
	for (long i = 0; i < n << 20; i += 4096) s += a[i];
	FP_POINT("end");
	if (!late) free(a);
	printf("%ld\n", s);
	return 0;
}
`

// TestWorkingSet: the working set of a run that touches n MB is n MB, give or take
// the program's stdio buffers and stack (under 256 KiB), whether the data is freed
// before the end or kept.
func TestWorkingSet(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "mem", memProg)
	for _, in := range []string{"4 0", "4 1", "12 0", "12 1"} {
		tr := collect(t, bin, in+`\n`, 1)[0]
		var n, late int
		fmt.Sscan(in, &n, &late)
		ws, ok := tr.WorkingSet()
		t.Logf("%s: working set %.0f: peak %d, file %d, base %d, runtime %d, seen %d", in, ws, tr.PeakRSS, tr.FileRSS, tr.BaseAnon, tr.RuntimeBytes, tr.AnonSeen)
		want := float64(n << 20)
		if !ok || ws < want || ws > want+256<<10 {
			t.Errorf("%s: working set %.0f (%v), want %.0f … +256 KiB (peak %d, file %d, base %d, runtime %d, seen %d)",
				in, ws, ok, want, tr.PeakRSS, tr.FileRSS, tr.BaseAnon, tr.RuntimeBytes, tr.AnonSeen)
		}
	}
}

const kindsProg = `
#include <stdio.h>
#include "fragprof.h"
int main(void) {
	long n; if (scanf("%ld", &n) != 1) return 2;
	unsigned long big = 18446744073709551615UL;
	FP_POINT("start");
	for (long i = 0; i < n; i++) {
		float f = (float)i / 4;
		FP_POINT_VARS("loop", FP_I(i - 3), FP_U(big), FP_D(f));
	}
	FP_POINT("end");
	printf("%ld\n", n);
	return 0;
}
`

// TestValues: every variable kind comes back with its value and its name, each
// event in order, none lost.
func TestValues(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "kinds", kindsProg)
	tr := collect(t, bin, "1000\n", 2)[1]
	if !tr.Finished || tr.Lost != 0 || tr.Events != 1002 {
		t.Fatalf("finished %v, lost %d, events %d", tr.Finished, tr.Lost, tr.Events)
	}
	m := tr.Main()
	if m.Len() != 1002 {
		t.Fatalf("%d events", m.Len())
	}
	var loop *Site
	for i := range tr.Sites {
		if tr.Sites[i].Name == "loop" {
			loop = &tr.Sites[i]
		}
	}
	if loop == nil || len(loop.Vars) != 3 || loop.Vars[0].Name != "i - 3" || loop.Vars[0].Kind != Signed ||
		loop.Vars[1].Kind != Unsigned || loop.Vars[2].Name != "f" || loop.Vars[2].Kind != Double {
		t.Fatalf("site %+v", loop)
	}
	for k := 1; k <= 1000; k++ {
		v := m.Values(k)
		i := float64(k - 1)
		if v[0] != i-3 || v[1] != 18446744073709551615 || v[2] != i/4 {
			t.Fatalf("event %d: %v", k, v)
		}
		if m.Time[k] < m.Time[k-1] {
			t.Fatalf("time goes back at event %d", k)
		}
	}
	if tr.NsPerTick <= 0 || tr.OverheadNs <= 0 {
		t.Errorf("calibration %v ns/tick, overhead %v ns", tr.NsPerTick, tr.OverheadNs)
	}
}

// TestManyEvents: two million events in one trial, more than fit in any buffer, go
// through the chunks and the drainer with none lost.
func TestManyEvents(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "many", kindsProg)
	tr := collect(t, bin, "2000000\n", 1)[0]
	if tr.Main().Len() != 2000002 || tr.Lost != 0 || tr.Truncated {
		t.Errorf("%d events, %d lost, truncated %v", tr.Main().Len(), tr.Lost, tr.Truncated)
	}
	// FRAGPROF_TRACE_MAX bounds a trial: the rest is lost, and said to be.
	tr = collect(t, bin, "2000000\n", 1, "FRAGPROF_TRACE_MAX=100000")[0]
	if !tr.Truncated || tr.Lost == 0 || tr.Main().Len() >= 2000002 {
		t.Errorf("with a limit: %d events, %d lost, truncated %v", tr.Main().Len(), tr.Lost, tr.Truncated)
	}
}

// roundsProg passes a checkpoint before each of n rounds of about 0.1 ms of work,
// and prints its sum and exits 3 at the end: a run stopped earlier exits 0.
const roundsProg = `
#include <stdio.h>
#include "fragprof.h"
int main(void) {
	long n; if (scanf("%ld", &n) != 1) return 2;
	volatile double s = 0;
	FP_POINT("start");
	for (long r = 0; r < n; r++) {
		FP_POINT_VARS("round", FP_I(r));
		for (long i = 0; i < 40000; i++) s += (double)i * 1e-9;
	}
	FP_POINT("end");
	printf("%g\n", s);
	return 3;
}
`

// TestStopAfter: FRAGPROF_TRACE_STOP (trace --stop-after) ends a run at its first
// checkpoint past the budget, and FRAGPROF_TRACE_STOP_EVENTS (--stop-events) at
// its N-th — a probe: exit status 0 (the runtime's exit, before the program's own
// end, which exits 3), END's stopped flag, the events up to there and none after.
// Without either the same program runs to its end, not stopped.
func TestStopAfter(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "rounds", roundsProg)
	const rounds = 20000 // about 2 s
	budget := 50 * time.Millisecond
	tr := collect(t, bin, fmt.Sprintf("%d\n", rounds), 1, "FRAGPROF_TRACE_STOP="+budget.String())[0]
	m := tr.Main()
	if !tr.Stopped || !tr.Finished || tr.Header.ExitCode != 0 || tr.Truncated {
		t.Fatalf("probe: stopped %v, finished %v, status %q, truncated %v", tr.Stopped, tr.Finished, tr.Header.Status, tr.Truncated)
	}
	span := time.Duration(m.Span())
	// The last event is the first at or past the budget; the one before is not.
	if span < budget || time.Duration(m.Time[m.Len()-2]-m.Time[0]) >= budget {
		t.Errorf("probe of %v: its last checkpoint %v after the first, the one before %v", budget, span, time.Duration(m.Time[m.Len()-2]-m.Time[0]))
	}
	if n := m.Len(); n < 10 || n >= rounds/2 || tr.Sites[m.Site[n-1]].Name != "round" {
		t.Errorf("probe: %d events, the last at %q", n, tr.Sites[m.Site[n-1]].Name)
	}
	// FRAGPROF_TRACE_STOP_EVENTS: the 100th checkpoint is the last.
	if p := collect(t, bin, fmt.Sprintf("%d\n", rounds), 1, "FRAGPROF_TRACE_STOP_EVENTS=100")[0]; !p.Stopped || p.Main().Len() != 100 || p.Header.ExitCode != 0 {
		t.Errorf("probe of 100 events: stopped %v, %d events, status %q", p.Stopped, p.Main().Len(), p.Header.Status)
	}
	if whole := collect(t, bin, "300\n", 1)[0]; whole.Stopped || whole.Main().Len() != 302 || whole.Header.ExitCode != 3 {
		t.Errorf("without a budget: stopped %v, %d events, status %q; want 302 events and the program's own exit 3",
			whole.Stopped, whole.Main().Len(), whole.Header.Status)
	}
}

const threadsProg = `
#include <pthread.h>
#include <stdio.h>
#include "fragprof.h"
static void *work(void *arg) {
	long id = (long)arg;
	for (long i = 0; i < 50000; i++)
		FP_POINT_VARS("work", FP_I(id), FP_I(i));
	return 0;
}
int main(void) {
	pthread_t th[3];
	FP_POINT("start");
	for (long k = 0; k < 3; k++) pthread_create(&th[k], 0, work, (void *)k);
	for (long k = 0; k < 3; k++) pthread_join(th[k], 0);
	FP_POINT("end");
	return 0;
}
`

// TestThreads: each thread has its own stream, complete and in order.
func TestThreads(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "threads", threadsProg)
	tr := collect(t, bin, "", 1)[0]
	if len(tr.Threads) != 4 {
		t.Fatalf("%d threads", len(tr.Threads))
	}
	if m := tr.Main(); m.Len() != 2 {
		t.Errorf("main thread: %d events, want 2", m.Len())
	}
	for _, th := range tr.Threads[1:] {
		if th.Len() != 50000 {
			t.Errorf("thread %d: %d events", th.Index, th.Len())
			continue
		}
		id := th.Values(0)[0]
		for k := 0; k < th.Len(); k++ {
			if v := th.Values(k); v[0] != id || v[1] != float64(k) {
				t.Fatalf("thread %d event %d: %v", th.Index, k, v)
			}
		}
	}
}

const crashProg = `
#include <stdio.h>
#include <stdlib.h>
#include "fragprof.h"
int main(void) {
	for (int i = 0; i < 100; i++) FP_POINT_VARS("before", FP_I(i));
	volatile int *p = 0;
	if (getenv("HOME") || 1) *p = 1;
	return 0;
}
`

// TestCrash: a program killed by a signal still delivers its trace, which says so.
func TestCrash(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "crash", crashProg)
	tr := collect(t, bin, "", 1)[0]
	if tr.Header.ExitCode != 128+11 || tr.Signal != 11 || tr.Main().Len() != 100 {
		t.Errorf("status %q (%d), trace signal %d, %d events", tr.Header.Status, tr.Header.ExitCode, tr.Signal, tr.Main().Len())
	}
}

// TestTracingOff: without FRAGPROF_TRACE the checkpoints record nothing, start no
// thread, and the program's output is untouched.
func TestTracingOff(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "off", kindsProg)
	dir, _ := os.MkdirTemp(testRoot, "off")
	extra := filepath.Join(dir, "extra")
	var out bytes.Buffer
	_, st, err := runner.Run(context.Background(), runner.Command{Path: bin, Stdin: strings.NewReader("100\n"),
		Stdout: &out, Stderr: &out, ExtraOut: extra})
	if err != nil || st.Code != 0 {
		t.Fatalf("run: %v %v", err, st)
	}
	if out.String() != "100\n" {
		t.Errorf("output %q", out.String())
	}
	data, _ := os.ReadFile(extra)
	tr, err := ParseRecords(extra, data)
	if err != nil || len(tr.Threads) != 0 {
		t.Errorf("untraced run wrote a trace: %v, %+v", err, tr)
	}
	// With FRAGPROF_TRACE=1 the same plain run writes its trace to the file.
	_, _, err = runner.Run(context.Background(), runner.Command{Path: bin, Stdin: strings.NewReader("100\n"),
		Stdout: &out, Stderr: &out, ExtraOut: extra, Env: []string{"FRAGPROF_TRACE=1"}})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(extra)
	if tr, err = ParseRecords(extra, data); err != nil || tr.Main() == nil || tr.Main().Len() != 102 {
		t.Errorf("traced plain run: %v, %+v", err, tr)
	}
}

const autoProg = `
#include <stdio.h>
static long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static double scale(double x, int k) {
	double s = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < i; j++)
			s += x;
	return s;
}
int main(void) {
	long n; if (scanf("%ld", &n) != 1) return 2;
	printf("%ld %g\n", fib(n), scale(0.5, 10));
	return 0;
}
`

// TestAutoCheckpoints: --auto-checkpoints marks function entries (with their
// parameters), returns (with the value) and loop headers, under clang 14's typed
// pointers and clang ≥ 15's opaque ones.
func TestAutoCheckpoints(t *testing.T) {
	var tcs []*build.Toolchain
	tcs = append(tcs, toolchain(t))
	for _, c := range []string{"clang-16", "clang-15", "clang-17", "clang-18"} {
		if tc, err := build.NewToolchain(c); err == nil && tc.Major != tcs[0].Major {
			tcs = append(tcs, tc)
			break
		}
	}
	for _, tc := range tcs {
		t.Run(tc.Version, func(t *testing.T) {
			bin := buildProg(t, tc, "auto", autoProg, build.Edit(instrument.AutoCheckpointsAll))
			tr := collect(t, bin, "10\n", 1)[0]
			count := map[string]int{}
			names := map[string]*Site{}
			m := tr.Main()
			for k := 0; k < m.Len(); k++ {
				s := &tr.Sites[m.Site[k]]
				count[s.Name]++
				names[s.Name] = s
			}
			// fib(10) makes 177 calls; scale's outer loop header is passed 11 times
			// (10 iterations and the exit test), the inner 10 + 45 = 55 times.
			if count["fib"] != 177 || count["fib:ret"] != 177 || count["main"] != 1 || count["main:ret"] != 1 {
				t.Errorf("counts %v", count)
			}
			var headers []int
			for name, c := range count {
				if strings.HasPrefix(name, "scale:loop@") {
					headers = append(headers, c)
				}
			}
			if len(headers) != 2 || headers[0]+headers[1] != 66 {
				t.Errorf("scale's loop headers passed %v times, want 11 and 55", headers)
			}
			s := names["fib"]
			if len(s.Vars) != 1 || s.Vars[0].Name != "fib.n" || s.Vars[0].Kind != Signed {
				t.Errorf("fib's entry site %+v", s)
			}
			if sc := names["scale"]; sc == nil || len(sc.Vars) != 2 || sc.Vars[0].Kind != Double || sc.Vars[1].Name != "scale.k" {
				t.Errorf("scale's entry site %+v", sc)
			}
			// The first event is main's entry, the last its return, with 0.
			last := m.Len() - 1
			if tr.Sites[m.Site[0]].Name != "main" || tr.Sites[m.Site[last]].Name != "main:ret" || m.Values(last)[0] != 0 {
				t.Errorf("first %s, last %s %v", tr.Sites[m.Site[0]].Name, tr.Sites[m.Site[last]].Name, m.Values(last))
			}
			// fib's first call has n = 10; its return value then is fib(10) = 55.
			for k := 0; k < m.Len(); k++ {
				if tr.Sites[m.Site[k]].Name == "fib" {
					if v := m.Values(k)[0]; v != 10 {
						t.Errorf("first fib entry records n = %v", v)
					}
					break
				}
			}
		})
	}
}

// TestAutoCheckpointsOuter: the default level marks main and the outermost loop
// of scale, and leaves fib (recursive) and the inner loop unmarked: a handful of
// events instead of hundreds.
func TestAutoCheckpointsOuter(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "auto-outer", autoProg, build.Edit(instrument.AutoCheckpoints))
	tr := collect(t, bin, "10\n", 1)[0]
	count := map[string]int{}
	m := tr.Main()
	for k := 0; k < m.Len(); k++ {
		count[tr.Sites[m.Site[k]].Name]++
	}
	var loops []int
	for name, c := range count {
		if strings.HasPrefix(name, "scale:loop@") {
			loops = append(loops, c)
		}
	}
	// scale is called once from main (not in a loop): its entry, return and outer
	// loop header (11 passes) are marked; fib calls itself: unmarked.
	if count["main"] != 1 || count["main:ret"] != 1 || count["scale"] != 1 || count["scale:ret"] != 1 ||
		count["fib"] != 0 || len(loops) != 1 || loops[0] != 11 {
		t.Errorf("events by checkpoint %v, want main, scale and one loop of scale (11)", count)
	}
	if m.Len() != 15 {
		t.Errorf("%d events, want 15", m.Len())
	}
}

const forkProg = `
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fragprof.h"
int main(void) {
	for (int i = 0; i < 10; i++) FP_POINT_VARS("parent", FP_I(i));
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < 1000; i++) FP_POINT_VARS("child", FP_I(i));
		exit(0);
	}
	waitpid(p, 0, 0);
	for (int i = 10; i < 20; i++) FP_POINT_VARS("parent", FP_I(i));
	return 0;
}
`

// TestFork: a process forked by a traced program records nothing, and the parent's
// trace is whole.
func TestFork(t *testing.T) {
	tc := toolchain(t)
	bin := buildProg(t, tc, "fork", forkProg)
	tr := collect(t, bin, "", 1)[0]
	m := tr.Main()
	if m.Len() != 20 || len(tr.Threads) != 1 {
		t.Fatalf("%d events in %d threads, want 20 in 1", m.Len(), len(tr.Threads))
	}
	for k := 0; k < 20; k++ {
		if tr.Sites[m.Site[k]].Name != "parent" || m.Values(k)[0] != float64(k) {
			t.Fatalf("event %d: %s %v", k, tr.Sites[m.Site[k]].Name, m.Values(k))
		}
	}
}
