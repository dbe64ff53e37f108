//go:build integration

package main

// Tests of edge profiling: the three counter schemes agree, continuous mode
// survives SIGKILL, and the profile-file commands (merge, show, export, diff, pgo)
// work end to end on real programs built by clang.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

// countsOf strips a report to what the schemes must agree on.
func countsOf(p report.JSONProgram) string {
	var sb strings.Builder
	for _, f := range p.Functions {
		fmt.Fprintf(&sb, "%s calls=%d blocks=", f.Name, deref(f.Calls))
		for _, b := range f.Blocks {
			fmt.Fprintf(&sb, "%d,", deref(b.Count))
		}
		sb.WriteString(" edges=")
		for _, e := range f.Edges {
			fmt.Fprintf(&sb, "%d,", deref(e.Count))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

var schemes = []string{"chords", "edges", "blocks"}

// ownFuncs keeps the functions of a C++ example's own file. The C++ library's
// templates it instantiates (std::min, char_traits::compare) also run inside library
// functions that the optimiser may inline into the program (available_externally
// definitions such as std::string::compare), and how much it inlines depends on the
// code around the call, counters included: their counts are exact for each build but
// differ between builds (docs/cxx.md).
func ownFuncs(p report.JSONProgram, path string) report.JSONProgram {
	if !strings.HasSuffix(path, ".cpp") {
		return p
	}
	q := p
	q.Functions = nil
	for _, f := range p.Functions {
		if filepath.Base(f.File) == filepath.Base(path) {
			q.Functions = append(q.Functions, f)
		}
	}
	return q
}

// agree counts ex under every scheme and fails unless all give the same counts and
// chords use no more counters than blocks; it returns the chords report.
func agree(t *testing.T, ex example, extra ...string) report.JSONProgram {
	t.Helper()
	var first report.JSONProgram
	for i, s := range schemes {
		p := countExample(t, ex, append([]string{"--counters", s}, extra...)...)
		if i == 0 {
			first = p
			continue
		}
		if got, want := countsOf(ownFuncs(p, ex.path)), countsOf(ownFuncs(first, ex.path)); got != want {
			t.Fatalf("%s: --counters %s counts\n%s\nbut chords count\n%s", ex.path, s, got, want)
		}
		if s == "blocks" && first.Counters > p.Counters {
			t.Errorf("%s: chords use %d counters, blocks %d", ex.path, first.Counters, p.Counters)
		}
	}
	return first
}

// TestCountersAgreeExamples: on every example, chords, edges and blocks give identical
// block and edge counts (TestExampleCounts checks the examples' own expectations
// under blocks and edges, so they hold under chords too).
func TestCountersAgreeExamples(t *testing.T) {
	for _, file := range exampleFiles(t) {
		ex := runOf(t, file)
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			agree(t, ex)
		})
	}
}

// runOf reads how an example is run (stdin, args, exit, signal) and nothing else.
func runOf(t *testing.T, path string) example {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ex := example{path: path}
	for _, line := range strings.Split(string(data), "\n") {
		m := reDirective.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "stdin":
			ex.stdin = m[2] + "\n"
		case "args":
			ex.args = strings.Fields(m[2])
		case "exit":
			fmt.Sscan(m[2], &ex.exit)
		case "signal":
			ex.exit = 128 + signals[m[2]]
		}
	}
	return ex
}

// TestCountersAgreeEarlyExit: runs that end by exit() deep down, abort(), raise(),
// longjmp out of nested calls, SIGSEGV, SIGFPE and exit() from a signal handler are
// counted identically by every scheme: the chords' virtual edges to EXIT, and at
// -O0 the stops the runtime finds by walking the stack, account for every block
// where an activation stopped. The faults run at -O2 and at -O0.
func TestCountersAgreeEarlyExit(t *testing.T) {
	cases := []struct {
		mode, opt string
		exit      int
	}{{"0", "-O2", 0}, {"1", "-O2", 3}, {"2", "-O2", 128 + 6}, {"3", "-O2", 128 + 15}, {"4", "-O2", 0},
		{"5", "-O2", 128 + 11}, {"6", "-O2", 128 + 8}, {"7", "-O2", 40}, {"8", "-O2", 128 + 11},
		{"9", "-O2", 128 + 11}, {"11", "-O2", 128 + 11},
		{"5", "-O0", 128 + 11}, {"6", "-O0", 128 + 8}, {"8", "-O0", 128 + 11}, {"9", "-O0", 128 + 11},
		{"11", "-O0", 128 + 11}}
	for _, c := range cases {
		t.Run("mode"+c.mode+c.opt, func(t *testing.T) {
			t.Parallel()
			ex := example{path: "testdata/early.c", args: []string{c.mode}, exit: c.exit}
			p := agree(t, ex, "--opt", c.opt)
			var work *report.JSONFunc
			for i := range p.Functions {
				if p.Functions[i].Name == "work" {
					work = &p.Functions[i]
				}
			}
			if work == nil || deref(work.Calls) != 1 {
				t.Errorf("work called %v times, want 1", work)
			}
		})
	}
}

