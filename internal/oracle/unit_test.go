// This file tests the oracle's readers and its comparison on small inputs.

package oracle

import (
	"bufio"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		stdin     string
		args      []string
		exit      int
		sig       syscall.Signal
	}{
		{"none", "int main(void) { return 0; }\n", "", nil, 0, 0},
		{"stdin", "// stdin: 400\n#include <stdio.h>\n", "400\n", nil, 0, 0},
		{"quoted", "// stdin: \"a\\nb\"\n", "a\nb", nil, 0, 0},
		{"args", "/* x */\n// args: x  y\n", "", []string{"x", "y"}, 0, 0},
		{"exit", "// exit: 3\n", "", nil, 3, 0},
		{"signal", "// signal: SIGSEGV\n", "", nil, 0, syscall.SIGSEGV},
		{"other comments", "// want: 3\n// see: x\n", "", nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdin, args, exit, sig, err := ParseHeader([]byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			if stdin != tc.stdin || !reflect.DeepEqual(args, tc.args) || exit != tc.exit || sig != tc.sig {
				t.Errorf("got %q %q %d %v, want %q %q %d %v", stdin, args, exit, sig, tc.stdin, tc.args, tc.exit, tc.sig)
			}
		})
	}
	for _, bad := range []string{"// exit: three\n", "// signal: SIGNOPE\n", "// stdin: \"open\n"} {
		if _, _, _, _, err := ParseHeader([]byte(bad)); err == nil {
			t.Errorf("ParseHeader(%q) did not fail", bad)
		}
	}
}

// coverageBuild compiles testdata/lines.c with gcc --coverage -O0 into a temporary
// directory, runs it and returns the directory.
func coverageBuild(t *testing.T, tl *Tools) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := command("", tl.GCC, "--coverage", "-O0", "-fstack-reuse=none", "-c", "testdata/lines.c", "-o", filepath.Join(dir, "lines.o")); err != nil {
		t.Fatal(err)
	}
	if _, err := command(dir, tl.GCC, "--coverage", "lines.o", "-o", "lines"); err != nil {
		t.Fatal(err)
	}
	out, err := command(dir, filepath.Join(dir, "lines"))
	if err != nil {
		t.Fatal(err)
	}
	// t = f(0) + ... + f(9) = 55 > 50, so t = f(55) + f(55) = 112.
	if string(out) != "112\n" {
		t.Fatalf("lines.c printed %q, want 112", out)
	}
	return dir
}

var (
	reDumpFunc  = regexp.MustCompile(`FUNCTION ident=\d+, lineno_checksum=\S+, cfg_checksum=\S+, ` + "`" + `([^']+)' (\S+):(\d+):`)
	reDumpArcs  = regexp.MustCompile(`^\s+block (\d+): (\d+:\S+.*)$`)
	reDumpArc   = regexp.MustCompile(`(\d+):([0-9a-f]{4})`)
	reDumpLines = regexp.MustCompile("^\\s+block (\\d+):`([^']+)':(.*)$")
)

// parseGcovDump turns gcov-dump -l's listing into the lines TestReadNotes prints.
func parseGcovDump(t *testing.T, dump string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(dump))
	for sc.Scan() {
		_, line, _ := strings.Cut(sc.Text(), ":") // drop "lines.gcno:"
		if m := reDumpFunc.FindStringSubmatch(line); m != nil {
			out = append(out, fmt.Sprintf("func %s %s:%s", m[1], m[2], m[3]))
		} else if m := reDumpLines.FindStringSubmatch(line); m != nil {
			var s []string
			for _, l := range strings.Split(m[3], ",") {
				s = append(s, m[2]+":"+strings.TrimSpace(l))
			}
			out = append(out, fmt.Sprintf("lines %s: %s", m[1], strings.Join(s, ", ")))
		} else if m := reDumpArcs.FindStringSubmatch(line); m != nil {
			var s []string
			for _, a := range reDumpArc.FindAllStringSubmatch(m[2], -1) {
				flags, _ := strconv.ParseUint(a[2], 16, 32)
				s = append(s, fmt.Sprintf("%s fake=%v", a[1], flags&arcFake != 0))
			}
			out = append(out, fmt.Sprintf("arcs %s: %s", m[1], strings.Join(s, ", ")))
		}
	}
	if len(out) == 0 {
		t.Fatalf("could not read gcov-dump's output:\n%s", dump)
	}
	return out
}

