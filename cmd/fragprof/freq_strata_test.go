//go:build integration

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// strataCorpus writes a corpus whose directories differ: small/, 30 files of 1
// to 3 lines; large/, 12 files of 40 to 95 lines; rare/, 2 files of 500 lines.
// It returns the glob of its files and the mean number of lines.
func strataCorpus(t *testing.T) (string, float64) {
	dir := t.TempDir()
	total, n := 0, 0
	write := func(sub string, files int, lines func(i int) int) {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range files {
			l := lines(i)
			total += l
			n++
			if err := os.WriteFile(filepath.Join(dir, sub, fmt.Sprintf("%d.txt", i)), []byte(strings.Repeat("x\n", l)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("small", 30, func(i int) int { return 1 + i%3 })
	write("large", 12, func(i int) int { return 40 + 5*i })
	write("rare", 2, func(int) int { return 500 })
	return dir + "/**/*.txt", float64(total) / float64(n)
}

// strataTrials returns the trials of each stratum of a report, by name.
func strataTrials(t *testing.T, r report.JSONFreq) map[string]uint64 {
	t.Helper()
	if r.Strata == nil {
		t.Fatalf("the report names no strata (inputs %q)", r.Inputs)
	}
	out := map[string]uint64{}
	var sum uint64
	for _, s := range r.Strata.Strata {
		out[s.Name] = s.Trials
		sum += s.Trials
	}
	if sum != r.Trials {
		t.Errorf("strata trials %v sum to %d, not the %d trials", out, sum, r.Trials)
	}
	return out
}

// linesBlock returns the mean and state of wc's lines++ block (line 13).
func linesBlock(t *testing.T, r report.JSONFreq) report.JSONFreqBlock {
	t.Helper()
	for _, fn := range r.Functions {
		if b, ok := blockOnLine(fn, 13); ok {
			return b
		}
	}
	t.Fatal("no block on line 13 (lines++)")
	return report.JSONFreqBlock{}
}

// TestFreqStrataExact: a corpus stratified by directory, run at a precision no
// sample reaches, goes to n = N: each stratum drawn whole, every block exact,
// the lines block's mean the corpus's.
func TestFreqStrataExact(t *testing.T) {
	glob, mean := strataCorpus(t)
	r, code, stderr := freq(t, "testdata/wc.c", "--rel-eps", "1e-9", "--input", `f = file("`+glob+`"; strata = dir)`, "--arg", "{f}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strataTrials(t, r)
	if r.Trials != 44 || !strings.Contains(r.Stopped, "exact") || fmt.Sprint(got) != "map[large:12 rare:2 small:30]" {
		t.Fatalf("%d trials, strata %v, stopped %q; want 44, each stratum whole, exact", r.Trials, got, r.Stopped)
	}
	if b := linesBlock(t, r); b.State != "exact" || b.Mean != mean {
		t.Errorf("lines block %s %v, want exact %v", b.State, b.Mean, mean)
	}
}

// TestFreqStrataNeyman: under Neyman's allocation the same seed gives the same
// report on 1 and 2 jobs (the rounds start once the trials before them are in),
// every stratum gets its pilot, and the stratified estimate of the lines block
// covers the corpus's mean within its interval's reach.
func TestFreqStrataNeyman(t *testing.T) {
	glob, mean := strataCorpus(t)
	var reports [2]report.JSONFreq
	for k, jobs := range []string{"1", "2"} {
		r, code, stderr := freq(t, "testdata/wc.c", "--rel-eps", "0.05", "--seed", "3", "--jobs", jobs,
			"--input", `f = file("`+glob+`"; strata = dir, alloc = neyman)`, "--arg", "{f}")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		reports[k] = r
	}
	a, b := reports[0], reports[1]
	ta, tb := strataTrials(t, a), strataTrials(t, b)
	la, lb := linesBlock(t, a), linesBlock(t, b)
	if a.Trials != b.Trials || fmt.Sprint(ta) != fmt.Sprint(tb) || la.Mean != lb.Mean || *la.HalfWidth != *lb.HalfWidth {
		t.Fatalf("1 and 2 jobs differ: %d trials %v, lines %v ± %v; %d trials %v, lines %v ± %v",
			a.Trials, ta, la.Mean, *la.HalfWidth, b.Trials, tb, lb.Mean, *lb.HalfWidth)
	}
	if ta["small"] < 10 || ta["large"] < 10 || ta["rare"] != 2 || a.Strata.Alloc != "neyman" {
		t.Errorf("strata %v (%s): want every stratum's pilot, min(10, N_h)", ta, a.Strata.Alloc)
	}
	if d := la.Mean - mean; la.State != "exact" && (d > 3**la.HalfWidth || d < -3**la.HalfWidth) {
		t.Errorf("lines block %v ± %v, the corpus's mean %v", la.Mean, *la.HalfWidth, mean)
	}
	for _, flags := range [][]string{{"--shard", "0/2"}, {"--trial-range", "0:10", "--profile", filepath.Join(t.TempDir(), "p.fpp")}} {
		_, code, stderr := freq(t, append([]string{"testdata/wc.c", "--input", `f = file("` + glob + `"; strata = dir, alloc = neyman)`, "--arg", "{f}"}, flags...)...)
		if code != 2 || !strings.Contains(stderr, "input f: alloc = neyman plans each round") || !strings.Contains(stderr, "not with "+flags[0]) {
			t.Errorf("Neyman with %s: exit %d: %s", flags[0], code, stderr)
		}
	}
}

// strataProfile runs freq on the stratified corpus with an ε no run reaches and
// returns its profile's bytes and its stderr.
func strataProfile(t *testing.T, in string, args ...string) ([]byte, string) {
	t.Helper()
	prof := filepath.Join(t.TempDir(), "p.fpp")
	args = append([]string{"freq", "testdata/wc.c", "--eps", "1e-9", "--seed", "4", "--input", in, "--arg", "{f}", "--profile", prof, "-o", os.DevNull}, args...)
	_, stderr, code := runFragprof(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	return data, stderr
}

// TestFreqStrataProfiles: the same seed gives, byte for byte, the same profile
// on 1 and 3 jobs under either allocation (Neyman's 30 trials span its pilot
// and two planned rounds), and, under proportional allocation, three shards
// merged give the profile of one machine; freq --from on them says that it
// judges the stratified input by the rule on all trials.
func TestFreqStrataProfiles(t *testing.T) {
	glob, _ := strataCorpus(t)
	for _, alloc := range []string{"proportional", "neyman"} {
		in := `f = file("` + glob + `"; strata = dir, alloc = ` + alloc + `)`
		one, _ := strataProfile(t, in, "--jobs", "1", "--max-trials", "30")
		three, _ := strataProfile(t, in, "--jobs", "3", "--max-trials", "30")
		if !bytes.Equal(one, three) {
			t.Errorf("%s: the profiles of 1 and 3 jobs differ (%d and %d bytes)", alloc, len(one), len(three))
		}
	}
	in := `f = file("` + glob + `"; strata = dir)`
	whole, _ := strataProfile(t, in, "--jobs", "3")
	dir := t.TempDir()
	var shards []string
	for s := range 3 {
		p := filepath.Join(dir, fmt.Sprintf("s%d.fpp", s))
		data, _ := strataProfile(t, in, "--jobs", "1", "--shard", fmt.Sprintf("%d/3", s))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, p)
	}
	merged := filepath.Join(dir, "merged.fpp")
	if _, stderr, code := runFragprof(t, append([]string{"merge", "-o", merged}, shards...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(merged); !bytes.Equal(got, whole) {
		t.Errorf("the 3 shards merged (%d bytes) differ from one machine's profile of the 44 trials (%d bytes)", len(got), len(whole))
	}
	// The first 30 trials, judged by --from on their profile, as the run judged them.
	part, _ := strataProfile(t, in, "--jobs", "2", "--max-trials", "30")
	if err := os.WriteFile(merged, part, 0o644); err != nil {
		t.Fatal(err)
	}
	fromJSON, runJSON := filepath.Join(dir, "from.json"), filepath.Join(dir, "run.json")
	if _, stderr, code := runFragprof(t, "freq", "--from", merged, "--eps", "1e-9", "--format", "json", "-o", fromJSON); code != 0 || strings.Contains(stderr, "stratified") {
		t.Errorf("freq --from a stratified run's profile: exit %d, want 0 and no note on the strata:\n%s", code, stderr)
	}
	if _, stderr, code := runFragprof(t, "freq", "testdata/wc.c", "--eps", "1e-9", "--seed", "4", "--input", in, "--arg", "{f}",
		"--max-trials", "30", "--format", "json", "-o", runJSON); code != 0 {
		t.Fatalf("freq: exit %d\n%s", code, stderr)
	}
	sameJudgement(t, readFreqJSON(t, fromJSON), readFreqJSON(t, runJSON))
}

// TestFreqStrataLatin: a numeric input beside a stratified corpus keeps the
// default Latin hypercube design: the run draws its units, judges them, and
// reports each stratum's trials.
func TestFreqStrataLatin(t *testing.T) {
	glob, _ := strataCorpus(t)
	r, code, stderr := freq(t, "testdata/wcrep.c", "--rel-eps", "0.2", "--seed", "5",
		"--input", `f = file("`+glob+`"; strata = dir)`, "--input", "k = uniform_int(1, 100)", "--arg", "{f}", "--arg", "{k}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got := strataTrials(t, r)
	if r.Design != "latin:16" || r.Units == 0 || got["rare"] == 0 || !strings.Contains(r.Stopped, "decided") {
		t.Errorf("design %q, %d units, strata %v, stopped %q; want Latin hypercube units, every stratum drawn, decided", r.Design, r.Units, got, r.Stopped)
	}
}

// TestFreqStrataNeymanReplay: a trial of a Neyman round past the pilot is
// named N:H:K, with its stratum and draw, and --replay N:H:K runs it again
// without the trials before it: the same file, the same exit status, and its
// lines block counts that file's lines. --replay N alone is refused, naming
// the input and the form to give.
func TestFreqStrataNeymanReplay(t *testing.T) {
	dir := t.TempDir()
	for _, sub := range []string{"small", "mixed"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(dir, "small", fmt.Sprintf("%d.txt", i)), []byte(strings.Repeat("x\n", 1+i%3)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		text := strings.Repeat("x\n", 5)
		if i%2 == 0 { // wcfail.c exits 3 on a file that starts with F
			text = "F\n" + strings.Repeat("x\n", 20+i)
		}
		if err := os.WriteFile(filepath.Join(dir, "mixed", fmt.Sprintf("%d.txt", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in := `f = file("` + dir + `/**/*.txt"; strata = dir, alloc = neyman)`
	out := filepath.Join(t.TempDir(), "est.txt")
	if _, stderr, code := reportCLI(t, "", "freq", "testdata/wcfail.c", "--rel-eps", "1e-9", "--seed", "3", "--fail-nonzero", "--max-fail", "1",
		"--input", in, "--arg", "{f}", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fails := regexp.MustCompile(`(?m)^  trial (\d+): exit status 3 \[f = file "([^"]+)"\]   \(replay: .* --replay (\d+:\d+:\d+)\)$`).FindAllStringSubmatch(string(text), -1)
	if len(fails) == 0 {
		t.Fatalf("no failed trial past the pilot named N:H:K:\n%s", text)
	}
	countRe := regexp.MustCompile(`(?m)^\s+\d+\s+\S+\s+17\s+(\d+)\s+lines\+\+`)
	for _, fl := range fails[:min(3, len(fails))] {
		trial, file, id := fl[1], fl[2], fl[3]
		if !strings.HasPrefix(id, trial+":") {
			t.Errorf("trial %s is replayed as %s", trial, id)
		}
		_, stderr, code := reportCLI(t, "", "freq", "testdata/wcfail.c", "--seed", "3", "--input", in, "--arg", "{f}", "--replay", id)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		m := countRe.FindStringSubmatch(stderr)
		if code != 3 || !strings.Contains(stderr, fmt.Sprintf("args: [%q]", file)) || m == nil || m[1] != fmt.Sprint(strings.Count(string(data), "\n")) {
			t.Errorf("--replay %s: exit %d, want 3, file %s of %d lines:\n%s", id, code, file, strings.Count(string(data), "\n"), stderr)
		}
	}
	trial := fails[0][1]
	_, stderr, code := reportCLI(t, "", "freq", "testdata/wcfail.c", "--seed", "3", "--input", in, "--arg", "{f}", "--replay", trial)
	if code != 2 || !strings.Contains(stderr, "input f has alloc = neyman") || !strings.Contains(stderr, "--replay "+trial+":H:K") {
		t.Errorf("--replay %s of a Neyman round: exit %d: %s", trial, code, stderr)
	}
}
