//go:build integration

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// writeC writes a C program to a temporary file.
func writeC(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog.c")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFreqFailFast: when more than 10 % of the first 100 trials fail, freq stops
// early with a tally by cause and a replay command for one trial of each, and exits
// 1; when no trial at all succeeded it is an error.
func TestFreqFailFast(t *testing.T) {
	src := writeC(t, `#include <stdio.h>
int main(void) {
  int m;
  if (scanf("%d", &m) != 1) return 2;
  if (m == 0) for (;;) ;
  if (m == 1) { volatile int *p = 0; *p = 1; }
  return 0;
}
`)
	// One trial in four hangs, one in four crashes: the run must stop soon after the
	// 10th failure, long before 300 trials, and not spend a timeout on each.
	start := time.Now()
	var stdout, stderr strings.Builder
	out := filepath.Join(t.TempDir(), "r.json")
	code := run([]string{"freq", src, "--input", "m = choice(0, 1, 2, 2)", "--stdin", `{m}\n`,
		"--trial-timeout", "100ms", "--eps", "0.01", "--jobs", "2", "--json", "-o", out}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	msg := stderr.String()
	for _, want := range []string{"failed trials by cause", "timeout", "signal SIGSEGV", "--replay", "stopped early"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	// One replay line per cause, each naming a trial that failed of that cause.
	if n := len(regexp.MustCompile(`(?m)^  (timeout|signal SIGSEGV)\s+\d+ trials\s+replay: .*--replay \d+$`).FindAllString(msg, -1)); n != 2 {
		t.Errorf("%d replay lines, want 2:\n%s", n, msg)
	}
	t.Logf("stopped after %v:\n%s", time.Since(start), msg)

	// Every trial crashes: an error naming the cause, exit 1, no report.
	crash := writeC(t, `int main(void) { volatile int *p = 0; *p = 1; return 0; }`)
	stderr.Reset()
	code = run([]string{"freq", crash, "--eps", "0.5"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "every one of the") || !strings.Contains(stderr.String(), "signal SIGSEGV") {
		t.Errorf("all trials crash: exit %d, stderr:\n%s", code, stderr.String())
	}
}

// TestFreqExitStatuses: trials that exit non-zero are used, tallied in the report
// and warned about; with --fail-nonzero they are left out, and when that leaves no
// trial it is an error.
func TestFreqExitStatuses(t *testing.T) {
	src := writeC(t, `#include <stdio.h>
int main(void) { int m; if (scanf("%d", &m) != 1) return 2; return m < 5 ? 1 : 0; }
`)
	r, code, stderr := freq(t, src, "--input", "m = uniform_int(0, 9)", "--stdin", `{m}\n`, "--eps", "0.2", "--isolation", "none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r.Exits["1"] == 0 || r.Exits["0"] == 0 || r.Exits["1"]+r.Exits["0"] != r.Trials {
		t.Errorf("exits %v over %d trials, want both statuses tallied", r.Exits, r.Trials)
	}
	if !strings.Contains(stderr, "exited non-zero") {
		t.Errorf("no warning of non-zero exits:\n%s", stderr)
	}
	all := writeC(t, `int main(void) { return 1; }`)
	_, code, stderr = freq(t, all, "--eps", "0.5", "--fail-nonzero")
	if code != 1 || !strings.Contains(stderr, "every one of the") || !strings.Contains(stderr, "exit status 1") {
		t.Errorf("every trial left out: exit %d, stderr:\n%s", code, stderr)
	}
}

// TestFreqRareAndOnly: a block in one function that runs in 1 of 1,000 trials would
// hold a ±1 % run for millions of trials; --ignore-rare 0.01 lets the run stop with
// it reported rare and its probability bounded, and --only main lets main's blocks
// alone decide.
func TestFreqRareAndOnly(t *testing.T) {
	src := writeC(t, `#include <stdio.h>
int hit;
void f(int x) {
  if (x == 7)
    hit++;
}
int main(void) {
  int x, n;
  if (scanf("%d %d", &x, &n) != 2) return 2;
  for (int i = 0; i < n; i++) f(x);
  return 0;
}
`)
	base := []string{src, "--input", "x = uniform_int(1, 1000)", "--input", "n = uniform_int(1, 10)", "--stdin", `{x} {n}\n`,
		"--rel-eps", "0.05", "--isolation", "none", "--max-trials", "30000"}
	for _, extra := range [][]string{{"--ignore-rare", "0.01"}, {"--only", "main"}} {
		r, code, stderr := freq(t, append(base, extra...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		if r.Trials >= 30000 || !strings.Contains(r.Stopped, "decided") {
			t.Errorf("%v: %d trials, stopped %q: the rare block held the run", extra, r.Trials, r.Stopped)
		}
		var then *float64
		var state string
		var prob [2]*float64
		for _, fn := range r.Functions {
			if fn.Name != "f" {
				continue
			}
			for _, b := range fn.Blocks {
				if b.Label == "if.then" {
					then, state, prob = &b.Mean, b.State, [2]*float64{b.ProbLo, b.ProbHi}
				}
			}
		}
		if then == nil {
			t.Fatalf("%v: no if.then in f", extra)
		}
		t.Logf("%v: %d trials, f:if.then %s mean %g", extra, r.Trials, state, *then)
		if extra[0] == "--ignore-rare" {
			if state != "rare" && state != "unseen" {
				t.Errorf("f:if.then is %s, want rare or unseen", state)
			} else if prob[1] == nil || *prob[1] >= 0.01 || (prob[0] != nil && *prob[0] > 1e-3) {
				t.Errorf("f:if.then's probability bound [%v, %v] should hold 1e-3 and lie below 0.01", prob[0], prob[1])
			}
		}
	}
}

// TestFreqOnlyUnknown: --only naming no function of the program is refused at the
// first trial, with the functions it has.
func TestFreqOnlyUnknown(t *testing.T) {
	_, code, stderr := freq(t, "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`,
		"--only", "nsqrtt", "--isolation", "none")
	if code != 2 || !strings.Contains(stderr, "no function nsqrtt in the program (it has nsqrt, main)") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
