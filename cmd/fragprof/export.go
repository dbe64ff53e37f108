// This file implements `fragprof export`.

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/sample"
	"github.com/fragprof/fragprof/profile"
)

func newExportCmd(e *env) *cobra.Command {
	var format, fn, outFile string
	c := &cobra.Command{
		Use:   "export FILE.fpp --format json|dot|pprof [-o OUT]",
		Short: "Convert a profile file to JSON, Graphviz DOT or pprof",
		Long: `Export converts a profile file for other tools.

  json   the object 'fragprof count --json' prints (docs/json.md): every function
         with its blocks, edges and call edges and their counts, "runs" (the runs
         summed) and "counters" (how many counters the instrumented binary
         carried).
  dot    Graphviz: one cluster per function, blocks and edges labelled with their
         counts, a block's calls of the profile's functions dashed between the
         clusters with the number of calls; render with 'dot -Tsvg'. The exact
         output is not stable.
  pprof  pprof's format (gzipped protocol buffers, via github.com/google/pprof):
         samples of every executed block, valued by its executions and by
         executions × IR instructions, located at the file:line where the block
         starts, with the block's label as a tag. A function's blocks get call
         stacks from its callers, as gprof does: a block's count is split among
         the blocks that call the function in proportion to their calls, up to 6
         callers deep (recursion cut), the parts adding up to the count, so '-top'
         shows each function's own executions and '-top -cum' what ran under it
         (docs/edge-profiling.md). 'go tool pprof -top', '-list FUNC' (run from
         the sources' directory) and the web UI ('-http=:8080') open it.

A batches file of a sampled run ('fragprof sample') exports to pprof too: one
sample per sampled PC with its call stack, as 'fragprof hotcfg --format pprof'
writes it.

The output goes to stdout, or atomically to the file named by -o; pprof output is
binary, so -o is required for it unless stdout is redirected.

Examples:
  fragprof export all.fpp --format json -o all.json
  fragprof export all.fpp --format dot --func parse | dot -Tsvg > parse.svg
  fragprof export all.fpp --format pprof -o all.pb.gz && go tool pprof -top all.pb.gz`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("export: name one profile file (got %d arguments)", len(args))
			}
			var render func(io.Writer, *profile.Profile) error
			switch format {
			case "json":
				render = report.WriteJSON
			case "dot":
				render = report.WriteDOT
			case "pprof":
				render = report.WritePprof
			case "":
				return usagef("export: choose --format json, dot or pprof")
			default:
				return usagef("export: --format %q: want json, dot or pprof", format)
			}
			if isBatches(args[0]) {
				// A sampled run: pprof with its call stacks (report.SampledPprof).
				if format != "pprof" {
					return usagef("export: %s is a batches file: only --format pprof applies (use 'fragprof hotcfg' for JSON and DOT)", args[0])
				}
				d, err := hotcfg.ReadBatchFiles(args[:1])
				if err != nil {
					return err
				}
				files := sample.NewFiles(d.Maps)
				render := func(w io.Writer) error {
					return report.WriteSampledPprof(w, d.Batches, hotcfg.Chain{d.Code, files}, files, d.Maps)
				}
				if outFile == "" {
					return render(e.stdout)
				}
				return writeReport(e, outFile, render)
			}
			p, err := readProfile(e, args[0])
			if err != nil {
				return err
			}
			if format == "pprof" && !p.HasCounts() {
				return fmt.Errorf("%s holds a CFG without counts: pprof needs counts", args[0])
			}
			if fn != "" {
				if p, err = onlyFunc(p, fn, args[0]); err != nil {
					return err
				}
			}
			if outFile == "" {
				return render(e.stdout, p)
			}
			return writeReport(e, outFile, func(w io.Writer) error { return render(w, p) })
		},
	}
	c.Flags().StringVar(&format, "format", "", "output `FORMAT`: json, dot or pprof")
	c.Flags().StringVar(&fn, "func", "", "export only the function `NAME`")
	c.Flags().StringVarP(&outFile, "output", "o", "", "write to `FILE` instead of stdout")
	return c
}

// isBatches reports whether the file begins like a batches file, or a record of a
// sampled run (which reads as one).
func isBatches(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, len(hotcfg.Magic))
	n, _ := io.ReadFull(f, buf)
	return string(buf[:n]) == hotcfg.Magic || strings.HasPrefix(string(buf[:n]), hotcfg.RecordMagic+"\n")
}