// TestCountersAgreeEHFault: C++ at -O0, a fault inside a catch handler: the walk's
// table names landing pads too, and the typed-pointer dialect spells the functions'
// types (a personality routine's variadic type in the define line is not theirs).
func TestCountersAgreeEHFault(t *testing.T) {
	agree(t, example{path: "testdata/ehfault.cpp", args: []string{"x"}, exit: 128 + 11}, "--opt", "-O0")
}

// TestStackOverflowUnwalked: at -O0 the runtime finds where a fault stopped each
// activation by walking the stack, but not after a stack overflow, whose fault may
// strike in a prologue before the frame pointer moved: the report says that the
// counts where the functions stopped may be off by one, rather than trust the walk.
func TestStackOverflowUnwalked(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"count", "testdata/early.c", "--opt", "-O0", "--", "10"}, strings.NewReader(""), &stdout, &stderr)
	if code != 128+11 {
		t.Fatalf("exit %d, want %d\n%s", code, 128+11, stderr.String())
	}
	for _, want := range []string{"a stack overflow", "the walk of its stack", "may be off by one"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, stderr.String())
		}
	}
}

// csmithSeeds are csmith programs that terminate in milliseconds (csmith 2.3 as
// Debian packages it).
var csmithSeeds = []int{1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 15}

// TestCountersAgreeCsmith: the schemes agree on random C programs from csmith, whose
// CFGs are far more tangled than anything written by hand.
func TestCountersAgreeCsmith(t *testing.T) {
	if _, err := osexec.LookPath("csmith"); err != nil {
		t.Fatal("csmith is not installed: run scripts/deps.sh (Debian: apt-get install csmith libcsmith-dev)")
	}
	if _, err := os.Stat("/usr/include/csmith/csmith.h"); err != nil {
		t.Fatal("csmith's headers are not installed: run scripts/deps.sh (Debian: apt-get install libcsmith-dev)")
	}
	seeds := csmithSeeds
	if testing.Short() {
		seeds = seeds[:3]
	}
	dir := t.TempDir()
	for _, seed := range seeds {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			t.Parallel()
			agree(t, example{path: csmithProgram(t, dir, seed)}, "--cflags", "-I/usr/include/csmith -w")
		})
	}
}

// csmithProgram writes csmith's program of seed into dir and returns its path.
func csmithProgram(t *testing.T, dir string, seed int) string {
	t.Helper()
	src := filepath.Join(dir, fmt.Sprintf("cs%d.c", seed))
	cmd := osexec.Command("csmith", "--seed", fmt.Sprint(seed), "-o", src)
	// csmith reads and writes platform.info in its working directory: one
	// directory each, or parallel runs race on it.
	cmd.Dir = t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("csmith: %v\n%s", err, out)
	}
	return src
}

// TestContinuousKill: in continuous mode the counters live in a mapped file, so a
// program killed by SIGKILL — which no handler can catch — keeps its counts. The
// program is killed while it waits in pause(), a call, so the chord counts are exact.
func TestContinuousKill(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "kill")
	if _, stderr, code := cli(t, "", "cc", "-O2", "testdata/kill.c", "-o", bin); code != 0 {
		t.Fatalf("fragprof cc: exit %d\n%s", code, stderr)
	}
	out := filepath.Join(dir, "counts.fpd")
	cmd := osexec.Command(bin)
	cmd.Env = append(os.Environ(), "FRAGPROF_OUT="+out, "FRAGPROF_CONTINUOUS=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if !strings.HasPrefix(s, "ready") {
			t.Fatalf("program said %q", s)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the program never said it was ready")
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL, by pid
		t.Fatal(err)
	}
	cmd.Wait()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("no counts after SIGKILL: %v", err)
	}
	d, err := dump.Parse(out, data)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Continuous || d.Finished {
		t.Errorf("dump continuous=%v finished=%v, want a continuous dump that did not finish", d.Continuous, d.Finished)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	step := p.Program.Func("step")
	if step == nil {
		t.Fatal("no function step in the profile")
	}
	for i, f := range p.Program.Funcs {
		if f == step && p.Counts[i].Calls() != 1000 {
			t.Errorf("step called %d times before the kill, want 1000", p.Counts[i].Calls())
		}
	}
	if len(d.Warnings) == 0 || !strings.Contains(d.Warnings[0], "killed") {
		t.Errorf("warnings %q do not say the program was killed", d.Warnings)
	}
}

