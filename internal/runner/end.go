// This file says how a run ended, in the words of count's report: the note under
// it, the exit status fragprof passes on, and the warnings on counts left out.

package runner

import (
	"fmt"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// An Interruption is a SIGINT or SIGTERM that fragprof itself caught during a run.
type Interruption struct {
	Signal syscall.Signal // 0: none
	Mark   string         // how reports mark it: "interrupted" (SIGINT) or "terminated" (SIGTERM)
}

// EndNote says how a run that did not end normally ended, for the report: "" after
// an exit with status 0. timeout is Command.Timeout, where the fault's place
// (faultloc.Describe) or "", intr the signal fragprof caught.
func (s Status) EndNote(timeout time.Duration, intr Interruption, where string) string {
	how := "ended"
	switch {
	case s.Signal != 0:
		how = fmt.Sprintf("was killed by %s (%s)", unix.SignalName(s.Signal), s.Signal)
		if where != "" {
			how += " " + where
		}
	case s.Code != 0:
		how = fmt.Sprintf("exited with status %d", s.Code)
	}
	switch {
	case s.TimedOut:
		return fmt.Sprintf("timed out: the program ran past --timeout %v, was stopped with SIGTERM and %s; the counts are those up to that moment", timeout, how)
	case intr.Signal != 0:
		return fmt.Sprintf("%s (%s): the program %s; the counts are those up to that moment", intr.Mark, unix.SignalName(intr.Signal), how)
	case s.Signal != 0:
		return fmt.Sprintf("the program %s; the counts are those up to that moment", how)
	case s.Code != 0:
		return fmt.Sprintf("the program %s (fragprof exits with it too)", how)
	}
	return ""
}

// EndCode is the exit status fragprof passes on: the program's, as a shell reports
// it; 124 after a timeout (as timeout(1)); 128 + signal when fragprof itself was
// interrupted (intr).
func (s Status) EndCode(intr Interruption) int {
	switch {
	case intr.Signal != 0:
		return 128 + int(intr.Signal)
	case s.TimedOut:
		return 124
	}
	return s.ShellCode()
}

// Warnings say which counts the run left out: of processes still running when it
// was over (Linger after its end, or InterruptLinger after the signal fragprof
// caught, intr), of forked processes that vanished, and of processes that could
// not write theirs (dir is the directory they were to be written in: Loss.Cause).
func (s Status) Warnings(dir string, intr syscall.Signal) []string {
	var ws []string
	if s.Lingering {
		waited := fmt.Sprintf("%v after it ended", Linger)
		if intr != 0 {
			waited = fmt.Sprintf("%v after the %s", InterruptLinger, unix.SignalName(intr))
		}
		ws = append(ws, fmt.Sprintf("processes the program started were still running %s: their counts are not included", waited))
	}
	if s.Vanished > 0 {
		ws = append(ws, fmt.Sprintf("%d forked process(es) of the program ended without writing their counts (killed by SIGKILL, an exit system call of their own, or an exec of a program not built by fragprof): the counts of what they ran after the fork are missing", s.Vanished))
	}
	if s.NLost > 0 {
		ws = append(ws, fmt.Sprintf("%d process(es) of the program wrote no counts, so theirs are not included (process %d: %s)", s.NLost, s.Lost.Pid, s.Lost.Cause(dir)))
	}
	return ws
}
