// This file implements `fragprof timers`.

package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/timing"
)

func newTimersCmd(e *env) *cobra.Command {
	var jsonOut bool
	var outFile string
	var slices, sliceMs, cpu int
	c := &cobra.Command{
		Use:   "timers [flags]",
		Short: "Measure every timer fragment timing can use: resolution, cost of a read, TSC calibration",
		Long: `Timers builds a small probe with the fragprof runtime and measures, through the
runtime's own read functions (so the figures describe exactly what 'fragprof time'
uses), every timer:

  tsc             rdtsc between lfences (lfence; rdtsc; lfence); ticks converted to ns
                  by a frequency calibrated against CLOCK_MONOTONIC_RAW
  rdtscp          rdtscp, then lfence
  monotonic       clock_gettime(CLOCK_MONOTONIC)
  monotonic_raw   clock_gettime(CLOCK_MONOTONIC_RAW): not slewed by NTP
  process         clock_gettime(CLOCK_PROCESS_CPUTIME_ID): CPU time of the process
  thread          clock_gettime(CLOCK_THREAD_CPUTIME_ID): CPU time of the thread

For each it reports the claimed resolution (clock_getres; one tick for the TSC), the
observed resolution (the smallest non-zero step between consecutive reads), the cost
of one read (the median and the minimum of back-to-back pairs), the cost per read in
a loop (timed by CLOCK_MONOTONIC_RAW), and what an empty fragment measures: the
overhead 'fragprof time' subtracts from every sample.

It then calibrates the TSC against CLOCK_MONOTONIC_RAW over --slices intervals of
--slice-ms each (the spread between slices shows how steady the rate is), reports
whether the CPU calls its TSC invariant (cpuid 80000007H, EDX bit 8: a constant rate
in every power state), the kernel's clock source, and whether frequency scaling is
visible (cpufreq's governor and range; in a virtual machine usually not exposed).

The report goes to stdout (there is no program whose output it could mix with), or
to the file named by -o.

Examples:
  fragprof timers
  fragprof timers --json | jq '.[] | {name, overhead_ns}'
  fragprof timers --cpu 1 --slices 50 --slice-ms 100`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if slices < 2 || sliceMs < 1 {
				return usagef("timers: --slices must be at least 2 and --slice-ms at least 1")
			}
			if err := checkCPU("timers", cpu); err != nil {
				return err
			}
			tc, err := toolchain()
			if err != nil {
				return err
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			p, err := timing.RunProbe(bg(), tc, timing.ProbeOptions{Slices: slices, SliceMs: sliceMs, CPU: cpu, Dir: dir, Stderr: e.stderr})
			if err != nil {
				return err
			}
			render := func(w io.Writer) error {
				if jsonOut {
					return report.WriteTimersJSON(w, p)
				}
				return report.WriteTimersText(w, p)
			}
			if outFile == "" {
				return render(e.stdout)
			}
			return writeReport(e, outFile, render)
		},
	}
	fs := c.Flags()
	fs.BoolVar(&jsonOut, "json", false, `print [{"name", "resolution_ns", "overhead_ns", ...}] instead of the table`)
	fs.StringVarP(&outFile, "output", "o", "", "write the report to `FILE` instead of stdout (atomically)")
	fs.IntVar(&slices, "slices", 10, "TSC calibration: number of intervals")
	fs.IntVar(&sliceMs, "slice-ms", 20, "TSC calibration: length of each interval in milliseconds")
	fs.IntVar(&cpu, "cpu", -1, "pin the probe to CPU `N` (-1: do not pin)")
	return c
}
