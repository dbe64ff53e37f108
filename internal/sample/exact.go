// This file implements the exact tracer: every instruction of every thread, folded
// into the exact dynamic CFG.

package sample

import (
	"sync/atomic"
	"syscall"

	"github.com/fragprof/fragprof/hotcfg"
)

// ExactOptions configure an exact run.
type ExactOptions struct {
	// MaxInstructions stops tracing after about this many instructions: the tracer
	// detaches and ends a program it started (endOwn, SIGTERM); 0 means no bound.
	MaxInstructions uint64
	Stepping        Stepping
}

// xstate is a thread's open straight-line run.
type xstate struct {
	start uint64
	n     int
	last  uint64
	open  bool
	rep   bool // single-stepping a rep-prefixed instruction
}

// exec accounts instructions executed in order, followed by next when known.
func (x *xstate) exec(tr *hotcfg.Trace, ins []insn, next uint64, known bool) {
	for i, in := range ins {
		if i == len(ins)-1 && known && next == in.Addr && !in.Kind.IsBranch() {
			continue // an iteration of a rep-prefixed instruction, not a new execution
		}
		if !x.open {
			x.start, x.n, x.open = in.Addr, 0, true
		}
		x.n++
		x.last = in.Addr
		nx, nxKnown := next, known
		if i+1 < len(ins) {
			nx, nxKnown = ins[i+1].Addr, true
		}
		if in.Kind.IsBranch() || !nxKnown || nx != in.Next() {
			x.close(tr)
			if nxKnown {
				if in.Kind.IsBranch() {
					tr.AddTransfer(in.Addr, nx)
				} else {
					tr.AddStart(nx)
				}
			}
		}
	}
}

func (x *xstate) close(tr *hotcfg.Trace) {
	if x.open {
		tr.AddRun(x.start, x.last, x.n)
		x.open = false
	}
}

// Exact runs the target to completion (or MaxInstructions, or cancel), stepping
// every instruction of every thread, and returns the exact graph. Signal handlers
// and new threads start new runs (Trace.AddStart).
func Exact(t Target, o ExactOptions, cancel *atomic.Bool) (*hotcfg.Graph, *Stats, error) {
	s := &Stats{}
	var g *hotcfg.Graph
	err := locked(func() error {
		tr, release := newTracer(t, cancel)
		defer release()
		var caches hotcfg.Chain
		tr.pin = true
		if err := tr.begin(); err != nil {
			return err
		}
		defer tr.finish()
		code := func() hotcfg.Code { return caches }
		trace := hotcfg.NewTrace(chainFunc(code))
		st := map[int]*xstate{}
		seen := map[*codeCache]bool{}
		state := func(th *thread) *xstate {
			if c := th.p.code; c != nil && !seen[c] {
				seen[c] = true
				caches = append(caches, c)
			}
			x := st[th.tid]
			if x == nil {
				x = &xstate{}
				st[th.tid] = x
				if pc, err := getPC(th.tid); err == nil {
					trace.AddStart(pc)
				}
			}
			return x
		}
		if t.PID != 0 {
			for _, th := range tr.threads {
				tr.interrupt(th)
			}
		}
		pcs := map[int]uint64{} // multi-thread mode: pc of each stepping thread
		for len(tr.threads) > 0 {
			if tr.cancel.Load() || o.MaxInstructions > 0 && trace.Instructions >= o.MaxInstructions {
				s.Interrupted = true
				if tr.halt.CompareAndSwap(0, int32(syscall.SIGTERM)) && tr.cmd != nil {
					tr.notef("stopped after %d instructions (--max-instructions): detached, and the program ended with SIGTERM", trace.Instructions)
				} else {
					tr.notef("stopped after %d instructions: detached", trace.Instructions)
				}
				for _, x := range st {
					x.close(trace)
				}
				tr.detachAll()
				break
			}
			if len(tr.threads) == 1 && len(pcs) == 0 && o.Stepping != SingleStep {
				var th *thread
				for _, x := range tr.threads {
					th = x
				}
				if !th.stopped {
					tid, ws, err := wait(-1, 0)
					if err != nil {
						break
					}
					if x, alive := tr.note(tid, ws); alive {
						state(x)
					}
					continue
				}
				x := state(th)
				if th.pendingSig != 0 {
					tr.deliver(th, x, trace)
					continue
				}
				pc, err := getPC(th.tid)
				if err != nil {
					tr.drop(th)
					continue
				}
				r := tr.advance(th, pc, true, 0)
				x.exec(trace, r.run[:r.executed], r.next, r.known)
				continue
			}
			// Several threads: single-step them all concurrently.
			for _, th := range tr.threads {
				if !th.stopped {
					continue
				}
				x := state(th)
				if th.pendingSig != 0 {
					tr.deliver(th, x, trace)
					continue
				}
				pc, err := getPC(th.tid)
				if err != nil {
					continue
				}
				pcs[th.tid] = pc
				th.p.code.get(pc) // decode now: the process may be gone after the step
				tr.resume(th, true)
			}
			tid, ws, err := wait(-1, 0)
			if err != nil {
				break
			}
			pc, had := pcs[tid]
			delete(pcs, tid)
			th, alive := tr.threads[tid], false
			if ours(ws) && th != nil {
				th.stopped, alive = true, true
			} else {
				th, alive = tr.note(tid, ws)
			}
			if !had || th == nil {
				continue
			}
			x := state(th)
			in, ok := th.p.code.get(pc)
			if !ok {
				in = insn{Insn: hotcfg.Insn{Addr: pc, Kind: hotcfg.IndirectJump}}
			}
			switch {
			case ws.Exited() || ws.Signaled():
				x.exec(trace, []insn{in}, 0, false)
			case ours(ws) && alive:
				npc, err := getPC(tid)
				if err == nil && in.unsure {
					th.p.code.learn(in, npc)
					if in, _ = th.p.code.get(pc); in.unsure {
						in = insn{Insn: hotcfg.Insn{Addr: pc, Kind: hotcfg.IndirectJump}}
					}
				}
				if err == nil && npc == pc && !in.Kind.IsBranch() {
					x.rep = true // rep iteration: counted once, when the thread leaves it
					continue
				}
				x.rep = false
				if err == nil && !in.Kind.IsBranch() && !in.trap && npc != in.Next() {
					if run, ok := lostSteps(th.p.code, in, npc); ok {
						x.exec(trace, run, npc, true)
						continue
					}
				}
				x.exec(trace, []insn{in}, npc, err == nil)
			default:
				// An event stop (fork, signal...) before or after the instruction;
				// its pc tells which.
				if npc, err := getPC(tid); err == nil && npc != pc {
					x.exec(trace, []insn{in}, npc, true)
				}
			}
		}
		for _, x := range st {
			x.close(trace)
		}
		g = trace.Graph()
		s.Instructions = trace.Instructions
		s.Maps = tr.rootMaps
		g.Maps = s.Maps
		tr.stats(s)
		return nil
	})
	return g, s, err
}

