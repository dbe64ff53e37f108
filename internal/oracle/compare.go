// This file implements the comparison of fragprof's block counts with gcov's line
// counts (the rules are in the package documentation).

package oracle

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/fragprof/fragprof/internal/report"
)

// BlockLines returns, for the functions of prog defined in file (compared after
// filepath.Clean), the count of every block holding each line: line → one count per
// block. A line with one entry is single-block on fragprof's side.
func BlockLines(prog *report.JSONProgram, file string) map[int][]uint64 {
	file = filepath.Clean(file)
	out := map[int][]uint64{}
	for _, f := range prog.Functions {
		if filepath.Clean(f.File) != file {
			continue
		}
		for _, b := range f.Blocks {
			var c uint64
			if b.Count != nil {
				c = *b.Count
			}
			for _, l := range b.Lines {
				out[l] = append(out[l], c)
			}
		}
	}
	return out
}

// GcovSide is what gcc and gcov say about one source file.
type GcovSide struct {
	File   string       // the file, named as both compilers were given it
	Report *GcovFile    // gcov's JSON report of the file
	Single map[int]bool // the lines gcov counts as one block (Notes.SingleBlockLines)
	Labels map[int]bool // the lines that hold nothing but a label (LabelLines)
}

// A Comparison is the outcome of Compare on one source file.
type Comparison struct {
	File       string
	CountLines int      // lines whose counts were compared
	ExecLines  int      // lines whose executed-or-not states were compared
	Funcs      int      // functions whose call counts were compared
	LabelOnly  int      // lines left out of the executed-or-not check: a label alone
	Mismatches []string // one sentence per disagreement, in line order
}

// Compare checks fragprof's counts of g.File (from count --json) against gcov's.
// mainReturned says the run ended by returning from main; otherwise (exit() from a
// nested call) fragprof's counts may exceed gcov's by one on the blocks the exit
// left unfinished, as the package documentation explains.
//
// A line that holds nothing but a label takes part in the count check but not in
// the executed-or-not check: gcc gives it to the block that falls into the label,
// clang to the block the label starts, which a goto may enter alone.
func Compare(prog *report.JSONProgram, g GcovSide, mainReturned bool) Comparison {
	c := Comparison{File: g.File}
	fp := BlockLines(prog, g.File)
	gl := map[int]GcovLine{}
	for _, l := range g.Report.Lines {
		if o, ok := gl[l.LineNumber]; ok {
			l.Count += o.Count
			l.UnexecutedBlock = l.UnexecutedBlock || o.UnexecutedBlock
		}
		gl[l.LineNumber] = l
	}
	var lines []int
	for l := range fp {
		if _, ok := gl[l]; ok {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	for _, l := range lines {
		counts, gc := fp[l], gl[l].Count
		var max uint64
		for _, x := range counts {
			if x > max {
				max = x
			}
		}
		fpRan, gRan := max > 0, gc > 0
		switch {
		case g.Labels[l]:
			c.LabelOnly++
		case fpRan == gRan:
			c.ExecLines++
		case gRan:
			c.ExecLines++
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("line %d: gcov says it ran %d times, fragprof's blocks %v say never", l, gc, counts))
		case mainReturned || max > 1:
			c.ExecLines++
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("line %d: fragprof's blocks %v say it ran, gcov says never", l, counts))
		default:
			c.ExecLines++
		}
		if len(counts) != 1 || !g.Single[l] {
			continue
		}
		c.CountLines++
		fc := counts[0]
		if fc == gc || !mainReturned && fc == gc+1 {
			continue
		}
		c.Mismatches = append(c.Mismatches, fmt.Sprintf("line %d (one block for both tools): fragprof counts %d, gcov %d", l, fc, gc))
	}
	gf := map[string]uint64{}
	for _, f := range g.Report.Functions {
		gf[f.Name] = f.ExecutionCount
	}
	for _, f := range prog.Functions {
		name := f.Name
		if f.Mangled != "" {
			name = f.Mangled // C++: gcov names functions by their linkage names
		}
		gc, ok := gf[name]
		if filepath.Clean(f.File) != filepath.Clean(g.File) || !ok || f.Calls == nil {
			continue
		}
		c.Funcs++
		if *f.Calls != gc {
			c.Mismatches = append(c.Mismatches, fmt.Sprintf("function %s: fragprof counts %d calls, gcov %d", f.Name, *f.Calls, gc))
		}
	}
	return c
}

var reLabel = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*\s*:\s*(/\*.*\*/\s*|//.*)?$`)
})

// LabelLines returns the lines of a C source that hold nothing but a label
// ("lbl_224:", with an optional comment); case and default labels are not among
// them.
func LabelLines(src []byte) map[int]bool {
	out := map[int]bool{}
	for i, l := range strings.Split(string(src), "\n") {
		if m := reLabel().FindString(l); m != "" && !strings.HasPrefix(strings.TrimSpace(l), "default") {
			out[i+1] = true
		}
	}
	return out
}
