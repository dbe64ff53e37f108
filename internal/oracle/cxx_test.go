//go:build integration

package oracle

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/report"
)

// TestGcovOracleCXX is TestGcovOracle for the C++ programs examples/*.cpp
// (exceptions thrown through frames with destructors and through the C++ library,
// virtual calls, templates, lambdas, STL containers, an uncaught exception), built
// by fragprof with clang 14 and clang 19 and compared with g++ --coverage and gcov:
// single-block lines equal, executed lines agree, call counts equal (functions
// matched by their mangled names), outputs unchanged, and flow conserved (the dump
// reader checks it on every function).
func TestGcovOracleCXX(t *testing.T) {
	tl := needTools(t)
	progs, err := CXXExamples(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) < 3 {
		t.Fatalf("found %d C++ examples, want at least 3", len(progs))
	}
	progs = relative(t, progs)
	var sum tally
	t.Cleanup(func() {
		t.Logf("compared %d C++ runs: %d single-block line counts, %d executed-or-not lines, %d call counts",
			sum.progs, sum.counts, sum.exec, sum.funcs)
	})
	for _, p := range progs {
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			g, err := gcovOf(p, tl)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.checkStatus(p); err != nil {
				t.Errorf("g++ --coverage build: %v", err)
			}
			for _, tc := range []*build.Toolchain{tl.Clang14, tl.Clang19} {
				r, err := fragprof(p, tc, "-O2")
				if err != nil {
					t.Fatal(err)
				}
				if err := r.checkStatus(p); err != nil {
					t.Errorf("fragprof (clang %d): %v", tc.Major, err)
				}
				if !bytes.Equal(r.Stdout, g.Stdout) {
					t.Errorf("fragprof (clang %d) printed %q, g++'s build %q", tc.Major, clip(r.Stdout), clip(g.Stdout))
				}
				if !hasMangled(&r.JSON) {
					t.Errorf("clang %d: no function of %s carries a mangled name beside its demangled one", tc.Major, p.Name)
				}
				if g.Side.Report == nil {
					if p.Signal == 0 {
						t.Fatalf("g++'s build wrote no coverage data")
					}
					t.Logf("killed by %v: gcov writes no data, so only fragprof's own checks apply", p.Signal)
					continue
				}
				c := Compare(&r.JSON, g.Side, r.MainReturned)
				for _, m := range c.Mismatches {
					t.Errorf("clang %d: %s:%s", tc.Major, p.Name, m)
				}
				if c.ExecLines == 0 || c.CountLines == 0 || c.Funcs == 0 {
					t.Errorf("clang %d: nothing to compare (%d count lines, %d executed lines, %d functions)",
						tc.Major, c.CountLines, c.ExecLines, c.Funcs)
				}
				sum.add(c)
			}
		})
	}
}

// hasMangled reports whether some function of p has a demangled name and its
// mangled one beside it, as count --json prints C++ functions.
func hasMangled(p *report.JSONProgram) bool {
	for _, f := range p.Functions {
		if strings.HasPrefix(f.Mangled, "_Z") && f.Name != f.Mangled && strings.Contains(f.Name, "(") {
			return true
		}
	}
	return false
}
