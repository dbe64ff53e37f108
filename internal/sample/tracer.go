// This file implements process control: starting or attaching under PTRACE_SEIZE,
// following threads and forks, and leaving every tracee running when done.

package sample

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
)

// A Target says what to trace: a program to start, or a running process.
type Target struct {
	Path   string   // program to start (looked up in PATH when it has no slash)
	Args   []string // its arguments, without argv[0]
	Env    []string // environment; nil means ours
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// PID attaches to a running process (all its threads) instead of starting one.
	PID int
	// ASLR keeps address-space randomization for started programs. By default it is
	// turned off (personality ADDR_NO_RANDOMIZE), so that runs of one program place
	// code at the same addresses and their graphs compare directly.
	ASLR bool
}

// addrNoRandomize is personality(2)'s ADDR_NO_RANDOMIZE.
const addrNoRandomize = 0x0040000

const ptraceOptions = unix.PTRACE_O_TRACECLONE | unix.PTRACE_O_TRACEFORK | unix.PTRACE_O_TRACEVFORK |
	unix.PTRACE_O_TRACEEXEC | unix.PTRACE_O_EXITKILL

// A proc is one traced address space.
type proc struct {
	pid      int
	code     *codeCache
	maps     hotcfg.Maps
	threads  int
	bps      map[uint64]byte // breakpoints in place: address → original byte
	detached bool
}

// A thread is one traced task.
type thread struct {
	tid        int
	p          *proc
	pendingSig int  // signal to deliver on the next resume
	stopped    bool // in a ptrace-stop we know of
}

// A tracer owns the tracees. All methods run on one locked OS thread.
type tracer struct {
	t       Target
	cmd     *exec.Cmd
	root    int
	procs   map[int]*proc
	threads map[int]*thread
	cancel  *atomic.Bool
	// halt is the signal a program the tracer started gets when the run stops before
	// it ends (finish): the SIGINT or SIGTERM that set cancel, or SIGTERM when
	// --max-instructions did; 0 while the run goes on.
	halt     atomic.Int32
	notes    []string
	exitCode int
	exited   bool
	rootMaps hotcfg.Maps
	pidfd    int  // a pidfd of the root process while it lives, for pause; -1: none
	cpu      int  // the CPU the tracer thread is bound to (-1: none)
	pin      bool // bind tracer and tracee to one CPU for the whole run (exact mode) // the root process's latest executable mappings
	// sampling: the other tracees run freely between bursts, so their events are
	// handled (and they are resumed) while interrupt waits for one thread.
	sampling bool
	start    time.Time
	cpu0     time.Duration // the tracer thread's CPU time at the start
}

func (tr *tracer) notef(format string, args ...any) {
	tr.notes = append(tr.notes, fmt.Sprintf(format, args...))
}

