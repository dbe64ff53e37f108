// This file implements `fragprof cfg`.

package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

func newCfgCmd(e *env) *cobra.Command {
	var bf buildFlags
	var format, fn, outFile string
	var static bool
	c := &cobra.Command{
		Use:   "cfg [flags] FILE.c...",
		Short: "Print the control-flow graph of every function",
		Long: `Cfg compiles the C files to LLVM IR (clang -O2 with optimisation passes off, as
every fragprof build does) and prints each function's basic blocks — id, IR label,
the source positions of the first and last instruction, the number of instructions —
and its edges with the terminator kind: unconditional, true/false of a conditional
branch, case VALUE / default of a switch, indirect.

Formats: text (for people), json (docs/json.md: the count object without counts),
dot (Graphviz: one cluster per function, blocks labelled with their source lines;
render with 'dot -Tsvg').

With --static, cfg also estimates without running anything how often each block runs
per call and how likely each edge is: loops are found from dominators (natural
loops of back edges), the branch heuristics of Ball and Larus (loop branch, loop
exit, loop header, pointer, opcode, call, return, store) and LLVM's unreachable
heuristic each predict a branch with the hit rate Wu and Larus measured, the
predictions are combined by the Dempster–Shafer rule, and frequencies follow by
propagation through the loop nest, innermost first (Wu and Larus 1994). These are
the weights of the spanning tree that --counters chords builds; docs/edge-profiling.md
explains them.

Examples:
  fragprof cfg examples/newton.c
  fragprof cfg examples/newton.c --static --func nsqrt
  fragprof cfg examples/newton.c --func nsqrt --format dot | dot -Tsvg > nsqrt.svg`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("cfg: name the C files")
			}
			spec, err := bf.spec(args)
			if err != nil {
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
			prog, counters, err := tc.Analyze(bg(), e.stderr, spec, dir)
			if err != nil {
				return err
			}
			if fn != "" {
				f, err := prog.Lookup(fn)
				if err != nil {
					return usagef("cfg: --func: %v", err)
				}
				prog = &cfg.Program{Funcs: []*cfg.Func{f}}
			}
			p := &profile.Profile{Program: prog, Counters: counters}
			var render func(io.Writer) error
			if static {
				if format != "text" {
					return usagef("cfg: --static prints text only (got --format %s)", format)
				}
				est := make([]*cfg.Static, len(prog.Funcs))
				for i, f := range prog.Funcs {
					est[i] = f.EstimateStatic()
				}
				render := func(w io.Writer) error { return report.WriteStatic(w, prog, est) }
				if outFile == "" {
					return render(e.stdout)
				}
				return writeReport(e, outFile, render)
			}
			switch format {
			case "text":
				render = func(w io.Writer) error { return report.WriteText(w, p, sourceFiles) }
			case "json":
				render = func(w io.Writer) error { return report.WriteJSON(w, p) }
			case "dot":
				render = func(w io.Writer) error { return report.WriteDOT(w, p) }
			default:
				return usagef("cfg: --format %q: want text, json or dot", format)
			}
			if outFile == "" {
				return render(e.stdout)
			}
			return writeReport(e, outFile, render)
		},
	}
	bf.add(c)
	c.Flags().StringVar(&format, "format", "text", "output `FORMAT`: text, json or dot")
	c.Flags().StringVar(&fn, "func", "", "print only the function `NAME`")
	c.Flags().BoolVar(&static, "static", false, "print static estimates: block frequencies per call and edge probabilities")
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to `FILE` instead of stdout")
	return c
}
