// This file implements `fragprof model check`: runs of a changed build checked
// against the model of the program.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/internal/predict"
	"github.com/fragprof/fragprof/internal/textout"
	"github.com/fragprof/fragprof/internal/trace"
)

// checkReport is model check's JSON output.
type checkReport struct {
	Model     string              `json:"model"`
	Gamma     float64             `json:"gamma"`
	Absolute  bool                `json:"absolute,omitempty"`
	Runs      []*predict.RunCheck `json:"runs"`
	Deviating int                 `json:"deviating"`
	Arcs      map[string]int      `json:"arcs_named"` // deviating runs per arc or rule named
}

func newModelCheckCmd(e *env) *cobra.Command {
	var gamma float64
	var jsonOut, absolute bool
	c := &cobra.Command{
		Use:   "check MODEL RUN...",
		Short: "Check runs of a changed build against the model: new transitions, broken rules, times out of their intervals",
		Long: `Check replays each run — a trace file of 'fragprof trace', or a directory of them
— over the model's transition graph, as model build replayed the training runs,
and reports how it departs from the model:

  new transition   an arc between two checkpoints that no training run took;
  rule broken      a node's rule chose, with certainty, another arc than the run
                   took ("row → row when #row < $n": the run went to end);
  time             an arc whose time over the run, against the model's for the
                   same transitions, lies outside its interval.

Each is named by its checkpoints and their source lines. The runs checked come
from a changed build of the program — the next commit — whose checkpoints are
the model's: a checkpoint the model does not know, in a file of another name,
or recording other variables is an error (a checkpoint moved to another line
is noted and checked).

Times: for each arc the run took, d is the median over its transitions of
ln(t/p), t the transition's time and p the model's at the state the run was
in (the median: a shared machine's interrupts and stalls land in single
transitions), and d̃ = d − c, c its median over the training runs. A machine
that runs slower slows every arc of the run, so each arc is tested against
the rest of the run: z = d̃ − β·r, r the mean of d̃ over the run's other
timed arcs (weighted by 1/s², s an arc's median |d̃| in training; arcs that
leave the same checkpoint, which run the same code, left out) and β the
slope of d̃ on r over the training runs. Where the run has no other timed arc
— a program whose time is one loop — or z scattered more than d in training,
the arc is tested alone, on d. model build measured either statistic x over
its training runs: their median c and their scores |x − c|. The run's score
gets the conformal p-value (1 + #{training scores ≥ it}) / (R + 1); the arc
deviates when p ≤ α′. Over k ≥ 2 tests α′ is calibrated jointly: the run's
smallest p-value m is ranked among the training runs' own, m_r, and the run
deviates when (1 + #{m_r ≤ m}) / (R + 1) ≤ 1 − γ ("α′ (joint)"; Bonferroni's
(1 − γ)/k for a model of an older fragprof): a run of the unchanged program
on the same machine is flagged with probability at most 1 − γ. When several arcs deviate against the rest of the run, the one whose
change alone explains the others is named, the others noted. The run's speed,
the mean of d̃ over its timed arcs weighted by their share of the time, is
reported against the training runs' ("speed 1.12× the usual"); --absolute
makes it one more test, so that a run slower on all its arcs alike deviates.
Arcs that fewer than 10 training runs took, or that took less than 5% of
their time, are not tested, and an arc can be flagged only when α′ ≥
1/(R + 1): train with enough runs. Where the model found that the runs' speed
probe tracks the machine's speed (model show: "machine speed"), times are
taken at the normal speed. Rules are checked at the nodes whose rule chose as
every training run did.

At the training runs' inputs — base and change traced on the same inputs,
as a CI job does — a run is compared with the training runs of its inputs
alone, not with the formula (the point test): y, the lower decile of an
arc's ln(t/p) over the run's transitions (the steadiest part of a loop on a
shared machine), alone or against the rest of the run as above, scored by
its distance to the second-nearest training run's at those inputs — a
shared machine runs in a few speed states, and a run is near the runs of its
own — with the same conformal p-value over the training runs' scores, each
among the other runs of its inputs. It takes the place of the formula's test
for an arc where at least 5 training runs had the run's inputs.

Exit status: 0 when every run agrees with the model, 1 when one deviates (or
cannot be checked), 2 on a usage error — for a CI gate.

Examples:
  fragprof trace --binary ./prog-next --input 'n = uniform_int(60, 200)' --stdin '{n}\n' --trials 20 -o next/
  fragprof model check prog.model next/
  fragprof model check prog.model next/trial-000003.fpt --gamma 0.99 --json`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := predict.ReadFile(args[0])
			if err != nil {
				return err
			}
			if !c.Flags().Changed("gamma") {
				gamma = m.DefaultGamma()
			}
			if !(gamma > 0 && gamma < 1) {
				return usagef("model check: --gamma %v: want a confidence between 0 and 1 (such as 0.9)", gamma)
			}
			runs, err := readRuns(args[1:])
			if err != nil {
				return err
			}
			rep := checkReport{Model: args[0], Gamma: gamma, Absolute: absolute, Arcs: map[string]int{}}
			for _, t := range runs {
				rc, err := m.CheckRun(t, predict.CheckOptions{Gamma: gamma, Absolute: absolute})
				if err != nil {
					return err
				}
				rep.Runs = append(rep.Runs, rc)
				if rc.Deviates() {
					rep.Deviating++
				}
				for _, d := range rc.Deviations {
					if d.Kind == "speed" {
						rep.Arcs["speed of the run"]++
						continue
					}
					rep.Arcs[d.Kind+" "+d.From+" → "+d.To]++
				}
			}
			if jsonOut {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				writeCheckText(e, &rep)
			}
			if rep.Deviating > 0 {
				return exitError{1}
			}
			return nil
		},
	}
	c.Flags().Float64Var(&gamma, "gamma", 0, "confidence γ: a run of the unchanged program is flagged for its times with probability at most 1 − γ (default: the model's interval level, 0.9)")
	c.Flags().BoolVar(&jsonOut, "json", false, "print the verdicts as JSON")
	c.Flags().BoolVar(&absolute, "absolute", false, "test the whole run's speed as well: a run slower or faster on all its timed arcs alike (the machine, or a change everywhere) deviates")
	return c
}

