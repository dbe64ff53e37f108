// This file implements the client of the runtime's fork server
// (runtime/c/rt_fork.c): one long-lived process per worker that forks a fresh
// process image for every trial.

package runner

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/dump"
)

// A Server is a running fork server. One killed by a trial's timeout or gone with an
// in-process trial's exit() is started anew by the next call.
type Server struct {
	path    string
	opts    ServerOptions
	cmd     *exec.Cmd
	ctl     *os.File      // requests to the server
	st      *os.File      // replies from it
	r       *bufio.Reader // over st
	room    int           // bytes of requests that may be in flight: the request pipe's capacity
	dead    bool          // killed or gone
	pid     atomic.Int64  // of the server process, read by the timers that kill its group
	replied bool          // the server process has sent a reply
	req     []byte
	buf     []byte
	sparse  []byte // a sparse dump as sent (dump.Expand)
	nsparse int    // replies whose dump came in its sparse form
	extra   []byte
	// known is the metadata the server's dumps carried in full: its later trials
	// write it by reference (docs/runtime.md, "Dump layout").
	known dump.Known
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
	s := &Server{path: path, opts: o}
	if err := s.start(); err != nil {
		return nil, err
	}
	return s, nil
}

// start starts the server process.
func (s *Server) start() error {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return err
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return err
	}
	room := growPipe(reqW)
	growPipe(repR)
	o := s.opts
	cmd := exec.Command(s.path)
	cmd.Env = append(append(os.Environ(), o.Env...), "FRAGPROF_CTL=3,4")
	cmd.Env = BindNow(cmd.Env)
	if o.InProcess {
		cmd.Env = append(cmd.Env, "FRAGPROF_ISOLATION=none")
	}
	cmd.Dir = o.Dir
	cmd.ExtraFiles = []*os.File{reqR, repW}
	cmd.Stdout, cmd.Stderr = o.Stdout, o.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Start(cmd); err != nil {
		reqR.Close()
		reqW.Close()
		repR.Close()
		repW.Close()
		return fmt.Errorf("starting %s: %v", s.path, err)
	}
	reqR.Close()
	repW.Close()
	s.cmd, s.ctl, s.st, s.r, s.room, s.dead = cmd, reqW, repR, bufio.NewReaderSize(repR, 1<<16), room, false
	s.pid.Store(int64(cmd.Process.Pid))
	s.replied = false
	return nil
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
	// Known resolves the dump's units whose metadata a trial wrote by reference, as
	// every trial after the server's first does: read Dump with dump.ParseKnown.
	Known *dump.Known
	// Extra holds the records of the runtime's extra channel (fragment times,
	// checkpoint traces: runtime/c/rt_io.c), valid until the next Run.
	Extra []byte
}

// A Request is one trial's arguments (nil keeps the server's own) and stdin.
type Request struct {
	Args  []string
	Stdin []byte
}

// ErrServerDied is returned when the fork server itself is gone; start a new one.
var ErrServerDied = errors.New("fork server died")

// ErrProtocol is returned (wrapped, with the binary's name) when the binary's fork
// server speaks another version of the protocol: it was built by another fragprof.
var ErrProtocol = errors.New("its fork server speaks another protocol: rebuild it with this fragprof")

func (s *Server) protocolError(what string) error {
	s.dead = true
	return fmt.Errorf("%s: %w (%s)", s.path, ErrProtocol, what)
}

// maxInFlight bounds the requests sent ahead of their replies.
const maxInFlight = 16

