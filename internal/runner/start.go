package runner

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Start starts cmd with the parent-death signal SIGKILL (prctl PR_SET_PDEATHSIG), so
// that a fragprof killed by SIGKILL, which runs no cleanup, leaves no program running
// as an orphan. The kernel sends that signal when the thread that started the
// process ends, not the process, and Go ends a thread whose locked goroutine returns
// (internal/sample's tracer does): so every program is started from one goroutine
// locked to a thread of its own for the life of fragprof.
func Start(cmd *exec.Cmd) error {
	starterOnce.Do(func() { go starter() })
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	starts <- startReq{cmd, done}
	return <-done
}

type startReq struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	starterOnce sync.Once
	starts      = make(chan startReq)
)

// starter starts the programs Start is given, on its own thread, which it never
// gives back.
func starter() {
	runtime.LockOSThread()
	for r := range starts {
		r.done <- r.cmd.Start()
	}
}
