// Command badinput tries fragprof on bad input as a new user would give it — missing
// and malformed files, bad flags, malformed distributions and models, damaged and
// mismatched profiles, programs that crash, hang, fork, exit non-zero or print
// nothing — each under a timeout, and SIGINT and SIGTERM sent to fragprof or to its
// process group while it builds, runs trials or samples, and prints a table of what
// happened and the totals that must be zero: hangs (a run that outlived its
// timeout, or ended more than 2 s after a signal), panics, exit-0 failures (bad
// input accepted with status 0), lost counts (a crashing or interrupted program
// whose counts are missing from the report) and overwritten files (a user's file
// that a run replaced, such as a source named as -o). It also counts
// messages that leak fragprof's internals (temporary paths, Go parser errors) and
// exit statuses other than the expected one.
//
// Usage (bench/badinput.sh builds fragprof and runs this):
//
//	go run ./bench/badinput -fragprof ./fragprof [-md docs/errors.md] [-run REGEXP] [-j 2]
//
// It exits with status 1 when any total that must be zero is not.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/runner"
)

// A check is what one case expects.
type check struct {
	exit int // the exit status wanted; anyNonZero for "some failure"
	// counts, when not empty, names functions whose call counts the JSON report
	// (the case writes it to out.json) must hold: "name=calls".
	counts []string
	// stdout, when not empty, must appear on stdout (a report routed there).
	stdout string
	// message, when not empty, must appear on stderr.
	message string
	// intact names fixtures that the run must leave as they were.
	intact []string
}

const anyNonZero = -1

// A testCase is one bad input.
type testCase struct {
	cat, name string
	args      []string
	stdin     string
	env       []string // added to the environment, NAME=VALUE
	closed    bool     // run with stdout closed, as a shell's >&- does
	timeout   time.Duration
	want      check
	// sig, when set, is sent once a process named after (fragprof's descendant)
	// runs: to fragprof's pid, or to its process group with group. The run must end
	// within signalBound of it.
	sig   syscall.Signal
	group bool
	after string
}

// signalBound is how soon after SIGINT or SIGTERM every command must end.
const signalBound = 2 * time.Second

// A result is what one case did.
type result struct {
	c       *testCase
	exit    int
	elapsed time.Duration
	stdout  string
	stderr  string
	verdict []string // "HANG", "PANIC", "EXIT0", "LOST", "OVERWRITTEN", "STATUS", "LEAK", "MESSAGE"
	detail  string
}

var (
	reLeak  = regexp.MustCompile(`/tmp/fragprof-|\.ll\b|\.tmp[0-9]|accepts \d+ arg|requires at least|strconv\.|(?:^|\s)json: |fork/exec|goroutine \d+|\bpanic:`)
	rePanic = regexp.MustCompile(`(?m)^panic: |^goroutine \d+ \[|runtime error:`)
)

func main() {
	fp := flag.String("fragprof", "./fragprof", "the fragprof binary to try")
	md := flag.String("md", "", "also write the table as markdown to `FILE` (docs/errors.md)")
	only := flag.String("run", "", "run only the cases whose category/name matches `REGEXP`")
	jobs := flag.Int("j", 2, "cases run at once")
	flag.Parse()
	bin, err := filepath.Abs(*fp)
	if err != nil {
		fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		fatal(fmt.Errorf("%v (build it: go build -o fragprof ./cmd/fragprof)", err))
	}
	work, err := os.MkdirTemp("", "badinput-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(work)
	if err := setUp(bin, work); err != nil {
		fatal(err)
	}
	var sel []*testCase
	re := regexp.MustCompile(*only)
	for _, c := range cases() {
		if re.MatchString(c.cat + "/" + c.name) {
			sel = append(sel, c)
		}
	}
	results := make([]*result, len(sel))
	var wg sync.WaitGroup
	sem := make(chan bool, max(*jobs, 1))
	for i, c := range sel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- true
			defer func() { <-sem }()
			results[i] = runCase(bin, work, i, c)
		}()
	}
	wg.Wait()
	totals := map[string]int{}
	fmt.Printf("%-3s %-9s %-40s %5s %5s %6s  %-12s %s\n", "#", "category", "case", "exit", "want", "secs", "verdict", "message (first line)")
	for i, r := range results {
		v := "ok"
		if len(r.verdict) > 0 {
			v = strings.Join(r.verdict, ",")
		}
		for _, x := range r.verdict {
			totals[x]++
		}
		fmt.Printf("%-3d %-9s %-40s %5d %5s %6.1f  %-12s %s\n", i+1, r.c.cat, trunc(r.c.name, 40), r.exit, wantText(r.c.want.exit),
			r.elapsed.Seconds(), v, trunc(firstLine(r), 110))
		if r.detail != "" {
			fmt.Printf("%64s └ %s\n", "", r.detail)
		}
	}
	fmt.Printf("\n%d cases: %d hangs, %d panics, %d exit-0 failures, %d lost counts, %d files overwritten (each must be 0); %d other exit statuses, %d messages without the expected text, %d messages with internal text\n",
		len(results), totals["HANG"], totals["PANIC"], totals["EXIT0"], totals["LOST"], totals["OVERWRITTEN"], totals["STATUS"], totals["MESSAGE"], totals["LEAK"])
	if *md != "" {
		if err := writeMarkdown(*md, results); err != nil {
			fatal(err)
		}
	}
	if totals["HANG"]+totals["PANIC"]+totals["EXIT0"]+totals["LOST"]+totals["OVERWRITTEN"] > 0 {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "badinput:", err)
	os.Exit(2)
}

