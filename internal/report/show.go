// This file renders a profile for `fragprof show`: per function, block frequencies
// hottest first (or in source order), edge probabilities and call counts.

package report

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/profile"
)

// Order says how WriteShow orders functions and blocks.
type Order uint8

// The orders.
const (
	Hot    Order = iota // most executed first
	Source              // source order
)

// ShowOptions control WriteShow.
type ShowOptions struct {
	Order Order
	Top   int    // blocks per function to print; 0 for all
	Title string // printed first, e.g. the file name
}

// WriteShow prints every function of p (which must carry counts): its call count,
// its blocks with count, count per run and share of the function's block
// executions, and the edges out of multi-way blocks with the probability of each.
func WriteShow(w io.Writer, p *profile.Profile, opt ShowOptions) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	runs := float64(max(p.Runs, 1))
	var total uint64
	for _, c := range p.Counts {
		for _, v := range c.Blocks {
			total += v
		}
	}
	title := opt.Title
	if title != "" {
		title += ": "
	}
	fmt.Fprintf(tw, "%s%d run(s), %d functions, %d counters, %d block executions\n", title, p.Runs, len(p.Program.Funcs), p.Counters, total)
	fmt.Fprintf(tw, "%s", p.Describe())
	if p.Identity.BuildID != "" {
		fmt.Fprintf(tw, ", build-id %s", p.Identity.BuildID)
	}
	fmt.Fprintln(tw)
	idx := make([]int, len(p.Program.Funcs))
	for i := range idx {
		idx[i] = i
	}
	sumOf := func(c cfg.Counts) (s uint64) {
		for _, v := range c.Blocks {
			s += v
		}
		return s
	}
	if opt.Order == Hot {
		sort.SliceStable(idx, func(a, b int) bool { return sumOf(p.Counts[idx[a]]) > sumOf(p.Counts[idx[b]]) })
	}
	for _, i := range idx {
		f, c := p.Program.Funcs[i], p.Counts[i]
		fs := sumOf(c)
		fmt.Fprintf(tw, "\n%s  (%s:%d)  calls %d (%.4g per run)  %s of all block executions\n",
			f.DisplayName(), f.File, f.Line, c.Calls(), float64(c.Calls())/runs, percent(fs, total))
		blocks := append([]*cfg.Block(nil), f.Blocks...)
		if opt.Order == Hot {
			sort.SliceStable(blocks, func(a, b int) bool { return c.Blocks[blocks[a].ID] > c.Blocks[blocks[b].ID] })
		} else {
			blocks = sourceOrder(f)
		}
		if opt.Top > 0 && len(blocks) > opt.Top {
			blocks = blocks[:opt.Top]
		}
		fmt.Fprintln(tw, "  block\tlabel\tlines\tcount\tper run\tshare\tbranches")
		for _, b := range blocks {
			n := c.Blocks[b.ID]
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\t%.4g\t%s\t%s\n", b.ID, b.Label, compactLines(b), n, float64(n)/runs, percent(n, fs), branches(b, c))
		}
	}
	return tw.Flush()
}

// branches describes the out-edges of a block with several: "for.body 91% · for.end 9%".
func branches(b *cfg.Block, c cfg.Counts) string {
	if len(b.Succs) < 2 {
		return ""
	}
	s := ""
	for i, e := range b.Succs {
		if i > 0 {
			s += " · "
		}
		s += e.To.Label
		if e.Kind == cfg.Case {
			s += "[" + e.Case + "]"
		}
		if c.Blocks[b.ID] == 0 {
			s += " -"
		} else {
			s += " " + percent(c.Edges[e.ID], c.Blocks[b.ID])
		}
	}
	return s
}

func percent(n, of uint64) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
