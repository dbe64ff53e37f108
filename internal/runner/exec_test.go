//go:build integration

package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/profile"
)

// testRoot holds the programs the tests build, shared by all tests of the package.
var testRoot string

func TestMain(m *testing.M) {
	var err error
	if testRoot, err = os.MkdirTemp("", "fragprof-exec-test"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(testRoot)
	os.Exit(code)
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// buildExample builds a C program (a file under examples/, or given source text)
// with fragprof and returns the binary.
func buildExample(t *testing.T, name, src string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[name]; ok {
		return p
	}
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(testRoot, name)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join("../../examples", name)
	if src != "" {
		file = filepath.Join(dir, name)
		os.WriteFile(file, []byte(src), 0o644)
	}
	bin := filepath.Join(dir, "prog")
	var msg bytes.Buffer
	if _, err := tc.Build(context.Background(), &msg, build.Spec{Sources: []string{file}}, dir, bin); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, msg.String())
	}
	built[name] = bin
	return bin
}

// funcCounts reads fn's counts in a dump; known resolves metadata written by
// reference (a fork server's trials after the first), or is nil.
func funcCounts(t *testing.T, data []byte, known *dump.Known, fn string) []uint64 {
	t.Helper()
	d, err := dump.ParseKnown("trial", data, known)
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	return countsOf(t, p, fn)
}

func countsOf(t *testing.T, p *profile.Profile, fn string) []uint64 {
	t.Helper()
	for i, f := range p.Program.Funcs {
		if f.Name == fn {
			return p.Counts[i].Blocks
		}
	}
	t.Fatalf("no function %s", fn)
	return nil
}

