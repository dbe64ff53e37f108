// This file routes reports and the profiled program's own stdout, once for every
// command: a report asked for in a machine-readable format (--json, or --format
// other than text) without -o goes to stdout, and the program's stdout then goes to
// stderr, or to the file named by --program-output, so the two are never mixed.

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/build"

	"github.com/fragprof/fragprof/internal/atomicfile"
)

// programOutputFlag is the flag of the commands that pass the program's stdout
// through (programRunners); routeOutput gives it to them.
const programOutputFlag = "program-output"

// programRunners are the commands that pass the program's own stdout through to
// fragprof's.
var programRunners = map[string]bool{"count": true, "freq": true, "sample": true}

// addProgramOutput adds --program-output to the commands of programRunners.
func addProgramOutput(root *cobra.Command) {
	for _, c := range root.Commands() {
		if programRunners[c.Name()] {
			c.Flags().String(programOutputFlag, "", "write the program's own stdout to `FILE` (by default it passes through to stdout, or goes to stderr when a --json/--format report goes to stdout)")
		}
	}
}

// routeOutput runs before every command (the root's PersistentPreRunE) and decides
// where the report (writeReport) and, for programRunners, the program's stdout go:
//
//	report format       -o      report   program's stdout
//	text                none    stderr   stdout (or --program-output FILE)
//	json, dot, ...      none    stdout   stderr (or --program-output FILE)
//	any                 FILE    FILE     stdout (or --program-output FILE)
//
// It sets e.report, the report's destination when no -o is given, and for
// programRunners replaces e.stdout, which they hand to the program. Commands whose
// output is their only product (cfg, show, diff, export, model show...) print to
// stdout whatever the format and are left alone.
func routeOutput(e *env, c *cobra.Command) error {
	fs := c.Flags()
	machine := false
	if f := fs.Lookup("json"); f != nil && f.Value.String() == "true" {
		machine = true
	}
	if f := fs.Lookup("format"); f != nil && f.Value.String() != "" && f.Value.String() != "text" {
		machine = true
	}
	toFile := false
	if f := fs.Lookup("output"); f != nil && f.Value.String() != "" {
		toFile = true
	}
	prog := e.stdout
	if machine && !toFile {
		if closedStream(e.stdout) {
			return usagef("%s: stdout is closed (>&- in the shell), and the report goes there without -o: name a file with -o FILE, or redirect stdout to a file", strings.TrimPrefix(c.CommandPath(), "fragprof "))
		}
		e.report = e.stdout
		prog = e.stderr
	}
	po := fs.Lookup(programOutputFlag)
	if po == nil {
		return nil
	}
	if name := po.Value.String(); name != "" {
		f, err := os.Create(name)
		if err != nil {
			return fmt.Errorf("--program-output: %v", err)
		}
		e.closers = append(e.closers, f.Close)
		prog = f
	}
	e.stdout = prog
	return nil
}

// closedStream tells whether w is a descriptor the shell closed (>&-). Go's runtime
// opens /dev/null read-write in place of a standard descriptor closed at start, so
// that writes to it succeed unseen; a shell's >/dev/null opens it write-only. (A
// parent that hands over /dev/null opened read-write, as Python's
// subprocess.DEVNULL does, looks the same, and is refused too.)
func closedStream(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	var st, null unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil || unix.Stat(os.DevNull, &null) != nil || st.Rdev != null.Rdev || st.Mode&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_ACCMODE == unix.O_RDWR
}

// writeReport sends a report to e.report (stderr unless routeOutput chose stdout),
// or atomically to file when one is named.
func writeReport(e *env, file string, render func(io.Writer) error) error {
	if file != "" {
		return atomicfile.WriteWith(file, render)
	}
	w := e.stderr
	if e.report != nil {
		w = e.report
	}
	// Buffered: the text reports write a cell at a time through tabwriter, and each
	// write to a terminal or pipe is a system call (2 s of a freq report on sqlite3).
	b := bufio.NewWriterSize(w, 64<<10)
	if err := render(b); err != nil {
		b.Flush()
		return err
	}
	return b.Flush()
}

