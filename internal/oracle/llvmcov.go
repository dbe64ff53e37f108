// This file reads the JSON that llvm-cov export prints (format 2.0.x, LLVM 14–19)
// for clang's source-based coverage (-fprofile-instr-generate -fcoverage-mapping),
// and compares fragprof's counts with it: the second oracle of C++ programs.

package oracle

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/report"
)

// An LLVMCov is what llvm-cov export says of one program run: per source file its
// segments, and every function's execution count.
type LLVMCov struct {
	Files []LLVMCovFile
	// Funcs maps a function's linkage name to the number of times it was entered.
	// llvm-cov prefixes functions of internal linkage with their file
	// ("prog.cpp:_ZL5checki"); the prefix is removed here.
	Funcs map[string]uint64
}

// An LLVMCovFile is one source file's coverage segments.
type LLVMCovFile struct {
	File     string
	Segments []LLVMCovSegment
}

// An LLVMCovSegment starts at Line:Col and runs to the next segment; it holds Count
// when HasCount. A region entry starts a region; a gap region covers only
// whitespace and punctuation between regions (llvm/ProfileData/Coverage).
type LLVMCovSegment struct {
	Line, Col                    int
	Count                        uint64
	HasCount, RegionEntry, IsGap bool
}

// ParseLLVMCov reads the output of llvm-cov export (JSON).
func ParseLLVMCov(data []byte) (*LLVMCov, error) {
	var raw struct {
		Version string `json:"version"`
		Data    []struct {
			Files []struct {
				Filename string              `json:"filename"`
				Segments [][]json.RawMessage `json:"segments"`
			} `json:"files"`
			Functions []struct {
				Name  string `json:"name"`
				Count uint64 `json:"count"`
			} `json:"functions"`
		} `json:"data"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("llvm-cov export: %v", err)
	}
	if !strings.HasPrefix(raw.Version, "2.") || len(raw.Data) != 1 {
		return nil, fmt.Errorf("llvm-cov export: format %q with %d exports, want 2.x with one", raw.Version, len(raw.Data))
	}
	c := &LLVMCov{Funcs: map[string]uint64{}}
	for _, f := range raw.Data[0].Files {
		lf := LLVMCovFile{File: f.Filename}
		for i, s := range f.Segments {
			// [line, col, count, hasCount, isRegionEntry, isGapRegion]
			if len(s) < 6 {
				return nil, fmt.Errorf("llvm-cov export: %s: segment %d has %d fields, want 6", f.Filename, i, len(s))
			}
			var seg LLVMCovSegment
			for k, dst := range []any{&seg.Line, &seg.Col, &seg.Count, &seg.HasCount, &seg.RegionEntry, &seg.IsGap} {
				if err := json.Unmarshal(s[k], dst); err != nil {
					return nil, fmt.Errorf("llvm-cov export: %s: segment %d field %d: %v", f.Filename, i, k, err)
				}
			}
			lf.Segments = append(lf.Segments, seg)
		}
		c.Files = append(c.Files, lf)
	}
	for _, f := range raw.Data[0].Functions {
		name := f.Name
		if i := strings.LastIndexByte(name, ':'); i >= 0 && !strings.HasPrefix(name, "_Z") {
			name = name[i+1:]
		}
		c.Funcs[name] += f.Count
	}
	return c, nil
}

// File returns the coverage of file, or nil. llvm-cov names files as the compiler
// was given them, joined to its working directory: a relative file is looked up
// by its absolute name too.
func (c *LLVMCov) File(file string) *LLVMCovFile {
	abs, _ := filepath.Abs(file)
	for i := range c.Files {
		if f := filepath.Clean(c.Files[i].File); f == filepath.Clean(file) || f == abs {
			return &c.Files[i]
		}
	}
	return nil
}

// An LLVMCovLine is a line's execution count as llvm-cov shows it (the largest count
// of a region starting on the line, else the count of the region the line lies in,
// as llvm::coverage::LineCoverageStats computes it) and whether that count is
// unambiguous: every counted, non-gap segment that covers part of the line has it.
type LLVMCovLine struct {
	Count  uint64
	Single bool
}

// Lines returns the counted lines of f.
func (f *LLVMCovFile) Lines() map[int]LLVMCovLine {
	out := map[int]LLVMCovLine{}
	segs := f.Segments
	if len(segs) == 0 {
		return out
	}
	var wrapped *LLVMCovSegment // the segment in force at the start of the line
	i := 0
	for line := segs[0].Line; line <= segs[len(segs)-1].Line; line++ {
		var on []LLVMCovSegment
		for i < len(segs) && segs[i].Line == line {
			on = append(on, segs[i])
			i++
		}
		var counts []uint64
		var l LLVMCovLine
		entry := false
		if wrapped != nil && wrapped.HasCount && !wrapped.IsGap && (len(on) == 0 || on[0].Col > 1) {
			counts = append(counts, wrapped.Count)
			l.Count = wrapped.Count
		}
		for _, s := range on {
			if !s.HasCount || s.IsGap {
				continue
			}
			counts = append(counts, s.Count)
			if s.RegionEntry {
				if !entry || s.Count > l.Count {
					l.Count = s.Count
				}
				entry = true
			}
		}
		if len(on) > 0 {
			wrapped = &segs[i-1]
		}
		if len(counts) == 0 {
			continue
		}
		l.Single = true
		for _, x := range counts {
			l.Single = l.Single && x == counts[0]
		}
		out[line] = l
	}
	return out
}

// An LLVMCovDiff is one disagreement of fragprof's counts with llvm-cov's: of a
// line (Func empty) or of a function's execution count (Line 0).
type LLVMCovDiff struct {
	Line       int
	Func       string // the function's linkage name
	Frag, LLVM uint64
	Exec       bool // a line's executed-or-not state differs (not its count)
}

func (d LLVMCovDiff) String() string {
	switch {
	case d.Line == 0:
		return fmt.Sprintf("function %s: fragprof counts %d calls, llvm-cov %d", d.Func, d.Frag, d.LLVM)
	case d.Exec:
		return fmt.Sprintf("line %d: fragprof says it ran %d times, llvm-cov %d", d.Line, d.Frag, d.LLVM)
	}
	return fmt.Sprintf("line %d (one count for both tools): fragprof %d, llvm-cov %d", d.Line, d.Frag, d.LLVM)
}

// CompareLLVMCov checks fragprof's counts of file (from count --json) against
// llvm-cov's: every function's execution count (matched by linkage name), whether
// each line ran, and the count of every line that both tools see as one count.
// fragprof's count of a line is the sum over the functions that hold it (the
// instantiations of a template share its lines, and llvm-cov sums them) of the
// count their blocks on the line agree on; a line whose blocks disagree within a
// function, or whose llvm-cov segments do, is compared as executed or not only.
//
// The two tools count different things in known places: a region of source-based
// coverage does not end at a call, so the lines after a call that threw are counted
// as if it had returned; and clang's profile runtime writes its file at exit before
// the destructors of static objects run. CompareLLVMCov reports every difference
// and the caller judges them (TestLLVMCovOracleCXX asks gcov). The lines in skip
// are left out: BraceLines, a function's closing brace, is given by fragprof to the
// block that returns (every call that returns passes it) and by llvm-cov to the
// region of the statement before it, and gcov gives it no count at all.
func CompareLLVMCov(prog *report.JSONProgram, c *LLVMCov, file string, skip map[int]bool) (Comparison, []LLVMCovDiff) {
	cmp := Comparison{File: file}
	var diffs []LLVMCovDiff
	lf := c.File(file)
	if lf == nil {
		cmp.Mismatches = append(cmp.Mismatches, fmt.Sprintf("llvm-cov has no file %s", file))
		return cmp, nil
	}
	type lineSum struct {
		sum, max uint64
		single   bool
	}
	fp := map[int]*lineSum{}
	for _, f := range prog.Functions {
		if filepath.Clean(f.File) != filepath.Clean(file) {
			continue
		}
		per := map[int][]uint64{}
		for _, b := range f.Blocks {
			var n uint64
			if b.Count != nil {
				n = *b.Count
			}
			for _, l := range b.Lines {
				per[l] = append(per[l], n)
			}
		}
		for l, counts := range per {
			ls := fp[l]
			if ls == nil {
				ls = &lineSum{single: true}
				fp[l] = ls
			}
			for _, x := range counts {
				ls.max = maxU(ls.max, x)
				ls.single = ls.single && x == counts[0]
			}
			ls.sum += counts[0]
		}
	}
	ll := lf.Lines()
	var lines []int
	for l := range fp {
		if _, ok := ll[l]; ok && !skip[l] {
			lines = append(lines, l)
		}
	}
	sort.Ints(lines)
	for _, l := range lines {
		ls, lc := fp[l], ll[l]
		cmp.ExecLines++
		if (ls.max > 0) != (lc.Count > 0) {
			diffs = append(diffs, LLVMCovDiff{Line: l, Frag: ls.max, LLVM: lc.Count, Exec: true})
			continue
		}
		if !ls.single || !lc.Single {
			continue
		}
		cmp.CountLines++
		if ls.sum != lc.Count {
			diffs = append(diffs, LLVMCovDiff{Line: l, Frag: ls.sum, LLVM: lc.Count})
		}
	}
	for _, f := range prog.Functions {
		name := f.Name
		if f.Mangled != "" {
			name = f.Mangled
		}
		lc, ok := c.Funcs[name]
		if filepath.Clean(f.File) != filepath.Clean(file) || !ok || f.Calls == nil {
			continue
		}
		cmp.Funcs++
		if *f.Calls != lc {
			diffs = append(diffs, LLVMCovDiff{Func: name, Frag: *f.Calls, LLVM: lc})
		}
	}
	for _, d := range diffs {
		cmp.Mismatches = append(cmp.Mismatches, d.String())
	}
	return cmp, diffs
}

// BraceLines returns the lines of a C or C++ source that hold nothing but a
// closing brace ("}", "};").
func BraceLines(src []byte) map[int]bool {
	out := map[int]bool{}
	for i, l := range strings.Split(string(src), "\n") {
		if t := strings.TrimSpace(l); t == "}" || t == "};" {
			out[i+1] = true
		}
	}
	return out
}

func maxU(a, b uint64) uint64 {
	if a > b {
		return a
	}
	return b
}
