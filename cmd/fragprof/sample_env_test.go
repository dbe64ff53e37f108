//go:build integration

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/hotcfg"
)

// envFromExports parses the export lines `sample --env` prints into NAME=value
// entries: each value single-quoted, a quote inside it closing the quotes, escaped
// with a backslash, and reopening them (EnvVar.Export).
func envFromExports(t *testing.T, out string) []string {
	t.Helper()
	var env []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		m := regexp.MustCompile(`^export ([A-Z_]+)='(.*)'$`).FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("not an export line: %q", l)
		}
		env = append(env, m[1]+"="+strings.ReplaceAll(m[2], `'\''`, `'`))
	}
	return env
}

// runWithEnv runs name args with the environment plus env and returns its output.
func runWithEnv(t *testing.T, env []string, name string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return stdout.String(), stderr.String()
}

// TestSampleEnvCLI: the environment `sample --env` prints makes a shell and the
// program it starts (testdata/busy.c: threads and a forked child) record
// themselves, each process its own complete record (the shell's, the program's and
// its child's, with no temporary file left); the program's output is as without
// it; hotcfg reads the records, finds the program's hot loops and prints the cost
// line the library measured. A records' directory that is gone costs
// the program nothing but one line on stderr per process naming the path.
func TestSampleEnvCLI(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "busy")
	if b, err := exec.Command("gcc", "-O2", "-g", "-pthread", "-o", prog, "../../internal/sample/testdata/busy.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	cli := cliWant(t)
	out := filepath.Join(dir, "recs", "run.rec")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	exports, _ := cli(0, "sample", "--env", "--interval", "500us", "--seed", "7", "-o", out)
	env := envFromExports(t, exports)
	if len(env) != 3 || !strings.HasPrefix(env[0], "LD_PRELOAD=") || !strings.HasPrefix(env[2], "FRAGPROF_SAMPLE_OUT="+out) {
		t.Fatalf("environment %q", env)
	}
	plain, _ := runWithEnv(t, nil, prog)
	sampled, _ := runWithEnv(t, env, "sh", "-c", prog+"; true")
	if sampled != plain {
		t.Errorf("output under --env:\n%s\nplain:\n%s", sampled, plain)
	}
	files, _ := filepath.Glob(out + ".*")
	cmds := map[string]int{}
	var progRecs []string
	for _, f := range files {
		if strings.HasSuffix(f, ".tmp") {
			t.Errorf("temporary file left: %s", f)
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), hotcfg.RecordMagic+"\n") || !strings.HasSuffix(string(b), "\ninfo runs 1\n") {
			t.Errorf("%s is not a whole record", f)
		}
		d, err := hotcfg.ReadBatchFiles([]string{f})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if d.Self == nil || d.Self.Process <= 0 || d.Runs != 1 {
			t.Errorf("%s: cost figures %+v, runs %d", f, d.Self, d.Runs)
		}
		cmd := regexp.MustCompile(`(?m)^info cmd (.*)$`).FindStringSubmatch(string(b))
		if cmd == nil {
			t.Fatalf("%s has no info cmd", f)
		}
		cmds[cmd[1]]++
		if cmd[1] == prog {
			progRecs = append(progRecs, f)
		}
	}
	if cmds[prog] != 2 || cmds["sh -c "+prog+"; true"] != 1 || len(files) != 3 {
		t.Fatalf("records %v of commands %v: want the shell's, the program's and its forked child's", files, cmds)
	}
	top, errOut := cli(0, "hotcfg", progRecs[0], progRecs[1], "--top", "5")
	for _, fn := range []string{"main", "thread"} {
		if !regexp.MustCompile(`(?m)%\s+\d+\s+` + fn + `\s`).MatchString(top) {
			t.Errorf("hotcfg --top names no %s:\n%s", fn, top)
		}
	}
	if !regexp.MustCompile(`cost \(estimate\): in the program \S+ \(bursts \S+, [1-9]\d* of .* measured by the library in 2 process\(es\)\); no fragprof process in the tree: [0-9.]+% over the program's own CPU time`).MatchString(errOut) {
		t.Errorf("no cost line from hotcfg:\n%s", errOut)
	}
	cli(0, "export", progRecs[0], "--format", "pprof", "-o", filepath.Join(dir, "r.pb.gz"))

	// The records' directory removed after --env (which checks that it exists):
	// the program runs as without the sampler.
	bad := filepath.Join(dir, "gone", "run.rec")
	if err := os.Mkdir(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	exports, _ = cli(0, "sample", "--env", "-o", bad)
	if err := os.Remove(filepath.Dir(bad)); err != nil {
		t.Fatal(err)
	}
	sampled, errOut = runWithEnv(t, envFromExports(t, exports), prog)
	if sampled != plain {
		t.Errorf("output with an unwritable record:\n%s\nplain:\n%s", sampled, plain)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 2 {
		t.Errorf("stderr of the program and its child: want a line each, got\n%s", errOut)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "fragprof: cannot write the record "+bad+".") {
			t.Errorf("stderr line %q does not name the record's path", l)
		}
	}
}
