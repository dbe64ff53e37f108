// This file implements `fragprof freq`.

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/exec"
	"github.com/fragprof/fragprof/internal/harness"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/profile"
)

func init() { register(newFreqCmd) }

// inputFlags describe a program's inputs: the model and the templates that carry
// drawn values into the program.
type inputFlags struct {
	inputs    []string
	modelFile string
	stdin     string
	args      []string
	files     []string
	seed      uint64
}

func (f *inputFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringArrayVar(&f.inputs, "input", nil, "an input and its distribution, `'NAME = DIST [in [lo, hi]]'` (docs/inputs.md); repeatable")
	fs.StringVar(&f.modelFile, "inputs", "", "read inputs, templates and seed from a TOML model `FILE` (docs/inputs.md)")
	fs.StringVar(&f.stdin, "stdin", "", "the program's stdin per trial, a `TEMPLATE` such as '{ask}\\n'")
	fs.StringArrayVar(&f.args, "arg", nil, "one program argument per trial, a `TEMPLATE` such as '-n={n}'; repeatable, in order")
	fs.StringArrayVar(&f.files, "file", nil, "an input file written before each trial, `NAME=TEMPLATE`; repeatable")
	fs.Uint64Var(&f.seed, "seed", 1, "the seed: trial i's inputs depend only on the seed and i")
}

// model assembles the input model: the model file, if any, with --input lines
// replacing or adding definitions and command-line templates replacing the file's.
// Line N in an --input error is the N-th --input flag.
func (f *inputFlags) model(c *cobra.Command) (*dist.File, error) {
	var file *dist.File
	lines := strings.Join(f.inputs, "\n")
	if f.modelFile != "" {
		var err error
		if file, err = dist.ParseFile(f.modelFile); err != nil {
			return nil, err
		}
		if len(f.inputs) > 0 {
			if file, err = file.WithInputs(lines, dist.Options{}); err != nil {
				return nil, usagef("--input: %v", err)
			}
		}
		if file.HasSeed && !c.Flags().Changed("seed") {
			f.seed = file.Seed
		}
	} else {
		m, err := dist.ParseOptions(lines, dist.Options{})
		if err != nil {
			return nil, usagef("--input: %v", err)
		}
		file = &dist.File{Model: m}
	}
	m := file.Model
	if c.Flags().Changed("stdin") {
		t, err := dist.ParseTemplate(f.stdin, m, dist.BackslashEscapes)
		if err != nil {
			return nil, usagef("--stdin: %v", err)
		}
		file.Stdin = t
	}
	if len(f.args) > 0 {
		file.Args = nil
		for _, a := range f.args {
			t, err := dist.ParseTemplate(a, m, dist.BackslashEscapes)
			if err != nil {
				return nil, usagef("--arg %q: %v", a, err)
			}
			file.Args = append(file.Args, t)
		}
	}
	if len(f.files) > 0 {
		file.Files = nil
		for _, nf := range f.files {
			name, text, ok := strings.Cut(nf, "=")
			if !ok || name == "" || strings.Contains(name, "/") {
				return nil, usagef("--file %q: want NAME=TEMPLATE with a plain file name", nf)
			}
			t, err := dist.ParseTemplate(text, m, dist.BackslashEscapes)
			if err != nil {
				return nil, usagef("--file %s: %v", name, err)
			}
			file.Files = append(file.Files, dist.NamedTemplate{Name: name, Template: t})
		}
	}
	return file, nil
}

