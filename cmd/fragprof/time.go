// This file implements `fragprof time`, and the flags it shares with compose.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/timing"
)

// protocolFlags are the measurement protocol's flags (time and compose).
type protocolFlags struct {
	timer      string
	reps       int
	warmup     int
	tailK      float64
	gamma      float64
	alpha      float64
	relEps     float64
	maxReps    int
	cpu        int
	isolation  string
	timeout    time.Duration
	counted    bool
	showOutput bool
}

func (p *protocolFlags) add(c *cobra.Command, reps int) {
	fs := c.Flags()
	fs.StringVar(&p.timer, "timer", "tsc", "`TIMER`: tsc, rdtscp, monotonic, monotonic_raw, process or thread (see 'fragprof timers')")
	fs.IntVar(&p.reps, "reps", reps, "repetitions, the warm-up included; with --rel-eps the pilot's size")
	fs.IntVar(&p.warmup, "warmup", 1, "leading repetitions whose samples are dropped (cold caches)")
	fs.Float64Var(&p.tailK, "tail-k", stats.DefaultTailK, "cut samples above median + `K`·1.4826·MAD as preemption (negative: cut nothing)")
	fs.Float64Var(&p.gamma, "gamma", 0.95, "confidence of the intervals")
	fs.Float64Var(&p.alpha, "alpha", 0.05, "level of the Shapiro–Wilk normality test")
	fs.Float64Var(&p.relEps, "rel-eps", 0, "adaptive mode: repeat until every mean is known to ±`EPS`·mean at --gamma (e.g. 0.01)")
	fs.IntVar(&p.maxReps, "max-reps", 100000, "adaptive mode: the most repetitions to run")
	fs.IntVar(&p.cpu, "cpu", -1, "pin the program to CPU `N` (-1: do not pin)")
	fs.StringVar(&p.isolation, "isolation", "fork", "fork (each repetition forked from a server that initialised once) or exec (a fresh exec each; implied by the program fragment)")
	fs.DurationVar(&p.timeout, "trial-timeout", 60*time.Second, "a repetition running longer is killed and left out")
	fs.BoolVar(&p.counted, "counted", false, "also build the block counters into the program (by default the timed program carries only the timers)")
	fs.BoolVar(&p.showOutput, "show-output", false, "pass the program's stdout and stderr through to stderr (by default discarded)")
}

// config checks the flags and fills the protocol part of a timing.Config.
func (p *protocolFlags) config(cmd string) (timing.Config, error) {
	var c timing.Config
	t, err := timing.ParseTimer(p.timer)
	if err != nil {
		return c, usagef("%s: --timer: %v", cmd, err)
	}
	switch {
	case p.warmup < 0:
		return c, usagef("%s: --warmup %d: want 0 or more", cmd, p.warmup)
	case p.reps <= p.warmup+1:
		return c, usagef("%s: --reps %d: want more than --warmup + 1 = %d", cmd, p.reps, p.warmup+1)
	case !(p.gamma > 0 && p.gamma < 1):
		return c, usagef("%s: --gamma %g: want a confidence in (0, 1)", cmd, p.gamma)
	case !(p.alpha > 0 && p.alpha < 1):
		return c, usagef("%s: --alpha %g: want a level in (0, 1)", cmd, p.alpha)
	case p.relEps < 0 || p.relEps >= 1:
		return c, usagef("%s: --rel-eps %g: want a relative error in (0, 1)", cmd, p.relEps)
	case p.isolation != "fork" && p.isolation != "exec":
		return c, usagef("%s: --isolation %q: want fork or exec", cmd, p.isolation)
	}
	if err := checkCPU(cmd, p.cpu); err != nil {
		return c, err
	}
	c.Timer, c.Reps, c.Warmup, c.RelEps, c.MaxReps, c.CPU = t, p.reps, p.warmup, p.relEps, p.maxReps, p.cpu
	c.Stats = stats.TimingOptions{TailK: p.tailK, Confidence: p.gamma, Alpha: p.alpha}
	c.Exec = p.isolation == "exec"
	c.Timeout = p.timeout
	return c, nil
}

