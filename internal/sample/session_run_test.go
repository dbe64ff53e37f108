//go:build integration

package sample

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// sessionFile runs s and reads back its batches file: the info lines, and the
// batches' sequence numbers.
func sessionFile(t *testing.T, s *Session) (*Result, map[string]string, []int) {
	t.Helper()
	var out bytes.Buffer
	res, err := s.Run(&out)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	r := hotcfg.NewReader(&out)
	var seqs []int
	for r.Next() {
		seqs = append(seqs, r.Batch().Seq)
	}
	if r.Err() != nil || len(r.Bad()) > 0 {
		t.Fatalf("the batches file: %v %v", r.Err(), r.Bad())
	}
	return res, r.Info(), seqs
}

// checkSeqs checks that the batches are numbered 1, 2, ... as written, as many as
// the result says.
func checkSeqs(t *testing.T, what string, seqs []int, res *Result) {
	t.Helper()
	for i, s := range seqs {
		if s != i+1 {
			t.Fatalf("%s: batch %d numbered %d", what, i+1, s)
		}
	}
	if len(seqs) != res.Batches || res.Total.Batches != res.Batches {
		t.Errorf("%s: %d batches in the file, %d written, %d counted by the runs", what, len(seqs), res.Batches, res.Total.Batches)
	}
}

// TestSessionRuns runs sessions of real programs: repeated in-process runs
// alternated with plain ones (every run is sampled or thinned, the library's start
// is read once, for the thinning, and the file says the sampler, its default
// bound and the runs), repeated runs under ptrace (ticks, no start read), and a
// program that takes over SIGPROF, whose later runs switch to ptrace.
func TestSessionRuns(t *testing.T) {
	dir := t.TempDir()
	spin, busy := filepath.Join(dir, "spin"), filepath.Join(dir, "busy")
	for _, b := range [][]string{{spin, "testdata/spin.c"}, {busy, "testdata/busy.c"}} {
		if out, err := exec.Command("gcc", "-O2", "-pthread", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
	}
	reads := 0
	start := func() *LazyCost {
		reads = 0
		return &LazyCost{Read: func() (StartCostResult, error) { reads++; return StartCostResult{Cost: 1, OK: true}, nil }}
	}
	args := []string{"3000"}
	newSession := func(sampler string, repeat int) *Session {
		return &Session{Target: Target{Path: spin, Args: args, Stdin: strings.NewReader(""), Stdout: devnull(t), Stderr: devnull(t)},
			Command: append([]string{spin}, args...), Sampler: sampler, Options: Options{Burst: 25, Seed: 1},
			Repeat: repeat, Start: start(), Log: devnull(t)}
	}

	s := newSession("auto", 6)
	s.MeasureOverhead, s.Online = true, true
	res, info, seqs := sessionFile(t, s)
	checkSeqs(t, "in process", seqs, res)
	if len(res.Traced) != 6 || len(res.Plain) != 6 || res.InProcessRuns+res.Thinned != 6 || res.InProcessRuns < 1 || reads != 1 {
		t.Errorf("in process: %d runs, %d plain, %d sampled, %d thinned, the start read %d times; want 6, 6, 6 in all and once",
			len(res.Traced), len(res.Plain), res.InProcessRuns, res.Thinned, reads)
	}
	if info["sampler"] != "inprocess" || info["overhead"] != "4%" || info["runs"] != "6" || info["interval"] != "1ms" || info["burst"] != "25" || res.Graph == nil {
		t.Errorf("in process: info %v, graph %v", info, res.Graph != nil)
	}
	if want := fmt.Sprint(6 - res.Thinned); res.Thinned > 0 && info["sampled_runs"] != want {
		t.Errorf("sampled_runs %q, want %s", info["sampled_runs"], want)
	}

	s = newSession("ptrace", 2)
	args[0] = "30000"
	res, info, seqs = sessionFile(t, s)
	checkSeqs(t, "ptrace", seqs, res)
	if len(res.Traced) != 2 || res.InProcessRuns != 0 || res.Total.Ticks == 0 || reads != 0 || info["sampler"] != "ptrace" || info["interval"] != "3ms" {
		t.Errorf("ptrace: %d runs, %d in process, %d ticks, the start read %d times, info %v", len(res.Traced), res.InProcessRuns, res.Total.Ticks, reads, info)
	}

	s = newSession("auto", 2)
	s.Target.Path, s.Target.Args, s.Command = busy, []string{"4000000", "prof"}, []string{busy, "4000000", "prof"}
	res, info, seqs = sessionFile(t, s)
	checkSeqs(t, "switch", seqs, res)
	if res.InProcessRuns != 1 || len(res.Traced) != 2 || info["sampler"] != "inprocess+ptrace" || !strings.Contains(strings.Join(res.Notes, "\n"), fmt.Sprintf("run 1: the program handles %v itself: the remaining runs use ptrace", syscall.SIGPROF)) {
		t.Errorf("switch: %d in process of %d runs, sampler %q, notes %q", res.InProcessRuns, len(res.Traced), info["sampler"], res.Notes)
	}
}
