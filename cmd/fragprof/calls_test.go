//go:build integration

package main

// Tests of call edges: the calls a program built by 'fragprof cc' makes
// are counted exactly in count's JSON, and 'export --format pprof' gives the blocks
// call stacks, each block's count split among its function's callers in proportion
// to their calls.

import (
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/fragprof/fragprof/internal/report"
)

// callsProfile builds testdata/calls.c with fragprof cc, runs it with count --binary
// and returns the paths of its profile and of count's JSON.
func callsProfile(t *testing.T) (fpp, js string) {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "calls")
	if _, stderr, code := cli(t, "", "cc", "testdata/calls.c", "-o", bin); code != 0 {
		t.Fatalf("fragprof cc: exit %d\n%s", code, stderr)
	}
	fpp, js = filepath.Join(dir, "calls.fpp"), filepath.Join(dir, "calls.json")
	if _, stderr, code := cli(t, "", "count", "--binary", bin, "--profile", fpp, "--json", "-o", js); code != 0 {
		t.Fatalf("fragprof count: exit %d\n%s", code, stderr)
	}
	return fpp, js
}

// TestCountCallEdges: count --json lists every block's calls with their exact counts
// (the block's count × its call sites), and export --format json the same.
func TestCountCallEdges(t *testing.T) {
	fpp, js := callsProfile(t)
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	exported, stderr, code := cli(t, "", "export", fpp, "--format", "json")
	if code != 0 {
		t.Fatalf("export json: exit %d\n%s", code, stderr)
	}
	for what, text := range map[string]string{"count --json": string(data), "export --format json": exported} {
		var j report.JSONProgram
		if err := json.Unmarshal([]byte(text), &j); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := map[string]string{}
		for _, f := range j.Functions {
			var es []string
			for _, e := range f.CallEdges {
				es = append(es, fmt.Sprintf("%s@%d×%d=%d", e.Callee, e.Block, e.Sites, deref(e.Count)))
			}
			got[f.Name] = strings.Join(es, " ")
		}
		want := map[string]string{
			"main": "one@0×1=1 two@0×1=1 fact@0×1=1 printf@0×1=1",
			"one":  "leaf@3×1=3",
			"two":  "leaf@0×2=2 leaf@3×1=5",
			"fact": "fact@2×1=4",
			"leaf": "",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: call edges\n%q\nwant\n%q", what, got, want)
		}
	}
}

// TestExportPprofCallStacks: leaf's blocks are split among its three calling blocks
// exactly as 3 : 2 : 5 of its 10 calls, each under main; fact's recursive calls are
// attributed to main's one call; flat values are those of a profile without calls
// (single-frame samples), and go tool pprof -top -cum shows main with all the
// executions.
func TestExportPprofCallStacks(t *testing.T) {
	fpp, _ := callsProfile(t)
	dir := filepath.Dir(fpp)
	p := mustRead(t, fpp)
	pb := filepath.Join(dir, "calls.pb.gz")
	if _, stderr, code := cli(t, "", "export", fpp, "--format", "pprof", "-o", pb); code != 0 {
		t.Fatalf("export pprof: exit %d\n%s", code, stderr)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	pp, err := pprof.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	// The calling blocks, by their locations' lines.
	line := map[string]int64{}
	var total, leafTotal uint64
	for i, fn := range p.Program.Funcs {
		for _, b := range fn.Blocks {
			total += p.Counts[i].Blocks[b.ID]
			if fn.Name == "leaf" {
				leafTotal += p.Counts[i].Blocks[b.ID]
			}
			if len(b.Calls) > 0 {
				line[fmt.Sprintf("%s.%d", fn.Name, b.ID)] = int64(b.Start.Line)
			}
		}
	}
	if leafTotal != 160 {
		t.Fatalf("leaf's blocks ran %d times, want 160 (10 calls of 16 block executions)", leafTotal)
	}
	byCaller := map[string]int64{}
	flat := map[string]int64{}
	for _, s := range pp.Sample {
		var frames []string
		for _, l := range s.Location {
			frames = append(frames, l.Line[0].Function.Name)
		}
		flat[frames[0]] += s.Value[0]
		stack := strings.Join(frames, " ")
		switch frames[0] {
		case "leaf":
			if stack != "leaf one main" && stack != "leaf two main" {
				t.Errorf("leaf's stack %q", stack)
			}
			byCaller[fmt.Sprintf("%s:%d", frames[1], s.Location[1].Line[0].Line)] += s.Value[0]
		case "one", "two", "fact":
			if stack != frames[0]+" main" {
				t.Errorf("%s's stack %q", frames[0], stack)
			}
		case "main":
			if len(frames) != 1 {
				t.Errorf("main's stack %q", stack)
			}
		}
	}
	want := map[string]int64{
		fmt.Sprintf("one:%d", line["one.3"]): 160 * 3 / 10,
		fmt.Sprintf("two:%d", line["two.0"]): 160 * 2 / 10,
		fmt.Sprintf("two:%d", line["two.3"]): 160 * 5 / 10,
	}
	if !reflect.DeepEqual(byCaller, want) {
		t.Errorf("leaf's executions by calling block %v, want %v", byCaller, want)
	}
	for i, fn := range p.Program.Funcs {
		var n int64
		for _, c := range p.Counts[i].Blocks {
			n += int64(c)
		}
		if flat[fn.Name] != n {
			t.Errorf("flat %s = %d, want its blocks' %d", fn.Name, flat[fn.Name], n)
		}
	}

	// go tool pprof: flat as without calls, main's cum the total.
	for _, fn := range p.Program.Funcs {
		for _, b := range fn.Blocks {
			b.Calls = nil
		}
	}
	old := filepath.Join(dir, "nocalls.fpp")
	if err := p.WriteFile(old); err != nil {
		t.Fatal(err)
	}
	oldPb := filepath.Join(dir, "nocalls.pb.gz")
	if _, stderr, code := cli(t, "", "export", old, "--format", "pprof", "-o", oldPb); code != 0 {
		t.Fatalf("export pprof without calls: exit %d\n%s", code, stderr)
	}
	top := func(file string) map[string][2]int64 {
		t.Helper()
		res, err := osexec.Command("go", "tool", "pprof", "-top", "-cum", file).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top -cum: %v\n%s", err, res)
		}
		out := map[string][2]int64{}
		for _, l := range strings.Split(string(res), "\n") {
			fs := strings.Fields(l)
			if len(fs) != 6 || !strings.HasSuffix(fs[1], "%") {
				continue
			}
			flat, err1 := strconv.ParseInt(fs[0], 10, 64)
			cum, err2 := strconv.ParseInt(fs[3], 10, 64)
			if err1 == nil && err2 == nil {
				out[fs[5]] = [2]int64{flat, cum}
			}
		}
		return out
	}
	with, without := top(pb), top(oldPb)
	if len(with) != 5 || len(without) != 5 {
		t.Fatalf("go tool pprof -top -cum: %v and %v, want 5 functions", with, without)
	}
	for name, fc := range without {
		if with[name][0] != fc[0] || fc[1] != fc[0] {
			t.Errorf("%s: flat %d with calls, %d without (cum %d)", name, with[name][0], fc[0], fc[1])
		}
	}
	if with["main"][1] != int64(total) || with["one"][1] != with["one"][0]+48 || with["two"][1] != with["two"][0]+112 {
		t.Errorf("cum with calls: %v (total %d)", with, total)
	}
}
