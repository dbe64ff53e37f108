// This file routes reports and the profiled program's own stdout, once for every
// command: a report asked for in a machine-readable format (--json, or --format
// other than text) without -o goes to stdout, and the program's stdout then goes to
// stderr, or to the file named by --program-output, so the two are never mixed.

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

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
