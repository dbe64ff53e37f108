// This file implements `fragprof model` and its subcommands build, show, predict and
// advise (check: model_check.go).

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/predict"
	"github.com/fragprof/fragprof/internal/predict/advise"
	"github.com/fragprof/fragprof/internal/trace"
)

func newModelCmd(e *env) *cobra.Command {
	c := &cobra.Command{
		Use:   "model",
		Short: "Learn transition-graph models from traces; predict time and data; advise on parallelising",
		Long: `Model learns, from the traces of 'fragprof trace', a model of the program that
predicts its run time and the values of its marked variables for inputs never run
(docs/methods.md, "The prediction metalayer"; docs/predict.md):

  fragprof model build traces/ -o prog.model     learn
  fragprof model show prog.model                 the graph, rules, formulas, errors
  fragprof model predict prog.model --set K=800  predict one input
  fragprof model advise prog.model --set K=800 --procs 2
                                                 does running on 2 processors pay?
  fragprof model check prog.model next/          do the runs of a changed build
                                                 keep to the model? (exit 1 if not)
  fragprof model compile prog.model -o prog_model.c
                                                 the model as C, for the program to query
  fragprof model lib -d fpmodel/                 the C API's header and library

The model is a transition graph: a node per checkpoint, an arc per transition seen.
Each node has an activation counter and a rule that picks the next arc from the
state (inputs $x, recorded variables, counters #node); each arc has a formula for
its time and, for the variables recorded where it leads, for their new values.
Predicting runs the graph event by event from the inputs.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, args []string) error { return c.Help() },
	}
	c.AddCommand(newModelBuildCmd(e), newModelShowCmd(e), newModelPredictCmd(e), newModelAdviseCmd(e),
		newModelCheckCmd(e), newModelCompileCmd(e), newModelLibCmd(e))
	return c
}

func newModelBuildCmd(e *env) *cobra.Command {
	var out, family, predictor string
	var testDirs []string
	var holdout float64
	var maxRows, evalRuns int
	var speedAdjust bool
	c := &cobra.Command{
		Use:   "build DIR -o FILE",
		Short: "Learn a model from the traces in DIR",
		Long: `Build reads the trace files (*.fpt) of DIR, written by 'fragprof trace', and learns
a model, written to FILE as JSON (docs/predict.md):

  1. The transition graph: a node per checkpoint name, plus START and END; an arc
     per pair of consecutive checkpoints seen. Loops are found with dominators: an
     arc into a loop header from outside resets the header's counter.
  2. The execution journal: every transition with the state where it started —
     the run's inputs ($x), the last recorded value of every variable, the
     activation counter of every node (#node) — its time, and the values recorded
     where it ended. Hot arcs are sampled (--max-rows), keeping every transition
     where the arc changes.
  3. A rule per node, by greedy induction (Kora's algorithm as the metalayer article
     describes): the expression (a variable, a counter, or a difference such as
     "#row − $K" or "j − i") whose values best discriminate one arc from the others
     is covered by template predicates (thresholds, ranges, single values,
     arithmetic or geometric progressions, disjunctions); covered rows are dropped
     and the search repeats.
     Conditions are checked on one run in five kept aside and dropped if they fire
     wrongly. What no variable decides becomes a loop's trip count regressed on the
     state where the loop starts, or a probabilistic choice by the observed shares.
  4. Per arc, the time of a transition and the new value of each variable recorded
     at its target, as a polynomial of the state by least squares over variables
     chosen by correlation and forward selection with cross-validation (--time-model
     poly), or as a GMDH network chosen by an external criterion on a validation
     split (--time-model gmdh), or whichever cross-validates better (auto). Exact forms
     (a copy, x + c, a constant) are recognised first. Time fits set aside the
     spikes of preempted runs.
  5. Direct models of "inputs → total time": Extra-P's normal form
     Σ c·x^i·log2(x)^j with cross-validated choice of terms (PMNF), and the best
     power law a + b·x^k with k fitted; one per variable's final value.
  6. The predictor: cross-validation on the training input points (5
     interpolation folds, and 3 extrapolation cuts that learn from the smallest
     third, half or three quarters and predict the rest) refits every candidate — the
     transition-graph model, PMNF, the power law, the count × arc-time
     composition, the mean of graph and PMNF — and keeps the lowest error
     (--predictor forces one). Its 90% interval is cross-conformal: the held-out
     runs' errors, widened per doubling beyond the training range as the
     extrapolation cuts show, never narrower than the runs' own scatter.

--holdout keeps that share of the input points (spread evenly by trial number;
never the smallest or largest value of an input) out of learning; the model then
predicts them, and the errors of the model and of every candidate (MAPE of the
total time, coverage of single runs by the interval, relative errors of the final
values) are stored and shown by 'model show'. --test DIR evaluates on the traces
of DIR instead — larger inputs, say, to measure extrapolation (--holdout is then
0 unless given).

--speed-adjust takes the machine's changing speed out of the times. Every trial
measures the cost of 6000 checkpoints just before main (its probe); on a shared
virtual machine the probe, and the program, run slower while another tenant
takes the core. 'model show' always reports the probes' spread and how the
times follow them within an input (time ∝ probe^β); with --speed-adjust, when
β is 3 standard errors above 0, every run's times are divided by its slowdown
(probe / normal probe)^β before learning and before the held-out comparison,
and the model predicts the time at the machine's normal speed (docs/predict.md,
"Runs of a slow machine").

Examples:
  fragprof model build traces/ -o bru.model
  fragprof model build traces/ -o bru.model --time-model gmdh --holdout 0.25
  fragprof model build traces/ -o all.model --holdout 0     # learn from every run
  fragprof model build small/ --test large/ -o m.model      # measure extrapolation`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return usagef("model build: name the model file with -o FILE")
			}
			fam, err := predict.ParseFamily(family)
			if err != nil {
				return usagef("model build: --time-model: %v", err)
			}
			if holdout < 0 || holdout >= 1 {
				return usagef("model build: --holdout %v: want a share in [0, 1)", holdout)
			}
			traces, err := trace.ReadDir(args[0])
			if err != nil {
				return err
			}
			opt := predict.DefaultOptions
			for _, d := range testDirs {
				ts, err := trace.ReadDir(d)
				if err != nil {
					return err
				}
				opt.Test = append(opt.Test, ts)
				if !c.Flags().Changed("holdout") {
					holdout = 0
				}
			}
			opt.Predictor = predictor
			opt.Fit.Family = fam
			opt.Holdout = holdout
			opt.EvalRuns = evalRuns
			opt.SpeedAdjust = speedAdjust
			opt.Journal.MaxRows = maxRows
			m, err := predict.Build(traces, opt)
			if err != nil {
				return err
			}
			if err := writeReport(e, out, m.Write); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "fragprof model build: %s: %d checkpoints, %d transitions from %d runs in %.3g s\n",
				out, len(m.Nodes)-2, len(m.Arcs), m.Training.Runs, m.Training.BuildSeconds)
			if s := m.Selection; s != nil {
				fmt.Fprintf(e.stderr, "%s\n", s.Summary())
			}
			if ev := m.Evaluation; ev != nil {
				fmt.Fprintf(e.stderr, "%s: time MAPE %.3g%% (%s), direct baseline %.3g%%", ev.Heading(), 100*ev.MAPE, ev.Chosen, 100*ev.BaselineMAPE)
				if ev.RunsPerPoint > 1 {
					fmt.Fprintf(e.stderr, "; the median's own error ±%.3g%%", 100*ev.TruthError)
				}
				fmt.Fprintf(e.stderr, "; %d of %d runs inside the 90%% interval\n", ev.RunsCovered, ev.RunsTotal)
			}
			for _, w := range m.Warnings {
				fmt.Fprintf(e.stderr, "warning: %s\n", w)
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVarP(&out, "output", "o", "", "write the model to `FILE`")
	fs.StringVar(&family, "time-model", "poly", "regression of times and data: poly (least squares), gmdh, or auto (the better of the two by cross-validation)")
	fs.Float64Var(&holdout, "holdout", 0.2, "share of the input points kept out of learning to measure the model's error (never the extremes)")
	fs.StringArrayVar(&testDirs, "test", nil, "evaluate on the traces of `DIR` (e.g. larger inputs; repeatable); --holdout defaults to 0 then")
	fs.StringVar(&predictor, "predictor", "auto", "time predictor: auto (lowest cross-validated error), graph, pmnf, power, composition or graph+pmnf")
	fs.IntVar(&maxRows, "max-rows", 20000, "journal rows kept per arc (hot arcs are sampled)")
	fs.IntVar(&evalRuns, "eval-runs", 10, "interpreted runs per held-out prediction when rules are probabilistic")
	fs.BoolVar(&speedAdjust, "speed-adjust", false, "divide each run's times by its slowdown measured by the checkpoint probe: predict the time at the machine's normal speed")
	return c
}

