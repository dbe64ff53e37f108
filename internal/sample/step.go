// This file implements stepping: running a stopped thread to its next transfer of
// control, by temporary breakpoints (one trap per block) or by single steps.

package sample

import (
	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
)

// maxRun bounds the straight-line instructions decoded ahead of a stop.
const maxRun = 256

// A stepResult says what a step executed.
type stepResult struct {
	run      []insn // instructions decoded from the start pc
	executed int    // how many of run executed (a prefix)
	next     uint64 // pc after the executed prefix, when known (ok or known)
	ok       bool   // the thread is stopped at next, by us
	known    bool   // next is known (ok, or a foreign stop at a known pc)
	// ev is a stop that was not ours (a signal, a fork, an exit); it has been
	// noted. alive says whether the thread still exists and is stopped.
	ev    bool
	alive bool
}

func getPC(tid int) (uint64, error) {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return 0, err
	}
	return r.Rip, nil
}

func setPC(tid int, pc uint64) error {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return err
	}
	r.Rip = pc
	return unix.PtraceSetRegs(tid, &r)
}

// inSyscallRestart reports whether a stopped thread was interrupted inside a system
// call that the kernel will restart when it resumes (rax holds -ERESTART*): its
// user state is not at an instruction boundary we can step from.
func inSyscallRestart(tid int) bool {
	var r unix.PtraceRegs
	if err := unix.PtraceGetRegs(tid, &r); err != nil {
		return true
	}
	if int64(r.Orig_rax) < 0 {
		return false
	}
	switch int64(r.Rax) {
	case -512, -513, -514, -516: // ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND, ERESTART_RESTARTBLOCK
		return true
	}
	return false
}

// straight decodes the straight-line run from pc: up to and including the first
// branch or trapping instruction, at most limit instructions.
func straight(c *codeCache, pc uint64, limit int) []insn {
	var run []insn
	for a := pc; len(run) < limit; {
		in, ok := c.get(a)
		if !ok {
			break
		}
		run = append(run, in)
		if in.Kind.IsBranch() || in.trap {
			break
		}
		a = in.Next()
	}
	return run
}

// runWait resumes t (continue or single-step) and waits for its next stop.
func (tr *tracer) runWait(t *thread, step bool) (unix.WaitStatus, error) {
	if err := tr.resume(t, step); err != nil {
		return 0, err
	}
	_, ws, err := wait(t.tid, 0)
	return ws, err
}

// ours reports whether ws is a plain SIGTRAP stop (a breakpoint or a single step).
func ours(ws unix.WaitStatus) bool {
	return ws.Stopped() && ws.StopSignal() == unix.SIGTRAP && ws.TrapCause() == 0
}

// foreign notes a stop that was not ours and fills r accordingly.
func (tr *tracer) foreign(t *thread, ws unix.WaitStatus, r *stepResult) {
	r.ev = true
	_, r.alive = tr.note(t.tid, ws)
}

// stepOne single-steps the instruction at pc.
func (tr *tracer) stepOne(t *thread, pc uint64) stepResult {
	in, ok := t.p.code.get(pc) // decoded before the step: the process may be gone after it
	r := stepResult{}
	ws, err := tr.runWait(t, true)
	if err != nil {
		r.ev, r.alive = true, false
		tr.drop(t)
		return r
	}
	if !ours(ws) {
		tr.foreign(t, ws, &r)
		if ws.Exited() || ws.Signaled() {
			// The instruction was the last one (exit_group).
			if ok {
				r.run, r.executed = []insn{in}, 1
			}
		} else if r.alive && ok {
			// An event stop: before the instruction, or after it (a system call that
			// cloned, forked or executed).
			if rip, err := getPC(t.tid); err == nil {
				r.run, r.next, r.known = []insn{in}, rip, true
				if rip != pc {
					r.executed = 1
				}
			}
		}
		return r
	}
	t.stopped = true
	next, err := getPC(t.tid)
	if err != nil {
		r.ev = true
		return r
	}
	if !ok {
		// Undecodable: account it as an indirect transfer of unknown length.
		in = insn{Insn: hotcfg.Insn{Addr: pc, Kind: hotcfg.IndirectJump}}
	} else if in.unsure {
		t.p.code.learn(in, next)
		in, _ = t.p.code.get(pc)
		if in.unsure {
			in = insn{Insn: hotcfg.Insn{Addr: pc, Kind: hotcfg.IndirectJump}}
		}
	}
	r.run, r.executed, r.next, r.ok, r.known, r.alive = []insn{in}, 1, next, true, true, true
	return r
}

