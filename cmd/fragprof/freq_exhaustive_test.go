//go:build integration

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/cluster"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/profile"
)

// wcCorpus writes a corpus of n text files of 1 … n lines of different lengths
// into a new directory and returns the directory.
func wcCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 1; i <= n; i++ {
		var b strings.Builder
		for l := 0; l < i*i%7+i; l++ {
			b.WriteString(strings.Repeat("x", (l*5+i)%11) + "\n")
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wcBinary builds testdata/wc.c with fragprof cc.
func wcBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "wc")
	if _, stderr, code := runFragprof(t, "cc", "testdata/wc.c", "-o", bin); code != 0 {
		t.Fatalf("fragprof cc: exit %d\n%s", code, stderr)
	}
	return bin
}

// sameCounts checks that two profiles hold the same runs and, function by
// function, the same block and edge counts.
func sameCounts(t *testing.T, what string, got, want *profile.Profile) {
	t.Helper()
	if got.Runs != want.Runs {
		t.Fatalf("%s: %d runs, want %d", what, got.Runs, want.Runs)
	}
	wantBy := map[string]int{}
	for i, fn := range want.Program.Funcs {
		wantBy[fn.Name] = i
	}
	for i, fn := range got.Program.Funcs {
		j, ok := wantBy[fn.Name]
		if !ok {
			t.Fatalf("%s: function %s is not in the other profile", what, fn.Name)
		}
		g, w := got.Counts[i], want.Counts[j]
		if !slices.Equal(g.Blocks, w.Blocks) || !slices.Equal(g.Edges, w.Edges) {
			t.Errorf("%s: function %s: blocks %v edges %v, want blocks %v edges %v", what, fn.Name, g.Blocks, g.Edges, w.Blocks, w.Edges)
		}
	}
	if len(got.Program.Funcs) != len(want.Program.Funcs) {
		t.Errorf("%s: %d functions, want %d", what, len(got.Program.Funcs), len(want.Program.Funcs))
	}
}

