//go:build integration

package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/profile"
)

// TestHotcfgExactProfile: the profile of an exact trace ('sample --exact', then
// 'hotcfg EXACT --format profile') of a program built at -O0 agrees with count's
// profile of the same binary where both measure the same thing: every function of
// the program is called as often (testdata/calls.c: leaf 10 times, fact 5).
func TestHotcfgExactProfile(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "calls")
	cli := cliWant(t)
	cli(0, "cc", "-O0", "-g", "testdata/calls.c", "-o", bin)
	counted := filepath.Join(dir, "count.fpp")
	cli(0, "count", "--binary", bin, "--profile", counted, "-o", filepath.Join(dir, "count.txt"))
	exact := filepath.Join(dir, "exact.cfg")
	cli(0, "sample", "--exact", "-o", exact, "--", bin)
	traced := filepath.Join(dir, "exact.fpp")
	cli(0, "hotcfg", exact, "--format", "profile", "-o", traced)
	cp, err := profile.ParseFile(counted)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := profile.ParseFile(traced)
	if err != nil {
		t.Fatal(err)
	}
	if tp.Rates != nil {
		t.Errorf("the profile of an exact trace has rates")
	}
	calls := map[string]uint64{}
	for i, f := range tp.Program.Funcs {
		calls[f.Name] = tp.Counts[i].Calls()
	}
	want := map[string]uint64{"main": 1, "one": 1, "two": 1, "leaf": 10, "fact": 5}
	for i, f := range cp.Program.Funcs {
		n := cp.Counts[i].Calls()
		if want[f.Name] != n {
			t.Errorf("count: %s called %d times, want %d", f.Name, n, want[f.Name])
		}
		if got, ok := calls[f.Name]; !ok || got != n {
			t.Errorf("exact trace: %s called %d times (present: %v), count says %d", f.Name, got, ok, n)
		}
	}
	// Its DOT is the profile's: one() calls leaf 3 times from its loop, two() 5.
	dot, _ := cli(0, "hotcfg", exact, "--format", "dot")
	for _, w := range []string{`style=dashed label="call ×3"`, `style=dashed label="call ×5"`, "subgraph cluster_"} {
		if !strings.Contains(dot, w) {
			t.Errorf("hotcfg --format dot of the exact graph lacks %s:\n%s", w, dot)
		}
	}
	// The options that build a sampled graph do not apply to an exact one.
	cli(2, "hotcfg", exact, "--top", "3")
}

// TestHotcfgSampledProfile: a sampled hot CFG written as a profile is read by the
// profile readers (show, export, merge, report) and carries its edges' rates.
func TestHotcfgSampledProfile(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "loop")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "../../examples/hot/loop.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cli := cliWant(t)
	batches := filepath.Join(dir, "run.batches")
	cli(0, "sample", "--interval", "1ms", "--repeat", "2", "-o", batches, "--", prog, "300000")
	hot := filepath.Join(dir, "hot.fpp")
	cli(0, "hotcfg", batches, "--format", "profile", "-o", hot)
	p, err := profile.ParseFile(hot)
	if err != nil {
		t.Fatal(err)
	}
	if p.Runs != 2 || p.Rates == nil || p.Rates.Sampled == 0 {
		t.Fatalf("runs %d, rates %v", p.Runs, p.Rates)
	}
	var main int = -1
	for i, f := range p.Program.Funcs {
		if f.Name == "main" {
			main = i
		}
	}
	if main < 0 {
		t.Fatalf("no main in the hot profile:\n%s", p)
	}
	var estimated int
	for k, r := range p.Rates.Edges[main] {
		if r.Estimated && r.Rate > 0 && p.Counts[main].Edges[k] > 0 {
			estimated++
		}
	}
	if estimated == 0 {
		t.Errorf("main has no edge with an estimated rate: %+v", p.Rates.Edges[main])
	}
	out, _ := cli(0, "show", hot)
	if !strings.Contains(out, "main") {
		t.Errorf("show:\n%s", out)
	}
	out, _ = cli(0, "export", hot, "--format", "json")
	if !strings.Contains(out, `"name": "main"`) || !strings.Contains(out, `"rate": `) || !strings.Contains(out, `"sampled": `) {
		t.Errorf("export json:\n%.300s", out)
	}
	merged := filepath.Join(dir, "merged.fpp")
	cli(0, "merge", hot, hot, "-o", merged)
	m, err := profile.ParseFile(merged)
	if err != nil || m.Runs != 4 || m.Rates != nil {
		t.Errorf("merged: %v, runs %d, rates %v", err, m.Runs, m.Rates)
	}
	cli(0, "report", hot, "-o", filepath.Join(dir, "hot.html"))
}

// TestSampleProfile: 'sample --format profile' writes the profile of the run's hot
// CFG directly: the profile package reads it, with the run, the PCs the report
// counts and, for each observed edge, a rate that is its count over the PCs sampled
// (the ratio estimator of Bursts, up to the count's rounding). The conversion is
// hotcfg's: the profile sampledProfile makes of a record is byte for byte the one
// 'hotcfg --format profile' writes of it.
func TestSampleProfile(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "loop")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "../../examples/hot/loop.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cli := cliWant(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the batches go before they are converted
	direct := filepath.Join(dir, "run.fpp")
	_, errOut := cli(0, "sample", "--seed", "3", "--format", "profile", "-o", direct, "--", prog, "300000")
	if strings.Contains(errOut, "--compare EXACT") {
		t.Errorf("the report names a batches file that is not kept:\n%s", errOut)
	}
	p, err := profile.ParseFile(direct)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(\d+) PCs sampled`).FindStringSubmatch(errOut)
	if m == nil || p.Rates == nil || strconv.FormatUint(p.Rates.Sampled, 10) != m[1] || p.Runs != 1 {
		t.Fatalf("report %q; profile: runs %d, rates %v", m, p.Runs, p.Rates)
	}
	observed := 0
	for i := range p.Program.Funcs {
		for k, r := range p.Rates.Edges[i] {
			if !r.Estimated || r.Inferred {
				continue
			}
			observed++
			if n := float64(p.Counts[i].Edges[k]); math.Abs(r.Rate*float64(p.Rates.Sampled)-n) > 0.5 || r.StdErr < 0 {
				t.Errorf("%s edge %d: rate %v ± %v over %d PCs, count %v", p.Program.Funcs[i].Name, k, r.Rate, r.StdErr, p.Rates.Sampled, n)
			}
		}
	}
	if observed == 0 {
		t.Errorf("no observed edge has a rate:\n%s", p)
	}
	if es, err := os.ReadDir(tmp); err != nil || len(es) != 0 {
		t.Errorf("sample --format profile left its batches behind: %v %v", es, err)
	}

	rec := filepath.Join(dir, "run.rec")
	cli(0, "sample", "--seed", "3", "-o", rec, "--", prog, "300000")
	viaHotcfg := filepath.Join(dir, "hot.fpp")
	cli(0, "hotcfg", rec, "--format", "profile", "-o", viaHotcfg)
	data, err := hotcfg.ReadBatchFiles([]string{rec})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := sampledProfile(data).Write(&buf); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(viaHotcfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the profile sample makes of the record differs from hotcfg's (%d and %d bytes)", buf.Len(), len(want))
	}
}
