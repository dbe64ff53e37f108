// Package runner runs instrumented programs and collects their counter dumps: once with
// the user's own stdin, arguments and output (fragprof count), or trial after trial.
package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/tmpdir"
)

// A Status is how a run ended.
type Status struct {
	Code   int            // exit code, or -1 when killed by a signal
	Signal syscall.Signal // the killing signal, or 0
	// TimedOut reports that the run outlived Command.Timeout and was stopped.
	TimedOut bool
	// Interrupted reports that Command.Interrupt ended during the run (Ctrl-C).
	Interrupted bool
	// Lingering reports that processes of the run were still running Linger after
	// its first process ended: their counts are not in the dump.
	Lingering bool
	// Lost is a process of the run whose runtime could not write its counts, with
	// the reason it gave (the first process's when it is one of them; Pid 0: none),
	// and NLost how many processes could not.
	Lost  Loss
	NLost int
	// Vanished counts the forked processes of the run that ended without writing
	// their counts or saying why: killed by SIGKILL, ended by an exit system call
	// of their own, or exec'd into a program not built by fragprof.
	Vanished int
}

// A Loss is a process of a run whose counts are lost: its runtime met an error
// writing them (runtime/c/rt_dump.c, __fragprof_dump) and said which on the live
// pipe, as a line "dump-error PID ERRNO".
type Loss struct {
	Pid   int
	Errno syscall.Errno
}

// Cause says why the counts of l are lost, in the words of the user, and what to do;
// dir is the directory they were to be written in (a temporary one in TMPDIR, which
// the message names).
func (l Loss) Cause(dir string) string {
	name := unix.ErrnoName(l.Errno)
	switch l.Errno {
	case syscall.ENOSPC, syscall.EDQUOT:
		return fmt.Sprintf("the file system of %s, where fragprof has the counts written, is full (%s: %v): free some space there, or set TMPDIR to a directory on a file system with room", filepath.Dir(dir), name, l.Errno)
	case syscall.EMFILE, syscall.ENFILE:
		return fmt.Sprintf("the program lowered its limit of open files, hard limit included (RLIMIT_NOFILE, ulimit -n), to the descriptors it had open, so that the runtime could not open its counts file (%s: %v): leave it a descriptor under the limit, or lower only the soft limit, which the runtime raises to the hard one to write its counts", name, l.Errno)
	case syscall.EFBIG:
		return fmt.Sprintf("the program lowered its file size limit, hard limit included (RLIMIT_FSIZE, ulimit -f), below the size of its counts (%s: %v): raise it, or lower only the soft limit, which the runtime raises to the hard one to write its counts", name, l.Errno)
	}
	return fmt.Sprintf("writing its counts to %s failed (%s: %v)", filepath.Dir(dir), name, l.Errno)
}

// ShellCode returns the status a shell would report: the exit code, or 128+signal.
func (s Status) ShellCode() int {
	if s.Signal != 0 {
		return 128 + int(s.Signal)
	}
	return s.Code
}

