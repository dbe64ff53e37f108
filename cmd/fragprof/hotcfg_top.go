// This file implements the text view of `fragprof hotcfg --top N`.

package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/fragprof/fragprof/hotcfg"
)

// writeTop prints the hottest functions, blocks and edges of g, the way
// `perf report --stdio` reads: functions and blocks by their share of the sampled
// PCs (each PC of a burst is one executed instruction, so a share of PCs estimates
// the share of executed instructions), edges by their share of the transitions the
// graph holds (observed, and estimated for inferred edges). Names come from the
// symbolizer (ELF symbols, separate debug files, .dynsym); an address without a
// function shows as [module]+offset.
func writeTop(w io.Writer, g *hotcfg.Graph, batches []hotcfg.Batch, sym hotcfg.Symbolizer, n int) error {
	pcs := map[uint64]float64{}
	total := 0.0
	for _, b := range batches {
		for _, pc := range b.PCs {
			pcs[pc]++
			total++
		}
	}
	if total == 0 {
		_, err := fmt.Fprintln(w, "no sampled PCs")
		return err
	}
	type fn struct {
		name, module, where string
		pcs                 float64
	}
	funcs := map[string]*fn{}
	symOf := map[uint64]hotcfg.Symbol{}
	symbol := func(a uint64) hotcfg.Symbol {
		s, ok := symOf[a]
		if !ok {
			s = sym.Symbolize(a)
			symOf[a] = s
		}
		return s
	}
	name := func(a uint64) string {
		s := symbol(a)
		if s.Func != "" {
			if a == s.Entry {
				return s.Func
			}
			return fmt.Sprintf("%s+%#x", s.Func, a-s.Entry)
		}
		l := g.Maps.Loc(a)
		if l.Module != "" {
			return fmt.Sprintf("[%s]+%#x", l.Module, l.Off) // no function: the file and offset
		}
		return fmt.Sprintf("%#x", a)
	}
	line := func(s hotcfg.Symbol) string {
		if s.Line == 0 {
			return ""
		}
		return fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
	}
	for pc, c := range pcs {
		s := symbol(pc)
		key := s.Func
		if key == "" {
			key = "[" + g.Maps.Loc(pc).Module + "]"
		}
		key += "\x00" + s.Module
		f := funcs[key]
		if f == nil {
			f = &fn{name: s.Func, module: s.Module}
			if f.name == "" {
				f.name = "[unknown]"
			}
			if s.DefLine > 0 {
				f.where = fmt.Sprintf("%s:%d", filepath.Base(s.DefFile), s.DefLine)
			}
			funcs[key] = f
		}
		f.pcs += c
	}
	fs := make([]*fn, 0, len(funcs))
	for _, f := range funcs {
		fs = append(fs, f)
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].pcs != fs[j].pcs {
			return fs[i].pcs > fs[j].pcs
		}
		return fs[i].name < fs[j].name
	})
	fmt.Fprintf(w, "# %d batches, %.0f PCs sampled\n#\n# Functions (share of sampled PCs)\n", len(batches), total)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#  share\tsamples\tfunction\tmodule\tdefined at")
	for _, f := range fs[:min(n, len(fs))] {
		fmt.Fprintf(tw, "%7.2f%%\t%.0f\t%s\t%s\t%s\n", 100*f.pcs/total, f.pcs, f.name, f.module, f.where)
	}
	tw.Flush()

	type blk struct {
		b   *hotcfg.Block
		pcs float64
	}
	var bs []blk
	for _, b := range g.Blocks {
		c := 0.0
		for pc, k := range pcs {
			if pc >= b.Start && pc <= b.Last {
				c += k
			}
		}
		if c > 0 {
			bs = append(bs, blk{b, c})
		}
	}
	sort.Slice(bs, func(i, j int) bool {
		if bs[i].pcs != bs[j].pcs {
			return bs[i].pcs > bs[j].pcs
		}
		return bs[i].b.Start < bs[j].b.Start
	})
	fmt.Fprintf(w, "#\n# Blocks (share of sampled PCs)\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#  share\tsamples\tinsns\tblock\tline")
	for _, x := range bs[:min(n, len(bs))] {
		fmt.Fprintf(tw, "%7.2f%%\t%.0f\t%d\t%s\t%s\n", 100*x.pcs/total, x.pcs, x.b.Insns, name(x.b.Start), line(symbol(x.b.Start)))
	}
	tw.Flush()

	es := append([]*hotcfg.Edge(nil), g.Edges...)
	sum := 0.0
	for _, e := range es {
		sum += e.Count
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].Count > es[j].Count })
	fmt.Fprintf(w, "#\n# Edges (share of the graph's transitions; * inferred from the code, not observed)\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "#  share\tcount\tkind\tfrom\tto\tline")
	for _, e := range es[:min(n, len(es))] {
		mark := ""
		if e.Inferred {
			mark = "*"
		}
		fmt.Fprintf(tw, "%7.2f%%\t%.1f%s\t%s\t%s\t%s\t%s\n", 100*e.Count/max(sum, 1e-300), e.Count, mark, e.Kind,
			name(e.From.Last), name(e.To.Start), line(symbol(e.From.Last)))
	}
	return tw.Flush()
}
