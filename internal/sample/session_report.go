// This file implements the report of a sampling session (Session): what
// `fragprof sample` prints on stderr after the runs.

package sample

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/fragprof/fragprof/internal/stats"
)

// Costs are what fragprof adds to the process tree outside the program's runs, for
// the report's estimate of the sampler's whole cost (Result.WholeCost).
type Costs struct {
	Start StartCostResult // the library's start in each in-process run (CachedStartCost); zero when not read
	Exit  StartCostResult // fragprof's own exit, which no getrusage of its own sees
	Self  time.Duration   // fragprof's own CPU time so far (getrusage RUSAGE_SELF)
	// Children is the CPU time of the commands fragprof waited for during the
	// session (getrusage RUSAGE_CHILDREN now, less before it): every run of the
	// program, true(1) when the start cost was measured, the C compiler when the
	// library was built.
	Children time.Duration
}

// Report writes the session's report to w, each line prefixed "fragprof sample: ":
// the batches and runs, the sampler's time under ptrace, the stepping and the
// estimate of the whole cost in process (costs, called only then), the thinning,
// the estimated similarity, MeasureOverhead's ratios and the notes. file is the
// batches file's name ("" when it is not kept).
func (res *Result) Report(w io.Writer, file string, costs func() (Costs, error)) error {
	total, runs := res.Total, len(res.Traced)
	walls := make([]time.Duration, runs)
	for i, r := range res.Traced {
		walls[i] = r.Wall
	}
	fmt.Fprintf(w, "fragprof sample: %d batches, %d PCs sampled (%d bursts skipped) in %d run(s), %v per run (median)\n",
		total.Batches, total.Sampled, total.Skipped, runs, medianDuration(walls))
	if file != "" {
		fmt.Fprintf(w, "fragprof sample: share of instructions: run 'fragprof hotcfg %s --compare EXACT' (sampled_fraction) against 'sample --exact'\n", file)
	}
	if total.Ticks > 0 {
		// No share of run time: the tracer's own time misses most of what
		// ptrace costs the program (context switches, caches: +12-15% measured
		// against 4.5% so estimated). --measure-overhead
		// measures it.
		fmt.Fprintf(w, "fragprof sample: sampler time %v in %d ticks (%.0f µs per burst; the program's cost is larger: --measure-overhead)\n",
			total.TickTime.Round(time.Microsecond), total.Ticks, float64(total.TickTime.Microseconds())/float64(max(total.Batches, 1)))
	}
	if res.InProcessRuns > 0 {
		fmt.Fprintf(w, "fragprof sample: stepping: %s\n", res.Steps)
	}
	if res.InProcessRuns > 0 && total.Ticks == 0 {
		c, err := costs()
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "fragprof sample: %s\n", res.WholeCost(c))
	}
	if res.Thinned > 0 {
		res.reportThinning(w)
	}
	if res.EstimateOK {
		fmt.Fprintf(w, "fragprof sample: estimated similarity %.1f%% (each half of the %d batches holds at least that share of the %d hot edges of all of them; docs/sampling.md)\n",
			100*res.Estimate.Similarity, res.Estimate.Batches, res.Estimate.HotEdges)
	}
	if res.until > 0 && (!res.EstimateOK || res.Estimate.Similarity < res.until) {
		fmt.Fprintf(w, "fragprof sample: --until-similarity %s not reached in %d runs (%d batches): raise --repeat\n", res.untilText, runs, res.Batches)
	}
	if res.measuredOverhead {
		writeOverhead(w, res.Traced, res.Plain)
	}
	for _, n := range append(res.Notes, res.Last.Notes...) {
		fmt.Fprintf(w, "fragprof sample: %s\n", n)
	}
	return nil
}

// reportThinning says how many runs the thinning sampled, and what the runs left
// plain measured of the cost.
func (res *Result) reportThinning(w io.Writer) {
	runs, sampled := len(res.Traced), len(res.Traced)-res.Thinned
	perRun := res.Total.CPU / time.Duration(runs)
	fmt.Fprintf(w, "fragprof sample: %d of %d runs sampled, drawn at random; the other %d ran plain, to hold the sampler's cost within --overhead %g%%: its start alone, %.0f µs a run, is %.1f%% of a run's %v of CPU (docs/sampling.md)\n",
		sampled, runs, res.Thinned, 100*res.share, float64(res.thin.Start.Nanoseconds())/1e3,
		100*float64(res.thin.Start)/float64(max(perRun, 1)), perRun.Round(time.Microsecond))
	if m, ok := res.thin.Measured(); ok {
		fmt.Fprintf(w, "fragprof sample: its cost measured by the runs left plain: a sampled run took %v more CPU than a plain one (the start, the bursts and what they cost the program): %.2f%% of the runs' CPU time (measured)\n",
			m.Round(time.Microsecond), 100*float64(time.Duration(sampled)*m)/float64(max(res.Total.CPU, 1)))
	}
}