// profileOf counts testdata/early.c (copied to src) with the given mode into a
// profile file and returns its path.
func profileOf(t *testing.T, src, mode, name string) string {
	t.Helper()
	fpp := filepath.Join(filepath.Dir(src), name)
	_, stderr, code := cli(t, "", "count", src, "--profile", fpp, "-o", filepath.Join(filepath.Dir(src), name+".txt"), "--", mode)
	if code != 0 && code != 3 {
		t.Fatalf("fragprof count: exit %d\n%s", code, stderr)
	}
	return fpp
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestProfileCommands: count --profile, then merge, show, export (json, dot,
// pprof read back by go tool pprof) and diff on the files.
func TestProfileCommands(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "early.c")
	copyFile(t, "testdata/early.c", src)
	a := profileOf(t, src, "0", "a.fpp") // returns normally
	b := profileOf(t, src, "1", "b.fpp") // exit(3) at i == 7
	all := filepath.Join(dir, "all.fpp")
	if _, stderr, code := cli(t, "", "merge", a, b, b, "--weights", "1,2,1", "-o", all); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	pa, pb, pall := mustRead(t, a), mustRead(t, b), mustRead(t, all)
	if pall.Runs != 4 {
		t.Errorf("merged runs = %d, want 4", pall.Runs)
	}
	for i, f := range pall.Program.Funcs {
		for k, n := range pall.Counts[i].Blocks {
			want := pa.Counts[i].Blocks[k] + 3*pb.Counts[i].Blocks[k]
			if n != want {
				t.Fatalf("merged %s block %d = %d, want %d", f.Name, k, n, want)
			}
		}
	}

	t.Run("show", func(t *testing.T) {
		out, stderr, code := cli(t, "", "show", all)
		if code != 0 || !strings.Contains(out, "4 run(s)") || !strings.Contains(out, "work") || !strings.Contains(out, "%") {
			t.Errorf("show: exit %d\n%s%s", code, out, stderr)
		}
		out, _, code = cli(t, "", "show", all, "--func", "deep", "--order", "source")
		if code != 0 || strings.Contains(out, "middle") || !strings.Contains(out, "deep") {
			t.Errorf("show --func deep:\n%s", out)
		}
		out, _, code = cli(t, "", "show", all, "--source")
		// Line 66, "static int middle(...)", ran 12 times per normal run and 8 times
		// per exit run: 12 + 3·8 = 36 in all.
		if code != 0 || !strings.Contains(out, "       36:   66:static int middle") || !strings.Contains(out, "#####:") {
			t.Errorf("show --source:\n%s", out)
		}
		_, stderr, code = cli(t, "", "show", all, "--func", "nosuch")
		if code != 2 || !strings.Contains(stderr, "no function \"nosuch\"") {
			t.Errorf("show --func nosuch: exit %d, %s", code, stderr)
		}
	})

	t.Run("export", func(t *testing.T) {
		out, _, code := cli(t, "", "export", all, "--format", "json")
		var j report.JSONProgram
		if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.Runs != 4 || j.Counters == 0 || len(j.Functions) != len(pall.Program.Funcs) {
			t.Errorf("export json: exit %d, runs %d, counters %d\n%.300s", code, j.Runs, j.Counters, out)
		}
		out, _, code = cli(t, "", "export", all, "--format", "dot")
		if code != 0 || !strings.HasPrefix(out, "digraph") {
			t.Errorf("export dot: %.200s", out)
		}
		pb := filepath.Join(dir, "all.pb.gz")
		if _, stderr, code := cli(t, "", "export", all, "--format", "pprof", "-o", pb); code != 0 {
			t.Fatalf("export pprof: %s", stderr)
		}
		top := osexec.Command("go", "tool", "pprof", "-top", pb)
		res, err := top.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top: %v\n%s", err, res)
		}
		// work and middle run as often as deep: all three are in the top list,
		// measured in executions.
		for _, want := range []string{"Type: executions", "work", "middle", "deep"} {
			if !strings.Contains(string(res), want) {
				t.Errorf("go tool pprof -top does not show %q:\n%s", want, res)
			}
		}
		list := osexec.Command("go", "tool", "pprof", "-list", "middle", pb)
		list.Dir = dir // the sources are found relative to where they were compiled
		res, err = list.CombinedOutput()
		if err != nil || !strings.Contains(string(res), "static int middle") {
			t.Errorf("go tool pprof -list middle: %v\n%s", err, res)
		}
	})

	t.Run("diff", func(t *testing.T) {
		out, _, code := cli(t, "", "diff", a, b)
		if code != 0 || !strings.Contains(out, "program overlap") || !strings.Contains(out, "blocks that moved most") {
			t.Errorf("diff: exit %d\n%s", code, out)
		}
		out, _, _ = cli(t, "", "diff", a, a)
		if !strings.Contains(out, "program overlap: 100.00%") {
			t.Errorf("a profile against itself:\n%s", out)
		}
	})

	t.Run("mismatch", func(t *testing.T) {
		// The same file, edited: functions keep their names but not their CFGs.
		copyFile(t, "testdata/early_edited.c", src)
		defer copyFile(t, "testdata/early.c", src)
		c := profileOf(t, src, "0", "c.fpp")
		_, stderr, code := cli(t, "", "merge", a, c, "-o", filepath.Join(dir, "bad.fpp"))
		if code != 1 || !strings.Contains(stderr, a) || !strings.Contains(stderr, c) || !strings.Contains(stderr, "function ") {
			t.Errorf("merge of mismatched profiles: exit %d, %s", code, stderr)
		}
		skip := filepath.Join(dir, "skip.fpp")
		_, stderr, code = cli(t, "", "merge", a, c, "-o", skip, "--skip-mismatched")
		if code != 0 || !strings.Contains(stderr, "warning: merge: dropped function") {
			t.Errorf("merge --skip-mismatched: exit %d, %s", code, stderr)
		}
		if p := mustRead(t, skip); p.Program.Func("work") != nil || p.Program.Func("middle") == nil {
			t.Errorf("--skip-mismatched kept work or dropped middle (whose CFG did not change)")
		}
	})

	t.Run("corrupt", func(t *testing.T) {
		data, _ := os.ReadFile(a)
		data[len(data)/2] ^= 1
		bad := filepath.Join(dir, "corrupt.fpp")
		os.WriteFile(bad, data, 0o644)
		_, stderr, code := cli(t, "", "merge", a, bad, "-o", filepath.Join(dir, "x.fpp"))
		if code != 1 || !strings.Contains(stderr, bad) || !strings.Contains(stderr, "checksum") {
			t.Errorf("merge of a corrupted file: exit %d, %s", code, stderr)
		}
	})
}

