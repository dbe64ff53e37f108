// This file renders annotated source like gcov: every line with its count, and
// under each line the blocks that start on it.

package report

import (
	"fmt"
	"io"
	"sort"

	"github.com/fragprof/fragprof/profile"
)

// WriteSource prints every source file of p annotated as gcov does: a count column
// ("-" for a line without code, "#####" for code that never ran), the line number
// and the text; under a line, each block that starts on it with its count and, for
// a branch, how often each way was taken. A line's count is the largest count of the
// blocks with code on it (gcov's rule for lines shared by several blocks differs
// slightly: it counts entries into the line). Files that src cannot read are named
// in a note instead.
func WriteSource(w io.Writer, p *profile.Profile, src Sources) error {
	type lineInfo struct {
		count  uint64
		code   bool
		starts []string
	}
	files := map[string]map[int]*lineInfo{}
	var order []string
	for i, f := range p.Program.Funcs {
		c := p.Counts[i]
		lines := files[f.File]
		if lines == nil {
			lines = map[int]*lineInfo{}
			files[f.File] = lines
			order = append(order, f.File)
		}
		get := func(l int) *lineInfo {
			if lines[l] == nil {
				lines[l] = &lineInfo{}
			}
			return lines[l]
		}
		for _, b := range f.Blocks {
			n := c.Blocks[b.ID]
			for _, l := range b.Lines {
				li := get(l)
				li.code = true
				li.count = max(li.count, n)
			}
			if b.Start.Line > 0 && b.Start.File == f.File {
				s := fmt.Sprintf("block %d %s (%s): %d", b.ID, b.Label, f.DisplayName(), n)
				if br := branches(b, c); br != "" {
					s += "  → " + br
				}
				li := get(b.Start.Line)
				li.starts = append(li.starts, s)
			}
		}
	}
	sort.Strings(order)
	for k, file := range order {
		if k > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%9s:%5d:Source:%s\n", "-", 0, file)
		fmt.Fprintf(w, "%9s:%5d:Runs:%d\n", "-", 0, p.Runs)
		text := src(file)
		lines := files[file]
		if text == nil {
			fmt.Fprintf(w, "%9s:%5d:(cannot read %s: run from the directory it was compiled in)\n", "-", 0, file)
			var ls []int
			for l := range lines {
				ls = append(ls, l)
			}
			sort.Ints(ls)
			for _, l := range ls {
				writeLine(w, l, "", lines[l].code, lines[l].count, lines[l].starts)
			}
			continue
		}
		if len(text) > 0 && text[len(text)-1] == "" {
			text = text[:len(text)-1]
		}
		for i, t := range text {
			li := lines[i+1]
			if li == nil {
				li = &lineInfo{}
			}
			writeLine(w, i+1, t, li.code, li.count, li.starts)
		}
	}
	return nil
}

func writeLine(w io.Writer, n int, text string, code bool, count uint64, starts []string) {
	col := "-"
	if code {
		col = fmt.Sprint(count)
		if count == 0 {
			col = "#####"
		}
	}
	fmt.Fprintf(w, "%9s:%5d:%s\n", col, n, text)
	for _, s := range starts {
		fmt.Fprintf(w, "%9s  %5s  %s\n", "", "", s)
	}
}