// wait waits for a state change of pid (-1: any tracee).
func wait(pid int, flags int) (int, unix.WaitStatus, error) {
	var ws unix.WaitStatus
	var ru unix.Rusage
	for {
		wpid, err := unix.Wait4(pid, &ws, flags|unix.WALL, &ru)
		if err == unix.EINTR {
			continue
		}
		if wpid > 0 && (ws.Exited() || ws.Signaled()) {
			exitUsage.Store(wpid, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
		}
		return wpid, ws, err
	}
}

// exitUsage holds the CPU time (user + system, with its waited-for descendants) of
// each reaped tracee, by pid, as wait4 reported it.
var exitUsage sync.Map

// threadCPU returns the calling thread's CPU time.
func threadCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func ptraceRaw(req, pid int, addr, data uintptr) error {
	_, _, e := unix.Syscall6(unix.SYS_PTRACE, uintptr(req), uintptr(pid), addr, data, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

func personality(p uintptr) uintptr {
	r, _, _ := unix.Syscall(unix.SYS_PERSONALITY, p, 0, 0)
	return r
}

// launch starts the target stopped at its first instruction (the dynamic loader's
// entry) and seized. The child is started with PTRACE_TRACEME (so it stops at exec),
// detached into a SIGSTOP group-stop, seized, and continued with SIGCONT, which is
// suppressed: the program sees none of it.
func (tr *tracer) launch() error {
	path := tr.t.Path
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return err
		}
		path = p
	}
	cmd := exec.Command(path, tr.t.Args...)
	cmd.Args[0] = tr.t.Path
	cmd.Env = tr.t.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tr.t.Stdin, tr.t.Stdout, tr.t.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if !tr.t.ASLR {
		old := personality(0xffffffff)
		personality(old | addrNoRandomize)
		defer personality(old)
	}
	if tr.pin {
		tr.cpu = currentCPU()
		pinSelf(tr.cpu) // the child inherits the binding
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	tr.cmd = cmd
	pid := cmd.Process.Pid
	tr.root = pid
	_, ws, err := wait(pid, 0)
	if err != nil || !ws.Stopped() {
		return fmt.Errorf("sample: %s did not stop at exec (%v)", tr.t.Path, err)
	}
	if err := ptraceRaw(unix.PTRACE_DETACH, pid, 0, uintptr(unix.SIGSTOP)); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("sample: detach: %w", err)
	}
	for {
		_, ws, err = wait(pid, unix.WUNTRACED)
		if err != nil || ws.Exited() || ws.Signaled() {
			return fmt.Errorf("sample: %s vanished at start", tr.t.Path)
		}
		if ws.Stopped() {
			break
		}
	}
	if err := ptraceRaw(unix.PTRACE_SEIZE, pid, 0, ptraceOptions); err != nil {
		unix.Kill(pid, unix.SIGKILL)
		return fmt.Errorf("sample: seize: %w", err)
	}
	unix.Kill(pid, unix.SIGCONT)
	for {
		_, ws, err = wait(pid, 0)
		if err != nil || ws.Exited() || ws.Signaled() {
			return fmt.Errorf("sample: %s vanished at start", tr.t.Path)
		}
		if !ws.Stopped() {
			continue
		}
		if ws.StopSignal() == unix.SIGCONT && ws.TrapCause() <= 0 {
			break // signal-delivery-stop of our SIGCONT: suppress it and start
		}
		ptraceRaw(unix.PTRACE_CONT, pid, 0, 0)
	}
	p, err := tr.addProc(pid)
	if err != nil {
		tr.kill()
		return err
	}
	tr.threads[pid] = &thread{tid: pid, p: p, stopped: true}
	p.threads = 1
	return nil
}

// attach seizes every thread of a running process; they keep running.
func (tr *tracer) attach() error {
	pid := tr.t.PID
	tr.root = pid
	p, err := tr.addProc(pid)
	if err != nil {
		return err
	}
	for round := 0; round < 10; round++ {
		ents, err := os.ReadDir(procPath(pid, "task"))
		if err != nil {
			return fmt.Errorf("sample: attach %d: %w", pid, err)
		}
		added := 0
		for _, e := range ents {
			tid, _ := strconv.Atoi(e.Name())
			if tid == 0 || tr.threads[tid] != nil {
				continue
			}
			if err := ptraceRaw(unix.PTRACE_SEIZE, tid, 0, ptraceOptions&^unix.PTRACE_O_EXITKILL); err != nil {
				if round == 0 && len(tr.threads) == 0 {
					return fmt.Errorf("sample: attach %d: %w", pid, err)
				}
				continue
			}
			tr.threads[tid] = &thread{tid: tid, p: p}
			p.threads++
			added++
		}
		if added == 0 {
			break
		}
	}
	return nil
}

func (tr *tracer) addProc(pid int) (*proc, error) {
	c, err := newCodeCache(pid)
	if err != nil {
		return nil, fmt.Errorf("sample: %w", err)
	}
	m, _ := readMaps(pid)
	p := &proc{pid: pid, code: c, maps: m, bps: map[uint64]byte{}}
	tr.watch(p)
	tr.procs[pid] = p
	return p, nil
}

// tgid returns the thread group of tid from /proc.
func tgid(tid int) int {
	f, err := os.Open(procPath(tid, "status"))
	if err != nil {
		return tid
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "Tgid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return tid
}

// threadOf returns the thread tid, registering it (and its process) when new.
func (tr *tracer) threadOf(tid int) *thread {
	if t := tr.threads[tid]; t != nil {
		return t
	}
	g := tgid(tid)
	p := tr.procs[g]
	if p == nil {
		var err error
		if p, err = tr.addProc(g); err != nil {
			p = &proc{pid: g, bps: map[uint64]byte{}}
			tr.procs[g] = p
		}
		tr.notef("following process %d (forked)", g)
	}
	t := &thread{tid: tid, p: p}
	p.threads++
	tr.threads[tid] = t
	return t
}

// errGone reports that the thread no longer exists.
var errGone = errors.New("sample: thread gone")

// note records a state change of a tracee and leaves the thread stopped (when it
// still exists). It returns the thread and whether it is alive and stopped.
func (tr *tracer) note(tid int, ws unix.WaitStatus) (*thread, bool) {
	t := tr.threadOf(tid)
	if ws.Exited() || ws.Signaled() {
		tr.gone(t, ws)
		return t, false
	}
	if !ws.Stopped() {
		return t, false
	}
	t.stopped = true
	sig := ws.StopSignal()
	switch ws.TrapCause() {
	case 0, -1:
		if sig != unix.SIGTRAP {
			t.pendingSig = int(sig)
		}
	case unix.PTRACE_EVENT_CLONE, unix.PTRACE_EVENT_FORK, unix.PTRACE_EVENT_VFORK:
		if msg, err := unix.PtraceGetEventMsg(tid); err == nil {
			tr.threadOf(int(msg))
		}
	case unix.PTRACE_EVENT_EXEC:
		p := t.p
		if p.pid != tr.root {
			tr.notef("process %d executed a new program: detached", p.pid)
			ptraceRaw(unix.PTRACE_DETACH, tid, 0, 0)
			tr.drop(t)
			p.detached = true
			return t, false
		}
		// After exec only the thread-group leader remains, under the leader's id.
		for id, o := range tr.threads {
			if o.p == p && id != tid {
				delete(tr.threads, id)
				p.threads--
			}
		}
		p.code.close()
		p.code, _ = newCodeCache(p.pid)
		p.maps, _ = readMaps(p.pid)
		tr.watch(p)
		p.bps = map[uint64]byte{}
		tr.notef("process %d executed a new program", p.pid)
	}
	return t, true
}

func (tr *tracer) gone(t *thread, ws unix.WaitStatus) {
	if t.tid == tr.root {
		tr.closePidfd()
		tr.exited = true
		if ws.Exited() {
			tr.exitCode = ws.ExitStatus()
		} else {
			tr.exitCode = 128 + int(ws.Signal())
			tr.notef("program killed by %s", unix.SignalName(ws.Signal()))
		}
	}
	tr.drop(t)
}

func (tr *tracer) drop(t *thread) {
	if tr.threads[t.tid] == t {
		delete(tr.threads, t.tid)
		t.p.threads--
		if t.p.threads <= 0 {
			t.p.code.close()
			delete(tr.procs, t.p.pid)
		}
	}
}

// resume continues (or single-steps) a stopped thread, delivering its pending signal.
func (tr *tracer) resume(t *thread, step bool) error {
	req := unix.PTRACE_CONT
	if step {
		req = unix.PTRACE_SINGLESTEP
	}
	sig := t.pendingSig
	t.pendingSig = 0
	t.stopped = false
	err := ptraceRaw(req, t.tid, 0, uintptr(sig))
	if err == unix.ESRCH {
		return errGone
	}
	return err
}

// interrupt stops a running thread and waits for it. Other stops met on the way are
// noted and resumed. It returns false when the thread is gone.
func (tr *tracer) interrupt(t *thread) bool {
	if t.stopped {
		return true
	}
	if err := ptraceRaw(unix.PTRACE_INTERRUPT, t.tid, 0, 0); err != nil {
		return false
	}
	for {
		// While sampling, wait for any tracee: t may be unable to stop until
		// another has been seen to — a parent in waitpid() for a traced child
		// whose exit the tracer must collect first (examples/hot/forks.c hung
		// here, waiting for the parent alone).
		who := t.tid
		if tr.sampling {
			who = -1
		}
		tid, ws, err := wait(who, 0)
		if err != nil {
			tr.drop(t)
			return false
		}
		if tid != t.tid {
			if th, alive := tr.note(tid, ws); alive && th != t {
				tr.resume(th, false)
			}
			if _, ok := tr.threads[t.tid]; !ok {
				return false
			}
			continue
		}
		if _, alive := tr.note(t.tid, ws); !alive {
			return false
		}
		if ws.TrapCause() == unix.PTRACE_EVENT_STOP || ws.StopSignal() != unix.SIGTRAP && ws.TrapCause() <= 0 {
			// Our interrupt, or a signal-delivery-stop (its signal stays pending).
			return true
		}
		tr.resume(t, false)
	}
}

// removeBreakpoints restores the original bytes of p's breakpoints.
func (p *proc) removeBreakpoints() {
	for a, b := range p.bps {
		p.code.mem.WriteAt([]byte{b}, int64(a))
		delete(p.bps, a)
	}
}

// detachAll removes breakpoints and detaches every thread, delivering pending
// signals; threads it cannot stop are left to PTRACE_O_EXITKILL.
func (tr *tracer) detachAll() {
	for _, t := range tr.threads {
		tr.interrupt(t)
	}
	for _, p := range tr.procs {
		if p.code != nil && p.code.mem != nil {
			if f, err := os.OpenFile(procPath(p.pid, "mem"), os.O_RDWR, 0); err == nil {
				for a, b := range p.bps {
					f.WriteAt([]byte{b}, int64(a))
				}
				f.Close()
			}
			p.bps = map[uint64]byte{}
		}
	}
	for _, t := range tr.threads {
		if t.stopped {
			ptraceRaw(unix.PTRACE_DETACH, t.tid, 0, uintptr(t.pendingSig))
		}
		tr.drop(t)
	}
}

// kill kills every tracee and reaps them.
func (tr *tracer) kill() {
	for _, p := range tr.procs {
		unix.Kill(p.pid, unix.SIGKILL)
	}
	for len(tr.threads) > 0 {
		tid, ws, err := wait(-1, 0)
		if err != nil {
			break
		}
		if t := tr.threads[tid]; t != nil && (ws.Exited() || ws.Signaled()) {
			tr.gone(t, ws)
		}
	}
	tr.threads = map[int]*thread{}
}

// finish releases what exec.Cmd holds (its I/O goroutines) after the program ended.
// A program the tracer started and detached from early (halt) is ended as endOwn
// says, so that it never outlives a Ctrl-C or --max-instructions.
func (tr *tracer) finish() {
	if tr.cmd == nil {
		return
	}
	done := make(chan error, 1)
	go func() { done <- tr.cmd.Wait() }() // reaped already when it ended traced: only the I/O copies are awaited
	if sig := syscall.Signal(tr.halt.Load()); sig != 0 && !tr.exited {
		endOwn(tr.cmd.Process, sig, done)
		return
	}
	<-done
}

// watch makes p's code cache re-read p's mappings when it decodes an address that
// none of them holds (a library loaded since), and keeps the root's mappings.
func (tr *tracer) watch(p *proc) {
	if p.pid == tr.root {
		tr.rootMaps = p.maps
	}
	if p.code == nil {
		return
	}
	p.code.planted = func() map[uint64]byte { return p.bps }
	p.code.miss = func(addr uint64) {
		if _, ok := p.maps.Find(addr); ok {
			return
		}
		if m, err := readMaps(p.pid); err == nil {
			p.maps = m
			if p.pid == tr.root {
				tr.rootMaps = m
			}
		}
	}
}