func mustRead(t *testing.T, name string) *profile.Profile {
	t.Helper()
	p, err := profile.ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPGOCommand: a profile of the interpreter example feeds fragprof pgo; the
// optimised program computes what the plain one does; an edited function is reported
// stale and compiled without profile.
func TestPGOCommand(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "interp.c")
	copyFile(t, "../../examples/pgo/interp.c", src)
	fpp := filepath.Join(dir, "train.fpp")
	if _, stderr, code := cli(t, "", "count", src, "--profile", fpp, "-o", filepath.Join(dir, "r.txt"), "--", "2000"); code != 0 {
		t.Fatalf("count: %s", stderr)
	}
	opt := filepath.Join(dir, "interp.opt")
	_, stderr, code := cli(t, "", "pgo", src, "--profile", fpp, "-o", opt, "-v")
	if code != 0 || !strings.Contains(stderr, "function run: applied") || strings.Contains(stderr, ": stale") {
		t.Fatalf("pgo: exit %d\n%s", code, stderr)
	}
	out, err := osexec.Command(opt, "3000", "1").Output()
	if err != nil || !strings.HasPrefix(string(out), "430 ") { // 430 primes below 3000
		t.Errorf("optimised interp 3000 1: %q, %v", out, err)
	}
	// Edit fail(): its CFG changes, the others' do not.
	data, _ := os.ReadFile(src)
	edited := strings.Replace(string(data), `fprintf(stderr, "interp: %s at pc %d\n", what, pc);`,
		`if (pc >= 0) fprintf(stderr, "interp: %s at pc %d\n", what, pc);`, 1)
	if edited == string(data) {
		t.Fatal("the edit did not apply")
	}
	os.WriteFile(src, []byte(edited), 0o644)
	_, stderr, code = cli(t, "", "pgo", src, "--profile", fpp, "-o", opt)
	if code != 0 || !strings.Contains(stderr, "function fail: stale") || !strings.Contains(stderr, "1 stale") {
		t.Errorf("pgo after an edit: exit %d\n%s", code, stderr)
	}
}

// TestCfgStatic: cfg --static prints frequencies and the heuristics used.
func TestCfgStatic(t *testing.T) {
	out, stderr, code := cli(t, "", "cfg", "--static", "../../examples/loops.c")
	if code != 0 || !strings.Contains(out, "freq/call") || !strings.Contains(out, "back") || !strings.Contains(out, "loop-") {
		t.Errorf("cfg --static: exit %d\n%s%s", code, out, stderr)
	}
	if _, _, code := cli(t, "", "cfg", "--static", "--format", "json", "../../examples/loops.c"); code != 2 {
		t.Errorf("cfg --static --format json: exit %d, want 2", code)
	}
}