// chainFunc is a Code that asks a Chain obtained late (caches are added as
// processes appear).
type chainFunc func() hotcfg.Code

func (f chainFunc) Insn(addr uint64) (hotcfg.Insn, bool) { return f().Insn(addr) }

// deliver single-steps a thread into the handler of its pending signal: the current
// run ends and the handler's first instruction starts a new one.
func (tr *tracer) deliver(th *thread, x *xstate, trace *hotcfg.Trace) {
	pc0, _ := getPC(th.tid)
	in0, ok0 := th.p.code.get(pc0)
	ws, err := tr.runWait(th, true)
	if err != nil {
		x.close(trace)
		tr.drop(th)
		return
	}
	if ours(ws) {
		th.stopped = true
		pc, err := getPC(th.tid)
		if err != nil {
			x.close(trace)
			return
		}
		if ok0 && (pc == in0.Next() || in0.Kind.HasTarget() && pc == in0.Target) {
			// The signal was ignored: the step just executed the instruction.
			x.exec(trace, []insn{in0}, pc, true)
			return
		}
		x.close(trace)
		trace.AddStart(pc)
		return
	}
	x.close(trace)
	if _, alive := tr.note(th.tid, ws); alive {
		if pc, err := getPC(th.tid); err == nil {
			trace.AddStart(pc)
		}
	}
}

// lostSteps explains a single step that landed beyond its instruction: under a
// hypervisor that emulates an instruction (on the project's VM, every cpuid), the
// trap flag's debug exception after it can be lost, and the thread stops one
// instruction later. The instructions from in's fall-through on, straight-line or
// ending in a branch that can reach npc, are then executed too: lostSteps returns
// them after in, or false when no such run of at most four reaches npc (a signal,
// say, and then nothing is invented).
func lostSteps(code *codeCache, in insn, npc uint64) ([]insn, bool) {
	run := []insn{in}
	at := in.Next()
	for len(run) < 5 {
		next, ok := code.get(at)
		if !ok || next.trap || next.unsure {
			return nil, false
		}
		run = append(run, next)
		switch {
		case !next.Kind.IsBranch():
			if next.Next() == npc {
				return run, true
			}
			at = next.Next()
			continue
		case next.Kind.HasTarget():
			return run, next.Target == npc || next.Kind == hotcfg.CondBranch && next.Next() == npc
		default: // indirect jump, call or return: any target
			return run, true
		}
	}
	return nil, false
}
