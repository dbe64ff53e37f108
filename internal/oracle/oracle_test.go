//go:build integration

// This file holds the corpus tests: gcov as an oracle for the counts, the output of
// the uninstrumented program as an oracle for the instrumented one, the IR round
// trip, and the agreement of clang 14 and clang 19.

package oracle

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
	"github.com/fragprof/fragprof/internal/report"
)

// tally sums what a corpus test compared, for its log.
type tally struct {
	mu     sync.Mutex
	progs  int
	counts int
	exec   int
	funcs  int
	labels int
}

func (s *tally) add(c Comparison) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.progs++
	s.counts += c.CountLines
	s.exec += c.ExecLines
	s.funcs += c.Funcs
	s.labels += c.LabelOnly
}

// TestGcovOracle builds every corpus program with gcc --coverage -O0 and with
// fragprof (clang 14 and clang 19, -O2), runs both on the same input and compares
// the counts as Compare says: equal on lines both tools hold in one block, the same
// executed-or-not state on every line both report, equal call counts. Both builds
// must print the same output and end with the status the program's header names.
func TestGcovOracle(t *testing.T) {
	tl := needTools(t)
	var sum tally
	t.Cleanup(func() {
		t.Logf("compared %d runs: %d single-block line counts, %d executed-or-not lines, %d call counts; %d label lines left out of the executed-or-not check",
			sum.progs, sum.counts, sum.exec, sum.funcs, sum.labels)
	})
	for _, p := range corpus(t, tl) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			g, err := gcovOf(p, tl)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.checkStatus(p); err != nil {
				t.Errorf("gcc --coverage build: %v", err)
			}
			for _, tc := range toolchains(tl) {
				r, err := fragprof(p, tc, "-O2")
				if err != nil {
					t.Fatal(err)
				}
				if err := r.checkStatus(p); err != nil {
					t.Errorf("fragprof (clang %d): %v", tc.Major, err)
				}
				if !bytes.Equal(r.Stdout, g.Stdout) {
					t.Errorf("fragprof (clang %d) printed %q, gcc's build %q", tc.Major, clip(r.Stdout), clip(g.Stdout))
				}
				if g.Side.Report == nil {
					if p.Signal == 0 {
						t.Fatalf("gcc's build wrote no coverage data")
					}
					t.Logf("killed by %v: gcov writes no data, so only fragprof's own checks apply", p.Signal)
					continue
				}
				c := Compare(&r.JSON, g.Side, r.MainReturned)
				for _, m := range c.Mismatches {
					t.Errorf("clang %d: %s:%s", tc.Major, p.Name, m)
				}
				if c.ExecLines == 0 || c.CountLines == 0 || c.Funcs == 0 {
					t.Errorf("clang %d: nothing to compare (%d count lines, %d executed lines, %d functions): the two tools' line tables do not meet",
						tc.Major, c.CountLines, c.ExecLines, c.Funcs)
				}
				sum.add(c)
			}
		})
	}
}

// TestChecksums checks that each corpus program prints the same output and ends the
// same way built by fragprof and built plain by the same clang, at -O0 and at -O2;
// a csmith program's output is its checksum.
func TestChecksums(t *testing.T) {
	tl := needTools(t)
	for _, p := range corpus(t, tl) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range toolchains(tl) {
				for _, opt := range []string{"-O0", "-O2"} {
					want, err := plain(p, tc.Clang, opt)
					if err != nil {
						t.Fatal(err)
					}
					if err := want.checkStatus(p); err != nil {
						t.Errorf("plain clang %d %s: %v", tc.Major, opt, err)
					}
					if p.Csmith && !bytes.HasPrefix(want.Stdout, []byte("checksum = ")) {
						t.Errorf("plain clang %d %s printed no checksum: %q", tc.Major, opt, clip(want.Stdout))
					}
					got, err := fragprof(p, tc, opt)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got.Stdout, want.Stdout) || !bytes.Equal(got.Stderr, want.Stderr) {
						t.Errorf("clang %d %s: instrumented build printed %q / %q, plain build %q / %q",
							tc.Major, opt, clip(got.Stdout), clip(got.Stderr), clip(want.Stdout), clip(want.Stderr))
					}
					if got.Status != want.Status {
						t.Errorf("clang %d %s: instrumented build ended with %v, plain build with %v", tc.Major, opt, got.Status, want.Status)
					}
				}
			}
		})
	}
}