func wantText(w int) string {
	if w == anyNonZero {
		return "≠0"
	}
	return fmt.Sprint(w)
}

func trunc(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// firstLine is the message a user reads first: the first line of stderr that is
// fragprof's own (the program's output and clang's diagnostics come before it).
func firstLine(r *result) string {
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "fragprof") {
			return l
		}
	}
	if len(lines) > 0 && lines[0] != "" {
		return lines[0]
	}
	if s := strings.TrimSpace(r.stdout); s != "" {
		return "(stdout) " + strings.Split(s, "\n")[0]
	}
	return "(nothing printed)"
}

// runCase runs one case in a directory of its own (a copy of the fixtures' names by
// symlink), under its timeout; a run that outlives it is killed with its process
// group and is a hang.
func runCase(bin, work string, i int, c *testCase) *result {
	dir := filepath.Join(work, fmt.Sprintf("case%02d", i))
	os.MkdirAll(dir, 0o755)
	ents, _ := os.ReadDir(filepath.Join(work, "fix"))
	for _, e := range ents {
		os.Symlink(filepath.Join(work, "fix", e.Name()), filepath.Join(dir, e.Name()))
	}
	timeout := c.timeout
	if timeout == 0 {
		timeout = 120 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, c.args...)
	if c.closed {
		cmd = exec.CommandContext(ctx, "sh", append([]string{"-c", `exec "$0" "$@" >&-`, bin}, c.args...)...)
	}
	cmd.Env = append(os.Environ(), c.env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(c.stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Start()
	var afterSignal time.Duration // from the signal to the end
	if err == nil {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		if c.sig != 0 {
			err = signalWhenRunning(cmd, c, done, &afterSignal)
		} else {
			err = <-done
		}
	}
	r := &result{c: c, elapsed: time.Since(start), stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.exit = 128 + int(ws.Signal())
		}
	default:
		r.exit = -1
		r.detail = err.Error()
	}
	if ctx.Err() != nil {
		r.verdict = append(r.verdict, "HANG")
		r.detail = fmt.Sprintf("killed after %v", timeout)
		return r
	}
	switch {
	case afterSignal > signalBound:
		r.verdict = append(r.verdict, "HANG")
		r.detail = fmt.Sprintf("ended %.1f s after %s, more than %v", afterSignal.Seconds(), sigName(c), signalBound)
	case afterSignal > 0:
		r.detail = fmt.Sprintf("ended %.2f s after %s", afterSignal.Seconds(), sigName(c))
	}
	if rePanic.MatchString(r.stderr) {
		r.verdict = append(r.verdict, "PANIC")
	}
	switch w := c.want.exit; {
	case w != 0 && r.exit == 0:
		r.verdict = append(r.verdict, "EXIT0")
	case w == anyNonZero && r.exit != 0, w == r.exit:
	default:
		r.verdict = append(r.verdict, "STATUS")
	}
	if len(c.want.counts) > 0 {
		if msg := checkCounts(filepath.Join(dir, "out.json"), c.want.counts); msg != "" {
			r.verdict = append(r.verdict, "LOST")
			r.detail = msg
		}
	}
	for _, name := range c.want.intact {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != fixture(name) {
			r.verdict = append(r.verdict, "OVERWRITTEN")
			r.detail = name + " was overwritten"
		}
	}
	if c.want.stdout != "" && !strings.Contains(r.stdout, c.want.stdout) {
		r.verdict = append(r.verdict, "MESSAGE")
		r.detail = fmt.Sprintf("stdout lacks %q", c.want.stdout)
	}
	if c.want.message != "" && !strings.Contains(r.stderr, c.want.message) {
		r.verdict = append(r.verdict, "MESSAGE")
		r.detail = fmt.Sprintf("stderr lacks %q", c.want.message)
	}
	if m := reLeak.FindString(r.stderr); m != "" && !rePanic.MatchString(r.stderr) {
		r.verdict = append(r.verdict, "LEAK")
		if r.detail == "" {
			r.detail = fmt.Sprintf("internal text %q in the message", m)
		}
	}
	return r
}

// signalWhenRunning waits until a descendant of cmd named c.after runs, sends c.sig,
// and waits for the end (done): the time from the signal to the end goes to took.
// A run that ends before the descendant appears ends the case as it is.
func signalWhenRunning(cmd *exec.Cmd, c *testCase, done <-chan error, took *time.Duration) error {
	for !runner.HasDescendant(cmd.Process.Pid, c.after) {
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Millisecond):
		}
	}
	time.Sleep(300 * time.Millisecond)
	pid := cmd.Process.Pid
	if c.group {
		pid = -pid
	}
	sent := time.Now()
	syscall.Kill(pid, c.sig)
	err := <-done
	*took = time.Since(sent)
	return err
}