func newModelShowCmd(e *env) *cobra.Command {
	var jsonOut bool
	c := &cobra.Command{
		Use:   "show FILE",
		Short: "Print a model: its graph, rules, formulas and errors",
		Long: `Show prints a model built by 'model build': its checkpoints, its transitions with the
time formula of each (ns per transition) and the data rules of the variables
recorded where it leads, each with its R² and cross-validated error; the rule of
every node, as a decision list read top to bottom ("row → row when #row < $K;
row → end otherwise"); the direct baseline; and the errors on the held-out runs.

Names: $x is input x of the run, #node the activation counter of a checkpoint
(reset when its loop is entered from outside), other names the variables the
program recorded. --json prints the model file itself.

Examples:
  fragprof model show bru.model
  fragprof model show bru.model --json | jq .rules`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := predict.ReadFile(args[0])
			if err != nil {
				return err
			}
			if jsonOut {
				return m.Write(e.stdout)
			}
			if err := m.WriteText(e.stdout); err != nil {
				return err
			}
			if note := m.MachineNote(predict.ReadCaches()); note != "" {
				fmt.Fprintf(e.stdout, "warning: %s\n", note)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&jsonOut, "json", false, "print the model as JSON")
	return c
}

// predictFlags are the flags of predict and advise.
type predictFlags struct {
	sets     []string
	runs     int
	seed     uint64
	maxSteps int64
	probes   []string // --probe DIRs
}

func (p *predictFlags) add(c *cobra.Command) {
	fs := c.Flags()
	fs.StringArrayVar(&p.sets, "set", nil, "an input's value, `NAME=VALUE` (or several, comma-separated); every input of the model is needed")
	fs.IntVar(&p.runs, "runs", 20, "interpreted runs when a rule is probabilistic (averaged, atypical runs dropped)")
	fs.Uint64Var(&p.seed, "seed", 1, "seed of the probabilistic choices")
	fs.Int64Var(&p.maxSteps, "max-steps", 200_000_000, "interpreter steps per run before giving up")
	fs.StringArrayVar(&p.probes, "probe", nil, "predict from the probes in `DIR` (trace --stop-after or --stop-events on the same input; repeatable)")
}

// predict predicts the inputs of --set, from the probes of --probe when given.
func (p *predictFlags) predict(m *predict.Model) (*predict.Prediction, error) {
	in, err := p.inputs(m)
	if err != nil {
		return nil, err
	}
	pr, err := m.Predict(in, p.options())
	if err != nil || len(p.probes) == 0 {
		return pr, err
	}
	var ts []*trace.Trace
	for _, d := range p.probes {
		t, err := trace.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("--probe %s: %v", d, err)
		}
		ts = append(ts, t...)
	}
	if err := m.ApplyProbe(pr, in, ts, p.options()); err != nil {
		return nil, fmt.Errorf("--probe: %v", err)
	}
	return pr, nil
}