func newFreqCmd(e *env) *cobra.Command {
	var bf buildFlags
	var in inputFlags
	var binary, format, outFile, isolation, moment, fn string
	var htmlFile string
	var jsonOut, failNonZero bool
	var eps, relEps, gamma, c0 float64
	var nmin, maxTrials uint64
	var maxTime, trialTimeout time.Duration
	var jobs int
	var replay int64
	var profFile, shardSpec string
	var from bool
	c := &cobra.Command{
		Use:   "freq [flags] FILE.c... | freq --binary PROG [flags] | freq --from FILE.fpp... [flags]",
		Short: "Estimate every block's expected execution count under input distributions (Monte Carlo)",
		Long: `Freq estimates the expected execution count e(b) of every basic block — how many
times it runs per execution, on average over the distribution of the inputs — by
FreqSys's Monte Carlo method: it runs independent trials, each a fresh process on
inputs drawn from the given distributions, and stops when every block's estimate is
known to ±ε (or ±rel-eps·e) with confidence γ.

A block is done when both hold (FreqSys, Algorithm 1):
  n > (u_{(1+γ)/2} / ε)² · s²                 the CLT interval is narrow enough
  C0 · ρ / (s³ · √n) ≤ (1 − γ)/10             Berry–Esseen: the normal approximation holds
with s² the sample variance and ρ the absolute third central moment of its counts.
Since ρ ≥ s³, the second condition alone needs about 9,000 trials at γ = 0.95 for
any block whose count varies; trials are cheap (a fork server forks a fresh copy of
the initialised program per trial), so this is the default. --berry-esseen signed
uses the signed moment as the paper's algorithm prints it: it reproduces the paper's
numbers (36 trials for Newton) but is not rigorous.

Every block ends in one state:
  converged     estimate ± half-width at γ (and the trial at which it converged)
  constant      the same count in every trial: no interval, the value is exact
  inadequate    the normal approximation cannot be certified within the budget
                (a block that almost never runs, e.g. 'if (x == a)' on random x)
  unconverged   the budget ran out first; the report says how many trials it needs

Inputs reach the program through stdin (--stdin), its arguments (--arg) and named
files (--file), rendered per trial from templates such as '{ask}\n' or '{a:%.3f}'.
Trial i's inputs depend only on the seed and i, and results are folded in trial
order, so the same seed gives the same report whatever --jobs is.

A trial that times out, crashes, or (with --fail-nonzero) exits non-zero is left
out and listed with the command that replays it (--replay N). Progress is shown on
stderr when it is a terminal; Ctrl-C stops and prints the partial result.

Shards. --profile FILE also writes the run as a profile file: every block's and
edge's count summed over the trials used (runs = trials), plus the statistics
section, each block's exact distribution of per-trial counts (docs/profile-format.md).
--shard I/K runs only trials I, I+K, I+2K, ... of the seed's sequence (trial t's
inputs still depend only on the seed and t), so K processes, on any machines, with
the same seed and inputs and shards 0/K ... K−1/K run disjoint trials. In a shard,
--max-trials counts the shard's own trials, and the stopping rule is applied to the
shard alone (a shard may stop early, or report blocks unconverged that the whole
would decide). Merge the shards' profiles with 'fragprof merge' — the distributions
merge exactly, to the same bits as one run of all their trials — and judge the
merged distributions with --from: it reads one or more profiles written by
freq --profile (merging them itself when there are several), applies the stopping
rule of the command line to every block on all their trials, and prints the same
report (--format text, json or dot). A profile does not keep the convergence series,
the trial at which a block converged, or the failed trials; the report says so.

Examples:
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' \
      --eps 0.3 --gamma 0.95
  fragprof freq prog.c --inputs model.toml --json -o est.json --report est.html
  fragprof freq --binary ./prog --inputs model.toml --jobs 8
  fragprof freq examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n' --replay 17
  fragprof freq prog.c --inputs model.toml --shard 0/2 --max-trials 20000 --profile s0.fpp
  fragprof freq prog.c --inputs model.toml --shard 1/2 --max-trials 20000 --profile s1.fpp
  fragprof merge s0.fpp s1.fpp -o all.fpp && fragprof freq --from all.fpp --eps 0.3`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if from {
				if len(args) == 0 {
					return usagef("freq: --from needs the profile files to judge")
				}
				for _, fl := range []string{"binary", "shard", "replay", "func", "report"} {
					if c.Flags().Changed(fl) {
						return usagef("freq: --from judges stored profiles: --%s does not apply", fl)
					}
				}
			} else if binary == "" && len(args) == 0 {
				return usagef("freq: name the C files to build, or --binary PROG")
			}
			var shard, shards uint64
			if shardSpec != "" {
				var err error
				if shard, shards, err = parseShard(shardSpec); err != nil {
					return usagef("freq: --shard: %v", err)
				}
			}
			if binary != "" && len(args) > 0 {
				return usagef("freq: --binary takes no C files (got %v)", args)
			}
			if jsonOut {
				format = "json"
			}
			if format != "text" && format != "json" && format != "dot" {
				return usagef("freq: --format %q: want text, json or dot", format)
			}
			iso, err := montecarlo.ParseIsolation(isolation)
			if err != nil {
				return usagef("freq: --isolation: %v", err)
			}
			th := stats.DefaultThresholds
			// A block is inadequate when the Berry–Esseen condition would need more than
			// max(budget, 10⁶) trials: a small budget alone does not make a block
			// inadequate, only unconverged.
			th.Eps, th.Gamma, th.NMin, th.C0 = eps, gamma, nmin, c0
			th.MaxTrials = max(maxTrials, stats.DefaultThresholds.MaxTrials)
			if eps == 0 {
				th.RelEps = relEps
			} else if c.Flags().Changed("rel-eps") {
				return usagef("freq: give --eps or --rel-eps, not both")
			}
			switch moment {
			case "absolute":
				th.Moment = stats.AbsoluteMoment
			case "signed":
				th.Moment = stats.SignedMoment
			default:
				return usagef("freq: --berry-esseen %q: want absolute or signed", moment)
			}
			rule, err := stats.NewRule(th)
			if err != nil {
				return usagef("freq: %v", strings.TrimPrefix(err.Error(), "stats: "))
			}
			writeFreq := func(f *report.Freq) error {
				return writeReport(e, outFile, func(w io.Writer) error {
					switch format {
					case "json":
						return report.WriteFreqJSON(w, f)
					case "dot":
						return report.WriteFreqDOT(w, f)
					}
					return report.WriteFreqText(w, f, sourceFiles)
				})
			}
			if from {
				return freqFrom(e, args, rule, th, profFile, writeFreq)
			}
			model, err := in.model(c)
			if err != nil {
				return err
			}
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			var h *harness.Harness
			if fn != "" {
				if binary != "" {
					return usagef("freq: --func needs the C files (the harness is built from their IR), not --binary")
				}
				if model.Stdin != nil || len(model.Args) > 0 || len(model.Files) > 0 {
					return usagef("freq: --func binds inputs to parameters and globals by name: --stdin, --arg and --file do not apply")
				}
				if h, err = functionHarness(e, &bf, args, fn, model, dir); err != nil {
					return err
				}
			}
			bin, counters, err := buildOrBinary(e, &bf, args, binary, dir)
			if err != nil {
				return err
			}
			prog := &montecarlo.Program{
				Binary: bin, Inputs: model, Seed: in.seed, Isolation: iso, Timeout: trialTimeout,
				CountNonZero: !failNonZero, Dir: dir,
			}
			if h != nil {
				prog.Encode = h.Encode
			}
			if replay >= 0 {
				return replayTrial(e, prog, uint64(replay))
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			cfg := montecarlo.Config{
				Rule: rule, MaxTrials: maxTrials, MaxTime: maxTime, Jobs: jobs, NewWorker: prog.NewWorker,
				Shard: shard, Shards: shards,
			}
			progress := newProgressLine(e.stderr)
			if progress != nil {
				cfg.Progress = progress.show
			}
			res, err := montecarlo.Run(ctx, cfg)
			progress.clear()
			if err != nil {
				return err
			}
			if shards > 1 {
				res.Stopped = fmt.Sprintf("shard %d/%d: %s (the stopping rule judged this shard alone)", shard, shards, res.Stopped)
			}
			if profFile != "" {
				p, err := res.Profile(counters)
				if err != nil {
					return fmt.Errorf("freq: --profile: %v", err)
				}
				if err := p.WriteFile(profFile); err != nil {
					return fmt.Errorf("freq: writing the profile: %w", err)
				}
			}
			f := &report.Freq{Result: res, Rule: th, Seed: in.seed, Counters: counters, Inputs: inputLines(model)}
			f.Replay = "fragprof freq ... --seed " + fmt.Sprint(in.seed) + " --replay %d"
			if err := writeFreq(f); err != nil {
				return err
			}
			if err := writeFreqHTML(e, htmlFile, f); err != nil {
				return err
			}
			if ctx.Err() != nil && res.Stopped == "interrupted" {
				return exitError{130} // the partial result is out; say it was interrupted
			}
			return nil
		},
	}
	bf.add(c)
	in.add(c)
	fs := c.Flags()
	fs.StringVar(&binary, "binary", "", "use `PROG`, a program built by 'fragprof cc', instead of building C files")
	fs.StringVar(&fn, "func", "", "study one function `NAME` without the program's main: its parameters and the globals it uses take --input values by their C names")
	fs.Float64Var(&eps, "eps", 0, "absolute precision ε: every estimate to ±ε")
	fs.Float64Var(&relEps, "rel-eps", 0.01, "relative precision, used when --eps is not given: ±rel-eps·estimate")
	fs.Float64Var(&gamma, "gamma", 0.95, "confidence γ of the intervals")
	fs.Uint64Var(&nmin, "n-min", 30, "trials before any decision (the paper's 30)")
	fs.Float64Var(&c0, "c0", 0.4748, "the Berry–Esseen constant C0 (Shevtsova 2011)")
	fs.StringVar(&moment, "berry-esseen", "absolute", "third moment of the Berry–Esseen check: absolute (rigorous) or signed (the paper's, not rigorous)")
	fs.Uint64Var(&maxTrials, "max-trials", 1_000_000, "trial budget; blocks still open then are reported unconverged")
	fs.DurationVar(&maxTime, "max-time", 0, "time budget (e.g. 30s, 5m); 0: none")
	fs.IntVar(&jobs, "jobs", runtime.NumCPU(), "trials run in parallel")
	fs.StringVar(&isolation, "isolation", "fork", "fork (a fresh process per trial, from a fork server), exec (a new exec per trial), or none (one process; only for code without global state)")
	fs.DurationVar(&trialTimeout, "trial-timeout", 10*time.Second, "a trial running longer is killed and listed")
	fs.BoolVar(&failNonZero, "fail-nonzero", false, "leave out trials that exit with a non-zero status (by default their counts are used)")
	fs.Int64Var(&replay, "replay", -1, "run trial `N` once, with its inputs shown and the program's output passed through")
	fs.BoolVar(&jsonOut, "json", false, "the same as --format json")
	fs.StringVar(&format, "format", "text", "report `FORMAT`: text, json (docs/json.md) or dot (the CFG with estimates)")
	fs.StringVarP(&outFile, "output", "o", "", "write the report to `FILE` instead of stderr (atomically)")
	fs.StringVar(&htmlFile, "report", "", "also write the HTML page of the estimates ('fragprof report') to `FILE`")
	fs.StringVar(&profFile, "profile", "", "also write the run to the profile file `FILE` (atomically): counts summed over the trials, and each block's exact count distribution, for merge and --from")
	fs.StringVar(&shardSpec, "shard", "", "run only shard `I/K` of the trials: trials I, I+K, I+2K, ...; --max-trials and the stopping rule then apply to this shard alone")
	fs.BoolVar(&from, "from", false, "judge profiles written by freq --profile (the arguments, merged exactly) by the stopping rule, instead of running trials")
	return c
}

