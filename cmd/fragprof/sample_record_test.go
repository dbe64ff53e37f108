//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestSampleRecordCLI: a plain in-process `sample` writes a record, which hotcfg
// and export read as the batches file that `sample --graph` (sampling directly)
// writes, with the same info lines and mappings; its report's share counts
// fragprof's own CPU time: the share is (in the program + fragprof itself + the
// commands it ran) over the program's own CPU time, each as printed.
func TestSampleRecordCLI(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "spin")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "testdata/cputime.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cli := cliWant(t)
	rec, direct := filepath.Join(dir, "r.batches"), filepath.Join(dir, "d.batches")
	_, errOut := cli(0, "sample", "--seed", "3", "-o", rec, "--", prog, "100000")
	cli(0, "sample", "--seed", "3", "--graph", filepath.Join(dir, "g.json"), "-o", direct, "--", prog, "100000")
	for file, magic := range map[string]string{rec: hotcfg.RecordMagic + "\n", direct: hotcfg.Magic + "\n"} {
		if b, err := os.ReadFile(file); err != nil || !strings.HasPrefix(string(b), magic) {
			t.Errorf("%s does not begin with %q (%v)", file, magic, err)
		}
	}
	rd, err := hotcfg.ReadBatchFiles([]string{rec})
	if err != nil {
		t.Fatal(err)
	}
	dd, err := hotcfg.ReadBatchFiles([]string{direct})
	if err != nil {
		t.Fatal(err)
	}
	if len(rd.Batches) == 0 || rd.Runs != 1 || len(rd.Maps) != len(dd.Maps) {
		t.Errorf("record: %d batches, %d runs, %d mappings (direct: %d)", len(rd.Batches), rd.Runs, len(rd.Maps), len(dd.Maps))
	}
	if m := regexp.MustCompile(`(\d+) batches, (\d+) PCs sampled`).FindStringSubmatch(errOut); m == nil || m[1] != strconv.Itoa(len(rd.Batches)) {
		t.Errorf("the report's batches %v, the record's %d:\n%s", m, len(rd.Batches), errOut)
	}
	for a, in := range rd.Code {
		if d, ok := dd.Code[a]; ok && d != in {
			t.Errorf("%#x: %+v in the record, %+v sampled directly", a, in, d)
		}
	}
	out, _ := cli(0, "hotcfg", rec, "--top", "3")
	if !strings.Contains(out, "main") {
		t.Errorf("hotcfg --top of the record does not name main:\n%s", out)
	}
	cli(0, "export", rec, "--format", "pprof", "-o", filepath.Join(dir, "r.pb.gz"))

	m := regexp.MustCompile(`cost \(estimate\): in the program (\S+) .*; fragprof itself (\S+) \(its exit \S+ of it\) and the commands it ran (\S+): ([0-9.]+)% over the program's own CPU time \((\S+)\)`).FindStringSubmatch(errOut)
	if m == nil {
		t.Fatalf("no cost in the report:\n%s", errOut)
	}
	var d [4]time.Duration
	for i, s := range []string{m[1], m[2], m[3], m[5]} {
		if d[i], err = time.ParseDuration(s); err != nil {
			t.Fatalf("cost %q: %v", s, err)
		}
	}
	share, _ := strconv.ParseFloat(m[4], 64)
	if d[1] <= 0 {
		t.Errorf("fragprof itself costs %v", d[1])
	}
	// The printed durations are rounded to the microsecond: when fragprof itself is
	// large (the test process's CPU time, after other tests in it), so is the share
	// computed from them, and their rounding moves it by more than the 0.01 point of
	// the printed share's own.
	want := 100 * float64(d[0]+d[1]+d[2]) / float64(d[3])
	if tol := 0.02 + want*1e-4; share < want-tol || share > want+tol || share < 100*float64(d[1])/float64(d[3]) {
		t.Errorf("share %.2f%%, want %.2f%% from the costs printed:\n%s", share, want, errOut)
	}
}
