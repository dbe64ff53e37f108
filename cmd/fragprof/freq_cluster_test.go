//go:build integration

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/profile"
)

// TestFreqTrialRange: the task side of --engine slurm, without Slurm. Two shares of
// trials 20:60 and a run of trials 0:20 merge to the bits of one run of 60 trials;
// each share writes its record, and --trial-range runs every trial of its share
// even when the stopping rule is satisfied long before.
func TestFreqTrialRange(t *testing.T) {
	dir := t.TempDir()
	args := []string{"freq", "../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`,
		"--seed", "5", "--eps", "100", "--berry-esseen", "signed", "-o", filepath.Join(dir, "report.txt")}
	run := func(extra ...string) {
		t.Helper()
		if _, stderr, code := runFragprof(t, append(append([]string{}, args...), extra...)...); code != 0 {
			t.Fatalf("freq %v: exit %d\n%s", extra, code, stderr)
		}
	}
	var parts []*profile.Profile
	for i, extra := range [][]string{
		{"--trial-range", "0:20"},
		{"--trial-range", "20:60", "--shard", "0/2"},
		{"--trial-range", "20:60", "--shard", "1/2"},
	} {
		prof, rec := filepath.Join(dir, "p"+string(rune('0'+i))+".fpp"), filepath.Join(dir, "r"+string(rune('0'+i))+".json")
		run(append(extra, "--n-min", "5", "--profile", prof, "--task-record", rec)...)
		p, err := profile.ParseFile(prof)
		if err != nil {
			t.Fatal(err)
		}
		if want := []int{20, 20, 20}[i]; p.Runs != want {
			t.Errorf("%v: %d trials, want %d (the rule decides newton at ±100 after 6 trials, but a share runs whole)", extra, p.Runs, want)
		}
		if _, err := os.Stat(rec); err != nil {
			t.Errorf("%v: no record: %v", extra, err)
		}
		parts = append(parts, p)
	}
	merged, err := profile.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := merged.Write(&got); err != nil {
		t.Fatal(err)
	}
	whole := filepath.Join(dir, "whole.fpp")
	run("--eps", "1e-9", "--max-trials", "60", "--design", "independent", "--profile", whole)
	want, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("trials 0:20 and the two shares of 20:60, merged, differ from one run of 60 trials")
	}
}
