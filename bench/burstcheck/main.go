// Command burstcheck measures the floor of bursty tracing's cost (Arnold & Ryder,
// PLDI 2001; Hirzel & Chilimbi, FDDO 2001) on real C programs, to decide whether
// fragprof's sampler should use it for the programs fragprof builds.
//
// Bursty tracing keeps two versions of each function: the original, with a
// countdown check at every function entry and loop back edge, and an instrumented
// copy that the check jumps into when the countdown reaches zero, for a burst of N
// blocks. Between bursts the program runs the original plus the checks, so the
// checks alone are a lower bound of the technique's cost: the copy only adds to it
// (code size, the bursts themselves).
//
// burstcheck emits a C file's IR with fragprof's flags (build.IRFlags), inserts the
// checks as text edits (internal/llvmir), and compiles and links the result with
// clang -O2. Each check is a call of an always-inlined function that decrements a
// global countdown and, when it reaches zero (llvm.expect: rarely), calls a cold
// function that resets it — which is where the jump into the copy would be
// (-store-only: the cold path only resets the countdown, no call). Levels:
//
//	none   the IR path alone, no checks (control: fragprof's builds take this path)
//	outer  function entries and the headers of outermost loops only
//	all    function entries and every loop header (Arnold–Ryder's placement)
//
//	go run ./bench/burstcheck -level all [-cflags '-DN=1'] -o prog prog.c [-lm]
//
// bench/bursty.sh runs it on the sampling examples and the CPU kernels and times
// each build against plain clang -O2.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// defaultPeriod is the countdown between bursts; its value does not change the
// checks' cost, only how often the cold path runs.
const defaultPeriod = 1000003

// A plan says where the checks go and what their cold path does.
type plan struct {
	level     string // none, outer or all
	storeOnly bool   // the cold path only resets the countdown, with no call
	period    int    // the countdown between bursts
}

func main() {
	clang := flag.String("clang", "clang", "the clang to emit IR and compile with")
	level := flag.String("level", "all", "where the checks go: none, outer or all")
	out := flag.String("o", "a.out", "the program to write")
	store := flag.Bool("store-only", false, "the cold path only resets the countdown, with no call: separates the cost of the call (a barrier to the optimiser, as the jump into the copy would be) from the check's")
	cflags := flag.String("cflags", "", "preprocessor and language flags for the C file, separated by spaces")
	flag.Parse()
	if flag.NArg() < 1 || !strings.HasSuffix(flag.Arg(0), ".c") {
		log.Fatal("usage: burstcheck [-clang CLANG] [-level none|outer|all] [-cflags FLAGS] -o OUT FILE.c [link flags]")
	}
	if *level != "none" && *level != "outer" && *level != "all" {
		log.Fatalf("burstcheck: -level %q: want none, outer or all", *level)
	}
	src := flag.Arg(0)
	tc, err := build.NewToolchain(*clang)
	if err != nil {
		log.Fatal(err)
	}
	n, err := buildChecked(tc, src, strings.Fields(*cflags), plan{*level, *store, defaultPeriod}, *out, flag.Args()[1:])
	if err != nil {
		log.Fatalf("burstcheck: %v", err)
	}
	fmt.Fprintf(os.Stderr, "burstcheck: %s: %d checks (%s)\n", src, n, *level)
}

// buildChecked emits src's IR with fragprof's flags, inserts the checks of plan
// pl, and compiles and links the result with tc's clang -O2 into out. It returns
// the number of checks.
func buildChecked(tc *build.Toolchain, src string, cflags []string, pl plan, out string, link []string) (int, error) {
	dir, err := os.MkdirTemp("", "burstcheck")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	ll := filepath.Join(dir, "in.ll")
	if err := tc.EmitIR(context.Background(), os.Stderr, src, ll, cflags); err != nil {
		return 0, err
	}
	m, err := tc.ReadIR(ll, cflags)
	if err != nil {
		return 0, err
	}
	n := 0
	if pl.level != "none" {
		n = insertChecks(m, pl)
	}
	m.StripDebug()
	edited := filepath.Join(dir, "out.ll")
	if err := os.WriteFile(edited, m.Bytes(), 0o644); err != nil {
		return 0, err
	}
	args := append([]string{"-O2", "-Wno-override-module", "-o", out, edited}, link...)
	if b, err := exec.Command(tc.Clang, args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s %s: %v\n%s", tc.Clang, strings.Join(args, " "), err, b)
	}
	return n, nil
}

// insertChecks puts a check at the end of every function's entry block (after its
// allocas, which must stay in the entry block when the check is inlined) and at
// the top of every loop header — of the outermost loops only at level "outer". It
// returns the number of checks.
func insertChecks(m *llvmir.Module, pl plan) int {
	n := 0
	call := "  call void @__fp_burst_check()"
	for _, f := range m.Funcs {
		def := m.Lines[f.Line]
		if strings.Contains(def, " available_externally ") || strings.Contains(def, " naked ") {
			continue
		}
		m.InsertBefore(f.Blocks[0].Term().Line, call)
		n++
		g := m.CFG(f)
		for _, l := range g.FindLoops().Loops {
			if l.Depth > 1 && pl.level != "all" {
				continue
			}
			at, ok := f.Blocks[l.Header.ID].InsertionPoint()
			if !ok || f.Blocks[l.Header.ID].EHPad() != "" {
				continue
			}
			m.InsertBefore(at, call)
			n++
		}
	}
	p := "ptr"
	if !m.Opaque {
		p = "i64*"
	}
	start := "  call void @__fp_burst_start()"
	if pl.storeOnly {
		start = fmt.Sprintf("  store i64 %d, %s @__fp_burst_countdown, align 8", pl.period, p)
	}
	m.Append(fmt.Sprintf(`
@__fp_burst_countdown = linkonce_odr hidden global i64 %[1]d, align 8
@__fp_burst_started = linkonce_odr hidden global i64 0, align 8

define internal void @__fp_burst_check() alwaysinline nounwind {
  %%c = load i64, %[2]s @__fp_burst_countdown, align 8
  %%d = add i64 %%c, -1
  store i64 %%d, %[2]s @__fp_burst_countdown, align 8
  %%z = icmp eq i64 %%d, 0
  %%e = call i1 @llvm.expect.i1(i1 %%z, i1 false)
  br i1 %%e, label %%start, label %%done
start:
%[3]s
  br label %%done
done:
  ret void
}

define linkonce_odr hidden void @__fp_burst_start() cold noinline nounwind {
  %%s = load i64, %[2]s @__fp_burst_started, align 8
  %%s1 = add i64 %%s, 1
  store i64 %%s1, %[2]s @__fp_burst_started, align 8
  store i64 %[1]d, %[2]s @__fp_burst_countdown, align 8
  ret void
}

declare i1 @llvm.expect.i1(i1, i1)`, pl.period, p, start))
	return n
}
