//go:build integration

package main

import (
	"bytes"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/profile"
)

// runCmd runs fragprof in-process and returns its exit status and stderr.
func runCmd(args ...string) (int, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stderr.String()
}

var newtonArgs = []string{"../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", "{ask}\n",
	"--isolation", "none", "--seed", "7", "--jobs", "2", "--rule", "freqsys-absolute"}

// TestFreqShardsMerge: shards 0/2 and 1/2 of 2,000 trials each, merged with
// 'fragprof merge', hold exactly the distributions of one run of 4,000 trials with
// the same seed, and 'freq --from' judges both to the same estimates, which are
// those of the run itself.
func TestFreqShardsMerge(t *testing.T) {
	dir := t.TempDir()
	at := func(n string) string { return filepath.Join(dir, n) }
	whole, code, stderr := freq(t, append(newtonArgs, "--max-trials", "4000", "--profile", at("all.fpp"))...)
	if code != 0 {
		t.Fatalf("freq: %d\n%s", code, stderr)
	}
	all, m := shardsMerged(t, dir, newtonArgs, "2000")
	if all.Runs != 4000 || m.Runs != 4000 || !all.HasStats() {
		t.Fatalf("runs %d and %d, want 4000; stats %v", all.Runs, m.Runs, all.HasStats())
	}
	if !reflect.DeepEqual(all.Stats, m.Stats) || !reflect.DeepEqual(all.Counts, m.Counts) {
		t.Fatalf("merged shards differ from the whole run:\n%s\nwant\n%s", m, all)
	}
	fa, code, stderr := freq(t, "--from", at("all.fpp"), "--rule", "freqsys-absolute")
	if code != 0 {
		t.Fatalf("freq --from: %s", stderr)
	}
	fm, code, stderr := freq(t, "--from", at("s0.fpp"), at("s1.fpp"), "--rule", "freqsys-absolute")
	if code != 0 {
		t.Fatalf("freq --from shards: %s", stderr)
	}
	if !reflect.DeepEqual(fa.Functions, fm.Functions) || fa.Trials != 4000 || fm.Trials != 4000 {
		t.Fatalf("freq --from of the whole run and of the shards differ")
	}
	if !strings.Contains(fm.Stopped, "convergence series") {
		t.Errorf("--from report does not say the series is missing: %q", fm.Stopped)
	}
	for fi, fn := range whole.Functions {
		for b, wb := range fn.Blocks {
			gb := fm.Functions[fi].Blocks[b]
			if wb.Mean != gb.Mean || wb.Variance != gb.Variance || wb.N != gb.N ||
				(wb.HalfWidth == nil) != (gb.HalfWidth == nil) || wb.HalfWidth != nil && *wb.HalfWidth != *gb.HalfWidth {
				t.Errorf("%s block %d: run %+v, --from %+v", fn.Name, b, wb, gb)
			}
		}
		for e, we := range fn.Edges {
			if ge := fm.Functions[fi].Edges[e]; we.Mean-ge.Mean > 1e-9 || ge.Mean-we.Mean > 1e-9 {
				t.Errorf("%s edge %d: run %v, --from %v", fn.Name, e, we.Mean, ge.Mean)
			}
		}
	}

	// (b) A profile without statistics merges by counts and drops the statistics;
	// --from then refuses it, and weights are refused with statistics.
	// (newton exits 1 on its empty stdin; the profile is written all the same)
	if _, stderr := runCmd("count", "../../examples/newton.c", "--profile", at("c.fpp")); !fileExists(at("c.fpp")) {
		t.Fatalf("count wrote no profile: %s", stderr)
	}
	if code, stderr := runCmd("merge", at("all.fpp"), at("c.fpp"), "-o", at("mixed.fpp")); code != 0 {
		t.Fatalf("merge with a count profile: %s", stderr)
	}
	mixed, err := profile.ParseFile(at("mixed.fpp"))
	if err != nil {
		t.Fatal(err)
	}
	if mixed.HasStats() || mixed.Runs != 4001 {
		t.Errorf("mixed merge: stats %v, runs %d", mixed.HasStats(), mixed.Runs)
	}
	if code, stderr := runCmd("freq", "--from", at("mixed.fpp")); code == 0 || !strings.Contains(stderr, "no statistics section") {
		t.Errorf("freq --from a profile without statistics: %d %s", code, stderr)
	}
	if code, stderr := runCmd("merge", at("s0.fpp"), at("s1.fpp"), "--weights", "1,2", "-o", at("w.fpp")); code == 0 || !strings.Contains(stderr, "weights cannot be applied") {
		t.Errorf("weighted merge of statistics: %d %s", code, stderr)
	}

	// (c) A corrupted statistics section is detected and named.
	data, err := os.ReadFile(at("s0.fpp"))
	if err != nil {
		t.Fatal(err)
	}
	var off int
	for i := 0; i < int(le32(data[24:])); i++ {
		if e := data[64+24*i:]; le32(e) == profile.SecStats {
			off = int(le32(e[8:]))
		}
	}
	data[off] = 7 // the section's encoding version
	putCRC(data)
	if err := os.WriteFile(at("bad.fpp"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := runCmd("freq", "--from", at("bad.fpp")); code == 0 || !strings.Contains(stderr, "statistics section") || !strings.Contains(stderr, "bad.fpp") {
		t.Errorf("corrupt statistics: %d %s", code, stderr)
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// putCRC rewrites the checksum of a profile file after an edit.
func putCRC(data []byte) {
	copy(data[28:32], []byte{0, 0, 0, 0})
	s := crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli))
	data[28], data[29], data[30], data[31] = byte(s), byte(s>>8), byte(s>>16), byte(s>>24)
}

func fileExists(name string) bool { _, err := os.Stat(name); return err == nil }

// TestFreqShardsLatin: with Latin hypercube units (the default design), shards take
// whole units, so shards 0/2 and 1/2 of 160 trials each, merged, hold exactly the
// distributions of one run of 320 trials with the same seed; and the run reports its
// design and units.
func TestFreqShardsLatin(t *testing.T) {
	dir := t.TempDir()
	at := func(n string) string { return filepath.Join(dir, n) }
	args := []string{"../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", "{ask}\n",
		"--isolation", "none", "--seed", "7", "--jobs", "2", "--rel-eps", "1e-9"}
	whole, code, stderr := freq(t, append(args, "--max-trials", "320", "--profile", at("all.fpp"))...)
	if code != 0 {
		t.Fatalf("freq: %d\n%s", code, stderr)
	}
	if whole.Design != "latin:16" || whole.Units != 20 {
		t.Errorf("design %q, %d units; want latin:16 and 20 units of 16", whole.Design, whole.Units)
	}
	all, m := shardsMerged(t, dir, args, "160")
	if all.Runs != 320 || m.Runs != 320 || !reflect.DeepEqual(all.Stats, m.Stats) || !reflect.DeepEqual(all.Counts, m.Counts) {
		t.Fatalf("merged shards (%d trials) differ from the whole run (%d trials)", m.Runs, all.Runs)
	}
}

// shardsMerged runs freq args as shards 0/2 and 1/2 of trials trials each, merges
// their profiles into dir/m.fpp, and returns the whole run's profile dir/all.fpp
// (written by the caller) and the merged one.
func shardsMerged(t *testing.T, dir string, args []string, trials string) (all, merged *profile.Profile) {
	t.Helper()
	at := func(n string) string { return filepath.Join(dir, n) }
	for s := range 2 {
		if _, code, stderr := freq(t, append(args, "--max-trials", trials, "--shard", []string{"0/2", "1/2"}[s], "--profile", at([]string{"s0.fpp", "s1.fpp"}[s]))...); code != 0 {
			t.Fatalf("freq shard %d: %d\n%s", s, code, stderr)
		}
	}
	if code, stderr := runCmd("merge", at("s0.fpp"), at("s1.fpp"), "-o", at("m.fpp")); code != 0 {
		t.Fatalf("merge: %s", stderr)
	}
	all, err := profile.ParseFile(at("all.fpp"))
	if err != nil {
		t.Fatal(err)
	}
	if merged, err = profile.ParseFile(at("m.fpp")); err != nil {
		t.Fatal(err)
	}
	return all, merged
}
