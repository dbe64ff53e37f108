//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/fragprof/fragprof/internal/report"
)

// TestSampleHotcfgCLI runs the documented workflow end to end: sample --exact, sample,
// hotcfg with both builders, --compare --json, --sweep and DOT.
func TestSampleHotcfgCLI(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "loop")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "../../examples/hot/loop.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	exact := filepath.Join(dir, "exact.cfg")
	batches := filepath.Join(dir, "run.batches")
	cli := cliWant(t)
	out, errOut := cli(0, "sample", "--exact", "-o", exact, "--", prog, "20")
	if out != "40000\n" || !strings.Contains(errOut, "instructions") {
		t.Errorf("exact: stdout %q stderr %q", out, errOut)
	}
	_, errOut = cli(0, "sample", "--interval", "1ms", "--repeat", "3", "--measure-overhead", "-o", batches, "--", prog, "20")
	if !strings.Contains(errOut, "overhead:") || !strings.Contains(errOut, "3 run(s)") {
		t.Errorf("sample: %s", errOut)
	}
	out, _ = cli(0, "hotcfg", batches, "--compare", exact, "--json")
	var c map[string]any
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("compare json: %v\n%s", err, out)
	}
	for _, k := range []string{"similarity", "precision", "weighted", "sampled_fraction", "edges", "hot_edges"} {
		if _, ok := c[k]; !ok {
			t.Errorf("compare json lacks %q: %s", k, out)
		}
	}
	if _, ok := c["inferred"]; !ok {
		t.Errorf("compare json lacks \"inferred\": %s", out)
	}
	// Observed edges only, and the first batch only: never more similar than all
	// batches with inference.
	for _, args := range [][]string{{"--infer=false"}, {"--first", "1"}} {
		o, _ := cli(0, append([]string{"hotcfg", batches, "--compare", exact, "--json"}, args...)...)
		var d map[string]any
		if err := json.Unmarshal([]byte(o), &d); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if d["similarity"].(float64) > c["similarity"].(float64) {
			t.Errorf("%v: similarity %v above that of all batches with inference, %v", args, d["similarity"], c["similarity"])
		}
		if args[0] == "--infer=false" && d["inferred"].(float64) != 0 {
			t.Errorf("--infer=false: %v inferred edges", d["inferred"])
		}
	}
	// The adaptive interval reports the sampler's own time.
	_, errOut = cli(0, "sample", "--sampler", "ptrace", "--overhead", "5%", "--interval", "1ms", "-o", batches, "--", prog, "2000000")
	if !strings.Contains(errOut, "sampler time") {
		t.Errorf("sample --overhead: %s", errOut)
	}
	cli(2, "sample", "--overhead", "150%", "-o", batches, "--", prog, "20")
	out, _ = cli(0, "hotcfg", batches, "--algo", "gfc", "--format", "dot")
	if !strings.HasPrefix(out, "digraph") {
		t.Errorf("dot: %q", out)
	}
	// The JSON of the graph is report's document (docs/json.md): the profile's
	// functions with the observed edges' rates, the graph by address, and with
	// --compare the comparison; the exact graph is one too.
	out, _ = cli(0, "hotcfg", batches, "--compare", exact)
	var doc report.JSONProgram
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("json graph: %v\n%.200s", err, out)
	}
	rated := 0
	for _, f := range doc.Functions {
		for _, e := range f.Edges {
			if e.Rate != nil && *e.Rate > 0 {
				rated++
			}
		}
	}
	if doc.Sampled == 0 || rated == 0 || doc.Graph == nil || doc.Graph.Sampled != doc.Sampled || len(doc.Graph.Edges) == 0 || doc.Compare == nil || doc.Compare.HotEdges == 0 || doc.Compare.Edges != len(doc.Graph.Edges) {
		t.Errorf("json graph: sampled %d, %d edges with a rate, graph %v, compare %+v", doc.Sampled, rated, doc.Graph != nil, doc.Compare)
	}
	data, err := os.ReadFile(exact)
	if err != nil {
		t.Fatal(err)
	}
	var ex report.JSONProgram
	if err := json.Unmarshal(data, &ex); err != nil || ex.Graph == nil || ex.Graph.Instructions == 0 || ex.Graph.Sampled != 0 || len(ex.Functions) == 0 {
		t.Errorf("exact graph: %v, graph %v, %d functions", err, ex.Graph != nil, len(ex.Functions))
	}
	out, _ = cli(0, "hotcfg", batches, "--compare", exact, "--sweep")
	if !strings.Contains(out, "#45") || !strings.Contains(out, "bursts") {
		t.Errorf("sweep:\n%s", out)
	}
	cli(2, "hotcfg", batches, "--algo", "nope")
	cli(2, "sample")
	cli(2, "hotcfg", batches, "--sweep")
}

