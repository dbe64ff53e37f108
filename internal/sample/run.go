// This file implements the locked tracer thread and the common set-up of a run.

package sample

import (
	"os"
	"os/signal"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/hotcfg"
)

// Stepping says how the sampler and the exact tracer advance a stopped thread.
type Stepping uint8

const (
	// Auto uses breakpoints when the traced process has one thread, single steps
	// otherwise.
	Auto Stepping = iota
	// Breakpoints plants temporary int3 at the successors of each straight-line run
	// (the software equivalent of x86's branch trap flag).
	Breakpoints
	// SingleStep uses PTRACE_SINGLESTEP for every instruction.
	SingleStep
)

var steppingNames = [...]string{"auto", "breakpoints", "singlestep"}

func (s Stepping) String() string {
	if int(s) < len(steppingNames) {
		return steppingNames[s]
	}
	return "Stepping(?)"
}

// ParseStepping is the inverse of Stepping.String.
func ParseStepping(s string) (Stepping, bool) {
	for i, n := range steppingNames {
		if n == s {
			return Stepping(i), true
		}
	}
	return 0, false
}

// Stats describe a traced run.
type Stats struct {
	Batches      int           // bursts recorded
	Sampled      uint64        // PCs recorded
	Skipped      int           // bursts skipped: thread inside a restartable system call or with a signal pending
	Ticks        int           // sampling ticks (each visits every running thread)
	TickTime     time.Duration // wall time the tracer spent in ticks: the sampler's direct cost
	Instructions uint64        // exact runs: instructions executed
	Wall         time.Duration // wall time of the traced run
	// CPU is the user + system time of the run: the program's whole process tree
	// (as wait4 reports it) plus, under ptrace, the tracer thread's own.
	CPU time.Duration
	// SelfCost is the sampler's own estimate of its cost: under ptrace the wall
	// time of the ticks; in process the CPU time of the bursts.
	SelfCost time.Duration
	// SetupCost is, in process, the CPU time the library spent outside its bursts
	// that it could measure: recording the mappings at the first burst (its load and
	// start it cannot time: StartCost measures them).
	SetupCost time.Duration
	// Conflict is the signal (SIGPROF, SIGTRAP) the program took over, which
	// stopped the in-process sampler; 0 when none.
	Conflict    syscall.Signal
	ExitCode    int         // the program's exit status (128+signal when killed)
	Exited      bool        // the program ended (as opposed to detached)
	Interrupted bool        // stopped early by Ctrl-C or a bound; the tracee was detached
	Maps        hotcfg.Maps // executable mappings of the root process
	Notes       []string    // forks, execs, signals worth reporting
	// Steps says, in process, which stepping methods the bursts used and why.
	Steps StepReport
}

// locked runs f on a new goroutine locked to its own OS thread, which exits with it
// (so that its ptrace relationships and personality die with it).
func locked(f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- f()
	}()
	return <-done
}

// newTracer prepares a tracer and a cancellation flag set by SIGINT or SIGTERM (and
// by the caller through cancel, when not nil); the signal is the one a program the
// tracer started is then stopped with (tracer.finish).
func newTracer(t Target, cancel *atomic.Bool) (*tracer, func()) {
	if cancel == nil {
		cancel = new(atomic.Bool)
	}
	tr := &tracer{t: t, procs: map[int]*proc{}, threads: map[int]*thread{}, cancel: cancel, pidfd: -1}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	stop := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			tr.halt.CompareAndSwap(0, int32(s.(syscall.Signal)))
			cancel.Store(true)
		case <-stop:
		}
	}()
	return tr, func() { signal.Stop(ch); close(stop) }
}

// endOwn ends p, a program fragprof started, once the run has stopped early (Ctrl-C,
// --max-instructions), and waits for done, its Wait: unless it ends by itself within
// 200 ms (the same Ctrl-C may have reached it), it gets sig, then SIGKILL after
// ownGrace. A user who pressed Ctrl-C waits 1.2 s at most.
func endOwn(p *os.Process, sig syscall.Signal, done <-chan error) error {
	select {
	case err := <-done:
		return err
	case <-time.After(200 * time.Millisecond):
	}
	p.Signal(sig)
	select {
	case err := <-done:
		return err
	case <-time.After(ownGrace):
	}
	p.Kill()
	return <-done
}

// ownGrace is how long a program stopped by endOwn has to end after its signal.
const ownGrace = time.Second

// begin starts or attaches to the target.
func (tr *tracer) begin() error {
	tr.start = time.Now()
	tr.cpu0 = threadCPU()
	if tr.t.PID != 0 {
		return tr.attach()
	}
	return tr.launch()
}

// stats fills the common fields of s.
func (tr *tracer) stats(s *Stats) {
	s.Wall = time.Since(tr.start)
	if v, ok := exitUsage.LoadAndDelete(tr.root); ok {
		s.CPU = v.(time.Duration)
	}
	s.CPU += threadCPU() - tr.cpu0
	s.ExitCode = tr.exitCode
	s.Exited = tr.exited
	s.Notes = tr.notes
}