// Run runs one trial with the given arguments (nil keeps the server's own) and
// stdin. After timeout (0: none), or when ctx ends, the server is killed with the
// trial and the trial reported as timed out; the next call starts a new server
// (unless ctx has ended: then it returns ErrServerDied).
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
// run (a trial that timed out, or an in-process trial that called exit(), ends its
// server so); call again for them.
func (s *Server) RunBatch(ctx context.Context, reqs []Request, timeout time.Duration, fn func(k int, t Trial) error) error {
	if s.dead {
		if ctx.Err() != nil {
			return ErrServerDied
		}
		s.Close()
		if err := s.start(); err != nil {
			return err
		}
	}
	stop := context.AfterFunc(ctx, s.kill)
	defer stop()
	var sizes []int // bytes of the requests in flight
	inFlight, sent := 0, 0
	// The timeout is enforced here, for forked and in-process trials alike: trial k
	// starts when the server has replied to trial k−1, no later than this side reads
	// that reply, so a trial is never killed before its time (at worst a little
	// after). Killing takes the server with it; it is restarted for the rest. This
	// costs the server nothing per trial.
	var timedOut atomic.Bool
	var victim atomic.Int64 // the server the running timer kills
	var timer *time.Timer
	if timeout > 0 {
		timer = time.AfterFunc(time.Hour, func() {
			timedOut.Store(true)
			syscall.Kill(-int(victim.Load()), syscall.SIGKILL)
		})
		timer.Stop()
		defer timer.Stop()
	}
	for k := range reqs {
		// Send what fits, in one write.
		buf := s.req[:0]
		for sent < len(reqs) && len(sizes) < maxInFlight {
			n := len(buf)
			buf = s.encode(buf, reqs[sent])
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
		if timer != nil {
			timedOut.Store(false)
			victim.Store(s.pid.Load())
			timer.Reset(timeout)
		}
		t, err := s.read()
		late := timer != nil && !timer.Stop() // fired as the reply came: the server is being killed
		inFlight -= sizes[0]
		sizes = sizes[1:]
		if errors.Is(err, ErrProtocol) {
			return err
		}
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
		if late {
			// Trial k ended in time after all, but the kill is on its way: the
			// trials sent after it go again to a new server.
			s.Close()
			if err := s.start(); err != nil {
				return err
			}
			sizes, inFlight, sent = nil, 0, k+1
		}
	}
	return nil
}

// encode appends the request for r to req.
func (s *Server) encode(req []byte, r Request) []byte {
	le := binary.LittleEndian
	req = append(req, "FPQ3"...)
	if r.Args == nil {
		req = le.AppendUint32(req, 0xFFFFFFFF)
	} else {
		req = le.AppendUint32(req, uint32(len(r.Args)))
	}
	req = le.AppendUint32(req, uint32(len(r.Stdin)))
	for _, a := range r.Args {
		req = le.AppendUint32(req, uint32(len(a)))
		req = append(req, a...)
	}
	return append(req, r.Stdin...)
}

// read reads the next reply.
func (s *Server) read() (Trial, error) {
	le := binary.LittleEndian
	var st [24]byte
	if _, err := io.ReadFull(s.r, st[:4]); err != nil {
		return Trial{}, ErrServerDied
	}
	if string(st[:4]) != "FPR3" { // checked before any length is believed
		s.kill()
		return Trial{}, s.protocolError(fmt.Sprintf("it answered %q", st[:4]))
	}
	s.replied = true
	if _, err := io.ReadFull(s.r, st[4:]); err != nil {
		return Trial{}, ErrServerDied
	}
	var t Trial
	ws := syscall.WaitStatus(le.Uint32(st[4:]))
	if ws.Signaled() {
		t.Status = Status{Code: -1, Signal: ws.Signal()}
	} else {
		t.Status = Status{Code: ws.ExitStatus()}
	}
	n, form, sent := int(le.Uint32(st[8:])), le.Uint32(st[12:]), int(le.Uint32(st[16:]))
	var err error
	switch form {
	case 0:
		if s.buf, err = s.readFile(s.buf, n); err != nil {
			return Trial{}, err
		}
	case 1:
		if s.sparse, err = s.readFile(s.sparse, sent); err != nil {
			return Trial{}, err
		}
		if s.buf, err = dump.Expand(s.buf, s.sparse, n); err != nil {
			s.kill()
			return Trial{}, s.protocolError(err.Error())
		}
		s.nsparse++
	default:
		s.kill()
		return Trial{}, s.protocolError(fmt.Sprintf("a dump of form %d", form))
	}
	t.Dump = s.buf
	s.known.Learn(t.Dump)
	t.Known = &s.known
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

// Dead reports whether the server is gone (killed at a trial's timeout or by ctx,
// or it ended); the next call starts it anew.
func (s *Server) Dead() bool { return s.dead }

// kill kills the server and every trial process (they share its process group).
func (s *Server) kill() {
	syscall.Kill(-int(s.pid.Load()), syscall.SIGKILL)
}

// died marks the server gone and says why: ErrServerDied, or ErrProtocol when a fork
// server refused its first request (status 70: a server of another protocol version).
func (s *Server) died() error {
	s.dead = true
	if s.replied || s.opts.InProcess {
		return ErrServerDied // a trial's exit status, not the server's verdict
	}
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
		if s.cmd.ProcessState != nil && s.cmd.ProcessState.ExitCode() == 70 {
			return s.protocolError("it refused the request, exit status 70")
		}
	case <-time.After(2 * time.Second):
	}
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
