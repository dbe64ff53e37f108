//go:build integration

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/cluster"
	"github.com/fragprof/fragprof/internal/report"
)

// These tests run `freq --engine slurm` on a real single-node Slurm cluster, brought
// up by scripts/slurm-local.sh (which installs Slurm and munge when missing): no
// mock of Slurm. They need root or sudo, as `make test` on a fresh machine has.

var slurmOnce struct {
	sync.Once
	conf    string
	err     error
	started bool // the cluster was down: the tests bring it down again
}

// stopSlurm brings the local cluster down after the tests, if they brought it up
// (TestMain calls it).
func stopSlurm() {
	if slurmOnce.started {
		if out, err := exec.Command("../../scripts/slurm-local.sh", "down").CombinedOutput(); err != nil {
			os.Stderr.Write(out)
		}
	}
}

// slurmUp brings the local cluster up (once per test binary), points SLURM_CONF at
// it and returns a fragprof executable built from this tree (fragprofBinary).
func slurmUp(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("a Slurm cluster is not brought up under -short")
	}
	slurmOnce.Do(func() {
		slurmOnce.started = exec.Command("../../scripts/slurm-local.sh", "status").Run() != nil
		out, err := exec.Command("../../scripts/slurm-local.sh", "up").CombinedOutput()
		if err != nil {
			slurmOnce.err = err
			slurmOnce.conf = string(out)
			return
		}
		env, err := exec.Command("../../scripts/slurm-local.sh", "env").Output()
		if err != nil {
			slurmOnce.err = err
			return
		}
		slurmOnce.conf = strings.TrimPrefix(strings.TrimSpace(string(env)), "export SLURM_CONF=")
	})
	if slurmOnce.err != nil {
		t.Fatalf("bringing up the local Slurm cluster: %v\n%s", slurmOnce.err, slurmOnce.conf)
	}
	t.Setenv("SLURM_CONF", slurmOnce.conf)
	return fragprofBinary(t)
}

