//go:build integration

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFreqCorpusExact runs a line counter on every file of a small corpus: the
// four .txt files (1, 3, 7 and 2 lines; not notes.md) are a finite population, so
// freq stops after 4 trials with every block exact, the line block's mean the
// corpus's mean number of lines, 13/4, and the population's digest in the inputs.
func TestFreqCorpusExact(t *testing.T) {
	r, code, stderr := freq(t, "testdata/wc.c", "--input", `f = file("testdata/corpus/**/*.txt")`, "--arg", "{f}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r.Trials != 4 || !strings.Contains(r.Stopped, "exact") {
		t.Fatalf("trials %d, stopped %q; want 4 trials, stopped exact", r.Trials, r.Stopped)
	}
	found := false
	for _, fn := range r.Functions {
		for _, b := range fn.Blocks {
			if b.State != "exact" || b.HalfWidth == nil || *b.HalfWidth != 0 {
				t.Errorf("block %s: state %s, half-width %v; want exact ± 0", b.Label, b.State, b.HalfWidth)
			}
		}
		if b, ok := blockOnLine(fn, 13); ok {
			found = true
			if b.Mean != 13.0/4 {
				t.Errorf("lines++ block mean %v, want 13/4", b.Mean)
			}
		}
	}
	if !found {
		t.Fatal("no block on line 13 (lines++)")
	}
	digest := false
	for _, in := range r.Inputs {
		digest = digest || strings.Contains(in, "population of 4 items") && strings.Contains(in, "sha256 ")
	}
	if !digest {
		t.Errorf("inputs %q name no population digest", r.Inputs)
	}
}

// TestFreqCorpusFailureNamesFile: a trial that fails on one file of the corpus
// names that file, and the run, one item short, does not claim to be exact.
func TestFreqCorpusFailureNamesFile(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"a.txt": "x\n", "b.txt": "x\ny\n", "empty.txt": ""} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, code, stderr := freq(t, "testdata/wc.c", "--fail-nonzero", "--input", `f = file("`+dir+`/*.txt")`, "--arg", "{f}")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Reason, filepath.Join(dir, "empty.txt")) {
		t.Fatalf("failures %+v, want one naming empty.txt", r.Failures)
	}
	if strings.Contains(r.Stopped, "are exact") || r.Trials != 2 {
		t.Errorf("stopped %q after %d trials; want 2 trials and no claim of exactness", r.Stopped, r.Trials)
	}
	for _, fn := range r.Functions {
		for _, b := range fn.Blocks {
			if b.State == "exact" {
				t.Errorf("block %s exact with a failed trial", b.Label)
			}
		}
	}
}

// TestFreqCorpusChanged: profiles of runs on a corpus that changed in between
// do not merge: the population's digest, kept in each profile, differs.
func TestFreqCorpusChanged(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c")
	if err := os.MkdirAll(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(corpus, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "x\n")
	write("b.txt", "x\ny\n")
	prof := func(name string) string {
		p := filepath.Join(dir, name)
		if _, code, stderr := freq(t, "testdata/wc.c", "--input", `f = file("`+corpus+`/*.txt")`, "--arg", "{f}", "--profile", p); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return p
	}
	a1, a2 := prof("a1.fpp"), prof("a2.fpp")
	write("b.txt", "x\ny\nz\n")
	b := prof("b.fpp")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"merge", a1, a2, "-o", filepath.Join(dir, "same.fpp")}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("merging two runs on one corpus: exit %d: %s", code, stderr.String())
	}
	stderr.Reset()
	code := run([]string{"merge", a1, b, "-o", filepath.Join(dir, "mixed.fpp")}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "the corpus or records changed between the runs") {
		t.Fatalf("merging runs on a changed corpus: exit %d: %s", code, stderr.String())
	}
}