// TestSampleInProcessStacks samples a program built without frame pointers with the
// in-process sampler (the default) and checks the documented outputs: the pprof
// export has the real call stacks (leaf ← mid ← top ← main, unwound through
// .eh_frame), so that main's cumulative count is all of it and its flat count
// none; --top names the hot function with its source line; and --measure-overhead
// reports the CPU-time ratio with a confidence interval.
func TestSampleInProcessStacks(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "deep")
	if b, err := exec.Command("gcc", "-O2", "-g", "-fomit-frame-pointer", "-o", prog, "testdata/deep.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	batches := filepath.Join(dir, "d.batches")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"sample", "--interval", "1ms", "--repeat", "3", "--measure-overhead", "-o", batches, "--", prog, "30000000"},
		strings.NewReader(""), &stdout, &stderr); got != 0 {
		t.Fatalf("sample: exit %d\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), "CPU time (user+sys, process tree) sampled/unsampled") || strings.Count(stdout.String(), "\n") != 3 {
		t.Errorf("sample: stdout %q\n%s", stdout.String(), stderr.String())
	}
	pb := filepath.Join(dir, "d.pb.gz")
	stderr.Reset()
	if got := run([]string{"export", batches, "--format", "pprof", "-o", pb}, strings.NewReader(""), &stdout, &stderr); got != 0 {
		t.Fatalf("export: exit %d\n%s", got, stderr.String())
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := pprof.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	flat, cum := map[string]int64{}, map[string]int64{}
	var total, full int64
	for _, s := range p.Sample {
		total += s.Value[0]
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		flat[names[0]] += s.Value[0]
		seen := map[string]bool{}
		for _, n := range names {
			if !seen[n] {
				cum[n] += s.Value[0]
				seen[n] = true
			}
		}
		if strings.HasPrefix(strings.Join(names, " "), "leaf mid top main") {
			full += s.Value[0]
		}
	}
	if total == 0 || full < total/2 || flat["main"] != 0 || cum["main"] < total*9/10 {
		t.Errorf("pprof: %d PCs, %d with the stack leaf mid top main; flat %v, cum %v", total, full, flat, cum)
	}
	stdout.Reset()
	if got := run([]string{"hotcfg", batches, "--top", "3"}, strings.NewReader(""), &stdout, &stderr); got != 0 {
		t.Fatalf("hotcfg --top: exit %d\n%s", got, stderr.String())
	}
	if !regexp.MustCompile(`\n +[0-9.]+% +[0-9]+ +leaf +deep +deep\.c:\d+`).MatchString(stdout.String()) {
		t.Errorf("hotcfg --top:\n%s", stdout.String())
	}
}

// TestSampleUntilSimilarity repeats runs of a short loop until the hot CFG's own
// estimate of its similarity reaches 90%: it must stop long before the bound on
// runs, write the estimate into the batches file, and say so; with too few runs
// allowed it must say that the target was not reached; a share above 1 is refused.
func TestSampleUntilSimilarity(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "loop")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "../../examples/hot/loop.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	batches := filepath.Join(dir, "run.batches")
	cli := func(want int, args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if got := run(args, strings.NewReader(""), &stdout, &stderr); got != want {
			t.Fatalf("fragprof %v: exit %d, want %d\n%s", args, got, want, stderr.String())
		}
		return stderr.String()
	}
	// About 35 ms of CPU a run on a 2-core VM, about 3 bursts of 200 (the
	// flag's default; their cost stretches the interval) a run: the 1,000 batches
	// the rule needs before it stops in about 340 runs, 12 s. (At 150000 steps a
	// run took 10 ms there: 795 runs with bursts of 100.)
	errOut := cli(0, "sample", "--until-similarity", "90%", "--repeat", "2000", "-o", batches, "--", prog, "600000")
	m := regexp.MustCompile(`(\d+) batches, .* in (\d+) run\(s\)`).FindStringSubmatch(errOut)
	if m == nil || !strings.Contains(errOut, "estimated similarity") || strings.Contains(errOut, "not reached") {
		t.Fatalf("sample --until-similarity: %s", errOut)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1000 {
		t.Errorf("sample --until-similarity 90%%: stopped at %s batches, below the 1,000 the rule needs", m[1])
	}
	if runs, _ := strconv.Atoi(m[2]); runs >= 2000 {
		t.Errorf("sample --until-similarity 90%%: %s runs, the bound: it did not stop", m[2])
	}
	data, err := os.ReadFile(batches)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^info burst 200$`).Match(data) {
		t.Errorf("--until-similarity without --burst: want bursts of 200 in process (info burst 200)")
	}
	est := regexp.MustCompile(`(?m)^info estimated_similarity ([0-9.]+)$`).FindSubmatch(data)
	if est == nil {
		t.Fatalf("no estimated_similarity in the batches file")
	}
	if v, _ := strconv.ParseFloat(string(est[1]), 64); v < 0.9 || v > 1 {
		t.Errorf("estimated similarity %v after stopping, want in [0.9, 1]", v)
	}
	errOut = cli(0, "sample", "--until-similarity", "90%", "--repeat", "2", "-o", batches, "--", prog, "2000")
	if !strings.Contains(errOut, "not reached in 2 runs") {
		t.Errorf("sample --until-similarity with 2 runs: %s", errOut)
	}
	cli(0, "sample", "--until-similarity", "90%", "--burst", "30", "--repeat", "2", "-o", batches, "--", prog, "2000")
	if data, err := os.ReadFile(batches); err != nil || !regexp.MustCompile(`(?m)^info burst 30$`).Match(data) {
		t.Errorf("--until-similarity --burst 30: want info burst 30 (%v)", err)
	}
	cli(2, "sample", "--until-similarity", "150%", "-o", batches, "--", prog, "20")
}

// TestSampleThinning: 40 runs of a program of a fraction of a millisecond, whose
// preloaded sampler's start alone costs more than --overhead 1%, are thinned — some
// sampled, some left plain, as the report and the batches file say — and every run
// still prints its output.
func TestSampleThinning(t *testing.T) {
	printf, err := exec.LookPath("printf")
	if err != nil {
		t.Fatal("printf(1) is needed (coreutils)")
	}
	batches := filepath.Join(t.TempDir(), "p.batches")
	var stdout, stderr bytes.Buffer
	if got := run([]string{"sample", "--repeat", "40", "--overhead", "1%", "--seed", "3", "-o", batches, "--", printf, `x\n`},
		strings.NewReader(""), &stdout, &stderr); got != 0 {
		t.Fatalf("sample: exit %d\n%s", got, stderr.String())
	}
	if n := strings.Count(stdout.String(), "x\n"); n != 40 {
		t.Errorf("%d outputs of 40 runs", n)
	}
	var sampled, runs, plain int
	for _, l := range strings.Split(stderr.String(), "\n") {
		if _, err := fmt.Sscanf(l, "fragprof sample: %d of %d runs sampled, drawn at random; the other %d ran plain", &sampled, &runs, &plain); err == nil {
			break
		}
	}
	if runs != 40 || sampled < 1 || sampled >= 40 || sampled+plain != 40 {
		t.Fatalf("thinning: %d of %d runs sampled, %d plain; want some of 40 sampled and the rest plain\n%s", sampled, runs, plain, stderr.String())
	}
	data, err := os.ReadFile(batches)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"info runs 40\n", fmt.Sprintf("info sampled_runs %d\n", sampled)} {
		if !strings.Contains(string(data), want) {
			t.Errorf("batches file lacks %q", want)
		}
	}
}

// TestSampleSteppingAndCost checks what `sample` says about its stepping and its
// cost: --probe-host prints one line per stepping method (and takes no program);
// a sampled run reports the methods that stepped its bursts (also in the batches
// file, info stepping); its cost counts fragprof itself; and the start-cost
// calibration is measured once, kept under $XDG_CACHE_HOME, and read back by the
// next invocation.
func TestSampleSteppingAndCost(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FRAGPROF_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	prog := filepath.Join(dir, "spin")
	if b, err := exec.Command("gcc", "-O2", "-o", prog, "testdata/cputime.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cli := cliWant(t)
	out, _ := cli(0, "sample", "--probe-host")
	for _, m := range []string{"int3 breakpoints: ", "hardware breakpoints: ", "the trap flag: "} {
		if !strings.Contains(out, "this host: "+m) {
			t.Errorf("--probe-host does not say whether %s deliver:\n%s", m, out)
		}
	}
	cli(2, "sample", "--probe-host", "--", prog)
	batches := filepath.Join(dir, "s.batches")
	for i, want := range []string{"measured now on true(1) and kept in " + filepath.Join(dir, "cache", "fragprof"), "measured on true(1) once on this machine"} {
		out, errOut := cli(0, "sample", "-o", batches, "--", prog, "20000")
		if out != "1\n" {
			t.Errorf("run %d: output %q", i, out)
		}
		for _, s := range []string{"stepping: one thread: ", want, "fragprof itself ", "% over the program's own CPU time"} {
			if !strings.Contains(errOut, s) {
				t.Errorf("run %d: the report lacks %q:\n%s", i, s, errOut)
			}
		}
		// What it waits for, said before it waits: only when it measures.
		if says := strings.Contains(errOut, "measuring the in-process sampler's start"); says != (i == 0) {
			t.Errorf("run %d: says it measures the start: %v:\n%s", i, says, errOut)
		}
	}
	b, err := os.ReadFile(batches)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^info stepping one thread: `).Match(b) {
		t.Errorf("the batches file has no info stepping line")
	}
}

// cliWant returns a runner of fragprof (stdin empty) that fails t unless the exit
// status is want, and returns stdout and stderr.
func cliWant(t *testing.T) func(want int, args ...string) (string, string) {
	return func(want int, args ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if got := run(args, strings.NewReader(""), &stdout, &stderr); got != want {
			t.Fatalf("fragprof %v: exit %d, want %d\n%s", args, got, want, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
}