// localProfile runs freq on this machine for exactly trials trials (an ε no run
// reaches) and returns its profile's bytes.
func localProfile(t *testing.T, dir string, trials uint64, args ...string) []byte {
	t.Helper()
	prof := filepath.Join(dir, "local.fpp")
	args = append([]string{"freq"}, args...)
	args = append(args, "--eps", "1e-9", "--max-trials", strconv.FormatUint(trials, 10), "--jobs", "16", "--design", "independent",
		"--profile", prof, "-o", filepath.Join(dir, "local.txt"))
	if _, stderr, code := runFragprof(t, args...); code != 0 {
		t.Fatalf("local freq: exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// sameAsLocal checks that a finished cluster run's profile is, byte for byte, the
// profile of a local run of as many trials with the same seed.
func sameAsLocal(t *testing.T, workdir, clusterProf string, args ...string) *cluster.Journal {
	t.Helper()
	j, err := cluster.ReadJournal(workdir)
	if err != nil {
		t.Fatal(err)
	}
	if j.Stopped != "every block decided" {
		t.Fatalf("the run stopped with %q", j.Stopped)
	}
	total := j.Rounds[len(j.Rounds)-1].To
	got, err := os.ReadFile(clusterProf)
	if err != nil {
		t.Fatal(err)
	}
	want := localProfile(t, t.TempDir(), total, args...)
	if !bytes.Equal(got, want) {
		t.Fatalf("the cluster's profile of %d trials (%d bytes) differs from a local run's (%d bytes)", total, len(got), len(want))
	}
	return j
}

var (
	slurmNewtonArgs = []string{"../../examples/newton.c", "--input", "ask = uniform(100, 800)", "--stdin", `{ask}\n`, "--seed", "7"}
	// slowNMin makes round 1 of the slow program about 150 trials, so each of its two
	// tasks runs for seconds: long enough that a test that sees a task running can
	// still cancel it before it ends, however slowly squeue answers on a busy machine.
	slowNMin = "150"
	slowArgs = []string{"testdata/slowtrial.c", "--input", "n = uniform_int(1, 20)", "--stdin", `{n}\n`, "--seed", "3"}
)

// TestFreqSlurmEqualsLocal: a run in adaptive rounds on Slurm converges to the
// profile, and the report, of a local run of the same trials.
func TestFreqSlurmEqualsLocal(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof, js := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp"), filepath.Join(dir, "slurm.json")
	rule := []string{"--eps", "0.02", "--berry-esseen", "signed"}
	args := append(append(append([]string{"freq"}, slurmNewtonArgs...), rule...), "--engine", "slurm", "--shards", "3",
		"--workdir", wd, "--fragprof", fp, "--profile", prof, "--json", "-o", js)
	if _, stderr, code := runFragprof(t, args...); code != 0 {
		t.Fatalf("freq --engine slurm: exit %d\n%s", code, stderr)
	}
	j := sameAsLocal(t, wd, prof, slurmNewtonArgs...)
	if len(j.Rounds) < 2 {
		t.Fatalf("the run took %d round(s): the test needs the next round sized from the first", len(j.Rounds))
	}
	for r, round := range j.Rounds {
		if r > 0 && round.From != j.Rounds[r-1].To {
			t.Errorf("round %d starts at trial %d, the last ended at %d", r+1, round.From, j.Rounds[r-1].To)
		}
	}
	// The report is the stopping rule's judgement of the merged profile: the same as
	// freq --from on the local profile, block for block.
	local := filepath.Join(dir, "local.fpp")
	if err := os.WriteFile(local, localProfile(t, dir, j.Rounds[len(j.Rounds)-1].To, slurmNewtonArgs...), 0o644); err != nil {
		t.Fatal(err)
	}
	fromJS := filepath.Join(dir, "from.json")
	if _, stderr, code := runFragprof(t, append(append([]string{"freq", "--from", local}, rule...), "--json", "-o", fromJS)...); code != 0 {
		t.Fatalf("freq --from: exit %d\n%s", code, stderr)
	}
	a, b := readFreqJSON(t, js), readFreqJSON(t, fromJS)
	if a.Trials != b.Trials || len(a.Functions) != len(b.Functions) {
		t.Fatalf("trials %d vs %d, functions %d vs %d", a.Trials, b.Trials, len(a.Functions), len(b.Functions))
	}
	for fi := range a.Functions {
		for bi, x := range a.Functions[fi].Blocks {
			y := b.Functions[fi].Blocks[bi]
			if x.Mean != y.Mean || x.Variance != y.Variance || x.N != y.N || x.State != y.State {
				t.Errorf("%s block %d: slurm %v ± %v (%s, n=%d), local %v ± %v (%s, n=%d)", a.Functions[fi].Name, bi,
					x.Mean, x.Variance, x.State, x.N, y.Mean, y.Variance, y.State, y.N)
			}
		}
	}
}

func readFreqJSON(t *testing.T, name string) *report.JSONFreq {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var r report.JSONFreq
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &r
}

// waitJob waits until round 1 of the run in wd has been submitted and returns its
// job id.
func waitJob(t *testing.T, wd string) string {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if j, err := cluster.ReadJournal(wd); err == nil && len(j.Rounds) > 0 && len(j.Rounds[0].Jobs) > 0 {
			return j.Rounds[0].Jobs[0].ID
		}
	}
	t.Fatal("round 1 was not submitted within 90 s")
	return ""
}

// TestFreqSlurmTaskCancelled: in one round, a task cancelled with scancel while it
// runs is resubmitted with the same trials, and a task preempted (requeued by Slurm
// under the same job) is waited for; neither's partial profile is merged.
func TestFreqSlurmTaskCancelled(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin,
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--fragprof", fp, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	type ran struct {
		stderr string
		code   int
	}
	done := make(chan ran, 1)
	go func() {
		_, stderr, code := runFragprof(t, args...)
		done <- ran{stderr, code}
	}()
	id := waitJob(t, wd)
	// Both tasks running (their 30 trials take 3 s each): cancel task 1, requeue
	// task 0 (as preemption does).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ := exec.Command("squeue", "--noheader", "--array", "--jobs="+id, "--format=%i %T").Output()
		if strings.Contains(string(out), id+"_0 RUNNING") && strings.Contains(string(out), id+"_1 RUNNING") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tasks of job %s never seen running together:\n%s", id, out)
		}
	}
	time.Sleep(300 * time.Millisecond) // mid-task
	for _, cmd := range [][]string{{"scancel", id + "_1"}, {"scontrol", "requeue", id + "_0"}} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	// Slurm holds a requeued task until its revoked credential expires (10 s on the
	// local cluster), then starts it again under the same job.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		out, _ := exec.Command("squeue", "--noheader", "--array", "--jobs="+id+"_0", "--format=%T %r").Output()
		if strings.HasPrefix(string(out), "PENDING BeginTime") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 0 of job %s not requeued: %s", id, out)
		}
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("freq --engine slurm: exit %d\n%s", r.code, r.stderr)
	}
	j := sameAsLocal(t, wd, prof, slowArgs...)
	t0, t1 := j.Rounds[0].Tasks[0], j.Rounds[0].Tasks[1]
	if t1.Attempts != 2 || len(t1.Errors) != 1 || !t1.Accepted || t1.Seq != 1 {
		t.Fatalf("round 1, task 1: %+v; want a second, accepted attempt after one failure\n%s", t1, r.stderr)
	}
	if !strings.Contains(t1.Errors[0], "CANCELLED") || !strings.Contains(t1.Errors[0], "t1.s0.log ends:") {
		t.Errorf("the failure does not say the task was cancelled, with the end of its output: %s", t1.Errors[0])
	}
	if subs := j.Rounds[0].Jobs; len(subs) != 2 || len(subs[1].Tasks) != 1 || subs[1].Tasks[0] != 1 {
		t.Errorf("round 1's submissions: %+v; want the second to hold task 1 alone", subs)
	}
	if t0.Attempts != 1 || len(t0.Errors) != 0 || !t0.Accepted {
		t.Errorf("round 1, task 0 (requeued by Slurm): %+v; want its one submission accepted\n%s\n%s", t0, r.stderr, taskLogs(wd))
	}
	// The cancelled attempt wrote its partial profile (freq keeps partial results on
	// SIGTERM) but no record: it is there, and was not merged (the profile equals
	// the local run's).
	if _, err := os.Stat(filepath.Join(wd, "r001", "t1.s0.json")); err == nil {
		t.Errorf("the cancelled attempt has a record")
	}
}

