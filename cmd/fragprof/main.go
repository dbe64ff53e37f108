// Command fragprof tells how often each fragment of a C program runs and how long it
// takes — basic blocks, edges, functions, marked regions — under a distribution of
// inputs, with a stated precision and confidence.
//
// This file holds the command table and the entry point; each subcommand lives in a
// file of its own and is a thin call into a package.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// env is what every command reads and writes instead of the process globals, so that
// tests run commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// report is where writeReport sends a report without -o: stderr unless nil
	// (routeOutput sets it).
	report io.Writer
	// closers are called when the command ends (files routeOutput opened).
	closers []func() error
}

// A command is a subcommand's name (its cobra Name) and constructor.
type command struct {
	name string
	new  func(*env) *cobra.Command
}

// commands is the command table: every subcommand, each in a file of its own
// (named after the command). Help lists them sorted by name.
var commands = []command{
	{"cc", newCCCmd},           // cc.go: build C with the instrumentation (a drop-in clang)
	{"c++", newCXXCmd},         // cxx.go: the same for C++
	{"count", newCountCmd},     // count.go: exact counts of one run
	{"freq", newFreqCmd},       // freq.go, freq_run.go, freq_cluster.go: Monte Carlo frequencies
	{"time", newTimeCmd},       // time.go: fragment timing
	{"timers", newTimersCmd},   // timers.go: the timers of this machine
	{"compose", newComposeCmd}, // compose.go: total time from the parts by graph reduction
	{"sample", newSampleCmd},   // sample.go: bursts of PCs from a running process
	{"hotcfg", newHotcfgCmd},   // hotcfg.go: the hot CFG of sampled bursts
	{"trace", newTraceCmd},     // trace.go: checkpoint traces for the models
	{"model", newModelCmd},     // model*.go: build, predict, advise, check, compile
	{"show", newShowCmd},       // show.go: a profile as text
	{"cfg", newCfgCmd},         // cfgcmd.go: the CFG of every function
	{"diff", newDiffCmd},       // diff.go: two profiles compared
	{"merge", newMergeCmd},     // merge.go: profiles merged
	{"export", newExportCmd},   // export.go: a profile in other formats
	{"report", newReportCmd},   // report.go: the HTML report
	{"pgo", newPGOCmd},         // pgo.go: a profile fed back to the compiler
}

// usageError marks errors in how a command was called; they exit with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitError carries an exit status a command wants passed through unchanged (count
// passes on the profiled program's own status).
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// newRootFor returns the command tree for a run with args: when args[0] names a
// subcommand, the tree holds that one alone (the others' flags and help are not
// built: about 2 ms of CPU and 90 page faults of every run of a short command such
// as sample); otherwise (help, a mistyped name, no command) every one, so that
// help lists them and cobra suggests names.
func newRootFor(e *env, args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "fragprof",
		Short: "Execution frequencies and times of the fragments of C and C++ programs",
		Long: `fragprof tells how often each fragment of a real C or C++ program runs and how
long it takes — basic blocks, edges, functions, marked regions — under a realistic
distribution of inputs, with a stated precision and confidence.

Programs are compiled with clang to LLVM IR, instrumented, and built into a
self-describing binary; every method reads the same CFG, counts and profiles.
Reports go to stderr (or -o FILE) so the program's own output stays untouched;
a report asked for as --json or --format json/dot without -o goes to stdout, and
the program's own stdout then goes to stderr (or to --program-output FILE).
Every file a command writes (-o, --profile, --report, --program-output) is checked
before anything is built or run: it must not be one of the command's input files
(merge -o excepted: it may replace one of its inputs), and its directory must exist
and be writable.

Examples:
  echo 400 | fragprof count examples/newton.c              # exact counts of one run
  fragprof cfg examples/newton.c --func nsqrt --format dot -o nsqrt.dot
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' --eps 0.3
  make CC="fragprof cc" && fragprof count --binary ./prog -- args < input
  fragprof COMMAND --help                                   # each command's manual

Exit status:
  0    success
  1    an error: a file that cannot be read, a program that does not build, ...
  2    a usage error: an unknown command or flag, a bad flag value
  count and time pass the program's own status on: 128 + N when it was killed by
  signal N, 124 after --timeout, 130 after Ctrl-C (see each command's page).`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, args []string) error {
			if err := checkDurations(c); err != nil {
				return err
			}
			if err := checkOutputs(c, args); err != nil {
				return err
			}
			return routeOutput(e, c)
		},
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if v, _ := c.Flags().GetBool("version"); v {
				writeVersion(e.stdout)
				return nil
			}
			return c.Help()
		},
	}
	root.Flags().Bool("version", false, "print fragprof's version and commit, and the Go and clang versions (for bug reports)")
	root.SetIn(e.stdin)
	root.SetOut(e.stdout)
	root.SetErr(e.stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	only := ""
	if len(args) > 0 {
		for _, c := range commands {
			if c.name == args[0] {
				only = c.name
			}
		}
	}
	for _, c := range commands {
		if only == "" || c.name == only {
			root.AddCommand(c.new(e))
		}
	}
	addProgramOutput(root)
	return root
}