func keys(m map[int]bool) []int {
	var k []int
	for l := range m {
		k = append(k, l)
	}
	sort.Ints(k)
	return k
}

// jsonProg makes a one-function report whose blocks hold the given lines and counts.
func jsonProg(file string, blocks ...struct {
	lines []int
	count uint64
}) *report.JSONProgram {
	f := report.JSONFunc{JSONFuncID: report.JSONFuncID{Name: "main", File: file}}
	one := blocks[0].count
	f.Calls = &one
	for i, b := range blocks {
		c := b.count
		f.Blocks = append(f.Blocks, report.JSONBlock{JSONBlockID: report.JSONBlockID{ID: i}, JSONBlockSource: report.JSONBlockSource{Lines: b.lines}, Count: &c})
	}
	return &report.JSONProgram{Functions: []report.JSONFunc{f}}
}

type blk = struct {
	lines []int
	count uint64
}

func TestCompare(t *testing.T) {
	// side makes gcov's view of p.c from line counts.
	side := func(counts map[int]uint64, single map[int]bool) GcovSide {
		g := &GcovFile{File: "p.c", Functions: []GcovFunction{{Name: "main", ExecutionCount: 1}}}
		for l, c := range counts {
			g.Lines = append(g.Lines, GcovLine{LineNumber: l, Count: c})
		}
		return GcovSide{File: "p.c", Report: g, Single: single, Labels: map[int]bool{7: true}}
	}
	all := map[int]bool{1: true, 2: true, 3: true, 4: true, 7: true}
	for _, tc := range []struct {
		name     string
		prog     *report.JSONProgram
		side     GcovSide
		returned bool
		bad      int // mismatches expected
		counted  int // lines whose counts are compared
		exec     int // lines whose executed-or-not states are compared
	}{
		{"agree", jsonProg("p.c", blk{[]int{1, 2}, 1}, blk{[]int{3}, 5}, blk{[]int{4}, 0}),
			side(map[int]uint64{1: 1, 2: 1, 3: 5, 4: 0}, all), true, 0, 4, 4},
		{"count differs", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 4}, all), true, 1, 2, 2},
		{"not single for gcov", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 4}, map[int]bool{1: true}), true, 0, 1, 2},
		{"not single for fragprof", jsonProg("p.c", blk{[]int{1, 3}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 4}, all), true, 0, 1, 2},
		{"executed differs", jsonProg("p.c", blk{[]int{1, 3}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 0}, map[int]bool{1: true}), true, 1, 1, 2},
		{"fragprof says never", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{2, 3}, 0}),
			side(map[int]uint64{1: 1, 3: 2}, map[int]bool{1: true}), true, 1, 1, 2},
		{"label", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{7, 8}, 1}),
			side(map[int]uint64{1: 1, 7: 0}, map[int]bool{1: true}), true, 0, 1, 1},
		{"only one tool reports", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 9: 0}, all), true, 0, 1, 1},
		{"exit: one more", jsonProg("p.c", blk{[]int{1, 2}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 2: 0, 3: 4}, all), false, 0, 3, 3},
		{"exit: ran twice, gcov never", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{2}, 2}),
			side(map[int]uint64{1: 1, 2: 0}, map[int]bool{1: true}), false, 1, 1, 2},
		{"exit: two more", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 3}, all), false, 1, 2, 2},
		{"exit: gcov above", jsonProg("p.c", blk{[]int{1}, 1}, blk{[]int{3}, 5}),
			side(map[int]uint64{1: 1, 3: 6}, all), false, 1, 2, 2},
		{"calls differ", jsonProg("p.c", blk{[]int{1}, 2}),
			side(map[int]uint64{1: 2}, all), true, 1, 1, 1},
		{"other file", jsonProg("q.c", blk{[]int{1}, 1}),
			side(map[int]uint64{1: 2}, all), true, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.prog, tc.side, tc.returned)
			if len(c.Mismatches) != tc.bad || c.CountLines != tc.counted || c.ExecLines != tc.exec {
				t.Errorf("got %d mismatches %q, %d counted lines, %d executed-or-not lines; want %d, %d, %d",
					len(c.Mismatches), c.Mismatches, c.CountLines, c.ExecLines, tc.bad, tc.counted, tc.exec)
			}
		})
	}
}

