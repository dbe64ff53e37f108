// This file holds the flags shared by the commands that build C programs.

package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/tmpdir"
)

// buildFlags are the compiler-facing flags of count, cfg, freq, ...
type buildFlags struct {
	includes, defines, undefs []string
	cflags                    string
	lang                      string
	ldflags                   string
	opt                       string
	counters                  string
	atomic                    bool
	volatile                  bool
	simplified                bool
	// Set by commands, not flags: further IR edits and plain sources (a harness).
	edits    []build.Edit
	exported []string // functions the edits make visible outside their unit
	extra    []string
}

func (b *buildFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringArrayVarP(&b.includes, "include-dir", "I", nil, "add `DIR` to the include path, as clang -I")
	fs.StringArrayVarP(&b.defines, "define", "D", nil, "define a macro, as clang -D (`NAME[=VALUE]`)")
	fs.StringArrayVarP(&b.undefs, "undef", "U", nil, "undefine a macro, as clang -U")
	fs.StringVarP(&b.lang, "language", "x", "", "compile every source as `LANG` (c or c++), as clang -x; by default by extension (.c is C; .cc, .cpp, .cxx, .C are C++)")
	fs.StringVar(&b.cflags, "cflags", "", "more clang flags for every source, space-separated (e.g. \"-std=c11 -Wall\")")
	fs.StringVar(&b.ldflags, "ldflags", "", "more link flags, space-separated (-lm is always added)")
	fs.StringVar(&b.opt, "opt", "-O2", "optimisation level of the instrumented code (counts are those of the source-level CFG whatever the level, unless --simplified)")
	fs.StringVar(&b.counters, "counters", instrument.DefaultScheme.String(), "counter placement: chords (the fewest counters: edges off a maximum spanning tree), edges (every edge) or blocks (every block, plus the edges the CFG does not determine); all three give the same counts")
	fs.BoolVar(&b.atomic, "atomic", false, "atomic increments, for threaded programs (slower)")
	fs.BoolVar(&b.simplified, "simplified", false, "count the CFG that LLVM's early simplification (SROA, EarlyCSE, SimplifyCFG, InstCombine; no inlining) leaves, instead of the source-level one: cheaper at -O2, where counters keep alive conditions the optimiser would delete. Every count is still exact, but of fewer blocks: code the simplification removed has none, a ?: or && it turned into a select counts as one block, unused static functions are gone. Ignored at -O0; needs LLVM's opt of clang's version (docs/edge-profiling.md)")
	fs.BoolVar(&b.volatile, "volatile", false, "volatile increments: every count is in memory at every moment, so that a run stopped from outside (Ctrl-C, a signal, SIGKILL) reports exact counts even in loops that were running (slower in tight loops; implied by count's --timeout and --continuous)")
}

func (b *buildFlags) spec(sources []string) (build.Spec, error) {
	s := build.Spec{Sources: sources, Opt: b.opt}
	for _, d := range b.includes {
		s.CFlags = append(s.CFlags, "-I"+d)
	}
	for _, d := range b.defines {
		s.CFlags = append(s.CFlags, "-D"+d)
	}
	for _, d := range b.undefs {
		s.CFlags = append(s.CFlags, "-U"+d)
	}
	switch b.lang {
	case "":
	case "c", "c++":
		s.CFlags = append(s.CFlags, "-x", b.lang)
	default:
		return s, usagef("-x %s: want c or c++", b.lang)
	}
	s.CFlags = append(s.CFlags, strings.Fields(b.cflags)...)
	s.LDFlags = strings.Fields(b.ldflags)
	sch, err := instrument.ParseScheme(b.counters)
	if err != nil {
		return s, usagef("--counters: %v", err)
	}
	s.Instr = instrument.Options{Scheme: sch, Atomic: b.atomic, Volatile: b.volatile, Exported: b.exported, Simplified: b.simplified}
	s.Edits, s.Extra = b.edits, b.extra
	for _, src := range sources {
		fi, err := os.Stat(src)
		var pe *os.PathError
		switch {
		case errors.As(err, &pe):
			return s, usagef("%s: %v", src, pe.Err)
		case err != nil:
			return s, usagef("%v", err)
		case fi.IsDir():
			return s, usagef("%s is a directory: name the C files in it", src)
		}
	}
	return s, nil
}

// checkBinary says what is wrong with the program path given with --binary, in the
// user's words, before fragprof tries to run it.
func checkBinary(path string) error {
	fi, err := os.Stat(path)
	var pe *os.PathError
	switch {
	case errors.As(err, &pe):
		return usagef("--binary %s: %v", path, pe.Err)
	case err != nil:
		return err
	case fi.IsDir():
		return usagef("--binary %s is a directory", path)
	case fi.Mode()&0o111 == 0:
		return usagef("--binary %s is not executable: name a program built by 'fragprof cc'", path)
	}
	return nil
}

// sourceCache holds the lines of the source files read for reports, by name: a report
// asks once per function, and one file (sqlite3.c: 8 MB, 3,000 functions) was read
// and split thousands of times, which took 35 s of a 300-trial freq run.
var sourceCache struct {
	sync.Mutex
	lines map[string][]string
}

// sourceFiles returns the lines of a source file for excerpts in reports (nil if it
// cannot be read), reading each file once. The lines must not be modified.
func sourceFiles(file string) []string {
	sourceCache.Lock()
	defer sourceCache.Unlock()
	if lines, ok := sourceCache.lines[file]; ok {
		return lines
	}
	var lines []string
	if data, err := os.ReadFile(file); err == nil {
		lines = strings.Split(string(data), "\n")
	}
	if sourceCache.lines == nil {
		sourceCache.lines = map[string][]string{}
	}
	sourceCache.lines[file] = lines
	return lines
}

// workDir makes a temporary directory for intermediate files, removed by the returned
// function unless FRAGPROF_KEEP is set (then its path is printed).
func workDir(e *env) (string, func(), error) {
	d, err := build.TempDir("")
	if err != nil {
		return "", nil, err
	}
	return d, func() {
		if os.Getenv("FRAGPROF_KEEP") != "" {
			e.stderr.Write([]byte("fragprof: intermediate files kept in " + d + "\n"))
			tmpdir.Keep(d)
			return
		}
		tmpdir.Remove(d)
	}, nil
}

func toolchain() (*build.Toolchain, error) { return build.FindToolchain() }

var bg = context.Background
