// Package exec runs instrumented programs and collects their counter dumps: once with
// the user's own stdin, arguments and output (fragprof count), or trial after trial.
package exec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/dump"
)

// A Status is how a run ended.
type Status struct {
	Code   int            // exit code, or -1 when killed by a signal
	Signal syscall.Signal // the killing signal, or 0
	// TimedOut reports that the run outlived Command.Timeout and was stopped.
	TimedOut bool
	// Interrupted reports that Command.Interrupt ended during the run (Ctrl-C).
	Interrupted bool
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
		return "killed by signal " + s.Signal.String()
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// A Command is one run of a program built by fragprof.
type Command struct {
	Path   string
	Args   []string
	Env    []string // added to the environment
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Dir    string // for the dump file; a temporary directory when empty
	// WorkDir is the program's working directory ("": the current one).
	WorkDir string
	// ExtraOut, when set, names the file that receives the runtime's extra channel
	// (runtime/c/extra.c: fragment times, checkpoint traces).
	ExtraOut string
	// Timeout, when positive, stops a run that lasts longer: SIGTERM, on which the
	// runtime writes the counts so far, then SIGKILL after Grace.
	Timeout time.Duration
	// Interrupt, when set, is a context that Ctrl-C ends (signal.NotifyContext). A
	// Ctrl-C at a terminal sends SIGINT to the whole foreground process group, so the
	// program has it too: its runtime writes the counts so far and it dies of it. Run
	// waits for that; a program still running 200 ms later (fragprof alone was
	// signalled, or the program handles SIGINT) gets a SIGINT of its own, then
	// SIGKILL after Grace.
	Interrupt context.Context
}

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
		d, err := os.MkdirTemp("", "fragprof-run")
		if err != nil {
			return nil, Status{}, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	out := filepath.Join(dir, "counts.fpd")
	os.Remove(out)
	cmd := osexec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Env = append(append(os.Environ(), c.Env...), "FRAGPROF_OUT="+out)
	if c.ExtraOut != "" {
		cmd.Env = append(cmd.Env, "FRAGPROF_EXTRA_OUT="+c.ExtraOut)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.Dir = c.WorkDir
	var st Status
	err := wait(cmd, c, &st)
	// A run killed while the runtime wrote its dump leaves the temporary file
	// (counts.fpd.tmp, or counts.fpd.PID.tmp when the program's processes merge).
	os.Remove(out + ".tmp")
	if tmps, err := filepath.Glob(out + ".*.tmp"); err == nil {
		for _, t := range tmps {
			os.Remove(t)
		}
	}
	var ee *osexec.ExitError
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
	data, rerr := os.ReadFile(out)
	if rerr != nil {
		return nil, st, fmt.Errorf("%s wrote no counts (%s): it was not built by fragprof, or it ended by _exit or SIGKILL (--continuous keeps counts through both)", c.Path, st)
	}
	d, err := dump.Parse(c.Path, data)
	return d, st, err
}

// wait starts cmd and waits for it, stopping it as c.Timeout and c.Interrupt say.
func wait(cmd *osexec.Cmd, c Command, st *Status) error {
	if err := cmd.Start(); err != nil {
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
			cmd.Process.Signal(syscall.SIGINT)
			if kill == nil {
				kill = time.After(Grace)
			}
		case <-kill:
			kill = nil
			cmd.Process.Kill()
		}
	}
}