// parseShard parses "I/K" with 0 ≤ I < K.
func parseShard(s string) (uint64, uint64, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.ParseUint(strings.TrimSpace(a), 10, 64)
	k, err2 := strconv.ParseUint(strings.TrimSpace(b), 10, 64)
	if !ok || err1 != nil || err2 != nil || k == 0 || i >= k {
		return 0, 0, fmt.Errorf("%q: want I/K with 0 ≤ I < K, e.g. 0/4", s)
	}
	return i, k, nil
}

// freqFrom implements --from: it reads and merges the profiles, judges the merged
// distributions by rule and writes the report (and the merged profile to profFile,
// if given).
func freqFrom(e *env, files []string, rule *stats.Rule, th stats.Thresholds, profFile string, write func(*report.Freq) error) error {
	srcs := make([]*profile.Profile, len(files))
	for i, name := range files {
		p, err := profile.ParseFile(name)
		if err != nil {
			return err
		}
		if !p.HasStats() {
			return fmt.Errorf("freq: --from: %s has no statistics section: it was not written by 'fragprof freq --profile' (or was merged with a profile without statistics)", name)
		}
		srcs[i] = p
	}
	p := srcs[0]
	if len(srcs) > 1 {
		var err error
		var me *profile.MismatchError
		if p, err = profile.Merge(srcs); errors.As(err, &me) {
			return fmt.Errorf("freq: --from: function %s (%s) differs between %s and %s: the profiles are not of the same program",
				me.Func, me.File, files[me.A], files[me.B])
		} else if err != nil {
			return fmt.Errorf("freq: --from: %v", err)
		}
	}
	res, err := montecarlo.FromProfile(p, rule)
	if err != nil {
		return fmt.Errorf("freq: --from: %v", err)
	}
	undecided := 0
	for fi := range res.Blocks {
		for _, be := range res.Blocks[fi] {
			if be.Decision.State == stats.Unconverged {
				undecided++
			}
		}
	}
	verdict := "every block decided"
	if undecided > 0 {
		verdict = fmt.Sprintf("%d blocks undecided", undecided)
	}
	res.Stopped = fmt.Sprintf("judged from %d stored profile(s) holding %d trials: %s (the convergence series, the trial at which each block converged and the failed trials are not stored in profiles)",
		len(files), res.Trials, verdict)
	if profFile != "" {
		if err := p.WriteFile(profFile); err != nil {
			return fmt.Errorf("freq: writing the profile: %w", err)
		}
	}
	return write(&report.Freq{Result: res, Rule: th, Counters: p.Counters})
}

