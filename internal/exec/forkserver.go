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
	"math"
	"os"
	osexec "os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A Server is a running fork server.
type Server struct {
	cmd       *osexec.Cmd
	ctl       *os.File      // requests to the server
	st        *os.File      // replies from it
	r         *bufio.Reader // over st
	inProcess bool
	room      int  // bytes of requests that may be in flight: the request pipe's capacity
	dead      bool // killed or gone: every later call returns ErrServerDied
	req       []byte
	buf       []byte
	extra     []byte
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

// pipeBytes is the capacity asked for each of the server's pipes: a megabyte (Linux's
// default limit for unprivileged processes, /proc/sys/fs/pipe-max-size) holds a
// batch of requests and replies, so that neither side waits for the other's turn.
const pipeBytes = 1 << 20

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
	room := growPipe(reqW)
	growPipe(repR)
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
	return &Server{cmd: cmd, ctl: reqW, st: repR, r: bufio.NewReaderSize(repR, 1<<16),
		inProcess: o.InProcess, room: room}, nil
}

// growPipe asks for a pipe of pipeBytes and returns the capacity it has.
func growPipe(f *os.File) int {
	sc, err := f.SyscallConn()
	if err != nil {
		return 4096
	}
	size := 4096 // PIPE_BUF: what any pipe holds
	sc.Control(func(fd uintptr) {
		unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBytes)
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil {
			size = n
		}
	})
	return size
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

// A Request is one trial's arguments (nil keeps the server's own) and stdin.
type Request struct {
	Args  []string
	Stdin []byte
}

// ErrServerDied is returned when the fork server itself is gone; start a new one.
var ErrServerDied = errors.New("fork server died")

// maxInFlight bounds the requests sent ahead of their replies.
const maxInFlight = 16

// Run runs one trial with the given arguments (nil keeps the server's own) and
// stdin. After timeout (0: none) the trial's process is killed and the trial
// reported as timed out; when ctx ends, the server is killed with it, the trial is
// reported as timed out, and later calls return ErrServerDied.
func (s *Server) Run(ctx context.Context, args []string, stdin []byte, timeout time.Duration) (Trial, error) {
	var out Trial
	ran := false
	err := s.RunBatch(ctx, []Request{{args, stdin}}, timeout, func(_ int, t Trial) error {
		out, ran = t, true
		return nil
	})
	if ran {
		return out, nil
	}
	return out, err
}

// RunBatch runs the trials reqs in order and passes each outcome to fn, whose Trial
// is valid only during the call. Requests are sent ahead of the replies (up to 16,
// and as many bytes as the request pipe holds, so that neither side can block the
// other): the server goes from one trial to the next without waiting for the client,
// and the client reads replies while the server forks. Timeouts and ctx are as in
// Run. It returns after the last trial, at fn's first error, or with ErrServerDied
// when the server is gone: then the trials after the last one passed to fn did not
// run (an in-process trial that called exit() or timed out ends its server so).
func (s *Server) RunBatch(ctx context.Context, reqs []Request, timeout time.Duration, fn func(k int, t Trial) error) error {
	if s.dead {
		return ErrServerDied
	}
	stop := context.AfterFunc(ctx, s.kill)
	defer stop()
	var sizes []int // bytes of the requests in flight
	inFlight, sent := 0, 0
	var timer *time.Timer // an in-process trial's timeout, enforced here
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	var timedOut atomic.Bool
	for k := range reqs {
		// Send what fits, in one write.
		buf := s.req[:0]
		for sent < len(reqs) && len(sizes) < maxInFlight {
			n := len(buf)
			buf = s.encode(buf, reqs[sent], timeout)
			if len(sizes) > 0 && inFlight+len(buf)-n > s.room {
				buf = buf[:n]
				break
			}
			sizes = append(sizes, len(buf)-n)
			inFlight += len(buf) - n
			sent++
		}
		s.req = buf
		if len(buf) > 0 {
			if _, err := s.ctl.Write(buf); err != nil {
				return s.died()
			}
		}
		if s.inProcess && timeout > 0 {
			// The server starts trial k as soon as it has replied to trial k−1.
			timedOut.Store(false)
			timer = time.AfterFunc(timeout, func() { timedOut.Store(true); s.kill() })
		}
		t, err := s.read()
		if timer != nil {
			timer.Stop()
		}
		inFlight -= sizes[0]
		sizes = sizes[1:]
		if err != nil {
			if !timedOut.Load() && ctx.Err() == nil {
				return s.died()
			}
			// Killed by its timeout or by ctx: the trial is reported, the server is gone.
			s.dead = true
			if err := fn(k, Trial{TimedOut: true, Status: Status{Code: -1, Signal: syscall.SIGKILL}}); err != nil {
				return err
			}
			return ErrServerDied
		}
		if err := fn(k, t); err != nil {
			return err
		}
	}
	return nil
}

// encode appends the request for r to req.
func (s *Server) encode(req []byte, r Request, timeout time.Duration) []byte {
	le := binary.LittleEndian
	req = append(req, "FPRQ"...)
	if r.Args == nil {
		req = le.AppendUint32(req, 0xFFFFFFFF)
	} else {
		req = le.AppendUint32(req, uint32(len(r.Args)))
	}
	req = le.AppendUint32(req, uint32(len(r.Stdin)))
	ms := uint64(0)
	if timeout > 0 && !s.inProcess {
		ms = max(1, uint64((timeout+time.Millisecond-1)/time.Millisecond))
	}
	req = le.AppendUint32(req, uint32(min(ms, math.MaxUint32)))
	for _, a := range r.Args {
		req = le.AppendUint32(req, uint32(len(a)))
		req = append(req, a...)
	}
	return append(req, r.Stdin...)
}

// read reads the next reply.
func (s *Server) read() (Trial, error) {
	le := binary.LittleEndian
	var st [20]byte
	if _, err := io.ReadFull(s.r, st[:]); err != nil || string(st[:4]) != "FPST" {
		return Trial{}, ErrServerDied
	}
	var t Trial
	ws := syscall.WaitStatus(le.Uint32(st[4:]))
	if ws.Signaled() {
		t.Status = Status{Code: -1, Signal: ws.Signal()}
	} else {
		t.Status = Status{Code: ws.ExitStatus()}
	}
	t.TimedOut = le.Uint32(st[8:]) != 0
	var err error
	if s.buf, err = s.readFile(s.buf, int(le.Uint32(st[12:]))); err != nil {
		return Trial{}, err
	}
	t.Dump = s.buf
	var eh [8]byte
	if _, err := io.ReadFull(s.r, eh[:]); err != nil {
		return Trial{}, ErrServerDied
	}
	if s.extra, err = s.readFile(s.extra, int(le.Uint32(eh[:]))); err != nil {
		return Trial{}, err
	}
	t.Extra = s.extra
	return t, nil
}

// readFile reads n bytes into buf, grown as needed.
func (s *Server) readFile(buf []byte, n int) ([]byte, error) {
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(s.r, buf); err != nil {
		return nil, ErrServerDied
	}
	return buf, nil
}

// Dead reports whether the server is gone (killed by a timeout or ctx, or it
// ended); a dead server fails every call with ErrServerDied: close it, start another.
func (s *Server) Dead() bool { return s.dead }

// kill kills the server and every trial process (they share its process group).
func (s *Server) kill() {
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
}

func (s *Server) died() error {
	s.dead = true
	return ErrServerDied
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