// TestFreqSlurmResume: the coordinator dies (SIGKILL) while a round runs, and one
// of its tasks is cancelled while no coordinator watches, with --max-attempts 1;
// --status reads the journal, and --resume waits for the task still running,
// grants the failed one a new attempt and finishes the run.
func TestFreqSlurmResume(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin, "--max-attempts", "1",
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	var stderr bytes.Buffer
	cmd := exec.Command(fp, args...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := waitJob(t, wd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitRunning(t, id, 1)
	if out, err := exec.Command("scancel", id+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v\n%s", err, out)
	}
	out, errOut, code := runFragprof(t, "freq", "--status", wd)
	if code != 0 || !strings.Contains(out, "coordinator stopped") || !strings.Contains(out, "\n1 ") {
		t.Fatalf("freq --status: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runFragprof(t, "freq", "--resume", wd)
	if code != 0 {
		t.Fatalf("freq --resume: exit %d\n%s\nfirst coordinator:\n%s", code, errOut, stderr.String())
	}
	j := sameAsLocal(t, wd, prof, slowArgs...)
	if subs := j.Rounds[0].Jobs; len(subs) != 2 || len(subs[1].Tasks) != 1 || subs[1].Tasks[0] != 1 || j.Rounds[0].Tasks[0].Attempts != 1 {
		t.Errorf("round 1's submissions: %+v; the resumed coordinator should have waited for task 0 and resubmitted task 1", subs)
	}
	out, _, _ = runFragprof(t, "freq", "--status", wd)
	if !strings.Contains(out, "finished: every block decided") {
		t.Errorf("freq --status after the end:\n%s", out)
	}
}

// TestFreqSlurmAttempts: a task that fails --max-attempts times stops the run with
// the cause named, and the run stays resumable; --resume grants the task new
// attempts and finishes the run. Settings other than Slurm's are refused with it.
func TestFreqSlurmAttempts(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin, "--max-attempts", "1",
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--fragprof", fp, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	type ran struct {
		stderr string
		code   int
	}
	done := make(chan ran, 1)
	go func() {
		_, stderr, code := runFragprof(t, args...)
		done <- ran{stderr, code}
	}()
	id := waitJob(t, wd)
	waitRunning(t, id, 1)
	if out, err := exec.Command("scancel", id+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v\n%s", err, out)
	}
	r := <-done
	if r.code != 1 || !strings.Contains(r.stderr, "failed 1 times, the limit (--max-attempts)") || !strings.Contains(r.stderr, "--resume "+wd) {
		t.Fatalf("freq --engine slurm with a task failed once and --max-attempts 1: exit %d\n%s", r.code, r.stderr)
	}
	// The run stopped: its other task, still running, was cancelled, and is to be
	// submitted again without its cut attempt counted.
	noTasksLeft(t, wd, r.stderr)
	if j, err := cluster.ReadJournal(wd); err != nil || j.Rounds[0].Tasks[0].Accepted || j.Rounds[0].Tasks[0].Seq != -1 || j.Rounds[0].Tasks[0].Attempts != 0 {
		t.Errorf("round 1, task 0 after the stop: %+v (%v); want it cancelled, to be submitted again", j.Rounds[0].Tasks[0], err)
	}
	if _, stderr, code := runFragprof(t, "freq", "--resume", wd, "--eps", "0.5"); code != 2 || !strings.Contains(stderr, "--eps do(es) not apply") {
		t.Errorf("freq --resume with --eps: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := runFragprof(t, "freq", "--resume", wd, "--max-attempts", "2"); code != 0 {
		t.Fatalf("freq --resume: exit %d\n%s", code, stderr)
	}
	j := sameAsLocal(t, wd, prof, slowArgs...)
	if t1 := j.Rounds[0].Tasks[1]; t1.Attempts != 2 || !t1.Accepted || len(t1.Errors) != 1 {
		t.Errorf("round 1, task 1: %+v; want one failure, then an accepted second attempt", t1)
	}
	if j.Spec.Attempts != 2 {
		t.Errorf("--resume --max-attempts 2: the journal says %d", j.Spec.Attempts)
	}
}

// taskLogs returns the output of every task of a run, for a failure's message.
func taskLogs(wd string) string {
	logs, _ := filepath.Glob(filepath.Join(wd, "r*", "t*.log"))
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		b.WriteString("== " + l + "\n" + string(data))
	}
	return b.String()
}

// noTasksLeft fails when the run in wd has tasks queued or running in Slurm, or
// tasks cancelled that do not end within half a minute (KillWait is 5 s).
func noTasksLeft(t *testing.T, wd, stderr string) {
	t.Helper()
	j, err := cluster.ReadJournal(wd)
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, err := exec.Command("squeue", "--noheader", "--array", "--name="+j.Name, "--format=%i %T").CombinedOutput()
		left := strings.TrimSpace(string(out))
		if err == nil && (left == "" || !strings.Contains(left, "RUNNING") && !strings.Contains(left, "PENDING") && time.Now().Before(deadline)) {
			if left == "" {
				return
			}
			continue // ending
		}
		t.Errorf("the run's tasks left in Slurm after freq ended (%v):\n%s\nfreq said:\n%s", err, out, stderr)
		return
	}
}

// waitFor waits until the output of a running fragprof holds want.
func waitFor(t *testing.T, out *syncBuffer, want string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); !strings.Contains(out.String(), want); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("freq did not say %q within %v:\n%s", want, within, out.String())
		}
	}
}