// functionHarness plans the driver of --func: it compiles the sources to IR, binds
// the inputs to the function's parameters and the program's globals, and adds the
// driver and the edit that sets the unit's main aside to the build.
func functionHarness(e *env, bf *buildFlags, srcs []string, fn string, model *dist.File, dir string) (*harness.Harness, error) {
	spec, err := bf.spec(srcs)
	if err != nil {
		return nil, err
	}
	tc, err := toolchain()
	if err != nil {
		return nil, err
	}
	var missing error
	for i, src := range srcs {
		ll := filepath.Join(dir, fmt.Sprintf("func-%d.ll", i))
		if err := tc.EmitIR(bg(), e.stderr, src, ll, spec.CFlags); err != nil {
			return nil, fmt.Errorf("%s: %v", src, err)
		}
		m, err := tc.ReadIR(ll, spec.CFlags)
		if err != nil {
			return nil, err
		}
		h, err := harness.New(m, fn, model.Model)
		if err != nil {
			missing = err
			if strings.Contains(err.Error(), "no such function") {
				continue
			}
			return nil, err
		}
		drv := filepath.Join(dir, "harness.ll")
		if err := os.WriteFile(drv, []byte(h.IR()), 0o644); err != nil {
			return nil, err
		}
		bf.edits = append(bf.edits, h.Edit())
		bf.extra = append(bf.extra, drv)
		return h, nil
	}
	return nil, missing
}

