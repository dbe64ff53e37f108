// This file implements `fragprof c++`.

package main

import (
	"github.com/spf13/cobra"
)

func newCXXCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "c++ [clang++ arguments...]",
		Aliases: []string{"cxx"},
		Short:   "A drop-in C++ compiler that builds self-describing instrumented programs",
		Long: `fragprof c++ is 'fragprof cc' for C++: it accepts what clang++ accepts and builds the same
outputs, but every C and C++ translation unit (.c, .cc, .cpp, .cxx, .C, .c++; .c
compiles as C++, as with clang++) is compiled to LLVM IR, instrumented and compiled at
the requested -O level (without one, at -O0, as clang++). Linking adds the fragprof
runtime and the C++ standard library. Exceptions, templates and inline functions are
counted as docs/cxx.md describes: unwind edges are real edges, and a function emitted
in several translation units has one set of counts in the linked program.

Examples (any Makefile or CMake project, unchanged):
  make CXX="fragprof c++" CC="fragprof cc"
  CXX="fragprof c++" cmake -S . -B build && cmake --build build
  cmake -S . -B build -DCMAKE_CXX_COMPILER="fragprof;c++"   (CMake's list form)
  fragprof count --binary ./build/prog -- args < input
  FRAGPROF_OUT=runs/%p.fpd ctest --test-dir build && fragprof merge runs/*.fpd -o all.fpp

A binary built this way writes counts only when asked: set FRAGPROF_OUT=FILE (%p in
FILE expands to the pid) or FRAGPROF_FD=N. FILE is a dump file: the processes that
share it add their counts to it. Every command that reads profile files (show,
merge, diff, export, pgo, report, freq --from) reads a dump file too, and makes of it
the profile 'fragprof count --binary PROG --profile' writes for the same run.

Environment:
  FRAGPROF_CLANG     the clang to use (default: clang, then clang-20 ... clang-14)
  FRAGPROF_COUNTERS  counter placement: chords (default), edges or blocks
  FRAGPROF_ATOMIC=1  atomic counter increments, for threaded programs (std::thread)
  FRAGPROF_KEEP=1    keep the intermediate IR files (their directory is printed)
Preprocessing-only and query invocations (-E, -M, --version, -print-*) go to clang++
unchanged. 'fragprof c++ --help' prints this page; clang's own help is 'clang++ --help'.`,
		DisableFlagParsing: true,
		RunE: func(c *cobra.Command, args []string) error {
			if asksHelp(args) {
				return c.Help()
			}
			tc, err := toolchain()
			if err != nil {
				return err
			}
			return ccRun(e, tc.CXX(), args)
		},
	}
}