func (s Status) String() string {
	if s.Signal != 0 {
		return "killed by " + unix.SignalName(s.Signal)
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// A Command is one run of a program built by fragprof.
type Command struct {
	Path string
	// Name is how messages name the program ("" for Path): the sources a temporary
	// binary was built from.
	Name   string
	Args   []string
	Env    []string // added to the environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Dir    string // for the dump file; a temporary directory when empty
	// WorkDir is the program's working directory ("": the current one).
	WorkDir string
	// ExtraOut, when set, names the file that receives the runtime's extra channel
	// (runtime/c/rt_io.c: fragment times, checkpoint traces).
	ExtraOut string
	// Timeout, when positive, stops a run that lasts longer: SIGTERM, on which the
	// runtime writes the counts so far, then SIGKILL after Grace.
	Timeout time.Duration
	// Linger bounds the wait for the processes the program started, after its
	// first process has ended (0: the default, Linger).
	Linger time.Duration
	// Interrupt, when set, is a context that Ctrl-C ends (signal.NotifyContext). A
	// Ctrl-C at a terminal sends SIGINT to the whole foreground process group, so the
	// program has it too: its runtime writes the counts so far and it dies of it. Run
	// waits for that; a program still running 200 ms later (fragprof alone was
	// signalled, or the program handles SIGINT) gets a SIGINT of its own, then
	// SIGKILL after Grace. The signal forwarded is the one the context's cause
	// names (context.Cause, a SignalCause): SIGTERM for a fragprof terminated,
	// otherwise SIGINT.
	Interrupt context.Context
}

// A SignalCause is the cause (context.WithCancelCause) of a Command.Interrupt ended
// by a signal: Run forwards that signal to a program that outlives it.
type SignalCause struct{ Signal syscall.Signal }

func (s SignalCause) Error() string { return "stopped by " + s.Signal.String() }

// interruptSignal is the signal Run forwards when ctx has ended: its SignalCause's,
// or SIGINT.
func interruptSignal(ctx context.Context) syscall.Signal {
	var sc SignalCause
	if errors.As(context.Cause(ctx), &sc) && sc.Signal != 0 {
		return sc.Signal
	}
	return syscall.SIGINT
}

// Linger is how long Run waits, after the program's first process has ended, for
// the processes it started (forked, or exec'd from them), which add their counts to
// the dump at their end.
const Linger = 10 * time.Second

// Grace is how long a program stopped by Command.Timeout or Command.Interrupt has to
// end after its signal, before it is killed by SIGKILL (losing its counts, unless in
// continuous mode).
const Grace = 5 * time.Second

// Run runs c once and returns its dump and status. A program that ends without a dump
// (it called _exit, was killed by SIGKILL, or was not built by fragprof) is an error
// that says so, with the status.
func Run(ctx context.Context, c Command) (*dump.Dump, Status, error) {
	dir := c.Dir
	if dir == "" {
		d, err := tmpdir.Make("run")
		if err != nil {
			return nil, Status{}, err
		}
		defer tmpdir.Remove(d)
		dir = d
	}
	out := filepath.Join(dir, "counts.fpd")
	forks := out + ".forks" // in continuous mode, the counts of the other processes
	os.Remove(out)
	os.Remove(forks)
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Env = append(append(os.Environ(), c.Env...), "FRAGPROF_OUT="+out)
	if c.ExtraOut != "" {
		cmd.Env = append(cmd.Env, "FRAGPROF_EXTRA_OUT="+c.ExtraOut)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.Dir = c.WorkDir
	// Every process of the run holds the write end of the "live" pipe (the runtime
	// moves it out of the program's way, to a high descriptor): its end of file says
	// that the last of them has ended and added its counts.
	liveR, liveW, err := os.Pipe()
	if err != nil {
		return nil, Status{}, err
	}
	defer liveR.Close()
	cmd.ExtraFiles = []*os.File{liveW}
	cmd.Env = append(cmd.Env, "FRAGPROF_LIVE_FD=3")
	said := readLive(liveR)
	var st Status
	err = wait(cmd, c, &st)
	liveW.Close()
	linger := c.Linger
	if linger <= 0 {
		linger = Linger
	}
	st.Lingering = !said.await(linger, c.Interrupt) && cmd.Process != nil
	st.Lost, st.NLost = firstLoss(said.losses, cmd.Process)
	if !st.Lingering {
		// Those still running are Lingering's, not ended without their counts.
		st.Vanished = len(said.open)
	}
	// A run killed while the runtime wrote a new dump file leaves its temporary file,
	// counts.fpd.PID.tmp (counts.fpd.tmp from an older fragprof's runtime).
	os.Remove(out + ".tmp")
	if tmps, err := filepath.Glob(out + ".*.tmp"); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		st.Code = ws.ExitStatus()
		if ws.Signaled() {
			st.Signal = ws.Signal()
		}
	default:
		return nil, st, fmt.Errorf("running %s: %v", c.Path, err)
	}
	d, err := dump.ReadRun(c.Path, out)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		name := c.Name
		if name == "" {
			name = c.Path
		}
		return nil, st, fmt.Errorf("%s wrote no counts (%s): %s", name, st, noCounts(st, dir))
	}
	if err != nil {
		return nil, st, err
	}
	return d, st, nil
}

// firstLoss returns the loss of p, the run's first process, if it is in ls, else
// ls's first, and how many there are.
func firstLoss(ls []Loss, p *os.Process) (Loss, int) {
	var first Loss
	for _, l := range ls {
		if first.Pid == 0 || p != nil && l.Pid == p.Pid {
			first = l
		}
	}
	return first, len(ls)
}

// noCounts says why a run left no dump, and what to do.
func noCounts(st Status, dir string) string {
	switch {
	case st.NLost > 0:
		return st.Lost.Cause(dir)
	case st.Signal == syscall.SIGKILL:
		return "it was killed by SIGKILL, which no program can catch (the out-of-memory killer, a timeout's last resort, or kill -9): count it with --continuous, whose counts survive SIGKILL"
	}
	return "it was not built by fragprof (build it with fragprof cc or count its source), or it ended without running its exit code (an exit system call of its own, or an exec of a program not built by fragprof): count it with --continuous, whose counts survive that"
}

// A live reads fragprof's end of the live pipe from the start of a run (a process
// that found the pipe full would block, and the run never end) until its end of
// file, when the last process of the run has ended, and keeps what the processes
// said on it (runtime/c/rt_io.c, __fragprof_tell): the processes that wrote no counts and
// why ("dump-error PID ERRNO"), and the forked children ("fork PID") that have not
// written theirs ("done PID").
type live struct {
	f      *os.File
	done   chan bool // the end of file came (true), or the read failed
	losses []Loss
	open   map[int]bool
}

// readLive starts reading f.
func readLive(f *os.File) *live {
	l := &live{f: f, done: make(chan bool, 1), open: map[int]bool{}}
	go func() {
		r := bufio.NewReader(f)
		for {
			line, err := r.ReadString('\n')
			l.said(strings.TrimSuffix(line, "\n"))
			if err != nil {
				l.done <- err == io.EOF
				return
			}
		}
	}()
	return l
}

// said takes in one line.
func (l *live) said(line string) {
	word, rest, _ := strings.Cut(line, " ")
	var pid, e int
	switch word {
	case "dump-error":
		if n, _ := fmt.Sscanf(rest, "%d %d", &pid, &e); n == 2 {
			l.losses = append(l.losses, Loss{pid, syscall.Errno(e)})
			delete(l.open, pid)
		}
	case "fork":
		if _, err := fmt.Sscanf(rest, "%d", &pid); err == nil {
			l.open[pid] = true
		}
	case "done":
		if _, err := fmt.Sscanf(rest, "%d", &pid); err == nil {
			delete(l.open, pid)
		}
	}
}

// InterruptLinger bounds the wait for the rest of the run once it is interrupted:
// the program was signalled, and processes it started that the same Ctrl-C reached
// end as quickly; fragprof must not keep a user who pressed Ctrl-C waiting for the
// others.
const InterruptLinger = time.Second

// await waits, up to linger (InterruptLinger once interrupt has ended), for the end
// of file, and reports whether it came. What the processes said can be read once it
// returns.
func (l *live) await(linger time.Duration, interrupt context.Context) bool {
	if interrupt != nil && interrupt.Err() != nil {
		linger = min(linger, InterruptLinger)
	}
	end := time.Now().Add(linger)
	l.f.SetReadDeadline(end)
	var stop <-chan struct{}
	if interrupt != nil {
		stop = interrupt.Done()
	}
	select {
	case ok := <-l.done:
		return ok
	case <-stop:
		// Interrupted while waiting: the rest get InterruptLinger more, no longer.
		if t := time.Now().Add(InterruptLinger); t.Before(end) {
			l.f.SetReadDeadline(t)
		}
		return <-l.done
	}
}

// wait starts cmd and waits for it, stopping it as c.Timeout and c.Interrupt say.
func wait(cmd *exec.Cmd, c Command, st *Status) error {
	if err := Start(cmd); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timeout, forward, kill <-chan time.Time
	if c.Timeout > 0 {
		t := time.NewTimer(c.Timeout)
		defer t.Stop()
		timeout = t.C
	}
	var interrupt <-chan struct{}
	if c.Interrupt != nil {
		interrupt = c.Interrupt.Done()
	}
	for {
		select {
		case err := <-done:
			return err
		case <-timeout:
			timeout = nil
			st.TimedOut = true
			cmd.Process.Signal(syscall.SIGTERM)
			kill = time.After(Grace)
		case <-interrupt:
			interrupt = nil
			st.Interrupted = true
			forward = time.After(200 * time.Millisecond)
		case <-forward:
			forward = nil
			cmd.Process.Signal(interruptSignal(c.Interrupt))
			if kill == nil {
				kill = time.After(Grace)
			}
		case <-kill:
			kill = nil
			cmd.Process.Kill()
		}
	}
}

// BindNow returns env with LD_BIND_NOW=1 (unless the user set LD_BIND_NOW) for a
// program built by fragprof whose first calls must not pay the dynamic linker's lazy
// binding: a fork server, whose trials then inherit every symbol bound, and the timed
// repetitions of `time`. Binaries are linked lazily, as plain builds are: -z now made
// every standalone run resolve the runtime's ~90 libc symbols at start, 55,000
// instructions of ld.so. FRAGPROF_BIND_NOW tells the runtime to remove both variables
// from the environment the program sees and passes on.
func BindNow(env []string) []string {
	if os.Getenv("LD_BIND_NOW") != "" {
		return env
	}
	return append(env, "LD_BIND_NOW=1", "FRAGPROF_BIND_NOW=1")
}