func (p *predictFlags) options() predict.PredictOptions {
	return predict.PredictOptions{Runs: p.runs, Seed: p.seed, MaxSteps: p.maxSteps}
}

// inputs reads --set against the model's inputs.
func (p *predictFlags) inputs(m *predict.Model) (map[string]float64, error) {
	in := map[string]float64{}
	for _, s := range p.sets {
		for _, kv := range strings.Split(s, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(kv), "=")
			name = strings.TrimPrefix(strings.TrimSpace(name), "$")
			if !ok || name == "" {
				return nil, usagef("--set %q: want NAME=VALUE", kv)
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, usagef("--set %s: %q is not a number", name, val)
			}
			if err := predict.CheckInput(name, v); err != nil {
				return nil, usagef("--set %s: %v", name, err)
			}
			in[name] = v
		}
	}
	for _, name := range m.Inputs {
		if _, ok := in[name]; !ok {
			return nil, usagef("input %s is not set: give --set %s=VALUE (the model's inputs: %s)", name, name, strings.Join(m.Inputs, ", "))
		}
	}
	for name := range in {
		found := false
		for _, x := range m.Inputs {
			found = found || x == name
		}
		if !found {
			return nil, usagef("--set %s: the model has no input %s (its inputs: %s)", name, name, strings.Join(m.Inputs, ", "))
		}
	}
	return in, nil
}