// checkCPU refuses --cpu N unless fragprof may run on CPU N (sched_getaffinity) or
// N is -1 (no pinning): the program could not pin itself there, and its times would
// be those of an unpinned run, reported as pinned.
func checkCPU(cmd string, cpu int) error {
	if cpu == -1 {
		return nil
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return fmt.Errorf("%s: --cpu %d: cannot read the CPUs this process may run on: %v", cmd, cpu, err)
	}
	if cpu < 0 || !set.IsSet(cpu) {
		return usagef("%s: --cpu %d: fragprof may run on CPUs %s only; name one of them, or -1 not to pin", cmd, cpu, cpuList(&set))
	}
	return nil
}

// cpuList writes the CPUs of set as ranges: "0-3,6".
func cpuList(set *unix.CPUSet) string {
	var parts []string
	n := len(set) * 64
	for i := 0; i < n; i++ {
		if !set.IsSet(i) {
			continue
		}
		j := i
		for j+1 < n && set.IsSet(j+1) {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", i, j))
		} else {
			parts = append(parts, fmt.Sprint(i))
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// inputsFor returns the input model with the default stdin: without --stdin, --arg or
// --file (or templates in a model file), every input's value on a line of its own,
// in the order defined.
func inputsFor(c *cobra.Command, in *inputFlags) (*dist.File, error) {
	model, err := in.model(c)
	if err != nil {
		return nil, err
	}
	if model.Stdin == nil && len(model.Args) == 0 && len(model.Files) == 0 && len(model.Model.Names()) > 0 {
		var sb strings.Builder
		for _, n := range model.Model.Names() {
			sb.WriteString("{" + n + "}\n")
		}
		t, err := dist.ParseTemplate(sb.String(), model.Model, dist.NoEscapes)
		if err != nil {
			return nil, err
		}
		model.Stdin = t
	}
	return model, nil
}

// measureProgram builds (or takes) the program, runs the protocol and returns the
// result; the end of ctx, or timeout (when positive) after the build, stops it early
// with what it has, and timedOut says the latter.
func measureProgram(ctx context.Context, timeout time.Duration, e *env, cmd string, bf *buildFlags, pf *protocolFlags, in *inputFlags, c *cobra.Command,
	srcs []string, binary string, frags []timing.Fragment, cfg timing.Config, dir string, edits ...build.Edit) (res *timing.Result, name string, timedOut bool, err error) {
	model, err := inputsFor(c, in)
	if err != nil {
		return nil, "", false, err
	}
	bin, name, err := timedBinary(ctx, e, cmd, bf, srcs, binary, frags, pf.counted, dir, edits)
	if err != nil {
		return nil, "", false, err
	}
	if err := timing.CheckRegions(bin, name, frags); err != nil {
		return nil, "", false, fmt.Errorf("%s: %v", cmd, err)
	}
	cfg.Binary = bin
	cfg.Fragments = frags
	cfg.Inputs = &montecarlo.Program{Inputs: model, Seed: in.seed}
	cfg.Dir = filepath.Join(dir, "run")
	if pf.showOutput {
		cfg.Output = e.stderr
	}
	progress := newProgressLine(e.stderr)
	if progress != nil {
		start := time.Now()
		last := time.Time{}
		cfg.Progress = func(done, planned int) {
			if time.Since(last) < 200*time.Millisecond && done < planned {
				return
			}
			last = time.Now()
			fmt.Fprintf(progress.w, "\r%-100s", fmt.Sprintf("fragprof %s: %d/%d repetitions, %.1f s", cmd, done, planned, time.Since(start).Seconds()))
			progress.shown = true
		}
	}
	mctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		mctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	res, err = timing.Measure(mctx, cfg)
	progress.clear()
	return res, name, mctx.Err() != nil && ctx.Err() == nil, err
}

// timedBinary builds the sources with timers on the func: fragments, or checks
// --binary (which can time regions and the program only).
func timedBinary(ctx context.Context, e *env, cmd string, bf *buildFlags, srcs []string, binary string, frags []timing.Fragment, counted bool, dir string, edits []build.Edit) (string, string, error) {
	if binary != "" {
		for _, f := range frags {
			if f.Kind == timing.FuncFrag {
				return "", "", usagef("%s: --fragment %s needs fragprof to build the program (name FILE.c, not --binary): the timers go into its IR", cmd, f)
			}
		}
		abs, err := filepath.Abs(binary)
		if err != nil {
			return "", "", err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", "", usagef("%s: --binary: %v", cmd, err)
		}
		return abs, binary, nil
	}
	spec, err := bf.spec(srcs)
	if err != nil {
		return "", "", err
	}
	spec.Edits = append(spec.Edits, edits...)
	tc, err := toolchain()
	if err != nil {
		return "", "", err
	}
	bin := filepath.Join(dir, "prog")
	if err := timing.Build(ctx, tc, e.stderr, spec, frags, counted, dir, bin); err != nil {
		return "", "", err
	}
	return bin, strings.Join(srcs, " "), nil
}

func newTimeCmd(e *env) *cobra.Command {
	var bf buildFlags
	var in inputFlags
	var pf protocolFlags
	var fragments []string
	var binary, outFile string
	var jsonOut bool
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "time [flags] FILE.c... --fragment F...  |  time --binary PROG --fragment F...",
		Short: "Measure how long fragments take, with confidence intervals and histograms",
		Long: `Time measures the execution time of fragments of a C program over repeated runs,
each on inputs drawn afresh from the input language, and processes the measurements
as K. E. Klimentiev's timing guide prescribes (after GOST 8.207-76; docs/methods.md).

Fragments (--fragment, repeatable):
  func:NAME     the function NAME, from its entry to its return: fragprof inserts the
                timer calls into the IR. Only the outermost activation is timed, so a
                recursive function counts once, from its first entry to that call's
                return.
  region:NAME   the code between FP_BEGIN("NAME") and FP_END("NAME") (#include
                "fragprof.h"; without fragprof the macros compile to nothing).
                Nested activations of the same region count once, like recursion.
  program       one whole run, timed by fragprof from before the fork/exec to after the
                wait (CLOCK_MONOTONIC), as hyperfine measures; every repetition is
                then a fresh exec.
A fragment that runs several times per repetition gives one sample per outermost
activation. The inputs are drawn and written before the program starts, so drawing
is never timed; code the program runs before a fragment (reading and filling its
arrays) is not part of the fragment either.

Timers (--timer; 'fragprof timers' measures them): tsc (lfence; rdtsc; lfence, the
default), rdtscp (rdtscp; lfence), monotonic, monotonic_raw, process and thread
(clock_gettime). TSC ticks are converted with a frequency calibrated against
CLOCK_MONOTONIC_RAW in every process. Every process also measures the timer's own
overhead — what an empty fragment measures, the median of 2001 — and fragprof
subtracts the median of those from every sample, and says so.

The protocol, per fragment:
  1. drop the samples of the first --warmup repetitions (cold caches);
  2. cut the preemption tail: samples above median + k·1.4826·MAD (--tail-k, 3.5 by
     default: Iglewicz–Hoaglin's cut-off for the modified z-score); the cut samples
     are counted and kept in the JSON;
  3. mean, standard deviation s, standard error s/√N;
  4. Shapiro–Wilk normality test (Royston 1995) at level --alpha;
  5. if normal: mean ± k·s/√N with k Student's t for N < 30 and the normal quantile
     from 30 on; if not: mean ± max(t_max − mean, mean − t_min), the guide's range
     rule, with the median and its distribution-free interval beside it;
  6. a histogram with Sturges' K = ⌊log₂ N⌋ + 1 bins, printed as the guide's stars;
  7. the sample size N ≥ k²s²/(ε²m²) for ±--rel-eps (±1% without it).
With --rel-eps the first --reps repetitions are a pilot: fragprof computes the N each
fragment needs, runs that many, and repeats until every mean is known to ±rel-eps at
--gamma (or --max-reps).

Ctrl-C stops the measurement, not fragprof: the repetitions so far are reported,
marked "interrupted", and fragprof exits 130; --timeout does the same after a
time, marked "timed out", exit status 124.

Repetitions run one at a time: parallel runs would disturb each other's times. By
default the program is built without block counters, so the timed code is what the
compiler makes of it (--counted adds them). --cpu N pins the program to one CPU.
The report goes to stderr (the program's output is discarded unless --show-output),
or to -o FILE; with --json and no -o it goes to stdout. Without --stdin, --arg or --file, the program's stdin is the value of
every input, one per line, in the order defined.

JSON (--json): {"timer", "overhead_ns", "fragments": [{"name", "n", "cut", "cut_ns",
"mean_ns", "median_ns", "stddev_ns", "halfwidth_ns", "min_ns", "max_ns", "normal",
"normality", "histogram": {"edges_ns", "counts"}, ...}], ...} (docs/timing.md).

Examples:
  fragprof time examples/lab.c --fragment func:bubble_sort --fragment region:sort \
      --input 'a = array(1000, uniform_int(0, 1e6))' --timer tsc --reps 1000
  fragprof time examples/lab.c --fragment func:mat_mul --arg G --arg '{seed}' \
      --input 'seed = uniform_int(0, 1e9)' --rel-eps 0.01 --gamma 0.95
  fragprof time examples/lab.c --fragment program --arg A --arg 7 --reps 50 --json
  fragprof time --binary ./prog --fragment region:parse --inputs model.toml --cpu 1`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if binary == "" && len(args) == 0 {
				return usagef("time: name the C files to build, or --binary PROG")
			}
			if binary != "" && len(args) > 0 {
				return usagef("time: --binary takes no C files (got %v)", args)
			}
			frags, err := timing.ParseFragments(fragments)
			if err != nil {
				return usagef("time: %v", err)
			}
			cfg, err := pf.config("time")
			if err != nil {
				return err
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			intr := catchInterrupts()
			defer intr.stop()
			res, name, timedOut, err := measureProgram(intr.ctx, timeout, e, "time", &bf, &pf, &in, c, args, binary, frags, cfg, dir)
			if err != nil {
				return intr.failed(e, "time", "building or running the program", err)
			}
			t := &report.Time{Result: res, Program: name, System: timing.ReadSystem(), CPU: pf.cpu}
			code := intr.code()
			switch {
			case code != 0:
				t.Stopped = intr.mark()
			case timedOut:
				t.Stopped = fmt.Sprintf("timed out after %v (--timeout)", timeout)
				code = 124
			}
			if err := writeReport(e, outFile, func(w io.Writer) error {
				if jsonOut {
					return report.WriteTimeJSON(w, t)
				}
				return report.WriteTimeText(w, t)
			}); err != nil {
				return err
			}
			if code != 0 {
				return exitError{code}
			}
			if err := res.NeverRan(); err != nil {
				return fmt.Errorf("time: %v", err)
			}
			return nil
		},
	}
	bf.add(c)
	in.add(c)
	pf.add(c, 100)
	fs := c.Flags()
	fs.StringArrayVar(&fragments, "fragment", nil, "a fragment to time: `func:NAME`, region:NAME or program; repeatable")
	fs.StringVar(&binary, "binary", "", "use `PROG`, built by 'fragprof cc', instead of building C files (regions and program only)")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON (docs/timing.md)")
	fs.DurationVar(&timeout, "timeout", 0, "stop after `DURATION` and report the repetitions measured so far, marked \"timed out\"; fragprof then exits 124, as timeout(1) does (0: no limit; --trial-timeout bounds one repetition)")
	fs.StringVarP(&outFile, "output", "o", "", "write the report to `FILE` (atomically) instead of stderr, or stdout with --json")
	return c
}
