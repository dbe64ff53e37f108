// This file implements the client of the runtime's fork server
// (runtime/c/forkserver.c): one long-lived process per worker that forks a fresh
// process image for every trial.

package exec

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"syscall"
	"time"
)

// A Server is a running fork server.
type Server struct {
	cmd   *osexec.Cmd
	ctl   *os.File      // requests to the server
	st    *os.File      // replies from it
	r     *bufio.Reader // over st
	buf   []byte
	extra []byte
}

// ServerOptions configure a fork server.
type ServerOptions struct {
	Dir            string    // working directory of the trials ("" : the current one)
	Stdout, Stderr io.Writer // the trials' output; nil discards it
	Env            []string  // added to the environment
	// InProcess runs the trials one after the other in the server process itself
	// (fragprof freq --isolation none): no fork, for programs whose main leaves no
	// state behind and returns.
	InProcess bool
}

// StartServer starts path as a fork server.
func StartServer(path string, o ServerOptions) (*Server, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, err
	}
	cmd := osexec.Command(path)
	cmd.Env = append(append(os.Environ(), o.Env...), "FRAGPROF_CTL=3,4")
	if o.InProcess {
		cmd.Env = append(cmd.Env, "FRAGPROF_ISOLATION=none")
	}
	cmd.Dir = o.Dir
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return nil, fmt.Errorf("starting %s: %v", path, err)
	}
	reqR.Close()
	repW.Close()
	return &Server{cmd: cmd, ctl: reqW, st: repR, r: bufio.NewReaderSize(repR, 1<<16)}, nil
}

// A Trial is the outcome of one run.
type Trial struct {
	Status   Status
	TimedOut bool
	Dump     []byte // the counter dump, valid until the next Run; empty when the process wrote none
	// Extra holds the records of the runtime's extra channel (fragment times,
	// checkpoint traces: runtime/c/extra.c), valid until the next Run.
	Extra []byte
}

// ErrServerDied is returned when the fork server itself is gone; start a new one.
var ErrServerDied = errors.New("fork server died")

// Run runs one trial with the given arguments (nil keeps the server's own) and
// stdin. After timeout (0: none) or when ctx ends, the trial's process group is
// killed and the trial reported as timed out.
func (s *Server) Run(ctx context.Context, args []string, stdin []byte, timeout time.Duration) (Trial, error) {
	var req []byte
	le := binary.LittleEndian
	req = append(req, "FPRQ"...)
	if args == nil {
		req = le.AppendUint32(req, 0xFFFFFFFF)
	} else {
		req = le.AppendUint32(req, uint32(len(args)))
	}
	req = le.AppendUint32(req, uint32(len(stdin)))
	for _, a := range args {
		req = le.AppendUint32(req, uint32(len(a)))
		req = append(req, a...)
	}
	req = append(req, stdin...)
	if _, err := s.ctl.Write(req); err != nil {
		return Trial{}, ErrServerDied
	}
	var hdr [8]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil || string(hdr[:4]) != "FPPD" {
		return Trial{}, ErrServerDied
	}
	pid := int(le.Uint32(hdr[4:]))
	var t Trial
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		var timer <-chan time.Time
		if timeout > 0 {
			tm := time.NewTimer(timeout)
			defer tm.Stop()
			timer = tm.C
		}
		select {
		case <-timer:
			t.TimedOut = true
			syscall.Kill(pid, syscall.SIGKILL)
		case <-ctx.Done():
			t.TimedOut = true
			syscall.Kill(pid, syscall.SIGKILL)
		case <-stop:
		}
		close(done)
	}()
	var st [16]byte
	_, err := io.ReadFull(s.r, st[:])
	close(stop)
	<-done
	if err != nil || string(st[:4]) != "FPST" {
		return Trial{}, ErrServerDied
	}
	ws := syscall.WaitStatus(le.Uint32(st[4:]))
	if ws.Signaled() {
		t.Status = Status{Code: -1, Signal: ws.Signal()}
	} else {
		t.Status = Status{Code: ws.ExitStatus()}
	}
	n := int(le.Uint32(st[8:]))
	if cap(s.buf) < n {
		s.buf = make([]byte, n)
	}
	t.Dump = s.buf[:n]
	if _, err := io.ReadFull(s.r, t.Dump); err != nil {
		return Trial{}, ErrServerDied
	}
	var eh [8]byte
	if _, err := io.ReadFull(s.r, eh[:]); err != nil {
		return Trial{}, ErrServerDied
	}
	m := int(le.Uint32(eh[:]))
	if cap(s.extra) < m {
		s.extra = make([]byte, m)
	}
	t.Extra = s.extra[:m]
	if _, err := io.ReadFull(s.r, t.Extra); err != nil {
		return Trial{}, ErrServerDied
	}
	return t, nil
}

// Close stops the server and waits for it.
func (s *Server) Close() error {
	s.ctl.Close()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	s.st.Close()
	return nil
}
