package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/sample"
)

// runSampleEnv prints the export lines of `fragprof sample --env`: the environment
// that makes any program started with it record itself (sample.Env).
func runSampleEnv(c *cobra.Command, e *env, f *sampleFlags, args []string) error {
	if len(args) > 0 {
		return usagef("sample: --env starts no program (got %v): run it with the printed environment", args)
	}
	for _, name := range []string{"pid", "exact", "repeat", "measure-overhead", "graph", "until-similarity", "sampler", "aslr", "max-instructions"} {
		if c.Flags().Changed(name) {
			return usagef("sample: --%s does not go with --env", name)
		}
	}
	st, ok := sample.ParseStepping(f.stepping)
	if !ok {
		return usagef("sample: --stepping %q: want auto, breakpoints or singlestep", f.stepping)
	}
	if f.burst <= 0 || f.burst > 1024 || f.interval < 0 {
		return usagef("sample: --burst must be in 1..1024 and --interval positive")
	}
	if f.stackBytes < 0 || f.stackBytes > 65536 {
		return usagef("sample: --stack-bytes %d: want 0 to 65536", f.stackBytes)
	}
	o := sample.Options{Interval: f.interval, Burst: f.burst, Stepping: st, Seed: f.seed, TaskClock: f.taskClock}
	if f.overheadTarget != "" {
		v, err := parseShare(f.overheadTarget)
		if err != nil || v <= 0 || v >= 1 {
			return usagef("sample: --overhead %q: want a share such as 5%% or 0.05", f.overheadTarget)
		}
		o.Overhead = v
	}
	out := f.out
	if out == "" {
		out = "sample.rec"
	}
	vars, err := sample.Env(o, f.stackBytes, out, os.Getenv("LD_PRELOAD"))
	if err != nil {
		return fmt.Errorf("sample --env: %v", err)
	}
	for _, v := range vars {
		fmt.Fprintln(e.stdout, v.Export())
	}
	return nil
}