// buildOrBinary builds the sources into dir, or checks --binary, and returns the
// program and its number of counters.
func buildOrBinary(e *env, bf *buildFlags, srcs []string, binary, dir string) (string, int, error) {
	if binary != "" {
		abs, err := filepath.Abs(binary)
		if err != nil {
			return "", 0, err
		}
		if _, err := os.Stat(abs); err != nil {
			return "", 0, usagef("--binary: %v", err)
		}
		return abs, 0, nil
	}
	spec, err := bf.spec(srcs)
	if err != nil {
		return "", 0, err
	}
	tc, err := toolchain()
	if err != nil {
		return "", 0, err
	}
	bin := filepath.Join(dir, "prog")
	units, err := tc.Build(bg(), e.stderr, spec, dir, bin)
	if err != nil {
		return "", 0, err
	}
	n := 0
	for _, u := range units {
		n += u.NumCounters()
	}
	return bin, n, nil
}

func inputLines(f *dist.File) []string {
	var out []string
	for _, in := range f.Model.Inputs {
		out = append(out, in.Name+" = "+in.Dist)
	}
	return out
}

// replayTrial runs trial i once with its inputs, the program's output passed through,
// and prints the inputs and the exact counts of that run.
func replayTrial(e *env, p *montecarlo.Program, i uint64) error {
	in, err := p.TrialInputs(i)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof freq: trial %d (seed %d)\n", i, p.Seed)
	if in.Values != "" {
		fmt.Fprintf(e.stderr, "inputs: %s\n", in.Values)
	}
	fmt.Fprintf(e.stderr, "args: %q\nstdin: %q\n", in.Args, in.Stdin)
	wd := filepath.Join(p.Dir, "replay")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return err
	}
	for name, data := range in.Files {
		fmt.Fprintf(e.stderr, "file %s: %q\n", name, data)
		if err := os.WriteFile(filepath.Join(wd, name), data, 0o644); err != nil {
			return err
		}
	}
	ctx := bg()
	if p.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.Timeout)
		defer cancel()
	}
	d, st, err := exec.Run(ctx, exec.Command{Path: p.Binary, Args: in.Args, Stdin: bytes.NewReader(in.Stdin),
		Stdout: e.stdout, Stderr: e.stderr, WorkDir: wd})
	if ctx.Err() == context.DeadlineExceeded {
		fmt.Fprintf(e.stderr, "fragprof freq: trial %d timed out after %v (--trial-timeout) and was killed\n", i, p.Timeout)
		return exitError{124}
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof freq: trial %d ended with %s\n", i, st)
	prof, err := d.Profile()
	if err != nil {
		return err
	}
	if err := report.WriteText(e.stderr, prof, sourceFiles); err != nil {
		return err
	}
	if code := st.ShellCode(); code != 0 {
		return exitError{code}
	}
	return nil
}

// progressLine prints a self-overwriting progress line on a terminal.
type progressLine struct {
	w     io.Writer
	shown bool
}

// newProgressLine returns nil when w is not a terminal: progress is only for people.
func newProgressLine(w io.Writer) *progressLine {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return &progressLine{w: w}
}

func (p *progressLine) show(pr montecarlo.Progress) {
	rate := float64(pr.Trials) / pr.Elapsed.Seconds()
	line := fmt.Sprintf("\rfragprof freq: %d trials, %.0f/s, %d/%d blocks decided", pr.Trials, rate, pr.Decided, pr.Blocks)
	if pr.WidestAt != "" {
		line += fmt.Sprintf(", widest ±%.3g at %s", pr.Widest, pr.WidestAt)
	}
	fmt.Fprintf(p.w, "%-100s", line)
	p.shown = true
}

func (p *progressLine) clear() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\r%-100s\r", "")
	}
}