// WholeCost describes what fragprof added to the process tree, as a share of the
// program's own CPU time: the sampler inside the program (the bursts, the
// mappings, the library's start in each in-process run), fragprof's own process
// (c.Self, plus its exit c.Exit, which comes after any report) and the other
// commands it ran (c.Children less every run of the program, the unsampled ones of
// MeasureOverhead included, which are neither the program's nor counted). The
// program's own CPU time is the sampled runs' (Total.CPU) less the sampler's part
// in them.
func (res *Result) WholeCost(c Costs) string {
	total, start, exit := res.Total, c.Start, c.Exit
	inProgram := total.SelfCost + total.SetupCost + time.Duration(res.InProcessRuns)*start.Cost
	var runs time.Duration // every run of the program, sampled, thinned and plain
	for _, r := range append(append([]PlainRun(nil), res.Traced...), res.Plain...) {
		runs += r.CPU
	}
	own := c.Self + exit.Cost
	others := max(c.Children-runs, 0)
	program := max(total.CPU-inProgram, 1)
	how := "not measured: the run was interrupted, or no true(1) can be preloaded"
	switch {
	case start.OK && start.Measured:
		how = fmt.Sprintf("%.0f µs a run, measured now on true(1) and kept in %s", float64(start.Cost.Nanoseconds())/1e3, start.File)
	case start.OK:
		how = fmt.Sprintf("%.0f µs a run, measured on true(1) once on this machine (%s)", float64(start.Cost.Nanoseconds())/1e3, start.File)
	}
	return fmt.Sprintf("cost (estimate): in the program %v (bursts %v, %d of %.0f µs CPU each; the mappings %v; its start %v in %d run(s), %s); fragprof itself %v (its exit %v of it) and the commands it ran %v: %.2f%% over the program's own CPU time (%v)",
		inProgram.Round(time.Microsecond), total.SelfCost.Round(time.Microsecond), total.Batches,
		float64(total.SelfCost.Microseconds())/float64(max(total.Batches, 1)), total.SetupCost.Round(time.Microsecond),
		(time.Duration(res.InProcessRuns) * start.Cost).Round(time.Microsecond), res.InProcessRuns, how,
		own.Round(time.Microsecond), exit.Cost.Round(time.Microsecond), others.Round(time.Microsecond),
		100*float64(inProgram+own+others)/float64(program), program.Round(time.Microsecond))
}

// writeOverhead writes the ratios of the sampled runs' total CPU and wall times to
// those of the plain runs they alternated with, with 95 % delta-method intervals
// (stats.RatioInterval: the sampled arm may mix sampled and thinned runs), and beside
// them the medians of the pairs' ratios with their distribution-free intervals
// (stats.MedianInterval).
func writeOverhead(w io.Writer, traced, plain []PlainRun) {
	n := min(len(traced), len(plain))
	if n == 0 {
		return
	}
	var tcpu, pcpu, twall, pwall, cpu, wall []float64
	for i := 0; i < n; i++ {
		tcpu = append(tcpu, float64(traced[i].CPU))
		pcpu = append(pcpu, float64(plain[i].CPU))
		twall = append(twall, float64(traced[i].Wall))
		pwall = append(pwall, float64(plain[i].Wall))
		if plain[i].CPU > 0 {
			cpu = append(cpu, float64(traced[i].CPU)/float64(plain[i].CPU))
		}
		wall = append(wall, float64(traced[i].Wall)/float64(plain[i].Wall))
	}
	ratio := func(y, x []float64) string {
		iv := stats.RatioInterval(y, x, 0.95)
		return fmt.Sprintf("%.3f [%.3f, %.3f] (%.0f%% CI)", iv.Center, iv.Lo, iv.Hi, 100*iv.Confidence)
	}
	median := func(xs []float64) string {
		iv := stats.MedianInterval(xs, 0.95)
		return fmt.Sprintf("%.3f [%.3f, %.3f]", iv.Center, iv.Lo, iv.Hi)
	}
	fmt.Fprintf(w, "fragprof sample: overhead: CPU time (user+sys, process tree) sampled/unsampled %s; median of the pairs' ratios %s\n", ratio(tcpu, pcpu), median(cpu))
	fmt.Fprintf(w, "fragprof sample: overhead: wall time sampled/unsampled %s; median of the pairs' ratios %s; totals of %d alternated pairs\n", ratio(twall, pwall), median(wall), n)
}

// medianDuration is the upper median of ds (0 for none).
func medianDuration(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