// syncBuffer is a bytes.Buffer that a running command writes while a test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitRunning waits until task of job id runs.
func waitRunning(t *testing.T, id string, task int) {
	t.Helper()
	ref := id + "_" + strconv.Itoa(task)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ := exec.Command("squeue", "--noheader", "--array", "--jobs="+id, "--format=%i %T").Output()
		if strings.Contains(string(out), ref+" RUNNING") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s never seen running:\n%s", ref, out)
		}
	}
}

// TestFreqSlurmFailures: the run's failed trials are judged as on one machine.
// Every trial crashing stops the run after one submission, with the cause and the
// trial to replay; a fifth of them crashing stops it on --max-fail at the trial a
// local run stops at, after the report, with exit 1. A task's share that failed
// whole has a record, and is not resubmitted.
func TestFreqSlurmFailures(t *testing.T) {
	fp := slurmUp(t)
	crash := func(limit string) []string {
		return []string{"testdata/crashsome.c", "--input", "n = uniform_int(1, 10)", "--stdin", "{n} " + limit + `\n`, "--seed", "3", "--eps", "0.5", "--n-min", "150"}
	}
	dir := t.TempDir()
	wd := filepath.Join(dir, "all")
	_, stderr, code := runFragprof(t, append(append([]string{"freq"}, crash("10")...),
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--fragprof", fp, "-o", filepath.Join(dir, "all.txt"))...)
	if code != 1 || !strings.Contains(stderr, "signal SIGABRT") || !strings.Contains(stderr, "--seed 3 --replay ") || !strings.Contains(stderr, "(--max-fail)") {
		t.Errorf("every trial crashing: exit %d\n%s", code, stderr)
	}
	j, err := cluster.ReadJournal(wd)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Rounds) != 1 || len(j.Rounds[0].Jobs) != 1 {
		t.Errorf("every trial crashing: %d rounds, %d submissions of round 1; want one of each (a share that failed whole is a result)\n%s", len(j.Rounds), len(j.Rounds[0].Jobs), stderr)
	}
	noTasksLeft(t, wd, stderr)

	wd = filepath.Join(dir, "some")
	out := filepath.Join(dir, "some.txt")
	_, stderr, code = runFragprof(t, append(append([]string{"freq"}, crash("2")...),
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--fragprof", fp, "-o", out)...)
	_, local, localCode := runFragprof(t, append(append([]string{"freq"}, crash("2")...), "--design", "independent", "-o", filepath.Join(dir, "local.txt"))...)
	stop := regexp.MustCompile(`\d+ of \d+ trials failed: more than 10 % \(--max-fail\)`)
	if code != 1 || localCode != 1 || stop.FindString(stderr) == "" || stop.FindString(stderr) != stop.FindString(local) {
		t.Errorf("a fifth of the trials crashing: exit %d, local %d; want both 1 at the same trial\nslurm:\n%s\nlocal:\n%s", code, localCode, stderr, local)
	}
	if data, err := os.ReadFile(out); err != nil || !strings.Contains(string(data), "SIGABRT") {
		t.Errorf("the report of the run stopped on --max-fail (%v):\n%s", err, data)
	}
}

// TestFreqSlurmWaits: with --max-running 1, a round's second task waits for the
// first; held, then on a drained node, freq names the state and the command that
// ends the wait. Interrupted, it cancels the tasks; --status prints them as text
// and JSON; --resume with new settings submits with them at once and finishes.
func TestFreqSlurmWaits(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin,
		"--engine", "slurm", "--shards", "2", "--max-running", "1", "--workdir", wd, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	var stderr syncBuffer
	cmd := exec.Command(fp, args...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	id := waitJob(t, wd)
	waitRunning(t, id, 0)
	if out, err := exec.Command("scontrol", "hold", id).CombinedOutput(); err != nil {
		t.Fatalf("scontrol hold: %v\n%s", err, out)
	}
	waitFor(t, &stderr, "'scontrol release "+id+"'", 30*time.Second)
	if out, err := exec.Command("scontrol", "release", id).CombinedOutput(); err != nil {
		t.Fatalf("scontrol release: %v\n%s", err, out)
	}
	host, _ := exec.Command("hostname", "-s").Output()
	node := strings.TrimSpace(string(host))
	if out, err := exec.Command("scontrol", "update", "nodename="+node, "state=drain", "reason=fragprof-test").CombinedOutput(); err != nil {
		t.Fatalf("scontrol drain: %v\n%s", err, out)
	}
	resume := func() { exec.Command("scontrol", "update", "nodename="+node, "state=resume").Run() }
	defer resume()
	waitFor(t, &stderr, "'scontrol update nodename="+node+" state=resume'", 30*time.Second)
	resume()
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "cancelled job "+id) {
		t.Fatalf("freq interrupted: %v\n%s", err, stderr.String())
	}
	noTasksLeft(t, wd, stderr.String())
	// The run directory is on a local file system, which the only node shares.
	if strings.Contains(stderr.String(), "local to one machine") {
		t.Errorf("a warning of a node-local run directory on a cluster of this machine alone:\n%s", stderr.String())
	}

	out, errOut, code := runFragprof(t, "freq", "--status", wd)
	if code != 0 || strings.Contains(out, "map[") || !regexp.MustCompile(`(?m)^1 +0:\d+ +2 `).MatchString(out) {
		t.Errorf("freq --status: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runFragprof(t, "freq", "--status", wd, "--json")
	var st cluster.RunStatus
	if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil || len(st.Rounds) != 1 || st.Rounds[0].Tasks != 2 || st.Finished {
		t.Errorf("freq --status --json: exit %d, %v\n%s%s", code, err, out, errOut)
	}

	_, errOut, code = runFragprof(t, "freq", "--resume", wd, "--time", "7", "--max-running", "2")
	if code != 0 {
		t.Fatalf("freq --resume: exit %d\n%s", code, errOut)
	}
	j := sameAsLocal(t, wd, prof, slowArgs...)
	// The submissions of this resume have the settings it was given.
	subs := j.Rounds[0].Jobs
	last := subs[len(subs)-1].ID
	show, err := exec.Command("scontrol", "--oneliner", "show", "job", last).Output()
	if err != nil || !strings.Contains(string(show), "TimeLimit=00:07:00") || !strings.Contains(string(show), "ArrayTaskThrottle=2") {
		t.Errorf("job %s, submitted by freq --resume --time 7 --max-running 2 (%v):\n%s", last, err, show)
	}
}

// TestFreqSlurmProbe: a run directory the tasks cannot write is found by the probe
// job before any round is submitted, with the cause named; --shards above the
// cluster's MaxArraySize is refused before anything is written.
func TestFreqSlurmProbe(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	wd := filepath.Join(dir, "run")
	args := append(append([]string{"freq"}, slurmNewtonArgs...), "--engine", "slurm", "--workdir", wd, "--fragprof", fp, "-o", filepath.Join(dir, "out.txt"))
	// The tasks run as nobody: the directory, root's, is not theirs to write.
	_, stderr, code := runFragprof(t, append(args, "--sbatch=--uid=nobody")...)
	if code != 1 || !strings.Contains(stderr, "the probe job") || !strings.Contains(stderr, "could not write in "+wd) {
		t.Errorf("a run directory the tasks cannot write: exit %d\n%s", code, stderr)
	}
	if j, err := cluster.ReadJournal(wd); err != nil || len(j.Rounds) > 0 && len(j.Rounds[0].Jobs) > 0 {
		t.Errorf("a round was submitted before the probe passed: %v", err)
	}
	for _, k := range []string{"100000", "1000000000"} {
		_, stderr, code := runFragprof(t, append(args, "--shards", k, "--workdir", filepath.Join(dir, "big"+k))...)
		if code != 2 || !strings.Contains(stderr, "MaxArraySize") {
			t.Errorf("--shards %s: exit %d\n%s", k, code, stderr)
		}
	}
}

// TestFreqSlurmDaemons: freq names a node whose slurmd died within a minute, with
// what to do, and goes on once it runs again; a slurmctld restarted mid-round is
// named while it does not answer, and the run ends as a local one.
func TestFreqSlurmDaemons(t *testing.T) {
	fp := slurmUp(t)
	slurmDir := filepath.Dir(slurmOnce.conf)
	up := func() {
		if out, err := exec.Command("../../scripts/slurm-local.sh", "up").CombinedOutput(); err != nil {
			t.Fatalf("slurm-local.sh up: %v\n%s", err, out)
		}
	}
	defer up()
	kill := func(daemon string, sig syscall.Signal) {
		pid, err := os.ReadFile(filepath.Join(slurmDir, daemon+".pid"))
		n, err2 := strconv.Atoi(strings.TrimSpace(string(pid)))
		if err != nil || err2 != nil {
			t.Fatalf("%s's pid: %v %v", daemon, err, err2)
		}
		if err := syscall.Kill(n, sig); err != nil {
			t.Fatalf("killing %s: %v", daemon, err)
		}
	}
	kill("slurmd", syscall.SIGKILL)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin,
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	var stderr syncBuffer
	cmd := exec.Command(fp, args...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitFor(t, &stderr, "not responding (is its slurmd running?)", time.Minute)
	up()
	id := waitJob(t, wd)
	waitRunning(t, id, 0)
	kill("slurmctld", syscall.SIGTERM)
	waitFor(t, &stderr, "'scontrol ping'", time.Minute)
	up()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("freq: %v\n%s", err, stderr.String())
	}
	sameAsLocal(t, wd, prof, slowArgs...)
}

// TestSlurmLocalScript: a second cluster on the port of the running one fails to
// come up, naming the port, and leaves nothing running; the munged the script
// started is the one its pid file names.
func TestSlurmLocalScript(t *testing.T) {
	slurmUp(t)
	other := t.TempDir()
	cmd := exec.Command("../../scripts/slurm-local.sh", "up")
	cmd.Env = append(os.Environ(), "FRAGPROF_SLURM_DIR="+other)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "port 6817") || !strings.Contains(string(out), "in use") {
		t.Errorf("a second cluster on port 6817: %v\n%s", err, out)
	}
	for _, d := range []string{"slurmctld", "slurmd", "munged"} {
		if _, err := os.Stat(filepath.Join(other, d+".pid")); err == nil {
			t.Errorf("the failed cluster left %s.pid", d)
		}
	}
	if pid, err := os.ReadFile(filepath.Join(filepath.Dir(slurmOnce.conf), "munged.pid")); err == nil {
		comm, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != "munged" {
			t.Errorf("munged.pid names %s, which is %q (%v), not munged", pid, comm, err)
		}
	}
}

// TestFreqSlurmStrata: a corpus stratified by directory, proportional
// allocation, runs on Slurm in rounds to the profile of one machine, byte for
// byte, counts per stratum included; the coordinator judges the blocks by the
// stratified mean, as one machine does: a run cut by its budget reports the
// estimates, intervals and states of a local run of the same trials, and the
// trials of each stratum. alloc = neyman is refused, naming the input and the
// engine.
func TestFreqSlurmStrata(t *testing.T) {
	fp := slurmUp(t)
	glob, _ := strataCorpus(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	in := []string{"testdata/wc.c", "--input", `f = file("` + glob + `"; strata = dir)`, "--arg", "{f}", "--seed", "4"}
	_, stderr, code := runFragprof(t, append(append([]string{"freq"}, in...), "--eps", "1e-9", "--engine", "slurm", "--shards", "3",
		"--workdir", wd, "--fragprof", fp, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))...)
	if code != 0 || strings.Contains(stderr, "stratified") {
		t.Fatalf("freq --engine slurm: exit %d, want 0 and no note on the strata\n%s", code, stderr)
	}
	j, err := cluster.ReadJournal(wd)
	if err != nil {
		t.Fatal(err)
	}
	total := j.Rounds[len(j.Rounds)-1].To
	got, err := os.ReadFile(prof)
	if err != nil {
		t.Fatal(err)
	}
	if want := localProfile(t, t.TempDir(), total, in...); total != 44 || !bytes.Equal(got, want) {
		t.Errorf("the cluster's profile of %d trials (%d bytes), in %d rounds, differs from a local run's (%d bytes) or is not of the 44 members",
			total, len(got), len(j.Rounds), len(want))
	}
	// 36 of the 44 members: every stratum past its pilot or whole, none exact.
	budget := append(in, "--eps", "0.01", "--max-trials", "36", "--format", "json")
	slurmJSON := filepath.Join(dir, "budget.json")
	if _, stderr, code := runFragprof(t, append(append([]string{"freq"}, budget...), "--engine", "slurm", "--shards", "3",
		"--workdir", filepath.Join(dir, "budget"), "--fragprof", fp, "-o", slurmJSON)...); code != 0 {
		t.Fatalf("freq --engine slurm --max-trials 36: exit %d\n%s", code, stderr)
	}
	localJSON := filepath.Join(dir, "local.json")
	if _, stderr, code := runFragprof(t, append(append([]string{"freq"}, budget...), "--jobs", "4", "-o", localJSON)...); code != 0 {
		t.Fatalf("local freq --max-trials 36: exit %d\n%s", code, stderr)
	}
	sameJudgement(t, readFreqJSON(t, slurmJSON), readFreqJSON(t, localJSON))
	neyman := []string{"freq", "testdata/wc.c", "--input", `f = file("` + glob + `"; strata = dir, alloc = neyman)`, "--arg", "{f}",
		"--engine", "slurm", "--workdir", filepath.Join(dir, "neyman"), "--fragprof", fp}
	if _, stderr, code := runFragprof(t, neyman...); code != 2 || !strings.Contains(stderr, "input f: alloc = neyman") || !strings.Contains(stderr, "not with --engine slurm") {
		t.Errorf("alloc = neyman on Slurm: exit %d, want 2 naming the input and the engine\n%s", code, stderr)
	}
}

// sameJudgement checks that a cluster's report judges every block as a local
// run's report of the same trials does (the convergence series and the trial
// at which a block converged, which the cluster does not keep, aside), that it
// names the same strata with the same trials, and that some block is undecided
// with a finite interval (the stratified rule's, which these compare).
func sameJudgement(t *testing.T, got, want *report.JSONFreq) {
	t.Helper()
	if got.Trials != want.Trials || !reflect.DeepEqual(got.Strata, want.Strata) || !reflect.DeepEqual(got.States, want.States) {
		t.Fatalf("cluster: %d trials, strata %+v, states %v; local: %d trials, strata %+v, states %v",
			got.Trials, got.Strata, got.States, want.Trials, want.Strata, want.States)
	}
	open := 0
	for fi := range want.Functions {
		for b := range want.Functions[fi].Blocks {
			g, w := got.Functions[fi].Blocks[b], want.Functions[fi].Blocks[b]
			g.Series, w.Series, g.DecidedAt, w.DecidedAt = nil, nil, 0, 0
			if !reflect.DeepEqual(g, w) {
				gj, _ := json.Marshal(g)
				wj, _ := json.Marshal(w)
				t.Errorf("function %s, block %d: cluster %s, local %s", want.Functions[fi].Name, b, gj, wj)
			}
			if w.State == "unconverged" && w.HalfWidth != nil {
				open++
			}
		}
	}
	if open == 0 {
		t.Errorf("no block is undecided with an interval: the comparison does not test the rule's intervals")
	}
}