func newModelPredictCmd(e *env) *cobra.Command {
	var pf predictFlags
	var jsonOut bool
	c := &cobra.Command{
		Use:   "predict FILE --set NAME=VALUE...",
		Short: "Predict the run time and final values for given inputs",
		Long: `Predict runs the model from the given inputs, event by event: at each node the rule
picks the arc, the arc's formula adds its time, its data rules give the new values
of the variables, the counters advance — until END. Loops whose continuation
depends only on their counter are skipped through in one step, so predicting is
typically orders of magnitude faster than running the program.

When a rule is probabilistic, --runs runs are interpreted; the runs are clustered
by their times, atypical ones dropped (only the largest cluster is kept), and the
rest averaged. The time is the chosen predictor's (model show lists them) with its
90% cross-conformal interval, widened beyond the training range; a model without
that choice gives the graph model's own interval (about 95%: the spread of the
runs, the errors of the arcs' time formulas, the held-out error).

The prediction is of the traced program; "without the checkpoints' own cost"
subtracts the runtime's estimate of what the checkpoints added (unknown where the
checkpoints are nearly all of it). The direct
baseline's prediction is shown beside it; so are warnings when an input lies
outside the range the model was trained on.

The working set — the bytes the program touches, measured in every traced run and
fitted as a power law of the inputs — is predicted too and compared with the data
caches of the machine the model was built on. When it crosses a cache level that
no training run crossed ("at n = 512 the working set is about 6.1 MiB, beyond the
1 MiB L2 that every training run fit in"), the time per operation the model learnt
does not hold there: predict says so, and the interval claims no level (the
training runs cannot say how much slower the program gets; train with inputs past
the cache to see it). A model used on a machine with other caches says so too.

--probe DIR predicts from probes: runs of the same input stopped after their first
part ('fragprof trace --stop-after', DIR its -o). The probe measures how fast this
input runs here — past the caches its data leaves, at the machine's present speed
— and the model says how the rest of the run compares with the part the probe ran:
the rate of the probe's second half (its first is warm-up) carries over to the
rest (partial execution; docs/predict.md, "Probing a large input"). A probe of a
few per cent of the run is enough where the model has the run's shape right. The
90% interval is calibrated by cutting the training runs after as many checkpoints
as the probe passed, adds the run-to-run noise for the probe and for the run
predicted, and widens where the probe, predicting its own second half from its
first, finds the model's shape wrong at this input (predict says so). A probe of
other inputs, or one that passed more checkpoints than the model predicts for the
whole run, is an error. (The "speed probe" of "Runs of a slow machine" is another
thing: the checkpoint cost each trial measures before main.)

--json prints {"predicted_ns", "interval_ns": [lo, hi], "interval_level": 0.9,
"vars": {...}, "working_set_bytes", ...}, with "cache_crossing": {"level": 2,
"cache_bytes", "direction": "beyond", "working_set_bytes", "train_max_bytes", ...}
and "interval_level": 0 when a level is crossed (docs/predict.md).

Examples:
  fragprof model predict bru.model --set K=800
  fragprof model predict solver.model --set n=50000,a=0.3 --json
  fragprof model predict sort.model --set n=5000 --set s=7 --runs 50
  fragprof trace --binary ./gemm --input 'n = 2000' --stdin '{n}\n' --trials 1 --stop-after 200ms -o probe/
  fragprof model predict gemm.model --set n=2000 --probe probe/`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := predict.ReadFile(args[0])
			if err != nil {
				return err
			}
			p, err := pf.predict(m)
			if err != nil {
				return err
			}
			p.OtherMachine = m.MachineNote(predict.ReadCaches())
			if jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(p)
			}
			return p.WriteText(e.stdout, m)
		},
	}
	pf.add(c)
	c.Flags().BoolVar(&jsonOut, "json", false, "print the prediction as JSON")
	return c
}