// TestForkServerMatchesExec runs the same inputs through the fork server and through
// a fresh exec each, and checks identical counts and statuses.
func TestForkServerMatchesExec(t *testing.T) {
	bin := buildExample(t, "newton.c", "")
	s, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, in := range []string{"100", "400", "799.5", "2", "1e6", "oops"} {
		tr, err := s.Run(context.Background(), nil, []byte(in+"\n"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		fs := funcCounts(t, tr.Dump, tr.Known, "main")
		// The first trial's dump carries the metadata; the others refer to it.
		if _, err := dump.Parse("trial", tr.Dump); (err == nil) != (in == "100") {
			t.Errorf("input %q: read without the server's metadata: %v; want an error for every trial but the first", in, err)
		}
		d, st, err := Run(context.Background(), Command{Path: bin, Stdin: bytes.NewReader([]byte(in + "\n")), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		ex := countsOf(t, p, "main")
		if fmt.Sprint(fs) != fmt.Sprint(ex) || tr.Status != st {
			t.Errorf("input %q: fork server %v %v, exec %v %v", in, fs, tr.Status, ex, st)
		}
		if in == "oops" && tr.Status.Code != 1 {
			t.Errorf("input %q: status %v, want exit status 1", in, tr.Status)
		}
	}
}

// TestForkServerArgs checks per-trial argv: loops.c's inner loop runs n(n-1)/2 times
// with n = 10 + argc.
func TestForkServerArgs(t *testing.T) {
	bin := buildExample(t, "loops.c", "")
	s, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, args := range [][]string{{}, {"a"}, {"a", "b"}, {"a", "b", "c", "d", "e"}} {
		tr, err := s.Run(context.Background(), args, nil, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		d, err := dump.ParseKnown("trial", tr.Dump, tr.Known)
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		n := uint64(11 + len(args))
		want := n * (n - 1) / 2
		found := false
		for _, b := range p.Program.Funcs[0].Blocks {
			if b.Label == "for.body4" {
				found = true
				if got := p.Counts[0].Blocks[b.ID]; got != want {
					t.Errorf("args %v: inner body ran %d times, want %d", args, got, want)
				}
			}
		}
		if !found {
			t.Fatal("no block for.body4 in loops.c")
		}
	}
}

// hangSrc reads a mode: 1 hangs, 2 crashes, anything else is the exit status.
const hangSrc = `#include <stdio.h>
int main(void) {
  int mode = 0;
  if (scanf("%d", &mode) != 1) return 2;
  if (mode == 1) for (;;) ;
  if (mode == 2) { volatile int *p = 0; *p = 1; }
  return mode;
}
`

// TestForkServerTimeoutAndCrash checks that a hanging trial is killed and reported,
// a crashing one reported with its signal and counts, and the server goes on.
func TestForkServerTimeoutAndCrash(t *testing.T) {
	bin := buildExample(t, "hang.c", hangSrc)
	s, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, err := s.Run(context.Background(), nil, []byte("1\n"), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !tr.TimedOut || tr.Status.Signal != syscall.SIGKILL {
		t.Errorf("hanging trial: %+v, want timed out and killed by SIGKILL", tr.Status)
	}
	tr, err = s.Run(context.Background(), nil, []byte("2\n"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status.Signal != syscall.SIGSEGV || len(tr.Dump) == 0 {
		t.Errorf("crashing trial: %+v, dump %d bytes", tr.Status, len(tr.Dump))
	}
	d, err := dump.ParseKnown("crash", tr.Dump, tr.Known)
	if err != nil || d.Signal != int(syscall.SIGSEGV) {
		t.Errorf("crash dump: %v, signal %d", err, d.Signal)
	}
	tr, err = s.Run(context.Background(), nil, []byte("0\n"), 10*time.Second)
	if err != nil || tr.Status.Code != 0 || tr.TimedOut {
		t.Errorf("trial after the crash: %+v %v", tr.Status, err)
	}
}

// TestRunBatchTimeout sends a batch whose second trial hangs: the first is reported,
// the second is killed and reported as timed out, RunBatch says the server is gone,
// and the rest of the batch runs on a new server started by the next call.
func TestRunBatchTimeout(t *testing.T) {
	bin := buildExample(t, "hang.c", hangSrc)
	for _, inproc := range []bool{false, true} {
		s, err := StartServer(bin, ServerOptions{InProcess: inproc})
		if err != nil {
			t.Fatal(err)
		}
		reqs := []Request{{nil, []byte("0\n")}, {nil, []byte("1\n")}, {nil, []byte("0\n")}, {nil, []byte("3\n")}}
		var got []string
		note := func(_ int, tr Trial) error {
			got = append(got, fmt.Sprintf("%v/%d/%v", tr.TimedOut, tr.Status.Code, tr.Status.Signal != 0))
			return nil
		}
		err = s.RunBatch(context.Background(), reqs, 300*time.Millisecond, note)
		if err != ErrServerDied || len(got) != 2 || !s.Dead() {
			t.Fatalf("in-process %v: %v after %d trials (%v), dead %v", inproc, err, len(got), got, s.Dead())
		}
		if err := s.RunBatch(context.Background(), reqs[2:], 10*time.Second, note); err != nil {
			t.Fatalf("in-process %v: the rest: %v", inproc, err)
		}
		want := "[false/0/false true/-1/true false/0/false false/3/false]"
		if fmt.Sprint(got) != want {
			t.Errorf("in-process %v: trials %v, want %s", inproc, got, want)
		}
		s.Close()
	}
}

// TestInProcess runs trials in the server process itself (--isolation none): each
// trial must see its own stdin and start from zeroed counters, and a program that
// calls exit() must end the server, not run on.
func TestInProcess(t *testing.T) {
	bin := buildExample(t, "newton.c", "")
	fork, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer fork.Close()
	none, err := StartServer(bin, ServerOptions{InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	for _, in := range []string{"100", "400", "7", "100"} {
		a, err := fork.Run(context.Background(), nil, []byte(in+"\n"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprint(funcCounts(t, a.Dump, a.Known, "nsqrt"))
		b, err := none.Run(context.Background(), nil, []byte(in+"\n"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(funcCounts(t, b.Dump, b.Known, "nsqrt")); got != want {
			t.Errorf("input %s: in-process counts %s, fork %s", in, got, want)
		}
	}
	exiter := buildExample(t, "exit_nested.c", "")
	s, err := StartServer(exiter, ServerOptions{InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Run(context.Background(), nil, nil, 10*time.Second); err != ErrServerDied {
		t.Errorf("a program calling exit() in-process: %v, want ErrServerDied", err)
	}
}

// TestProtocolMismatch starts two stand-ins for a binary built by another fragprof:
// one refuses the request (status 70, as a server of another version does), one
// answers in an older reply format. Both must end in ErrProtocol, naming the binary,
// not in a hang or a string of dead servers.
func TestProtocolMismatch(t *testing.T) {
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"refuses": `char b[4]; read(3, b, 4); _exit(70);`,
		"older":   `char b[4]; read(3, b, 4); write(4, "FPPD\1\0\0\0", 8); pause();`,
	} {
		dir := t.TempDir()
		src, bin := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
		os.WriteFile(src, []byte("#include <unistd.h>\nint main(void) { "+body+" return 0; }\n"), 0o644)
		if out, err := exec.Command(tc.Clang, "-O1", "-o", bin, src).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		s, err := StartServer(bin, ServerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Run(context.Background(), nil, []byte("1\n"), 10*time.Second)
		if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), bin) {
			t.Errorf("%s: %v, want ErrProtocol naming %s", name, err, bin)
		}
		s.Close()
	}
}

// TestRunTimeout: Command.Timeout stops a program with SIGTERM, on which the runtime
// writes the counts so far and the program ends: a program still running Grace
// later would have been killed by SIGKILL instead.
func TestRunTimeout(t *testing.T) {
	bin := buildExample(t, "pause.c", "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n")
	d, st, err := Run(context.Background(), Command{Path: bin, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !st.TimedOut || st.Signal != syscall.SIGTERM || d.Signal != int(syscall.SIGTERM) {
		t.Errorf("status %+v, dump signal %d: want timed out by SIGTERM", st, d.Signal)
	}
}

// lateChild's child outlives its parent: it sleeps argv[1] milliseconds, then calls
// work 3 times; the parent calls it once and returns.
const lateChild = `#include <stdlib.h>
#include <unistd.h>
static volatile int sink;
static void work(int i) { sink += i; }
int main(int argc, char **argv) {
	if (fork() == 0) {
		usleep(1000 * atoi(argv[1]));
		for (int i = 0; i < 3; i++)
			work(i);
		return 0;
	}
	work(0);
	return 0;
}
`

// TestRunWaitsForItsProcesses: Run reads the dump when the last process of the run
// has ended, not the first: a child that ends 200 ms after its parent has its counts
// in it. One that outlives Command.Linger (here 0.5 s) is reported (Status.Lingering), its counts
// missing. Before, Run read the dump at the first process's end: 1 call of work.
func TestRunWaitsForItsProcesses(t *testing.T) {
	bin := buildExample(t, "late.c", lateChild)
	for _, c := range []struct {
		sleep     string
		linger    time.Duration
		lingering bool
		calls     uint64
	}{{"200", 10 * time.Second, false, 4}, {"5000", 500 * time.Millisecond, true, 1}} {
		d, st, err := Run(context.Background(), Command{Path: bin, Args: []string{c.sleep}, Linger: c.linger})
		if err != nil {
			t.Fatal(err)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if n := countsOf(t, p, "work")[0]; n != c.calls || st.Lingering != c.lingering {
			t.Errorf("child sleeping %s ms: work called %d times, lingering %v; want %d, %v", c.sleep, n, st.Lingering, c.calls, c.lingering)
		}
	}
}

// bindNowSrc exits 3 if LD_BIND_NOW or FRAGPROF_BIND_NOW is in its environment, 4 if
// the process was not started with LD_BIND_NOW=1 (/proc/self/environ keeps the
// environment the process began with, which unsetenv does not erase), else 0.
const bindNowSrc = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  if (getenv("LD_BIND_NOW") || getenv("FRAGPROF_BIND_NOW")) return 3;
  FILE *f = fopen("/proc/self/environ", "r");
  char b[1 << 16];
  size_t n = f ? fread(b, 1, sizeof b - 1, f) : 0;
  for (size_t i = 0; i < n; i += strlen(b + i) + 1)
    if (strcmp(b + i, "LD_BIND_NOW=1") == 0) return 0;
  return 4;
}
`

// TestBindNow: the fork server starts with LD_BIND_NOW=1 (BindNow), so that its trials
// inherit every symbol bound, and the runtime removes it from the environment the
// program sees (and passes on to the programs it runs). A standalone run gets neither.
func TestBindNow(t *testing.T) {
	if os.Getenv("LD_BIND_NOW") != "" {
		t.Fatal("LD_BIND_NOW is set in the test's environment: BindNow leaves it to the user")
	}
	bin := buildExample(t, "bindnow.c", bindNowSrc)
	s, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tr, err := s.Run(context.Background(), nil, nil, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Status.Code != 0 {
		t.Errorf("trial exit status %d; want 0 (3: the variables reached the program; 4: the server did not start with LD_BIND_NOW=1)", tr.Status.Code)
	}
	var ee *exec.ExitError
	if err := exec.Command(bin).Run(); !errors.As(err, &ee) || ee.ExitCode() != 4 {
		t.Errorf("a standalone run: %v; want exit status 4 (started without LD_BIND_NOW)", err)
	}
}

// sparseSrc has 64 functions, of which a trial runs one (two when it forks a child
// that runs another and adds its counts), and crashes on n = 13 after the fork.
var sparseSrc = func() string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <unistd.h>\n#include <sys/wait.h>\n")
	for i := range 64 {
		fmt.Fprintf(&b, "int f%d(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i %% %d) ? i : -i; return s; }\n", i, i+2)
	}
	b.WriteString("int (*fs[])(int) = {")
	for i := range 64 {
		fmt.Fprintf(&b, "f%d, ", i)
	}
	b.WriteString(`};
int main(void) {
	int k, n;
	if (scanf("%d %d", &k, &n) != 2)
		return 1;
	int s = fs[k % 64](n);
	if (n > 10) {
		pid_t p = fork();
		if (p == 0) {
			fs[(k + 1) % 64](n);
			_exit(0);
		}
		waitpid(p, 0, 0);
	}
	if (n == 13) {
		volatile int *z = 0;
		*z = s;
	}
	printf("%d\n", s);
	return 0;
}
`)
	return b.String()
}()

// TestForkServerSparse: a program that runs few of its counters has its trials' dumps
// sent in the sparse form (runtime/c/rt_dump.c, __fragprof_sparse), and every
// function's counts equal those of the same input run by exec, for trials that fork
// a child that adds its counts and for one that crashes (its fault record kept).
func TestForkServerSparse(t *testing.T) {
	bin := buildExample(t, "sparse.c", sparseSrc)
	s, err := StartServer(bin, ServerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, in := range []string{"3 5", "7 20", "63 12", "10 13", "0 0", "5 9"} {
		tr, err := s.Run(context.Background(), nil, []byte(in+"\n"), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		fd, err := dump.ParseKnown("trial", tr.Dump, tr.Known)
		if err != nil {
			t.Fatalf("input %q: %v", in, err)
		}
		fp, err := fd.Profile()
		if err != nil {
			t.Fatalf("input %q: %v", in, err)
		}
		ed, st, err := Run(context.Background(), Command{Path: bin, Stdin: strings.NewReader(in + "\n"), Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := ed.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if tr.Status != st || fd.Signal != ed.Signal || (fd.Fault == nil) != (ed.Fault == nil) {
			t.Errorf("input %q: fork server %v signal %d fault %v, exec %v signal %d fault %v", in, tr.Status, fd.Signal, fd.Fault != nil, st, ed.Signal, ed.Fault != nil)
		}
		if in == "10 13" && (fd.Fault == nil || tr.Status.Signal != syscall.SIGSEGV) {
			t.Errorf("input %q: want a SIGSEGV with its fault record, got %v, fault %v", in, tr.Status, fd.Fault)
		}
		if len(fp.Program.Funcs) != 65 || len(ep.Program.Funcs) != 65 {
			t.Fatalf("input %q: %d and %d functions, want 65", in, len(fp.Program.Funcs), len(ep.Program.Funcs))
		}
		ran := 0
		for i, f := range fp.Program.Funcs {
			if f.Name != ep.Program.Funcs[i].Name || fmt.Sprint(fp.Counts[i]) != fmt.Sprint(ep.Counts[i]) {
				t.Errorf("input %q: function %s: fork server %v, exec %s %v", in, f.Name, fp.Counts[i], ep.Program.Funcs[i].Name, ep.Counts[i])
			}
			if fp.Counts[i].Blocks[0] > 0 {
				ran++
			}
		}
		if ran < 2 {
			t.Errorf("input %q: %d functions ran, want main and one or two others", in, ran)
		}
	}
	if s.nsparse < 5 {
		t.Errorf("%d of 6 dumps came in the sparse form, want every one after the first (which carries the metadata)", s.nsparse)
	}
}