// checkDurations refuses a negative value of any duration flag set: a timeout, a
// budget or an interval below zero means nothing, and was taken as "no limit".
func checkDurations(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err == nil && f.Value.Type() == "duration" && strings.HasPrefix(f.Value.String(), "-") {
			err = usagef("--%s %s: a duration cannot be negative; want one such as 10s, 500ms or 2m", f.Name, f.Value)
		}
	})
	return err
}

// run executes fragprof with args and returns the process exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runTree(newRootFor, args, stdin, stdout, stderr)
}

// runTree is run with the command tree that tree builds for args.
func runTree(tree func(*env, []string) *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := tree(e, args)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	for _, c := range e.closers {
		if cerr := c(); cerr != nil && err == nil {
			err = cerr
		}
	}
	var ee exitError
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue), strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "accepts "), strings.HasPrefix(err.Error(), "requires "):
		fmt.Fprintf(stderr, "fragprof: %v\n(see 'fragprof help%s')\n", usageText(cmd, err), strings.TrimPrefix(cmd.CommandPath(), "fragprof"))
		return 2
	default:
		fmt.Fprintf(stderr, "fragprof: %v\n", err)
		return 1
	}
}

// main runs fragprof. For fragprof's developers (go tool pprof FILE):
// FRAGPROF_CPUPROFILE=FILE writes a Go CPU profile of fragprof itself to FILE, and
// FRAGPROF_MEMPROFILE=FILE its allocations (every one sampled: slower) at exit.
func main() {
	cpu, mem := os.Getenv("FRAGPROF_CPUPROFILE"), os.Getenv("FRAGPROF_MEMPROFILE")
	if cpu == "" && mem == "" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	create := func(name, path string) *os.File {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "fragprof: %s: %v\n", name, err)
			os.Exit(1)
		}
		return f
	}
	var cpuFile, memFile *os.File
	if cpu != "" {
		cpuFile = create("FRAGPROF_CPUPROFILE", cpu)
		pprof.StartCPUProfile(cpuFile)
	}
	if mem != "" {
		runtime.MemProfileRate = 1
		memFile = create("FRAGPROF_MEMPROFILE", mem)
	}
	code := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if cpuFile != nil {
		pprof.StopCPUProfile()
		cpuFile.Close()
	}
	if memFile != nil {
		pprof.Lookup("allocs").WriteTo(memFile, 0)
		memFile.Close()
	}
	os.Exit(code)
}

// reArgs matches cobra's messages about the number of arguments.
var reArgs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:accepts|requires) .*received (\d+)$`) })

// reFlagValue matches pflag's message about a flag value that does not parse.
var reFlagValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^invalid argument "(.*)" for "(.*)" flag: (?:strconv\.(Parse\w+)|time: (?:unknown unit|invalid duration|missing unit))`)
})

// usageText says what was wrong with how cmd was called, in fragprof's words: cobra's
// "accepts 1 arg(s), received 0" becomes the command's usage line; flag errors are
// prefixed with the command's name.
func usageText(cmd *cobra.Command, err error) string {
	name := strings.TrimPrefix(cmd.CommandPath(), "fragprof ")
	msg := err.Error()
	if m := reArgs().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: wrong number of arguments (got %s): usage: %s", name, m[1], cmd.UseLine())
	}
	if m := reFlagValue().FindStringSubmatch(msg); m != nil {
		if m[3] == "" {
			m[3] = "ParseDuration"
		}
		want := map[string]string{"ParseFloat": "a number", "ParseInt": "an integer", "ParseUint": "a non-negative integer",
			"ParseBool": "true or false", "ParseDuration": "a duration such as 10s, 500ms or 2m"}[m[3]]
		if strings.HasSuffix(msg, "value out of range") {
			want += " in range"
		}
		msg = fmt.Sprintf("%s %q: want %s", m[2], m[1], want)
	}
	if cmd != cmd.Root() && !strings.HasPrefix(msg, name+":") && !strings.HasPrefix(msg, "unknown command") {
		return name + ": " + msg
	}
	return msg
}
