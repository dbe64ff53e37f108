package graph

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/trace"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// program is a synthetic traced program, written as the checkpoints it passes for
// an input n (each with its recorded values), so that the graph, journal and rules
// learnt from it are known without building C.
type program struct {
	name  string
	sites []trace.Site
	run   func(n int, pass func(site int, vals ...float64))
}

// traces runs p on n = 1 … runs, with times that follow the checkpoints' order
// (1 µs a step): deterministic, so the rules are too.
func (p program) traces(runs int) []*trace.Trace {
	var ts []*trace.Trace
	for n := 1; n <= runs; n++ {
		th := trace.Thread{Off: []int32{0}}
		var now int64
		p.run(n, func(site int, vals ...float64) {
			now += 1000
			th.Time = append(th.Time, now)
			th.Site = append(th.Site, int32(site))
			th.Vals = append(th.Vals, vals...)
			th.Off = append(th.Off, int32(len(th.Vals)))
		})
		tr := &trace.Trace{Name: fmt.Sprintf("%s-%d", p.name, n), Sites: p.sites, Threads: []trace.Thread{th}, Finished: true}
		tr.Header.Trial = uint64(n)
		tr.Header.Seed = 1
		tr.Header.Inputs = []trace.Input{{Name: "n", Kind: "int", Value: float64(n)}}
		ts = append(ts, tr)
	}
	return ts
}

func site(id uint32, name string, line int, vars ...string) trace.Site {
	s := trace.Site{ID: id, Name: name, File: "prog.c", Line: line}
	for _, v := range vars {
		s.Vars = append(s.Vars, trace.Var{Name: v, Kind: trace.VarKind(0)})
	}
	return s
}

// goldenPrograms: a counted loop followed by a branch on the input's parity; two
// nested loops (rows and columns); a loop that doubles its variable until it passes
// the input.
var goldenPrograms = []program{
	{"loop-branch", []trace.Site{site(1, "init", 10, "n"), site(2, "row", 12, "r"), site(3, "even", 15), site(4, "odd", 17), site(5, "end", 19)},
		func(n int, pass func(int, ...float64)) {
			pass(0, float64(n))
			for r := 0; r < n; r++ {
				pass(1, float64(r))
			}
			if n%2 == 0 {
				pass(2)
			} else {
				pass(3)
			}
			pass(4)
		}},
	{"nested", []trace.Site{site(1, "init", 5, "n"), site(2, "row", 7, "i"), site(3, "col", 9, "j"), site(4, "end", 12)},
		func(n int, pass func(int, ...float64)) {
			pass(0, float64(n))
			for i := 0; i < n; i++ {
				pass(1, float64(i))
				for j := 0; j < i; j++ {
					pass(2, float64(j))
				}
			}
			pass(3)
		}},
	{"doubling", []trace.Site{site(1, "init", 3, "n"), site(2, "step", 5, "w"), site(3, "end", 8)},
		func(n int, pass func(int, ...float64)) {
			pass(0, float64(n))
			for w := 1; w < 4*n; w *= 2 {
				pass(1, float64(w))
			}
			pass(2)
		}},
}

// dump prints what the graph package learnt from traces: nodes, arcs with their
// loop marks, and every node's rule as JSON.
func dump(t *testing.T, traces []*trace.Trace) string {
	g := Build(traces)
	if err := g.Check(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "runs %d\n", g.Runs)
	for _, n := range g.Nodes {
		fmt.Fprintf(&b, "node %d %s visits=%d header=%v places=%v vars=%v\n", n.ID, n.Name, n.Visits, n.Header, n.Places, n.Vars)
	}
	for _, a := range g.Arcs {
		fmt.Fprintf(&b, "arc %d %s count=%d back=%v resets=%v\n", a.ID, a, a.Count, a.Back, a.Resets)
	}
	j, err := BuildJournal(g, traces, JournalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "space %d features:", j.Space.Len())
	for i := 0; i < j.Space.Len(); i++ {
		fmt.Fprintf(&b, " %s", j.Space.Name(i))
	}
	b.WriteString("\n")
	for _, n := range g.Nodes {
		if n.ID == End {
			continue
		}
		r := LearnRule(j, n, DefaultRuleOptions, regress.DefaultFitOptions)
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "rule %s %s\n", n.Name, js)
	}
	return b.String()
}

// TestGolden: the graph, journal space and rules learnt from each synthetic
// program equal testdata/NAME.golden (go test -run TestGolden -update rewrites
// them after a deliberate change; read the diff).
func TestGolden(t *testing.T) {
	for _, p := range goldenPrograms {
		t.Run(p.name, func(t *testing.T) {
			got := dump(t, p.traces(12))
			path := filepath.Join("testdata", p.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from what was learnt:\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}