// TestFreqExhaustive runs a line counter, built by fragprof cc, over every file of
// a corpus of 13 with --exhaustive: the profile's counts are, block by block and
// edge by edge, the sum of 13 runs of 'fragprof count', one per file; every block
// is exact ± 0; three shards' profiles merge to the same bytes, which freq --from
// calls exact too.
func TestFreqExhaustive(t *testing.T) {
	const n = 13
	corpus := wcCorpus(t, n)
	bin := wcBinary(t)
	dir := t.TempDir()
	in := []string{"--binary", bin, "--input", `f = file("` + corpus + `/*.txt")`, "--arg", "{f}", "--seed", "5"}
	prof := filepath.Join(dir, "exhaustive.fpp")
	r, code, stderr := freq(t, append(slices.Clone(in), "--exhaustive", "--jobs", "3", "--profile", prof)...)
	if code != 0 {
		t.Fatalf("freq --exhaustive: exit %d\n%s", code, stderr)
	}
	if r.Trials != n || !strings.Contains(r.Stopped, "exact") {
		t.Fatalf("%d trials, stopped %q; want %d, exact", r.Trials, r.Stopped, n)
	}
	for _, fn := range r.Functions {
		for _, b := range fn.Blocks {
			if b.State != "exact" || b.HalfWidth == nil || *b.HalfWidth != 0 {
				t.Errorf("%s:%s: state %s, half-width %v; want exact ± 0", fn.Name, b.Label, b.State, b.HalfWidth)
			}
		}
	}
	// The members one by one.
	var singles []string
	files, _ := filepath.Glob(filepath.Join(corpus, "*.txt"))
	for i, f := range files {
		p := filepath.Join(dir, fmt.Sprintf("count%d.fpp", i))
		if _, stderr, code := runFragprof(t, "count", "--binary", bin, "--profile", p, "-o", filepath.Join(dir, "count.txt"), "--", f); code != 0 {
			t.Fatalf("count %s: exit %d\n%s", f, code, stderr)
		}
		singles = append(singles, p)
	}
	sum := filepath.Join(dir, "sum.fpp")
	if _, stderr, code := runFragprof(t, append([]string{"merge", "-o", sum}, singles...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	got, err := profile.ParseFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	want, err := profile.ParseFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	sameCounts(t, "exhaustive against the sum of count runs", got, want)
	if !got.HasStats() || !strings.Contains(got.Identity.Inputs, fmt.Sprintf("finite population: N = %d", n)) {
		t.Errorf("the profile has statistics %v and inputs %q; want both, with the population's size", got.HasStats(), got.Identity.Inputs)
	}

	// Three shards, merged: the same profile, bit for bit.
	var shards []string
	for s := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("shard%d.fpp", s))
		r, code, stderr := freq(t, append(slices.Clone(in), "--exhaustive", "--shard", fmt.Sprintf("%d/3", s), "--profile", p)...)
		if code != 0 {
			t.Fatalf("shard %d/3: exit %d\n%s", s, code, stderr)
		}
		if wantN := (n - s + 2) / 3; r.Trials != uint64(wantN) || !strings.Contains(r.Stopped, "merged are the exact answer") {
			t.Errorf("shard %d/3: %d trials, stopped %q; want %d and the merge named", s, r.Trials, r.Stopped, wantN)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "merged.fpp")
	if _, stderr, code := runFragprof(t, append([]string{"merge", "-o", merged}, shards...)...); code != 0 {
		t.Fatalf("merging the shards: exit %d\n%s", code, stderr)
	}
	a, _ := os.ReadFile(prof)
	b, _ := os.ReadFile(merged)
	if !bytes.Equal(a, b) {
		t.Errorf("the shards merged (%d bytes) differ from the exhaustive profile (%d bytes)", len(b), len(a))
	}
	fr, code, stderr := freq(t, "--from", merged)
	if code != 0 || !strings.Contains(fr.Stopped, "exact") {
		t.Fatalf("freq --from the merged shards: exit %d, stopped %q\n%s", code, fr.Stopped, stderr)
	}
	for _, fn := range fr.Functions {
		for _, b := range fn.Blocks {
			if b.State != "exact" {
				t.Errorf("--from: %s:%s is %s, want exact", fn.Name, b.Label, b.State)
			}
		}
	}
	// Two shards only: not the whole population, so not exact.
	two := filepath.Join(dir, "two.fpp")
	if _, stderr, code := runFragprof(t, "merge", "-o", two, shards[0], shards[1]); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if fr, code, _ := freq(t, "--from", two); code != 0 || strings.Contains(fr.Stopped, "exact") {
		t.Errorf("--from 2 of 3 shards: exit %d, stopped %q; want no claim of exactness", code, fr.Stopped)
	}
	// A shard of another seed overlaps: merge refuses it, naming the seeds.
	other := filepath.Join(dir, "other.fpp")
	in[len(in)-1] = "6"
	if _, code, stderr := freq(t, append(slices.Clone(in), "--exhaustive", "--shard", "2/3", "--profile", other)...); code != 0 {
		t.Fatalf("shard of seed 6: exit %d\n%s", code, stderr)
	}
	_, stderr, code = runFragprof(t, "merge", "-o", filepath.Join(dir, "bad.fpp"), shards[0], shards[1], other)
	if code != 1 || !strings.Contains(stderr, "different seeds") {
		t.Errorf("merging shards of seeds 5 and 6: exit %d\n%s", code, stderr)
	}
}

// TestFreqExhaustiveRefused: --exhaustive needs one population and nothing else
// random; the error names the input in the way.
func TestFreqExhaustiveRefused(t *testing.T) {
	corpus := wcCorpus(t, 3)
	for _, c := range []struct {
		inputs []string
		want   string
	}{
		{[]string{"--input", "f = uniform_int(1, 9)"}, "no finite population"},
		{[]string{"--input", `f = file("` + corpus + `/*.txt")`, "--input", "x = normal(0, 1)"}, "input x = normal(0, 1) is a continuous input besides the population f"},
		{[]string{"--input", `f = file("` + corpus + `/*.txt"; weight = size)`}, "with replacement"},
	} {
		args := append([]string{"testdata/wc.c", "--exhaustive", "--arg", "{f}"}, c.inputs...)
		if _, code, stderr := freq(t, args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %s; want exit 2 saying %q", c.inputs, code, stderr, c.want)
		}
	}
	if _, code, stderr := freq(t, "testdata/wc.c", "--exhaustive", "--max-trials", "5", "--input", `f = file("`+corpus+`/*.txt")`, "--arg", "{f}"); code != 2 || !strings.Contains(stderr, "--max-trials does not apply") {
		t.Errorf("--exhaustive --max-trials: exit %d, %s", code, stderr)
	}
}

// TestFreqExhaustiveFailure: a member that fails (wc exits 3 on an empty file)
// is named with its replay command, freq exits 1, and the profile holds the
// other members.
func TestFreqExhaustiveFailure(t *testing.T) {
	corpus := wcCorpus(t, 5)
	if err := os.WriteFile(filepath.Join(corpus, "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "p.fpp")
	var stdout, stderr bytes.Buffer
	code := run([]string{"freq", "testdata/wc.c", "--exhaustive", "--fail-nonzero", "--max-fail", "1", "--seed", "3",
		"--input", `f = file("` + corpus + `/*.txt")`, "--arg", "{f}", "--profile", prof, "-o", filepath.Join(t.TempDir(), "r.txt")},
		strings.NewReader(""), &stdout, &stderr)
	msg := stderr.String()
	if code != 1 || !strings.Contains(msg, "member failed") || !strings.Contains(msg, filepath.Join(corpus, "empty.txt")) ||
		!strings.Contains(msg, "--seed 3 --replay") || !strings.Contains(msg, "1 of the 6 members run failed") {
		t.Fatalf("exit %d; want 1 with the empty file named and its replay:\n%s", code, msg)
	}
	p, err := profile.ParseFile(prof)
	if err != nil || p.Runs != 5 {
		t.Fatalf("profile: %v, %d runs; want the 5 members that succeeded", err, p.Runs)
	}
}

// TestFreqSlurmExhaustive: --exhaustive on the local Slurm cluster runs the 13
// members as one round of 3 tasks, logs its progress per task, and writes, bit for
// bit, the profile of the local exhaustive run; every block is exact; --resume of
// the finished run reports it again.
func TestFreqSlurmExhaustive(t *testing.T) {
	fp := slurmUp(t)
	corpus := wcCorpus(t, 13)
	dir := t.TempDir()
	in := []string{"testdata/wc.c", "--exhaustive", "--input", `f = file("` + corpus + `/*.txt")`, "--arg", "{f}", "--seed", "9"}
	local := filepath.Join(dir, "local.fpp")
	if _, code, stderr := freq(t, append(slices.Clone(in), "--profile", local)...); code != 0 {
		t.Fatalf("local: exit %d\n%s", code, stderr)
	}
	wd, prof, js := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp"), filepath.Join(dir, "slurm.json")
	_, stderr, code := runFragprof(t, append(append([]string{"freq"}, in...), "--engine", "slurm", "--shards", "3",
		"--workdir", wd, "--fragprof", fp, "--profile", prof, "--json", "-o", js)...)
	if code != 0 {
		t.Fatalf("freq --engine slurm --exhaustive: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "3/3 tasks done, 13/13 members run") {
		t.Errorf("no progress line for the last task:\n%s", stderr)
	}
	a, _ := os.ReadFile(local)
	b, err := os.ReadFile(prof)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("the cluster's profile (%d bytes, %v) differs from the local one (%d bytes)", len(b), err, len(a))
	}
	r := readJSON[report.JSONFreq](t, js)
	if r.Trials != 13 || !strings.Contains(r.Stopped, "every member of the population of 13 run once") {
		t.Errorf("%d trials, stopped %q", r.Trials, r.Stopped)
	}
	for _, fn := range r.Functions {
		for _, b := range fn.Blocks {
			if b.State != "exact" {
				t.Errorf("%s:%s is %s, want exact", fn.Name, b.Label, b.State)
			}
		}
	}
	j, err := cluster.ReadJournal(wd)
	if err != nil || !j.Spec.Exhaustive || len(j.Rounds) != 1 || j.Spec.Thresholds.Population != 13 {
		t.Fatalf("journal: %v; want one round of an exhaustive run on a population of 13", err)
	}
	if err := os.Remove(js); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runFragprof(t, "freq", "--resume", wd); code != 0 {
		t.Fatalf("--resume of the finished run: exit %d\n%s", code, stderr)
	}
	if again := readJSON[report.JSONFreq](t, js); again.Trials != 13 || again.Stopped != r.Stopped {
		t.Errorf("the report again: %d trials, stopped %q", again.Trials, again.Stopped)
	}
	// A member that fails on a node is named, as on one machine.
	if err := os.WriteFile(filepath.Join(corpus, "empty.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = runFragprof(t, append(append([]string{"freq"}, in...), "--fail-nonzero", "--max-fail", "1", "--engine", "slurm", "--shards", "2",
		"--workdir", filepath.Join(dir, "run2"), "--fragprof", fp, "-o", filepath.Join(dir, "r2.txt"))...)
	if code != 1 || !strings.Contains(stderr, "member failed") || !strings.Contains(stderr, filepath.Join(corpus, "empty.txt")) ||
		!strings.Contains(stderr, "1 of the 14 members run failed") {
		t.Errorf("a failing member on Slurm: exit %d\n%s", code, stderr)
	}
}

// TestFreqShardFinite: a shard of a sampling run on a finite population stops at
// its last trial below N (past it, members repeat).
func TestFreqShardFinite(t *testing.T) {
	corpus := wcCorpus(t, 13)
	r, code, stderr := freq(t, "testdata/wc.c", "--input", `f = file("`+corpus+`/*.txt")`, "--arg", "{f}", "--eps", "1e-6",
		"--design", "independent", "--shard", "1/3")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if r.Trials != 4 || !strings.Contains(r.Stopped, "trial budget (4) spent") {
		t.Errorf("%d trials, stopped %q; want the shard's 4 trials below 13", r.Trials, r.Stopped)
	}
}
