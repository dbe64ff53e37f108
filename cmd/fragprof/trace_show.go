// This file implements `fragprof trace show`.

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/trace"
)

func newTraceShowCmd(e *env) *cobra.Command {
	var format string
	var events int
	c := &cobra.Command{
		Use:   "show FILE.fpt",
		Short: "Print a trace file: its inputs, transitions and events (or CSV)",
		Long: `Show prints a trace file written by 'fragprof trace': the trial's inputs and exit
status, the clock, every transition between checkpoints with its count and time
(total, mean, min, max; the costliest first), and the first --events events of
each thread — time since the first event, since the previous one, the checkpoint
and the values recorded there.

--format csv writes every event instead, one row each, for a spreadsheet or
pandas: thread, event, time_ns (since the trace's origin), dt_ns (since the
thread's previous event), checkpoint, place (file:line), then one column per
variable recorded anywhere in the trace (empty where an event does not record it).

Examples:
  fragprof trace show traces/trial-000003.fpt
  fragprof trace show traces/trial-000003.fpt --events 0        # summary only
  fragprof trace show traces/trial-000003.fpt --format csv > t3.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "text" && format != "csv" {
				return usagef("trace show: --format %q: want text or csv", format)
			}
			t, err := trace.ParseFile(args[0])
			if err != nil {
				return err
			}
			if format == "csv" {
				return trace.WriteCSV(e.stdout, t)
			}
			if err := trace.WriteText(e.stdout, t, trace.ShowOptions{Events: events}); err != nil {
				return fmt.Errorf("trace show: %v", err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&format, "format", "text", "output: text or csv (every event)")
	c.Flags().IntVar(&events, "events", 40, "events of each thread to list in text (-1: all)")
	return c
}