// outputAnnotation marks, on a flag that names a file or directory a command writes
// other than its -o/--output and --program-output (which always do), what it names:
// outputFile, outputReplacing (merge's -o, which may be one of its inputs: every
// input is read before the output replaces it atomically) or outputDir (trace's -o).
const outputAnnotation = "fragprof-output"

const (
	outputFile      = "file"
	outputReplacing = "replacing"
	outputDir       = "dir"
)

// markOutput marks the flags names of c as naming what c writes (outputAnnotation).
func markOutput(c *cobra.Command, kind string, names ...string) {
	for _, n := range names {
		c.Flags().SetAnnotation(n, outputAnnotation, []string{kind})
	}
}

// An outputPath is a file a command is about to write, and the flag that names it.
type outputPath struct {
	flag, path, kind string
}

// checkOutputs runs before every command (report, which parses its own flags, calls
// it after parsing them), before anything is built or run: it
// refuses (a usage error) an output that is the same file as one of the command's
// inputs (its arguments and the files its other flags name: compared as cleaned
// absolute paths, then with os.SameFile) or as another output, and (a failure) an
// output whose directory does not exist or cannot be written in, so that a long run
// neither overwrites the user's source nor ends without anywhere to put its result.
func checkOutputs(c *cobra.Command, args []string) error {
	name := strings.TrimPrefix(c.CommandPath(), "fragprof ")
	var outs []outputPath
	inputs := append([]string(nil), args...)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		kind := outputKind(f)
		switch {
		case kind == "":
			if f.Value.Type() != "bool" {
				inputs = append(inputs, flagValues(f)...)
			}
		case f.Value.String() != "" && kind != outputDir:
			outs = append(outs, outputPath{flagName(f), f.Value.String(), kind})
		}
	})
	for i, o := range outs {
		for _, p := range outs[:i] {
			if filepath.Clean(o.path) == filepath.Clean(p.path) || build.SameFile(o.path, p.path) {
				return usagef("%s: %s %s and %s %s name the same file: the second would overwrite the first; name two files", name, p.flag, p.path, o.flag, o.path)
			}
		}
		if o.kind != outputReplacing {
			for _, in := range inputs {
				if build.SameFile(o.path, in) {
					return usagef("%s: %s %s is the input file %s: writing there would overwrite it; name another file for %s", name, o.flag, o.path, in, o.flag)
				}
			}
		}
		if err := checkWritable(o); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// outputKind is what f names when it is an output: outputFile for -o/--output and
// --program-output unless marked otherwise, its outputAnnotation, or "" for a flag
// that is not an output.
func outputKind(f *pflag.Flag) string {
	if a := f.Annotations[outputAnnotation]; len(a) > 0 {
		return a[0]
	}
	if f.Name == "output" || f.Name == programOutputFlag {
		return outputFile
	}
	return ""
}

// flagName is f as the user would write it: -o rather than --output.
func flagName(f *pflag.Flag) string {
	if f.Shorthand != "" {
		return "-" + f.Shorthand
	}
	return "--" + f.Name
}

// flagValues are the values given to f (every one of a repeatable flag).
func flagValues(f *pflag.Flag) []string {
	if !f.Changed {
		return nil
	}
	if s, ok := f.Value.(pflag.SliceValue); ok {
		return s.GetSlice()
	}
	return []string{f.Value.String()}
}

// checkWritable tells whether the output o can be written: it is not a directory,
// and its directory exists and takes a new file (one is created there and removed).
func checkWritable(o outputPath) error {
	if fi, err := os.Stat(o.path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s %s: is a directory: name a file (such as %s)", o.flag, o.path, filepath.Join(o.path, "out.txt"))
	}
	dir := filepath.Dir(o.path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: the directory %s does not exist: create it first (mkdir -p %s) or name another file", o.flag, o.path, dir, dir)
	case err != nil:
		return fmt.Errorf("%s %s: %v", o.flag, o.path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s %s: %s is not a directory", o.flag, o.path, dir)
	}
	f, err := os.CreateTemp(dir, ".fragprof-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s %s: cannot write in the directory %s (%v): name a file in a directory you can write", o.flag, o.path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}
