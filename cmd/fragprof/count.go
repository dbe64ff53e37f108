// This file implements `fragprof count`.

package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/faultloc"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
	"github.com/fragprof/fragprof/profile"
)

func newCountCmd(e *env) *cobra.Command {
	var bf buildFlags
	var pf profileFlags
	var jsonOut bool
	var format, outFile, binary string
	var htmlFile string
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "count [flags] FILE.c... [-- ARGS...]   |   count --binary PROG [flags] [-- ARGS...]",
		Short: "Run a program once and print the exact count of every block and edge",
		Long: `Count compiles the C files into an instrumented program (or takes one built by
'fragprof cc' with --binary), runs it once with fragprof's own stdin and the ARGS after
"--", and prints how many times every basic block and every edge ran, in source order,
with the call count of each function. C++ files (.cc, .cpp, .cxx, .C) are C++, as is
every file with -x c++: exceptions, templates and inline functions are counted as
docs/cxx.md says, with names demangled.

The program's stdin, stdout, stderr and exit status pass through untouched: the report
goes to stderr, or to the file named by -o. A --json or --format json/dot report
without -o goes to stdout, so that 'count ... --json > counts.json' works; the
program's own stdout then goes to stderr, or to the file named by --program-output.

Counts survive exit(), return from main, _exit() and fatal signals (SIGSEGV,
SIGABRT, SIGFPE, SIGBUS, SIGINT, SIGTERM, ...); they are lost only on SIGKILL,
unless --continuous keeps them in a mapped file. --profile FILE also writes them to
a profile file for 'fragprof merge', 'show', 'export', 'diff' and 'pgo'.

How the program ended is said under the report (and in the JSON's "ended"): a
program killed by a signal keeps its counts up to that moment, and fragprof exits
128 + signal as a shell would. For a fault it says where (the function and source
line) and what (a null pointer, a division by zero, a stack overflow, code that ran
off the end of a function where the compiler proved it unreachable). Ctrl-C stops the program, not fragprof: the counts so
far are reported, marked "interrupted", and fragprof exits 130. --timeout stops a
program that runs too long the same way, marked "timed out", exit status 124. The
counts of processes the program forks (and of programs built by fragprof that they
exec) are added in; fragprof waits up to 10 s after the program ends for the processes
it started, and warns if some are still running (docs/runtime.md).

Every count is exact and checked for flow conservation before it is printed: a block's
count is the sum of its in-edges, and (when main returns) the sum of its out-edges.
The program count builds keeps every counter in memory in program order, so that
a run that crashes is counted exactly too; 'fragprof cc' (and freq) keep loops'
counters in registers above -O0 and leave out the counters that only place a fault,
which is cheaper but may leave counts near a fault off by one (FRAGPROF_PROMOTE=0
turns both off).

Examples:
  fragprof count examples/newton.c <<< 400
  fragprof count prog.c --profile run1.fpp -- input1 && fragprof show run1.fpp
  fragprof count -I include -D N=10 prog.c util.c --json -o counts.json -- in.txt
  fragprof count examples/newton.c --report newton.html <<< 400
  make CC="fragprof cc" && fragprof count --binary ./prog -- args < input`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			srcs, progArgs := splitDash(c, args)
			if format != "text" && format != "json" && format != "dot" {
				return usagef("count: --format %q: want text, json or dot", format)
			}
			if binary == "" && len(srcs) == 0 {
				return usagef("count: name the C files to build, or --binary PROG")
			}
			if binary != "" && len(srcs) > 0 {
				return usagef("count: --binary takes no C files (got %v); put program arguments after --", srcs)
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			intr := catchInterrupts()
			defer intr.stop()
			// A run stopped from outside must find every count in memory.
			bin, err := countProgram(e, intr, &bf, srcs, binary, timeout > 0 || pf.continuous, dir)
			if err != nil {
				return err
			}
			d, st, err := runner.Run(bg(), runner.Command{Path: bin, Name: cmp.Or(binary, strings.Join(srcs, " ")), Args: progArgs,
				Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Dir: dir, Env: pf.env(), Timeout: timeout, Interrupt: intr.ctx})
			intr.settle(st.Signal)
			stopped := runner.Interruption{Signal: intr.caught(), Mark: intr.mark()}
			code := st.EndCode(stopped)
			note := st.EndNote(timeout, stopped, faultWhere(bin, st, d))
			if err != nil {
				if code != 0 {
					fmt.Fprintf(e.stderr, "fragprof: %s\nfragprof: %v\n", note, err)
					return exitError{code}
				}
				return err
			}
			p, err := d.Profile()
			if err != nil {
				return err
			}
			p.Identity = programIdentity(bin, srcs)
			printRunEnd(e, note, st.Warnings(dir, intr.caught()))
			if err := pf.save(e, d, p); err != nil {
				return err
			}
			if d.Simplified() {
				fmt.Fprintln(e.stderr, "fragprof: note: the counts are those of the CFG that LLVM's early simplification left (--simplified, FRAGPROF_SIMPLIFIED=1), not of the source-level one: code it removed has no count and a ?: it made a select is one block")
			}
			if jsonOut {
				format = "json"
			}
			if err := writeCountReport(e, outFile, format, p, st, intr, d.Simplified(), note); err != nil {
				return err
			}
			if err := writeCountHTML(e, htmlFile, p); err != nil {
				return err
			}
			if code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	bf.add(c)
	pf.add(c)
	c.Flags().BoolVar(&jsonOut, "json", false, "print the report as JSON (docs/json.md); the same as --format json")
	c.Flags().StringVar(&format, "format", "text", "report `FORMAT`: text, json or dot (the CFG with counts, for Graphviz)")
	c.Flags().StringVarP(&outFile, "output", "o", "", "write the report to `FILE` (atomically) instead of stderr, or stdout for --json/--format json|dot")
	c.Flags().StringVar(&htmlFile, "report", "", "also write the HTML page of the counts ('fragprof report') to `FILE`")
	c.Flags().DurationVar(&timeout, "timeout", 0, "stop the program after `DURATION` (SIGTERM, then SIGKILL 5 s later) and report its counts so far, marked; fragprof then exits 124, as timeout(1) does (0: no limit)")
	c.Flags().StringVar(&binary, "binary", "", "run `PROG`, a program built by 'fragprof cc', instead of building C files")
	markOutput(c, outputFile, "report", "profile")
	return c
}

// splitDash separates the command's own arguments from those after "--".
func splitDash(c *cobra.Command, args []string) (own, rest []string) {
	if k := c.ArgsLenAtDash(); k >= 0 {
		return args[:k], args[k:]
	}
	return args, nil
}

// faultWhere says where the fault that killed the program happened (faultloc), or "".
func faultWhere(bin string, st runner.Status, d *dump.Dump) string {
	if d == nil || d.Fault == nil || st.Signal == 0 {
		return ""
	}
	return faultloc.Describe(bin, st.Signal, *d.Fault)
}

// countProgram returns the program count runs: the one given with --binary, or one
// built from srcs in dir, with every counter in memory when volatile (a run
// stopped from outside must find them there).
func countProgram(e *env, intr *interrupts, bf *buildFlags, srcs []string, binary string, volatile bool, dir string) (string, error) {
	if binary != "" {
		if err := checkBinary(binary); err != nil {
			return "", err
		}
		if abs, err := filepath.Abs(binary); err == nil {
			return abs, nil
		}
		return binary, nil
	}
	if volatile {
		bf.volatile = true
	}
	spec, err := bf.spec(srcs)
	if err != nil {
		return "", err
	}
	// One run, counted exactly however it ends: counters stay in memory in
	// program order, even at -O2 where cc and freq promote them.
	spec.ExactFaults = true
	tc, err := toolchain()
	if err != nil {
		return "", intr.failed(e, "count", "finding clang", err)
	}
	bin := filepath.Join(dir, "prog")
	if _, err := tc.Build(intr.ctx, e.stderr, spec, dir, bin); err != nil {
		return "", intr.failed(e, "count", "building the program", err)
	}
	return bin, nil
}

// printRunEnd prints on stderr how the run ended (Status.EndNote, when it did not
// end normally) and the warnings on counts left out (Status.Warnings).
func printRunEnd(e *env, note string, warnings []string) {
	if note != "" {
		fmt.Fprintf(e.stderr, "fragprof: %s\n", note)
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "fragprof: warning: %s\n", w)
	}
}