// TestIRRoundTrip parses the IR that clang 14 and clang 19 emit for every corpus
// program (with build.IRFlags, as fragprof's builds do) and writes it back: the
// bytes must be identical. The instrumented IR must parse and round-trip too, and
// clang must have compiled it at -O0 and -O2 (the builds of both levels succeed).
func TestIRRoundTrip(t *testing.T) {
	tl := needTools(t)
	for _, p := range corpus(t, tl) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range toolchains(tl) {
				for _, opt := range []string{"-O0", "-O2"} {
					r, err := fragprof(p, tc, opt)
					if err != nil {
						t.Fatalf("clang %d did not accept the instrumented IR: %v", tc.Major, err)
					}
					if opt == "-O0" {
						continue
					}
					for _, ll := range []string{r.IR, r.InstrumentedIR} {
						if err := roundTrip(ll); err != nil {
							t.Errorf("clang %d: %v", tc.Major, err)
						}
					}
				}
			}
		})
	}
}

// roundTrip parses the IR file ll and checks that writing it back gives its bytes.
func roundTrip(ll string) error {
	data, err := os.ReadFile(ll)
	if err != nil {
		return err
	}
	m, err := llvmir.Parse(ll, data)
	if err != nil {
		return fmt.Errorf("llvmir.Parse: %v", err)
	}
	if len(m.Funcs) == 0 {
		return fmt.Errorf("%s: the reader found no function", ll)
	}
	got := m.Bytes()
	if bytes.Equal(got, data) {
		return nil
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(data), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			return fmt.Errorf("%s: round trip differs at line %d: wrote %q, read %q", ll, i+1, gl[i], wl[i])
		}
	}
	return fmt.Errorf("%s: round trip differs in length: wrote %d bytes in %d lines, read %d bytes in %d lines",
		ll, len(got), len(gl), len(data), len(wl))
}

// TestCountsAgree checks that the counts do not depend on how the instrumented IR is
// compiled: with one clang, -O0 and -O2 give the same report exactly; and between
// clang 14 and clang 19 every function has the same call count, every function whose
// CFG has the same shape the same block and edge counts, and every line held by one
// block for both the same count.
func TestCountsAgree(t *testing.T) {
	tl := needTools(t)
	var mu sync.Mutex
	same, differ := 0, 0
	t.Cleanup(func() { t.Logf("clang 14 and 19 gave %d functions the same CFG and %d a different one", same, differ) })
	for _, p := range corpus(t, tl) {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			var byClang [2]*fragRun
			for i, tc := range toolchains(tl) {
				o0, err := fragprof(p, tc, "-O0")
				if err != nil {
					t.Fatal(err)
				}
				o2, err := fragprof(p, tc, "-O2")
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(o0.JSON, o2.JSON) {
					t.Errorf("clang %d: the counts at -O0 and -O2 differ: %s", tc.Major, firstDiff(&o0.JSON, &o2.JSON))
				}
				byClang[i] = o2
			}
			s, d, errs := agree(&byClang[0].JSON, &byClang[1].JSON)
			for _, e := range errs {
				t.Errorf("clang 14 vs 19: %s", e)
			}
			mu.Lock()
			same, differ = same+s, differ+d
			mu.Unlock()
		})
	}
}

// firstDiff names the first function whose reports differ.
func firstDiff(a, b *report.JSONProgram) string {
	for i := range a.Functions {
		if i >= len(b.Functions) || !reflect.DeepEqual(a.Functions[i], b.Functions[i]) {
			return "function " + a.Functions[i].Name
		}
	}
	return fmt.Sprintf("%d functions against %d, or the header", len(a.Functions), len(b.Functions))
}

// clip shortens output for messages.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