func newModelAdviseCmd(e *env) *cobra.Command {
	var pf predictFlags
	var procs, reps int
	var overhead string
	var jsonOut bool
	c := &cobra.Command{
		Use:   "advise FILE --set NAME=VALUE... --procs N",
		Short: "Decide whether running the computation on N processors pays (Amdahl's condition)",
		Long: `Advise predicts the run time for the given inputs (as 'model predict', without the
checkpoints' own cost) and applies Amdahl's condition (docs/methods.md): split over
N processors, a computation of time t takes t/N + P(N), where P(N) is the cost of
starting and joining N workers; parallelising pays iff

  P(N) < ((N − 1)/N) · t.

--overhead measured (the default) builds and runs a small C probe that starts and
joins N POSIX threads (--reps times; the median is P(N)); --overhead SECONDS gives
P(N) directly (e.g. 5e-5, or with a unit: 50us, 2ms). The decision is certain
when the condition holds (or fails) over the whole interval of the predicted
time, and marked borderline otherwise. The margin is how far P(N) is from the
bound; the expected speedup is t / (t/N + P(N)).

On a busy machine starting threads costs more — they wait for a processor — and
the measured P(N) says so: the advice is for the machine as it is when asked.

--probe DIR takes t from probes of the input, as 'model predict --probe' does.

Examples:
  fragprof model advise bru.model --set K=800 --procs 2
  fragprof model advise bru.model --set K=6 --procs 2 --overhead 400us --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if procs < 2 {
				return usagef("model advise: --procs %d: want at least 2", procs)
			}
			m, err := predict.ReadFile(args[0])
			if err != nil {
				return err
			}
			p, err := pf.predict(m)
			if err != nil {
				return err
			}
			var o advise.Overhead
			if overhead == "measured" {
				tc, err := toolchain()
				if err != nil {
					return err
				}
				dir, cleanup, err := workDir(e)
				if err != nil {
					return err
				}
				defer cleanup()
				if o, err = advise.MeasureOverhead(context.Background(), tc.Clang, dir, procs, reps); err != nil {
					return err
				}
			} else {
				s, err := parseSeconds(overhead)
				if err != nil {
					return usagef("model advise: --overhead %q: want measured, or seconds (5e-5, 50us, 2ms)", overhead)
				}
				o = advise.Overhead{N: procs, Ns: s * 1e9}
			}
			a := advise.Advise(p, procs, o)
			if jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(a)
			}
			return a.WriteText(e.stdout)
		},
	}
	pf.add(c)
	fs := c.Flags()
	fs.IntVar(&procs, "procs", 2, "number of processors N")
	fs.StringVar(&overhead, "overhead", "measured", "P(N): measured (a probe starts and joins N threads), or `SECONDS`")
	fs.IntVar(&reps, "reps", 200, "repetitions of the overhead probe")
	fs.BoolVar(&jsonOut, "json", false, "print the advice as JSON")
	return c
}

// parseSeconds reads "5e-5", "50us", "50µs", "2ms", "1.5s".
func parseSeconds(s string) (float64, error) {
	s = strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		mul    float64
	}{{"ns", 1e-9}, {"us", 1e-6}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}} {
		if strings.HasSuffix(s, u.suffix) {
			v, err := strconv.ParseFloat(strings.TrimSuffix(s, u.suffix), 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("bad duration %q", s)
			}
			return v * u.mul, nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return v, nil
}