// readRuns reads the trace files and directories named.
func readRuns(paths []string) ([]*trace.Trace, error) {
	var out []*trace.Trace
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usagef("model check: run %s: %v", p, err)
		}
		if st.IsDir() {
			ts, err := trace.ReadDir(p)
			if err != nil {
				return nil, err
			}
			out = append(out, ts...)
			continue
		}
		t, err := trace.ParseFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// writeCheckText prints one line per run, its deviations below it, and the
// tally.
func writeCheckText(e *env, rep *checkReport) {
	for _, rc := range rep.Runs {
		verdict := "ok"
		if rc.Deviates() {
			verdict = fmt.Sprintf("DEVIATES (%d)", len(rc.Deviations))
		}
		alone := 0
		for _, d := range rc.Times {
			if !d.Relative {
				alone++
			}
		}
		speed := ""
		if rc.Speed != nil {
			speed = fmt.Sprintf("; speed %.3g× the usual (p = %.2g)", rc.Speed.Ratio, rc.Speed.P)
		}
		level := "α′"
		if rc.Joint {
			level = "α′ (joint)"
		}
		fmt.Fprintf(e.stdout, "%s: %s — %d checkpoints, %s; time tests: %d (%d arcs against the rest of the run, %d alone), each at %s = %.2g%s\n",
			rc.Run, verdict, rc.Events, textout.Ns(rc.TimeNs), rc.ArcsTested, len(rc.Times)-alone, alone, level, rc.Alpha, speed)
		for _, d := range rc.Deviations {
			fmt.Fprintf(e.stdout, "  %s\n", d.String())
		}
		for _, n := range rc.Notes {
			fmt.Fprintf(e.stdout, "  note: %s\n", n)
		}
	}
	fmt.Fprintf(e.stdout, "%d of %d runs deviate from %s (γ = %g)\n", rep.Deviating, len(rep.Runs), rep.Model, rep.Gamma)
	var keys []string
	for k := range rep.Arcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(e.stdout, "  %s: in %d of the runs\n", k, rep.Arcs[k])
	}
}