// sigName says how a case is signalled, for the table: "SIGINT to its group".
func sigName(c *testCase) string {
	to := "to fragprof"
	if c.group {
		to = "to its group"
	}
	return map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[c.sig] + " " + to
}

// checkCounts reads a count report (docs/json.md) and checks the call counts.
func checkCounts(path string, want []string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "no report: " + err.Error()
	}
	var rep struct {
		Functions []struct {
			Name  string  `json:"name"`
			Calls *uint64 `json:"calls"`
		} `json:"functions"`
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		return "report is not JSON: " + err.Error()
	}
	calls := map[string]uint64{}
	for _, f := range rep.Functions {
		if f.Calls != nil {
			calls[f.Name] += *f.Calls
		}
	}
	for _, w := range want {
		name, n, _ := strings.Cut(w, "=")
		var v uint64
		fmt.Sscan(n, &v)
		if calls[name] != v {
			return fmt.Sprintf("%s called %d times in the report, want %d", name, calls[name], v)
		}
	}
	return ""
}

// writeMarkdown writes docs/errors.md: every case, its message and exit status.
func writeMarkdown(path string, results []*result) error {
	var b strings.Builder
	b.WriteString(`# Bad input: what fragprof says

Every row is a bad input tried by ` + "`bench/badinput.sh`" + ` (` + "`go run ./bench/badinput -md docs/errors.md`" + ` writes
this page): the command (run in a directory holding the fixtures the script
writes), the first line of fragprof's message, and the exit status: 0 success, 1 a
failure, 2 a usage error, 128+N the profiled program killed by signal N (as a shell
reports it), 130 and 143 fragprof itself stopped by SIGINT (Ctrl-C) or SIGTERM,
otherwise the program's own status passed through. A command marked "# SIGINT to
fragprof once prog runs" was sent that signal (to fragprof's pid, or to its whole
process group as Ctrl-C does) once a process of that name ran under it. The script
fails when a run hangs (outlives its timeout, or ends more than 2 s after a signal),
panics, accepts bad input with status 0, loses the counts of a program that
crashed or was interrupted, or overwrites one of the user's files.

| category | command | message | exit | verdict |
| --- | --- | --- | --- | --- |
`)
	cats := map[string]bool{}
	for _, r := range results {
		cats[r.c.cat] = true
	}
	names := make([]string, 0, len(cats))
	for c := range cats {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, cat := range names {
		for _, r := range results {
			if r.c.cat != cat {
				continue
			}
			v := "ok"
			if len(r.verdict) > 0 {
				v = "**" + strings.Join(r.verdict, ", ") + "**"
			}
			cmd := "fragprof " + strings.Join(quoteArgs(r.c.args), " ")
			if r.c.closed {
				cmd += " >&-"
			}
			if len(r.c.env) > 0 {
				cmd = strings.Join(r.c.env, " ") + " " + cmd
			}
			if r.c.sig != 0 {
				cmd += fmt.Sprintf("  # %s once %s runs", sigName(r.c), r.c.after)
			}
			if r.c.stdin != "" {
				cmd = fmt.Sprintf("echo %q | %s", strings.TrimSuffix(r.c.stdin, "\n"), cmd)
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %d | %s |\n", cat, mdCode(cmd), mdText(firstLine(r)), r.exit, v)
		}
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " '\"(){}[]*\\|$<>;&") || a == "" {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}

func mdCode(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "`", "'"), "|", `\|`) }

func mdText(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
