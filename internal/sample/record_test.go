//go:build integration

package sample

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fragprof/fragprof/hotcfg"
)

// TestRecordReadsAsPreload runs one program under the in-process sampler twice
// with the same seed: recorded (Record, decoded when read) and sampled directly
// (Preload, written as sampling writes a batches file). The record reads as a
// batches file with the info lines given, the counts the run reported, the same
// mappings, and instructions decoded as the direct run decodes them.
func TestRecordReadsAsPreload(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "spin")
	if b, err := exec.Command("gcc", "-O2", "-g", "-o", prog, "testdata/spin.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	o := Options{Interval: time.Millisecond, Burst: 25, Seed: 7, Overhead: 0.04}
	target := Target{Path: prog, Args: []string{"60000"}, Stdout: devnull(t), Stderr: devnull(t)}

	var direct bytes.Buffer
	w := hotcfg.NewWriter(&direct)
	seq := 0
	ds, err := Preload(target, o, 4096, func(b Burst, c hotcfg.Code) {
		seq++
		b.Batch.Seq = seq
		w.Batch(b.Batch, c)
	})
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()

	file := filepath.Join(dir, "r.batches")
	info := []Info{{"cmd", prog + " 60000"}, {"burst", "25"}, {"sampler", "inprocess"}}
	rs, err := Record(target, o, 4096, info, file)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Batches == 0 || ds.Batches == 0 {
		t.Fatalf("bursts: %d recorded, %d direct", rs.Batches, ds.Batches)
	}
	if rs.SelfCost <= 0 || rs.SetupCost <= 0 || rs.CPU <= 0 || rs.Steps.OneThread == StepUnused {
		t.Errorf("the record run's stats lack its costs or stepping: %+v", rs)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(raw), RecordMagic+"\ninfo cmd "+prog+" 60000\n") {
		t.Errorf("the record begins %.80q", raw)
	}
	var decoded bytes.Buffer
	if err := DecodeRecord(bytes.NewReader(raw), &decoded); err != nil {
		t.Fatal(err)
	}
	r := hotcfg.NewReader(&decoded)
	var batches []hotcfg.Batch
	var stacks int
	for r.Next() {
		b := r.Batch()
		if len(b.Stack) > 0 {
			stacks++
		}
		b.PCs = append([]uint64(nil), b.PCs...)
		batches = append(batches, b)
	}
	if len(r.Bad()) > 0 {
		t.Fatalf("the decoded record has malformed lines: %v", r.Bad()[0])
	}
	if len(batches) != rs.Batches || stacks == 0 {
		t.Errorf("decoded %d batches (%d with a stack), the run counted %d", len(batches), stacks, rs.Batches)
	}
	for k, v := range map[string]string{"cmd": prog + " 60000", "burst": "25", "sampler": "inprocess", "runs": "1",
		"batches": strconv.Itoa(rs.Batches), "stepping": rs.Steps.String()} {
		if got := r.Info()[k]; got != v {
			t.Errorf("info %s: %q, want %q", k, got, v)
		}
	}
	paths := func(ms hotcfg.Maps) map[string]bool {
		out := map[string]bool{}
		for _, m := range ms {
			out[m.Path] = true
		}
		return out
	}
	if got, want := paths(r.Maps()), paths(ds.Maps); len(got) != len(want) || !got[prog] {
		t.Errorf("mappings of the record %v, of the direct run %v", got, want)
	}
	dr := hotcfg.NewReader(&direct)
	for dr.Next() {
	}
	same := 0
	for a, in := range r.Code() {
		if d, ok := dr.Code()[a]; ok {
			same++
			if d != in {
				t.Errorf("%#x: decoded %+v from the record, %+v directly", a, in, d)
			}
		}
	}
	if same == 0 {
		t.Errorf("no instruction in both runs' bursts: the hot loop differs")
	}
}
