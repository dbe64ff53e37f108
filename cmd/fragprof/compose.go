// This file implements `fragprof compose`.

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/timing"
)

func newComposeCmd(e *env) *cobra.Command {
	var bf buildFlags
	var in inputFlags
	var pf protocolFlags
	var scheme, expr, total, markov, outFile string
	var parts []string
	var p float64
	var jsonOut bool
	c := &cobra.Command{
		Use:   "compose [flags] FILE.c... (--scheme A|B|C | --expr EXPR --part NAME=FRAGMENT... --total FRAGMENT)",
		Short: "Compute a scheme's time from its measured parts and compare it with its measured total",
		Long: `Compose runs the timing lab's exercise end to end: it measures the parts of a scheme
and the scheme's total in the same repetitions (the protocol of 'fragprof time'),
computes the total from the parts, and prints the computed and the measured total
with their intervals and their relative difference.

A scheme is an expression over parts:
  NAME                              a measured part (--part NAME=func:F or region:R)
  seq(X, Y, ...)                    X, then Y, ...
  branch(p, X, Y)                   X with probability p, else Y
  loop(p, X, Y)                     X, then while r < p: Y and X again
A probability written ? is estimated from how often the parts ran (maximum
likelihood: a branch's share of entries, a loop's passes per decision).

The total is computed two ways:
  reduction     the manual's rules, folded over the expression: sequence
                (m = m1 + m2, σ² = σ1² + σ2², extremes add), branch (m = p·m1 + (1−p)·m2,
                σ² = p·σ1² + (1−p)·σ2², t_min = min, t_max = max) and loop
                (m = m1 + (m1+m2)·p/(1−p), σ² = σ1² + (σ1²+σ2²)·p/(1−p), t_min = t_min1,
                t_max = t_max1 + (t_max1+t_max2)·p/(1−p), a heuristic), each also in
                its exact form (law of total variance: a branch adds p(1−p)(m1−m2)²,
                a loop Var[K](m1+m2)² with K geometric, Var[K] = p/(1−p)²); both are
                printed, labelled. Means and extremes agree; variances differ.
  Markov chain  over the CFG of the scheme's function (--markov FUNC), with the edge
                probabilities of a profile of the same repetitions and each block
                timed by the parts it calls: expected visits from (I − Q)⁻¹, the
                variance from the second moments. It handles any graph, not only the
                reducible ones.
The computed mean's interval: ± u·√(Σ c²·SE²) (the parts' standard errors
propagated) when every part is normal, else interval arithmetic
max(t_max − m, m − t_min), as for a measured total that is not normal.

The measured total's preemption tail is cut by repetition, not on the totals (a
loop's extra pass is a real, long run): a repetition is cut when one of its parts'
samples was cut, or when its residual, total − Σ its parts' samples, lies beyond
median + k·1.4826·MAD of the residuals. Parts, probabilities and the chain's edge
probabilities are all taken over the repetitions kept, so that computed and
measured describe the same runs; the report also sets σ by each method beside the
measured s.

examples/lab.c holds the lab's fragments D (bubble sort of 1000 numbers), E
(insertion sort of 1000), F (trial division of 909091, 1336337 or 614657) and G
(100×100 matrix product), and three schemes, chosen with --scheme:
  A  seq(D, E, F, G)                the sequence
  B  seq(D, branch(?, E, G), F)     E when r < p, else G  (r = uniform(0, 1))
  C  loop(?, E, G)                  E, then while r < p: G, E
--p sets the design probability p (0.5); the seed of every repetition's random data
comes from the input language ('seed = uniform_int(0, 2147483647)' by default), and
the data are filled before the scheme's region starts.

JSON (--json): {"computed_ns", "computed_halfwidth_ns", "measured_ns",
"measured_halfwidth_ns", "rel_diff", "within", "manual", "exact", "markov", ...}.

Examples:
  fragprof compose examples/lab.c --scheme A
  fragprof compose examples/lab.c --scheme B --p 0.3 --reps 500 --json
  fragprof compose examples/lab.c --scheme C --timer monotonic_raw --cpu 1
  fragprof compose prog.c --expr 'seq(P, loop(?, Q, R))' --part P=func:parse \
      --part Q=func:step --part R=region:retry --total region:all --markov run \
      --input 'n = uniform_int(1, 100)' --arg '{n}'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("compose: name the C files to build")
			}
			if bf.simplified {
				return usagef("compose: --simplified does not apply: the parts are timed on a build of the source-level CFG, and their counts must be of the same blocks")
			}
			s, err := timing.SchemeOptions{Lab: scheme, P: p, Expr: expr, Total: total, Parts: parts,
				Markov: markov, MarkovSet: c.Flags().Changed("markov")}.Scheme()
			if err != nil {
				return usagef("compose: %v", err)
			}
			if scheme != "" && in.modelFile == "" {
				in.inputs, in.args = s.LabInputs(p, in.inputs, in.args)
			}
			cfg, err := pf.config("compose")
			if err != nil {
				return err
			}
			frags := s.Fragments()
			dir, cleanup, err := workDir(e)
			if err != nil {
				return err
			}
			defer cleanup()
			calls := &timing.CallSites{}
			if s.Func != "" {
				calls.Funcs = []string{s.Func}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, name, _, err := measureProgram(ctx, 0, e, "compose", &bf, &pf, &in, c, args, "", frags, cfg, dir, calls.Apply)
			if err != nil {
				return err
			}
			if s.Func != "" {
				if _, ok := calls.Calls[s.Func]; !ok {
					return fmt.Errorf("compose: --markov %s: no function %s is defined in %s", s.Func, s.Func, strings.Join(args, ", "))
				}
				if err := countRun(e, &bf, &in, c, args, res, cfg, dir); err != nil {
					return err
				}
			}
			comp, err := timing.Compose(res, s, calls.Calls, cfg.Stats)
			if err != nil {
				return err
			}
			x := &report.Compose{C: comp, Result: res, Program: name, System: timing.ReadSystem()}
			return writeReport(e, outFile, func(w io.Writer) error {
				if jsonOut {
					return report.WriteComposeJSON(w, x)
				}
				return report.WriteComposeText(w, x)
			})
		},
	}
	bf.add(c)
	in.add(c)
	pf.add(c, 200)
	fs := c.Flags()
	fs.StringVar(&scheme, "scheme", "", "lab scheme `A`, B or C of examples/lab.c")
	fs.Float64Var(&p, "p", 0.5, "the lab schemes' design probability")
	fs.StringVar(&expr, "expr", "", "the scheme as an `EXPR` over parts: seq(...), branch(p, X, Y), loop(p, X, Y)")
	fs.StringArrayVar(&parts, "part", nil, "a part of --expr, `NAME=FRAGMENT` (func:F or region:R); repeatable")
	fs.StringVar(&total, "total", "", "the fragment whose time is the scheme's total (`FRAGMENT`, e.g. region:all)")
	fs.StringVar(&markov, "markov", "", "compose over the CFG of function `FUNC` by an absorbing Markov chain (the lab schemes: scheme_X)")
	fs.BoolVar(&jsonOut, "json", false, "print the report as JSON (docs/timing.md)")
	fs.StringVarP(&outFile, "output", "o", "", "write the report to `FILE` (atomically) instead of stderr, or stdout with --json")
	return c
}

// countRun runs the same repetitions once more on a build with block counters, for
// the edge probabilities of the Markov chain (the timed build carries no counters),
// and stores the summed counts in res. With --counted the timed runs already have
// them.
func countRun(e *env, bf *buildFlags, in *inputFlags, c *cobra.Command, srcs []string, res *timing.Result, cfg timing.Config, dir string) error {
	if res.Prog != nil {
		return nil
	}
	spec, err := bf.spec(srcs)
	if err != nil {
		return err
	}
	tc, err := toolchain()
	if err != nil {
		return err
	}
	cdir := filepath.Join(dir, "counted")
	bin := filepath.Join(cdir, "prog")
	if err := os.MkdirAll(cdir, 0o755); err != nil {
		return err
	}
	if _, err := tc.Build(bg(), e.stderr, spec, cdir, bin); err != nil {
		return err
	}
	model, err := inputsFor(c, in)
	if err != nil {
		return err
	}
	cc := cfg
	cc.Binary, cc.Fragments, cc.Profile = bin, nil, true
	cc.Inputs = &montecarlo.Program{Inputs: model, Seed: in.seed}
	cc.Reps, cc.RelEps, cc.MaxReps = res.Reps, 0, 0
	cc.Dir = filepath.Join(cdir, "run")
	cr, err := timing.Measure(bg(), cc)
	if err != nil {
		return fmt.Errorf("compose: counting run: %v", err)
	}
	res.Prog, res.Counts, res.ProfileReps, res.RepCounts = cr.Prog, cr.Counts, cr.ProfileReps, cr.RepCounts
	return nil
}
