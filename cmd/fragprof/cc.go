// This file implements `fragprof cc`.

package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/build"
)

func newCCCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "cc [clang arguments...]",
		Short: "A drop-in C compiler that builds self-describing instrumented programs",
		Long: `fragprof cc accepts what clang accepts (-c, -o, -S, linking, several files, -I/-D, -MD...)
and builds the same outputs, but every C translation unit is compiled to LLVM IR,
instrumented with counters and its CFG description, and then compiled at the
requested -O level: without one, at -O0, as clang's own default (give -O2 in
CFLAGS for an optimised build). Linking adds the fragprof runtime. The result runs
like the plain build; 'fragprof count --binary PROG' (and every later method) reads
its counts with nothing but the binary.

Examples:
  make CC="fragprof cc"                               # any Makefile project, unchanged
  fragprof count --binary ./prog -- args < input      # the counts of one run
  fragprof cc -O2 -c util.c && fragprof cc -O2 main.c util.o -o prog
  FRAGPROF_OUT=runs/%p.fpd make test                  # your own test suite's runs
  fragprof merge runs/*.fpd -o all.fpp && fragprof show all.fpp --source

What it adds to clang: the instrumentation (counters on a spanning tree's chords,
the CFG as metadata), the fragprof runtime at link time (counts written at exit and
on fatal signals), and a renamed main so that fragprof's fork server can run trials.
It takes no options of its own; every argument goes to clang. The object carries
debug information only when asked for (-g), as clang's own does. 'fragprof cc
--help' prints this page; clang's own help is 'clang --help'.

A binary built this way writes counts only when asked: set FRAGPROF_OUT=FILE (%p in
FILE expands to the pid) or FRAGPROF_FD=N. FILE is a dump file: the processes that
share it add their counts to it. Every command that reads profile files (show,
merge, diff, export, pgo, report, freq --from) reads a dump file too, and makes of it
the profile 'fragprof count --binary PROG --profile' writes for the same run.

Environment at build time:
  FRAGPROF_CLANG     the clang to use (default: clang, then clang-20 ... clang-14)
  FRAGPROF_COUNTERS  counter placement: chords (default), edges or blocks
  FRAGPROF_ATOMIC=1  atomic counter increments, for threaded programs
  FRAGPROF_VOLATILE=1 volatile counter increments: counts exact at every moment,
                     for runs stopped from outside (Ctrl-C, timeouts, --continuous)
  FRAGPROF_PROMOTE=0 keep loops' counters in memory, not in registers until the loop
                     is left (the default above -O0), and count the blocks that may
                     fault apart: exact counts even for runs that fault or are killed
                     inside a loop, at a higher cost
  FRAGPROF_SIMPLIFIED=1 count the CFG that LLVM's early simplification leaves
                     (above -O0), not the source-level one: cheaper at -O2 where
                     counters would keep dead conditions alive; count's --simplified
                     says what changes (docs/edge-profiling.md); needs LLVM's opt
                     of clang's version (Debian: apt-get install llvm-N)
  FRAGPROF_KEEP=1    keep the intermediate IR files (their directory is printed)
  FRAGPROF_CC_TIMES=1 print the time of each step (clang's front end, fragprof's
                     IR step, clang's back end) and fragprof's peak memory
Environment when the built program runs:
  FRAGPROF_OUT=FILE  write the counts to FILE at exit (%p: the pid)
  FRAGPROF_FD=N      write the counts to the open file descriptor N
Preprocessing-only and query invocations (-E, -M, -MM, -dM, --version, -v,
-print-*, -###) go to clang unchanged, with fragprof's stdin, stdout and stderr, so
that CPP="$CC -E" works; a source read from stdin (-x c -) is instrumented like a
file.`,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if asksHelp(args) {
				return c.Help()
			}
			tc, err := toolchain()
			if err != nil {
				return err
			}
			return ccRun(e, tc, args)
		},
	}
}

// asksHelp reports whether a compiler command's arguments ask for its help page
// (--help, -help or -h): cc and c++ take no flags of their own, so cobra does not see
// them, and these are answered with fragprof's page rather than clang's.
func asksHelp(args []string) bool {
	for _, a := range args {
		if a == "--help" || a == "-help" || a == "-h" {
			return true
		}
	}
	return false
}

// ccRun runs a cc or c++ invocation with fragprof's standard streams; clang's own
// failure in an invocation passed through to it is its exit status, with nothing
// more said (clang has said why).
func ccRun(e *env, tc *build.Toolchain, args []string) error {
	err := tc.CCStdio(bg(), args, build.Stdio{In: e.stdin, Out: e.stdout, Err: e.stderr})
	var ce build.ClangExit
	if errors.As(err, &ce) {
		return exitError{int(ce)}
	}
	return err
}
