//go:build integration

package runner

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// limitsSrc lowers the limit argv[1] names ("nofile" or "fsize") to argv[2], its
// hard limit too when argv[3] is "hard", then calls work and returns 0.
const limitsSrc = `#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
static volatile int sink;
static void work(int i) { sink += i; }
int main(int argc, char **argv) {
  int res = strcmp(argv[1], "nofile") == 0 ? RLIMIT_NOFILE : RLIMIT_FSIZE;
  struct rlimit r;
  getrlimit(res, &r);
  r.rlim_cur = strtoul(argv[2], 0, 10);
  if (strcmp(argv[3], "hard") == 0)
    r.rlim_max = r.rlim_cur;
  if (setrlimit(res, &r) != 0)
    return 9;
  for (int i = 0; i < 5; i++)
    work(i);
  return 0;
}
`

// TestRunLimits: a program that lowers its limit of open files (RLIMIT_NOFILE) to the
// descriptors it has, or its file size limit (RLIMIT_FSIZE) to 0, keeps its counts
// when it lowers only the soft limit (the runtime raises it to the hard one while it
// writes them), and otherwise ends as it would plainly (exit 0, not SIGXFSZ) with an
// error that names the limit and the errno. Before, both lost their counts under
// "not built by fragprof, or ended by _exit or SIGKILL", and the file size limit
// killed the program with SIGXFSZ.
func TestRunLimits(t *testing.T) {
	bin := buildExample(t, "limits.c", limitsSrc)
	for _, c := range []struct {
		res, n, hard string
		want         []string // in the error; none: counts kept
	}{
		{"nofile", "3", "soft", nil},
		{"nofile", "3", "hard", []string{"RLIMIT_NOFILE", "EMFILE"}},
		{"fsize", "0", "soft", nil},
		{"fsize", "0", "hard", []string{"RLIMIT_FSIZE", "EFBIG"}},
	} {
		d, st, err := Run(context.Background(), Command{Path: bin, Args: []string{c.res, c.n, c.hard}})
		what := c.res + " " + c.n + " " + c.hard
		if st.Signal != 0 || st.Code != 0 {
			t.Errorf("%s: %v, want exit status 0 as in a plain run", what, st)
			continue
		}
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", what, err)
				continue
			}
			p, err := d.Profile()
			if err != nil {
				t.Fatal(err)
			}
			if n := countsOf(t, p, "work")[0]; n != 5 {
				t.Errorf("%s: work called %d times, want 5", what, n)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: counts read, want an error", what)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to name %s", what, err, w)
			}
		}
		if strings.Contains(err.Error(), "_exit") || strings.Contains(err.Error(), "not built by fragprof") {
			t.Errorf("%s: %v\nwant the true cause only", what, err)
		}
	}
}

// forkExitSrc forks 3 children that call work and end by _exit (the usual end of a
// forked child, which skips the exit handlers); with argv[1] "vfork" a vfork child
// execs nothing and ends by _exit too; the parent calls work once and ends by _exit
// when argv[1] is "parent".
const forkExitSrc = `#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int sink;
static void work(int i) { sink += i; }
int main(int argc, char **argv) {
  for (int k = 0; k < 3; k++) {
    pid_t p = fork();
    if (p == 0) {
      work(k);
      _exit(0);
    }
    waitpid(p, 0, 0);
  }
  if (argc > 1 && strcmp(argv[1], "vfork") == 0) {
    pid_t p = vfork();
    if (p == 0)
      _exit(0);
    waitpid(p, 0, 0);
  }
  work(9);
  if (argc > 1 && strcmp(argv[1], "parent") == 0)
    _Exit(3);
  return 0;
}
`

// TestRunForkExit: processes that end by _exit or _Exit keep their counts: forked
// children (3 calls of work), the first process itself (exit status 3), and a vfork
// child, which shares its parent's counters, writes none and leaves the parent's to
// the parent. Before, the children's counts were lost without a word and a first
// process ending by _exit left no counts.
func TestRunForkExit(t *testing.T) {
	bin := buildExample(t, "forkexit.c", forkExitSrc)
	for _, c := range []struct {
		arg  string
		code int
	}{{"children", 0}, {"vfork", 0}, {"parent", 3}} {
		d, st, err := Run(context.Background(), Command{Path: bin, Args: []string{c.arg}})
		if err != nil {
			t.Errorf("%s: %v", c.arg, err)
			continue
		}
		if st.Code != c.code {
			t.Errorf("%s: %v, want exit status %d", c.arg, st, c.code)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if n := countsOf(t, p, "work")[0]; n != 4 {
			t.Errorf("%s: work called %d times, want 4 (3 children ending by _exit and the parent)", c.arg, n)
		}
	}
}

// TestDumpErrorReported: a runtime that cannot write its counts says why on the live
// pipe (a real write failing with ENOSPC: /dev/full), and Run's message names the
// full file system, the errno and what to do.
func TestDumpErrorReported(t *testing.T) {
	bin := buildExample(t, "limits.c", limitsSrc)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	said := readLive(r)
	cmd := exec.Command(bin, "fsize", "1000000", "soft")
	cmd.Env = append(os.Environ(), "FRAGPROF_OUT=/dev/full", "FRAGPROF_LIVE_FD=3")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	said.await(5*time.Second, nil)
	ls := said.losses
	if len(ls) != 1 || ls[0].Pid != cmd.Process.Pid || ls[0].Errno != syscall.ENOSPC {
		t.Fatalf("the runtime said %v: want dump-error %d %d", ls, cmd.Process.Pid, syscall.ENOSPC)
	}
	first, n := firstLoss(ls, cmd.Process)
	msg := noCounts(Status{Lost: first, NLost: n}, "/var/tmp/fragprof-run1")
	for _, w := range []string{"/var/tmp,", "full", "ENOSPC", "TMPDIR"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not name %s", msg, w)
		}
	}
}

// vanishSrc forks a child that calls work and ends normally, and one that calls
// work and kills itself with SIGKILL, which no handler sees.
const vanishSrc = `#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile int sink;
static void work(int i) { sink += i; }
int main(void) {
  for (int k = 0; k < 2; k++) {
    pid_t p = fork();
    if (p == 0) {
      work(k);
      if (k == 1)
        kill(getpid(), SIGKILL);
      return 0;
    }
    waitpid(p, 0, 0);
  }
  work(9);
  return 0;
}
`

// TestRunVanished: a forked child that ends without writing its counts or saying
// why (SIGKILL) is counted in Status.Vanished, and one that wrote them is not; the
// children ending by _exit of TestRunForkExit's program all wrote theirs. Before,
// such a child's counts were missing without a word.
func TestRunVanished(t *testing.T) {
	for _, c := range []struct {
		name, src string
		vanished  int
		calls     uint64
	}{{"vanish.c", vanishSrc, 1, 2}, {"forkexit.c", forkExitSrc, 0, 4}} {
		d, st, err := Run(context.Background(), Command{Path: buildExample(t, c.name, c.src)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, err := d.Profile()
		if err != nil {
			t.Fatal(err)
		}
		if n := countsOf(t, p, "work")[0]; st.Vanished != c.vanished || n != c.calls {
			t.Errorf("%s: %d processes vanished, work called %d times; want %d and %d", c.name, st.Vanished, n, c.vanished, c.calls)
		}
	}
}