// writeCountReport writes count's report in format (text, json or dot) to outFile
// (writeReport); a text report in a file ends with the note on how the run ended.
func writeCountReport(e *env, outFile, format string, p *profile.Profile, st runner.Status, intr *interrupts, simplified bool, note string) error {
	return writeReport(e, outFile, func(w io.Writer) error {
		switch format {
		case "json":
			return writeCountJSON(w, p, st, intr, simplified)
		case "dot":
			return report.WriteDOT(w, p)
		}
		if err := report.WriteText(w, p, sourceFiles); err != nil || note == "" || outFile == "" {
			return err
		}
		// A report in a file says how the run ended too (on stderr it follows the note).
		_, err := fmt.Fprintf(w, "\nfragprof: %s\n", note)
		return err
	})
}

// countEnd is how the run ended, in count's JSON (docs/json.md).
type countEnd struct {
	Status      int    `json:"status"`           // as a shell reports it: the exit status, or 128 + signal
	Signal      string `json:"signal,omitempty"` // the signal that killed the program
	TimedOut    bool   `json:"timed_out,omitempty"`
	Interrupted string `json:"interrupted,omitempty"` // "interrupted" (SIGINT to fragprof) or "terminated" (SIGTERM)
}

// writeCountJSON writes the counts as JSON with how the run ended and, when the
// simplified CFG was counted, a mark that says so.
func writeCountJSON(w io.Writer, p *profile.Profile, st runner.Status, intr *interrupts, simplified bool) error {
	end := countEnd{Status: st.ShellCode(), TimedOut: st.TimedOut, Interrupted: intr.mark()}
	if st.Signal != 0 {
		end.Signal = unix.SignalName(st.Signal)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		report.JSONProgram
		Simplified bool     `json:"simplified,omitempty"`
		Ended      countEnd `json:"ended"`
	}{report.JSON(p), simplified, end})
}
