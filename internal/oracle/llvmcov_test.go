//go:build integration

package oracle

import (
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
)

// llvmTool finds llvm-profdata or llvm-cov of tc's LLVM: beside its clang
// (/usr/lib/llvm-19/bin) or as name-19 on the PATH.
func llvmTool(t *testing.T, tc *build.Toolchain, name string) string {
	t.Helper()
	if real, err := filepath.EvalSymlinks(tc.Clang); err == nil {
		p := filepath.Join(filepath.Dir(real), name)
		if _, err := osexec.LookPath(p); err == nil {
			return p
		}
	}
	p, err := osexec.LookPath(fmt.Sprintf("%s-%d", name, tc.Major))
	if err != nil {
		t.Fatalf("%s of clang %d not found: install llvm-%d (scripts/deps.sh does)", name, tc.Major, tc.Major)
	}
	return p
}

// llvmCovOf builds p with clang++'s source-based coverage (-fprofile-instr-generate
// -fcoverage-mapping, -O0), runs it, merges its raw profile with llvm-profdata and
// reads llvm-cov export.
func llvmCovOf(t *testing.T, p Program, tc *build.Toolchain) (*run, *LLVMCov) {
	t.Helper()
	dir, err := progDir(p, fmt.Sprintf("llvm-cov-%d", tc.Major))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	args := append(append([]string{"--driver-mode=g++", "-fprofile-instr-generate", "-fcoverage-mapping", "-O0", "-I", headerDir},
		p.CFlags...), p.Source, "-o", bin)
	if _, err := command("", tc.Clang, args...); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "prog.profraw")
	r, err := runBinaryEnv(bin, p, dir, "LLVM_PROFILE_FILE="+raw)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "prog.profdata")
	if _, err := command(dir, llvmTool(t, tc, "llvm-profdata"), "merge", "-o", data, raw); err != nil {
		t.Fatal(err)
	}
	out, err := command(dir, llvmTool(t, tc, "llvm-cov"), "export", "-instr-profile="+data, bin)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseLLVMCov(out)
	if err != nil {
		t.Fatal(err)
	}
	return r, c
}

// TestLLVMCovOracleCXX compares fragprof's counts of the C++ examples with the
// second oracle, clang's own source-based coverage read by llvm-cov,
// built by the same clang (14 and 19): outputs equal, every function's execution
// count equal, every line executed or not alike, and the count of every line both
// tools give one count equal. The two oracles count differently in known places (a
// region does not end at a call that throws; clang's runtime writes its profile
// before static destructors run): where llvm-cov differs from fragprof, gcov — the
// first oracle — must agree with fragprof, and each such place is logged.
func TestLLVMCovOracleCXX(t *testing.T) {
	tl := needTools(t)
	progs, err := CXXExamples(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	progs = relative(t, progs)
	for _, p := range progs {
		if p.Signal != 0 {
			continue // killed by a signal: clang's profile runtime writes nothing
		}
		t.Run(p.Name, func(t *testing.T) {
			t.Parallel()
			g, err := gcovOf(p, tl)
			if err != nil {
				t.Fatal(err)
			}
			src, err := os.ReadFile(p.Source)
			if err != nil {
				t.Fatal(err)
			}
			gl, gf := map[int]uint64{}, map[string]uint64{}
			for _, l := range g.Side.Report.Lines {
				gl[l.LineNumber] += l.Count
			}
			for _, f := range g.Side.Report.Functions {
				gf[f.Name] = f.ExecutionCount
			}
			for _, tc := range []*build.Toolchain{tl.Clang14, tl.Clang19} {
				lr, lc := llvmCovOf(t, p, tc)
				r, err := fragprof(p, tc, "-O2")
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(r.Stdout, lr.Stdout) || r.Status != lr.Status {
					t.Errorf("clang %d: fragprof's build printed %q and ended %v, llvm-cov's %q and %v",
						tc.Major, clip(r.Stdout), r.Status, clip(lr.Stdout), lr.Status)
				}
				c, diffs := CompareLLVMCov(&r.JSON, lc, p.Source, BraceLines(src))
				explained := 0
				for _, d := range diffs {
					var gc uint64
					var ok bool
					if d.Line == 0 {
						gc, ok = gf[d.Func]
					} else {
						gc, ok = gl[d.Line]
					}
					if ok && (gc == d.Frag || d.Exec && (gc > 0) == (d.Frag > 0)) {
						explained++
						t.Logf("clang %d: %s; gcov agrees with fragprof (%d)", tc.Major, d, gc)
						continue
					}
					t.Errorf("clang %d: %s: %s; gcov %d (known: %v)", tc.Major, p.Name, d, gc, ok)
				}
				if c.CountLines < 10 || c.Funcs < 5 || c.ExecLines < 10 {
					t.Errorf("clang %d: too little compared: %d count lines, %d executed lines, %d functions",
						tc.Major, c.CountLines, c.ExecLines, c.Funcs)
				}
				t.Logf("clang %d: %d lines' counts, %d lines executed or not, %d functions' calls compared; %d differences, each where gcov agrees with fragprof",
					tc.Major, c.CountLines, c.ExecLines, c.Funcs, explained)
			}
		})
	}
}