func TestLabelLines(t *testing.T) {
	src := "int f(void) {\nlbl_224:\n  x = 1;\n  again: /* loop */\n  default:\n  case 3:\n  a ? b : c;\n  s: x = 2;\n}\n"
	got := LabelLines([]byte(src))
	want := map[int]bool{2: true, 4: true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LabelLines = %v, want %v", keys(got), keys(want))
	}
}

// TestAgree checks the comparison of two compilers' reports: block by block where
// the graphs have the same shape, line by line where they do not.
func TestAgree(t *testing.T) {
	u := func(v uint64) *uint64 { return &v }
	fn := func(name string, counts []uint64, lines [][]int, edges ...report.JSONEdge) report.JSONFunc {
		f := report.JSONFunc{JSONFuncID: report.JSONFuncID{Name: name}, Calls: u(counts[0]), Edges: edges}
		for i, c := range counts {
			f.Blocks = append(f.Blocks, report.JSONBlock{JSONBlockID: report.JSONBlockID{ID: i}, JSONBlockSource: report.JSONBlockSource{Lines: lines[i]}, Count: u(c)})
		}
		return f
	}
	e := func(from, to int, kind string, c uint64) report.JSONEdge {
		return report.JSONEdge{JSONEdgeID: report.JSONEdgeID{From: from, To: to, Kind: kind}, Count: u(c)}
	}
	base := report.JSONProgram{Functions: []report.JSONFunc{
		fn("f", []uint64{2, 1, 1}, [][]int{{1}, {2}, {3}}, e(0, 1, "true", 1), e(0, 2, "false", 1)),
	}}
	for _, tc := range []struct {
		name              string
		other             report.JSONProgram
		same, differ, bad int
	}{
		{"identical", base, 1, 0, 0},
		{"block count", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{2, 2, 0}, [][]int{{1}, {2}, {3}}, e(0, 1, "true", 2), e(0, 2, "false", 0)),
		}}, 1, 0, 4},
		{"other shape, same lines", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{2, 1, 1, 1}, [][]int{{1}, {2}, {3}, {}}, e(0, 1, "true", 1), e(0, 2, "false", 1), e(2, 3, "unconditional", 1)),
		}}, 0, 1, 0},
		{"other shape, other count", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{2, 2, 0, 0}, [][]int{{1}, {2}, {3}, {}}, e(0, 1, "true", 2), e(0, 2, "false", 0), e(2, 3, "unconditional", 0)),
		}}, 0, 1, 3},
		{"calls", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{3, 2, 1}, [][]int{{1}, {2}, {3}}, e(0, 1, "true", 2), e(0, 2, "false", 1)),
		}}, 1, 0, 4},
		{"missing function", report.JSONProgram{Functions: []report.JSONFunc{}}, 0, 0, 1},
		{"missing function never called", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{2, 1, 1}, [][]int{{1}, {2}, {3}}, e(0, 1, "true", 1), e(0, 2, "false", 1)),
			fn("g", []uint64{0}, [][]int{{5}}),
		}}, 1, 0, 0},
		{"missing function that ran", report.JSONProgram{Functions: []report.JSONFunc{
			fn("f", []uint64{2, 1, 1}, [][]int{{1}, {2}, {3}}, e(0, 1, "true", 1), e(0, 2, "false", 1)),
			fn("g", []uint64{1}, [][]int{{5}}),
		}}, 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same, differ, errs := agree(&base, &tc.other)
			if same != tc.same || differ != tc.differ || len(errs) != tc.bad {
				t.Errorf("agree: %d same, %d differ, errors %q; want %d, %d and %d errors", same, differ, errs, tc.same, tc.differ, tc.bad)
			}
		})
	}
}
