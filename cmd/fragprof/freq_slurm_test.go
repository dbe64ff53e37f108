package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
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
	if !strings.Contains(t1.Errors[0], "CANCELLED") {
		t.Errorf("the failure does not say the task was cancelled: %s", t1.Errors[0])
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

// TestFreqSlurmResume: the coordinator dies (SIGKILL) while a round runs; --status
// reads the journal, and --resume picks up the round's tasks and finishes the run.
func TestFreqSlurmResume(t *testing.T) {
	fp := slurmUp(t)
	dir := t.TempDir()
	wd, prof := filepath.Join(dir, "run"), filepath.Join(dir, "slurm.fpp")
	args := append(append([]string{"freq"}, slowArgs...), "--eps", "1", "--berry-esseen", "signed", "--n-min", slowNMin,
		"--engine", "slurm", "--shards", "2", "--workdir", wd, "--profile", prof, "-o", filepath.Join(dir, "slurm.txt"))
	var stderr bytes.Buffer
	cmd := exec.Command(fp, args...)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitJob(t, wd)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	out, errOut, code := runFragprof(t, "freq", "--status", wd)
	if code != 0 || !strings.Contains(out, "coordinator stopped") || !strings.Contains(out, "\n1 ") {
		t.Fatalf("freq --status: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runFragprof(t, "freq", "--resume", wd)
	if code != 0 {
		t.Fatalf("freq --resume: exit %d\n%s\nfirst coordinator:\n%s", code, errOut, stderr.String())
	}
	j := sameAsLocal(t, wd, prof, slowArgs...)
	if len(j.Rounds[0].Jobs) != 1 {
		t.Errorf("round 1 was submitted %d times; the resumed coordinator should have waited for its tasks", len(j.Rounds[0].Jobs))
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
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out, _ := exec.Command("squeue", "--noheader", "--array", "--jobs="+id, "--format=%i %T").Output()
		if strings.Contains(string(out), id+"_1 RUNNING") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("task 1 of job %s never seen running:\n%s", id, out)
		}
	}
	if out, err := exec.Command("scancel", id+"_1").CombinedOutput(); err != nil {
		t.Fatalf("scancel: %v\n%s", err, out)
	}
	r := <-done
	if r.code != 1 || !strings.Contains(r.stderr, "failed 1 times, the limit (--max-attempts)") || !strings.Contains(r.stderr, "--resume "+wd) {
		t.Fatalf("freq --engine slurm with a task failed once and --max-attempts 1: exit %d\n%s", r.code, r.stderr)
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
