// This file implements `fragprof hotcfg`.

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/sample"
)

func newHotcfgCmd(e *env) *cobra.Command {
	var (
		algo, compare, format, out string
		p                          = hotcfg.DefaultParams
		hot, keep                  float64
		sweep, jsonOut, infer      bool
		first, top                 int
	)
	c := &cobra.Command{
		Use:   "hotcfg FILE.batches... [flags]",
		Short: "Build the hot CFG from sampled batches and compare it with the exact one",
		Long: `Hotcfg reads one or more batches files written by 'fragprof sample' (several files
are merged, as from repeated runs of one program) and builds the hot control-flow
graph with one of two builders:

  --algo gfc      GFCGaussiano, the algorithm of O. O. Napoli's thesis (docs/methods.md,
                  docs/sampling.md), with its four parameters --bin-size, --stdev,
                  --window and --recurrent (defaults: configuration #45: 10, 15, 13, 5);
  --algo bursts   fragprof's own builder (the default): every branch followed by the
                  next PC of a burst is an observed transition, blocks are completed
                  by decoding the program's code around the observed PCs, and each
                  edge carries an estimated rate with its standard error. With
                  --infer (the default) the graph also holds the edges the code
                  implies (the static successors of every executed branch: a
                  direct jump's or call's target, both ways of a conditional
                  branch), marked "inferred": true, with estimated counts;
                  --infer=false keeps observed edges only. --keep S keeps the
                  edges carrying the share S of the estimated transitions.

The graph is printed to stdout (or -o FILE) as JSON (--format json, the default:
the document 'fragprof export --format json' writes of its profile, below, with
each edge's rate and standard error, plus "graph", the graph by address, and with
--compare "compare"; docs/json.md) or DOT (--format dot: its profile drawn as
'fragprof export --format dot' draws one: a cluster per function, calls dashed
between them), with blocks labelled by function, offset and source line when the
program has DWARF.

--format profile writes it as a profile file (docs/profile-format.md) that 'show',
'export', 'report', 'diff' and 'merge' read: one function per symbol, whose first
block is a synthetic "entry" block whose edges carry the function's entries
(calls, tail jumps); a call's block has an edge to its return site carrying the
returns. Block and edge counts are the graph's, rounded, with each block raised
where needed to the sum of its in-edges or out-edges so that flow is conserved;
each observed edge's rate and standard error (and its inferred mark) are in the
profile's rates section. An exact graph given instead of batches files (the file
'fragprof sample --exact' writes) is written in the format asked as it is: its
profile holds the exact counts, each function's entry block its calls.

With --compare EXACT (a file written by 'fragprof sample --exact' on the same
program and input), the graph is measured against the exact graph's hot part H: the
edges with the most transitions that together carry --hot (0.90) of all transitions.
Edges are identified by the address of their source block's last instruction and
their destination address (file+offset, so runs loaded at different addresses
compare). It reports similarity |G∩H|/|H| (the thesis's measure), precision
|G∩H|/|G|, the weighted share of H's transitions that G holds, and the share of
executed instructions that were sampled; --json prints them as one object:
{"similarity","precision","weighted","sampled_fraction","edges","hot_edges",...}.

The comparison also counts G's inferred edges ("inferred") and how many of them are
hot ("inferred_hot"). --first N builds from the first N batches only (to see how
similarity grows with the number of bursts).

--format pprof writes, instead of the graph, pprof's format (gzipped protocol
buffers): one sample per sampled PC with its call stack (unwound at the burst's
start by the in-process sampler, then followed through the burst's calls and
returns), symbolized as --top is; 'go tool pprof -top -cum' then shows inclusive
time. 'fragprof export run.batches --format pprof' does the same.

--top N prints, instead of the graph, the N hottest functions and blocks (by their
share of the sampled PCs, with module, source file and line) and edges (by their
share of the graph's transitions; inferred ones marked *), the way
'perf report --stdio' reads. Functions of stripped programs and libraries are named
from their separate debug files (build ID or .gnu_debuglink under /usr/lib/debug,
as installed by Debian's -dbgsym and -dbg packages), else from .dynsym; addresses
without a name show as [module]+offset.

--sweep (with --compare) runs GFCGaussiano over the thesis's 144 configurations
and prints the best and worst three, like its Tables 3 and 4, then configuration #45
and the Bursts builder for reference.

Examples:
  fragprof hotcfg run.batches > hot.json
  fragprof hotcfg run.batches --top 20
  fragprof hotcfg run.batches --format pprof -o run.pb.gz && go tool pprof -top -cum run.pb.gz
  fragprof hotcfg run.batches --algo gfc --bin-size 10 --stdev 15 --window 13 --recurrent 5
  fragprof hotcfg run.batches --format dot | dot -Tsvg > hot.svg
  fragprof hotcfg run.batches --format profile -o hot.fpp && fragprof show hot.fpp
  fragprof hotcfg exact.cfg --format profile -o exact.fpp
  fragprof hotcfg run.batches --compare exact.cfg --hot 0.90 --json
  fragprof hotcfg run1.batches run2.batches --compare exact.cfg --sweep`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("hotcfg: name the batches files")
			}
			if err := hotcfg.CheckOutput(algo, format); err != nil {
				return usagef("hotcfg: %v", err)
			}
			if len(args) == 1 && !isBatches(args[0]) {
				if g, err := hotcfg.ReadExact(args[0]); err == nil {
					return writeExact(e, g, args[0], format, out, compare != "" || sweep || top > 0)
				}
			}
			if err := hotcfg.CheckBuild(sweep, compare, hot, p, top, first); err != nil {
				return usagef("hotcfg: %v", err)
			}
			data, err := hotcfg.ReadBatchFiles(args)
			if err != nil {
				return err
			}
			if len(data.Batches) == 0 {
				fmt.Fprintf(e.stderr, "fragprof: warning: hotcfg: %s hold no batches: the runs were too short to be sampled (sample with a shorter --interval or more --repeat)\n", strings.Join(args, ", "))
			}
			if data.Self != nil {
				fmt.Fprintf(e.stderr, "fragprof hotcfg: %v\n", data.Self)
			}
			data.Head(first)
			files := sample.NewFiles(data.Maps)
			code := hotcfg.Chain{data.Code, files}
			b := &hotcfg.Builder{Samples: data, Code: code, Keep: keep, Infer: infer}
			if err := b.ReadExact(compare); err != nil {
				return fmt.Errorf("hotcfg: %v", err)
			}
			if sweep {
				return b.WriteSweep(e.stdout, hot)
			}
			g := b.Graph(algo, p)
			var cmp *hotcfg.Comparison
			if b.Exact != nil {
				x := hotcfg.Compare(g, b.Exact, hot)
				cmp = &x
				if jsonOut {
					return x.WriteJSON(e.stdout)
				}
				fmt.Fprintf(e.stderr, "fragprof hotcfg: %s\n", x.Summary())
			}
			g.Symbolize(files)
			render := func(w io.Writer) error {
				switch {
				case top > 0:
					return writeTop(w, g, data.Batches, files, top)
				case format == "pprof":
					return report.WriteSampledPprof(w, data.Batches, code, files, data.Maps)
				case format == "dot":
					return report.WriteDOT(w, g.Profile(data.Runs, files.Lines))
				case format == "profile":
					return g.Profile(data.Runs, files.Lines).Write(w)
				}
				return report.GraphJSON(g, data.Runs, files.Lines, cmp).Write(w)
			}
			return atomicfile.WriteOr(out, e.stdout, render) // a failed run leaves no half-written graph
		},
	}
	fl := c.Flags()
	fl.StringVar(&algo, "algo", "bursts", "builder: gfc or bursts")
	fl.Float64Var(&p.BinSize, "bin-size", p.BinSize, "GFC: binSize δ (bytes)")
	fl.Float64Var(&p.StdevThreshold, "stdev", p.StdevThreshold, "GFC: stdevThreshold σ_t (bytes)")
	fl.IntVar(&p.WindowSize, "window", p.WindowSize, "GFC: windowSize N_w (instructions)")
	fl.IntVar(&p.Recurrent, "recurrent", p.Recurrent, "GFC: recurrentThreshold λ")
	fl.Float64Var(&p.Reach, "reach", 0, "GFC: largest distance from an address to its bin's centroid (0: any)")
	fl.Float64Var(&keep, "keep", 0, "bursts: keep the edges carrying this share of estimated transitions (0: all)")
	fl.BoolVar(&infer, "infer", true, "bursts: add the edges the code implies (static successors of executed branches), marked inferred")
	fl.IntVar(&first, "first", 0, "use only the first N batches (0: all)")
	fl.StringVar(&compare, "compare", "", "exact graph (from 'sample --exact') to compare with")
	fl.Float64Var(&hot, "hot", 0.90, "share of the exact graph's transitions that defines its hot part")
	fl.BoolVar(&sweep, "sweep", false, "with --compare: run GFC over the thesis's 144 configurations")
	fl.BoolVar(&jsonOut, "json", false, "with --compare: print only the comparison, as JSON")
	fl.StringVar(&format, "format", "json", "graph output: json, dot, profile (a profile file with the edges' rates), or pprof (the sampled PCs with their call stacks)")
	fl.StringVarP(&out, "output", "o", "", "write the graph to this file instead of stdout")
	fl.IntVar(&top, "top", 0, "print the N hottest functions, blocks and edges as text instead of the graph")
	return c
}

// writeExact writes the exact graph g read from name in format (json, dot or
// profile), symbolized from the program files it names. The options that build or
// measure a sampled graph (built is true when one was given) do not apply to it.
func writeExact(e *env, g *hotcfg.Graph, name, format, out string, built bool) error {
	if built || format == "pprof" {
		return usagef("hotcfg: %s is an exact graph: only --format json, dot or profile and -o apply to it", name)
	}
	files := sample.NewFiles(g.Maps)
	g.Symbolize(files)
	render := func(w io.Writer) error {
		switch format {
		case "profile":
			return g.Profile(1, files.Lines).Write(w)
		case "dot":
			return report.WriteDOT(w, g.Profile(1, files.Lines))
		}
		return report.GraphJSON(g, 1, files.Lines, nil).Write(w)
	}
	return atomicfile.WriteOr(out, e.stdout, render)
}
