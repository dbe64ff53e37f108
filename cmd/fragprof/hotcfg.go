// This file implements `fragprof hotcfg`.

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/jsonerr"
	"github.com/fragprof/fragprof/internal/sample"
)

func init() { register("hotcfg", newHotcfgCmd) }

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

The graph is printed to stdout (or -o FILE) as JSON (--format json, the default)
or DOT (--format dot, one cluster per function), with blocks labelled by function,
offset and source line when the program has DWARF.

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
  fragprof hotcfg run.batches --compare exact.cfg --hot 0.90 --json
  fragprof hotcfg run1.batches run2.batches --compare exact.cfg --sweep`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("hotcfg: name the batches files")
			}
			if algo != "gfc" && algo != "bursts" {
				return usagef("hotcfg: --algo %q: want gfc or bursts", algo)
			}
			if format != "json" && format != "dot" && format != "pprof" {
				return usagef("hotcfg: --format %q: want json, dot or pprof", format)
			}
			if sweep && compare == "" {
				return usagef("hotcfg: --sweep needs --compare EXACT")
			}
			if hot <= 0 || hot > 1 {
				return usagef("hotcfg: --hot %v: want a share in (0, 1]", hot)
			}
			if p.WindowSize <= 0 || p.Recurrent < 0 {
				return usagef("hotcfg: --window must be positive")
			}
			if top < 0 {
				return usagef("hotcfg: --top must be positive")
			}
			if first < 0 {
				return usagef("hotcfg: --first must be positive")
			}
			data, err := readBatchFiles(args)
			if err != nil {
				return err
			}
			if len(data.batches) == 0 {
				fmt.Fprintf(e.stderr, "fragprof: warning: hotcfg: %s hold no batches: the runs were too short to be sampled (sample with a shorter --interval or more --repeat)\n", strings.Join(args, ", "))
			}
			if first > 0 && first < len(data.batches) {
				// The sampled share then counts the runs the kept batches span.
				data.runs = max(1, int(float64(data.runs)*float64(first)/float64(len(data.batches))+0.5))
				data.batches = data.batches[:first]
			}
			var exactG *hotcfg.Graph
			if compare != "" {
				if exactG, err = readExact(compare); err != nil {
					return err
				}
			}
			files := sample.NewFiles(data.maps)
			code := hotcfg.Chain{data.code, files}
			build := func(algo string, p hotcfg.Params) *hotcfg.Graph {
				var g *hotcfg.Graph
				if algo == "gfc" {
					b := hotcfg.NewGFC(p, data.code)
					for _, bt := range data.batches {
						b.AddBatch(bt)
					}
					g = b.Graph()
				} else {
					b := hotcfg.NewBursts(code)
					b.Keep = keep
					b.Infer = infer
					for _, bt := range data.batches {
						b.AddBatch(bt)
					}
					g = b.Graph()
				}
				g.Maps = data.maps
				if exactG != nil {
					// Each run executes the exact run's instructions.
					g.Instructions = uint64(data.runs) * exactG.Instructions
				}
				return g
			}
			if sweep {
				return printSweep(e.stdout, data, exactG, hot, build)
			}
			g := build(algo, p)
			var cmp *hotcfg.Comparison
			if exactG != nil {
				x := hotcfg.Compare(g, exactG, hot)
				cmp = &x
				if jsonOut {
					enc := json.NewEncoder(e.stdout)
					enc.SetIndent("", " ")
					return enc.Encode(x)
				}
				fmt.Fprintf(e.stderr, "fragprof hotcfg: similarity %.1f%% (%d of %d hot edges), precision %.1f%%, weighted %.1f%%, sampled %.4f%% of instructions\n",
					100*x.Similarity, x.Common, x.HotEdges, 100*x.Precision, 100*x.Weighted, 100*x.SampledFraction)
			}
			g.Symbolize(files)
			w := e.stdout
			var f *os.File
			if out != "" {
				if f, err = os.Create(out); err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			if top > 0 {
				err = writeTop(w, g, data.batches, files, top)
			} else if format == "pprof" {
				err = hotcfg.WritePprof(w, data.batches, code, files, data.maps)
			} else if format == "dot" {
				err = g.WriteDot(w)
			} else {
				err = g.WriteJSON(w, cmp, files.Lines)
			}
			if err == nil && f != nil {
				err = f.Close()
			}
			return err
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
	fl.StringVar(&format, "format", "json", "graph output: json, dot, or pprof (the sampled PCs with their call stacks)")
	fl.StringVarP(&out, "output", "o", "", "write the graph to this file instead of stdout")
	fl.IntVar(&top, "top", 0, "print the N hottest functions, blocks and edges as text instead of the graph")
	return c
}

// batchData is the merged content of batches files.
type batchData struct {
	batches []hotcfg.Batch
	code    hotcfg.InsnTable
	maps    hotcfg.Maps
	runs    int // program runs the batches came from (info runs, default 1 per file)
}

// readExact reads the exact graph of --compare, the JSON file 'fragprof sample
// --exact' writes.
func readExact(name string) (*hotcfg.Graph, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	const want = "--compare wants the exact graph 'fragprof sample --exact' writes"
	if bytes.HasPrefix(data, []byte(hotcfg.Magic)) {
		return nil, fmt.Errorf("hotcfg: --compare %s is a batches file, to be given as an argument: %s", name, want)
	}
	g, err := hotcfg.ReadJSON(bytes.NewReader(data))
	if err != nil {
		var je error = errors.Unwrap(err)
		if je == nil {
			je = err
		}
		return nil, fmt.Errorf("hotcfg: --compare %s: not an exact graph (%v): %s", name, jsonerr.Explain(data, je), want)
	}
	return g, nil
}

func readBatchFiles(names []string) (*batchData, error) {
	d := &batchData{code: hotcfg.InsnTable{}}
	for _, name := range names {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
			f.Close()
			return nil, fmt.Errorf("%s is empty: not a batches file (want the first line %q, as 'fragprof sample' writes)", name, hotcfg.Magic)
		}
		r := hotcfg.NewReader(f)
		for r.Next() {
			b := r.Batch()
			b.PCs = append([]uint64(nil), b.PCs...)
			d.batches = append(d.batches, b)
		}
		f.Close()
		if err := r.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if bad := r.Bad(); len(bad) > 0 {
			more := ""
			if len(bad) > 1 {
				more = fmt.Sprintf(" (and %d more malformed lines)", len(bad)-1)
			}
			return nil, fmt.Errorf("%s:%v%s", name, bad[0], more)
		}
		for a, in := range r.Code() {
			d.code[a] = in
		}
		for _, m := range r.Maps() {
			d.maps.Add(m)
		}
		runs := 1
		fmt.Sscan(r.Info()["runs"], &runs)
		d.runs += runs
	}
	return d, nil
}

// printSweep prints the thesis's Tables 3 and 4 for one program.
func printSweep(w io.Writer, d *batchData, exact *hotcfg.Graph, hot float64, build func(string, hotcfg.Params) *hotcfg.Graph) error {
	type row struct {
		n int
		p hotcfg.Params
		c hotcfg.Comparison
	}
	var rows []row
	for i, p := range hotcfg.Grid() {
		rows = append(rows, row{i, p, hotcfg.Compare(build("gfc", p), exact, hot)})
	}
	sorted := append([]row(nil), rows...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].c.Similarity > sorted[j].c.Similarity })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tconfig\tbinSize\tstdevThres.\twindowSize\trecurrentThres.\tsimilarity\tprecision\tweighted\tedges\t")
	pr := func(label string, r row) {
		fmt.Fprintf(tw, "%s\t#%d\t%g\t%g\t%d\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t\n", label, r.n, r.p.BinSize, r.p.StdevThreshold,
			r.p.WindowSize, r.p.Recurrent, 100*r.c.Similarity, 100*r.c.Precision, 100*r.c.Weighted, r.c.Edges)
	}
	for _, r := range sorted[:3] {
		pr("best", r)
	}
	for _, r := range sorted[len(sorted)-3:] {
		pr("worst", r)
	}
	pr("default", rows[45])
	b := hotcfg.Compare(build("bursts", hotcfg.Params{}), exact, hot)
	fmt.Fprintf(tw, "bursts\t-\t-\t-\t-\t-\t%.1f%%\t%.1f%%\t%.1f%%\t%d\t\n", 100*b.Similarity, 100*b.Precision, 100*b.Weighted, b.Edges)
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d batches, %d hot edges (%.0f%% of transitions), sampled %.4f%% of instructions\n",
		len(d.batches), b.HotEdges, 100*hot, 100*b.SampledFraction)
	return err
}
