// This file holds what the commands that run programs share about Ctrl-C: fragprof
// outlives the program, keeps what it measured and exits as a shell would.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/runner"
)

// interrupts catches SIGINT and SIGTERM while a command runs programs. A Ctrl-C at a
// terminal signals the whole foreground process group — fragprof and the program —
// so fragprof must not die of it: it lets the program end (its runtime writes the
// counts so far), reports what it has, marked, and exits 130 (143 after SIGTERM).
type interrupts struct {
	ctx    context.Context // ended by the first SIGINT or SIGTERM, with an runner.SignalCause
	cancel context.CancelCauseFunc
	ch     chan os.Signal
	sig    atomic.Int32
	// after is settle's timer: time.After, which tests replace to see the wait asked
	// for and to end it themselves.
	after func(time.Duration) <-chan time.Time
}

// settleWait is how long settle waits for fragprof's own copy of a signal.
const settleWait = 100 * time.Millisecond

// catchInterrupts starts catching SIGINT and SIGTERM; stop ends it.
func catchInterrupts() *interrupts {
	i := &interrupts{ch: make(chan os.Signal, 4), after: time.After}
	i.ctx, i.cancel = context.WithCancelCause(context.Background())
	signal.Notify(i.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range i.ch {
			i.sig.CompareAndSwap(0, int32(s.(syscall.Signal)))
			i.cancel(runner.SignalCause{Signal: i.caught()})
		}
	}()
	return i
}

// stop restores the signals' default actions.
func (i *interrupts) stop() {
	signal.Stop(i.ch)
	close(i.ch)
	i.cancel(nil)
}

// settle waits, when the program was killed by SIGINT or SIGTERM and fragprof has
// not seen one yet, up to 100 ms for fragprof's own copy: a signal to the whole
// process group (a terminal's Ctrl-C) reaches both, and the program's end can be
// seen before the Go runtime hands fragprof its signal (CI saw count report "the
// program was killed by SIGINT" without "interrupted" once). A signal sent to the
// program alone costs its report those 100 ms.
func (i *interrupts) settle(killedBy syscall.Signal) {
	if (killedBy != syscall.SIGINT && killedBy != syscall.SIGTERM) || i.caught() != 0 {
		return
	}
	select {
	case <-i.ctx.Done():
	case <-i.after(settleWait):
	}
}

// caught returns the signal caught first, or 0.
func (i *interrupts) caught() syscall.Signal { return syscall.Signal(i.sig.Load()) }

// code returns the exit status after the signal caught (128 + signal), or 0.
func (i *interrupts) code() int {
	if s := i.caught(); s != 0 {
		return 128 + int(s)
	}
	return 0
}

// mark says how the command was stopped, for reports: "interrupted" (SIGINT),
// "terminated" (SIGTERM), or "".
func (i *interrupts) mark() string {
	switch i.caught() {
	case syscall.SIGINT:
		return "interrupted"
	case syscall.SIGTERM:
		return "terminated"
	}
	return ""
}

// failed returns err, the failure of a step before or between runs (a build), as
// the command's error — unless a SIGINT or SIGTERM explains it: one caught, or one
// that killed clang (a Ctrl-C reaches the whole process group) and reaches fragprof
// within settle's wait. Then it says that the command was interrupted while doing
// what, and returns the exit status 128 + signal.
func (i *interrupts) failed(e *env, cmd, doing string, err error) error {
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			i.settle(ws.Signal())
		}
	}
	if i.caught() == 0 {
		return err
	}
	fmt.Fprintf(e.stderr, "fragprof %s: %s (%s) while %s; no report was written\n", cmd, i.mark(), unix.SignalName(i.caught()), doing)
	return exitError{i.code()}
}