// advance runs t, stopped at pc, through the straight-line run to its next transfer
// of control and returns what executed. With bp, a block costs one breakpoint trap
// (two for returns, indirect branches and system calls); without, one single step
// per instruction. Breakpoints are only safe when t is its process's only thread.
// With limit > 0, a run that already holds limit instructions is decoded but not
// executed (ok is false, executed 0): the caller only wanted to see them.
func (tr *tracer) advance(t *thread, pc uint64, bp bool, limit int) stepResult {
	c := t.p.code
	run := straight(c, pc, maxRun)
	if limit > 0 && len(run) >= limit {
		return stepResult{run: run[:limit], alive: true}
	}
	if len(run) == 0 {
		return tr.stepOne(t, pc)
	}
	if !bp {
		r := stepResult{run: run, alive: true}
		for i := range run {
			s := tr.stepOne(t, run[i].Addr)
			if s.executed == 0 || !s.ok {
				r.executed += s.executed
				r.next, r.known, r.ev, r.alive = s.next, s.known, s.ev, s.alive
				return r
			}
			if s.next == run[i].Addr && !run[i].Kind.IsBranch() {
				// One iteration of a rep-prefixed instruction: step again.
				s2 := tr.stepUntilPast(t, run[i])
				s = s2
				if !s.ok {
					r.executed += s.executed
					r.next, r.known, r.ev, r.alive = s.next, s.known, s.ev, s.alive
					return r
				}
			}
			r.executed++
			r.next, r.ok, r.known = s.next, true, true
			if i+1 < len(run) && s.next != run[i+1].Addr {
				r.run = run[:i+1]
				return r
			}
		}
		return r
	}
	last := run[len(run)-1]
	var succs []uint64
	if !last.trap {
		switch {
		case last.Kind == hotcfg.CondBranch:
			succs = []uint64{last.Target, last.Next()}
		case last.Kind == hotcfg.Jump || last.Kind == hotcfg.Call:
			succs = []uint64{last.Target}
		case !last.Kind.IsBranch() && len(run) == maxRun:
			succs = []uint64{last.Next()} // run cut by maxRun
		}
	}
	for _, s := range succs {
		if s >= pc && s <= last.Addr {
			succs = nil // a successor inside the run would trap too early
			break
		}
	}
	r := stepResult{run: run}
	if succs != nil {
		return tr.toBreakpoints(t, pc, run, succs, r)
	}
	// Run to the terminator, then single-step it. A run that ends before an
	// undecodable instruction is run to its last instruction the same way.
	if last.Addr != pc {
		r = tr.toBreakpoints(t, pc, run[:len(run)-1], []uint64{last.Addr}, r)
		r.run = run
		if !r.ok {
			return r
		}
	}
	s := tr.stepOne(t, last.Addr)
	r.executed += s.executed
	r.next, r.ok, r.known, r.ev, r.alive = s.next, s.ok, s.known, s.ev, s.alive
	if s.ok {
		r.run[len(r.run)-1] = s.run[0]
	}
	return r
}

// toBreakpoints plants int3 at each successor, continues, and accounts the stop.
func (tr *tracer) toBreakpoints(t *thread, pc uint64, run []insn, succs []uint64, r stepResult) stepResult {
	p := t.p
	cc := []byte{0xcc}
	var orig [1]byte
	for _, s := range succs {
		if _, ok := p.bps[s]; ok {
			continue
		}
		b, ok := p.code.byteAt(s)
		if !ok {
			continue
		}
		orig[0] = b
		if _, err := p.code.mem.WriteAt(cc, int64(s)); err != nil {
			continue
		}
		p.bps[s] = orig[0]
	}
	ws, err := tr.runWait(t, false)
	if err != nil {
		p.removeBreakpoints()
		tr.drop(t)
		r.ev = true
		return r
	}
	if ws.Exited() || ws.Signaled() {
		tr.foreign(t, ws, &r)
		return r
	}
	p.removeBreakpoints()
	rip, err := getPC(t.tid)
	if err != nil {
		tr.foreign(t, ws, &r)
		return r
	}
	if ours(ws) {
		for _, s := range succs {
			if rip-1 == s {
				t.stopped = true
				setPC(t.tid, s)
				r.executed, r.next, r.ok, r.known, r.alive = len(run), s, true, true, true
				return r
			}
		}
	}
	// Someone else's stop: account the prefix that ran.
	tr.foreign(t, ws, &r)
	if !r.alive {
		return r
	}
	for _, s := range succs {
		if rip == s {
			r.executed, r.next, r.known = len(run), s, true
			return r
		}
	}
	for i, in := range run {
		if in.Addr == rip {
			r.executed, r.next, r.known = i, rip, true
			break
		}
	}
	return r
}

// stepUntilPast single-steps the rep-prefixed instruction in until the thread leaves
// it: however many iterations it makes, it is one instruction executed.
func (tr *tracer) stepUntilPast(t *thread, in insn) stepResult {
	for {
		s := tr.stepOne(t, in.Addr)
		if !s.ok || s.next != in.Addr {
			return s
		}
	}
}
