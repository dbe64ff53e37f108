// This file implements the burst sampler.

package sample

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
)

// Options configure a sampling run.
type Options struct {
	Interval time.Duration // mean time between bursts; each gap is uniform in [I/2, 3I/2)
	Burst    int           // PCs per burst
	Stepping Stepping
	Seed     uint64 // seed of the gap jitter
	// Overhead, when positive, replaces the fixed interval by an adaptive one that
	// holds the sampler's direct cost at most at that share of the program's running
	// time: after each tick the mean interval becomes (mean tick cost so far) /
	// Overhead, where a tick's cost is the wall time the tracer spent in it (reading
	// the threads' states, moving to their CPU, the bursts) while the program was
	// stopped or competing with it; and the next tick waits, if need be, until the
	// ticks so far plus one more are within Overhead of the program's time since it
	// started. Interval is the mean before the first tick. Indirect costs (starting
	// the program under ptrace, caches) are not counted.
	Overhead float64
	// TaskClock makes the in-process sampler time bursts with perf's task clock (a
	// high-resolution timer of the thread's user-mode CPU time, where perf events
	// are allowed) instead of POSIX CPU-time timers, which expire on the
	// scheduler's tick: it reaches short runs, but on this project's VM each
	// expiry costs about 95 µs of CPU time that the bursts' own measure misses
	// (bench/sampling.sh).
	TaskClock bool
	// BurstCost is the in-process sampler's mean burst cost learned by earlier
	// runs (0: none). Before a thread's own first burst its mean interval is the
	// larger of Interval and BurstCost / Overhead; that mean sets the first gap,
	// drawn so that short runs are sampled at the long-run rate (docs/sampling.md).
	BurstCost time.Duration
	// brokenSteps makes the in-process sampler's stepping methods (bit 1 << 0: int3,
	// 1 << 1: hardware breakpoints, 1 << 2: the trap flag) fail to deliver, as they
	// do on some hosts: the tests of the fallback use it.
	brokenSteps uint
	// probeSteps makes the in-process sampler try every stepping method at start
	// (ProbeSteps).
	probeSteps bool
}

// DefaultOptions are the thesis's settings: a burst of 25 PCs every 3 ms.
var DefaultOptions = Options{Interval: 3 * time.Millisecond, Burst: 25}

// A Sink receives each batch as it is recorded, with the Code that decodes its PCs.
// The batch's PCs are not reused.
type Sink func(b hotcfg.Batch, code hotcfg.Code)

// Sample runs or attaches to the target and, every interval, stops each of its
// threads that is running (state R in /proc), records a burst of consecutive PCs,
// and lets it go. It returns when the program ends, or when cancel is set (or
// SIGINT arrives), detaching cleanly and keeping what was collected.
func Sample(t Target, o Options, sink Sink, cancel *atomic.Bool) (*Stats, error) {
	if o.Burst <= 0 {
		return nil, fmt.Errorf("sample: burst must be positive")
	}
	if o.Interval <= 0 {
		return nil, fmt.Errorf("sample: interval must be positive")
	}
	s := &Stats{}
	err := locked(func() error {
		tr, release := newTracer(t, cancel)
		defer release()
		if err := tr.begin(); err != nil {
			return err
		}
		defer tr.finish()
		tr.sampling = true
		if fd, err := unix.PidfdOpen(tr.root, 0); err == nil {
			tr.pidfd = fd
			defer tr.closePidfd()
		}
		rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
		interval := o.Interval
		gap := func() time.Duration {
			return interval/2 + time.Duration(rng.Int64N(int64(interval)))
		}
		for _, th := range tr.threads {
			if th.stopped {
				tr.resume(th, false)
			}
		}
		tr.cpu = -1
		next := time.Now().Add(gap())
		for len(tr.threads) > 0 {
			if tr.cancel.Load() {
				s.Interrupted = true
				tr.halt.CompareAndSwap(0, int32(syscall.SIGINT)) // the caller's cancel
				tr.notef("interrupted: detached")
				tr.detachAll()
				break
			}
			tid, ws, err := wait(-1, unix.WNOHANG)
			if err == unix.ECHILD {
				break
			}
			if tid > 0 {
				if th, alive := tr.note(tid, ws); alive {
					tr.resume(th, false)
				}
				continue
			}
			now := time.Now()
			if d := next.Sub(now); d > 0 {
				tr.pause(min(d, time.Millisecond))
				continue
			}
			tr.tick(o, s, sink)
			end := time.Now()
			s.Ticks++
			s.TickTime += end.Sub(now)
			s.SelfCost = s.TickTime
			if o.Overhead > 0 {
				mean := s.TickTime / time.Duration(s.Ticks)
				interval = max(time.Duration(float64(mean)/o.Overhead), time.Microsecond)
				// The budget: the next tick may start only when the ticks so far and
				// one more of mean cost are within Overhead of the program's time
				// since the start (wall time minus ticks). It corrects the drift a
				// skewed cost distribution gives the mean-based gap alone.
				budget := tr.start.Add(s.TickTime + time.Duration(float64(s.TickTime+mean)/o.Overhead))
				if n := end.Add(gap()); n.After(budget) {
					next = n
				} else {
					next = budget
				}
			} else {
				next = end.Add(gap())
			}
		}
		s.Maps = tr.rootMaps
		tr.stats(s)
		return nil
	})
	return s, err
}

// tick samples every running thread once.
func (tr *tracer) tick(o Options, s *Stats, sink Sink) {
	tids := make([]int, 0, len(tr.threads))
	for tid := range tr.threads {
		tids = append(tids, tid)
	}
	sort.Ints(tids)
	for _, tid := range tids {
		t := tr.threads[tid]
		if t == nil || t.p.detached {
			continue
		}
		state, cpu, ok := threadStat(t.p.pid, tid)
		if !ok || state != 'R' {
			continue
		}
		if cpu != tr.cpu {
			pinSelf(cpu)
			tr.cpu = cpu
		}
		tr.burst(t, o, s, sink)
	}
}

// burst records one batch from t.
func (tr *tracer) burst(t *thread, o Options, s *Stats, sink Sink) {
	if !tr.interrupt(t) {
		return
	}
	resume := func() {
		if tr.threads[t.tid] == t && t.stopped {
			tr.resume(t, false)
		}
	}
	if t.pendingSig != 0 || inSyscallRestart(t.tid) {
		s.Skipped++
		resume()
		return
	}
	pc, err := getPC(t.tid)
	if err != nil {
		resume()
		return
	}
	when := time.Since(tr.start)
	bp := o.Stepping == Breakpoints || o.Stepping == Auto && t.p.threads == 1
	pcs := make([]uint64, 0, o.Burst)
	for len(pcs) < o.Burst {
		r := tr.advance(t, pc, bp, o.Burst-len(pcs))
		if !r.ok && !r.ev {
			for _, in := range r.run {
				pcs = append(pcs, in.Addr) // decoded ahead: they run next
			}
			break
		}
		for _, in := range r.run[:r.executed] {
			pcs = append(pcs, in.Addr)
		}
		if !r.ok {
			break
		}
		pc = r.next
	}
	if len(pcs) > o.Burst {
		pcs = pcs[:o.Burst]
	}
	if len(pcs) > 0 {
		s.Batches++
		s.Sampled += uint64(len(pcs))
		sink(hotcfg.Batch{Seq: s.Batches, Time: when, PID: t.p.pid, TID: t.tid, PCs: pcs}, t.p.code)
	}
	resume()
}

// pause blocks the tracer thread for d, or until the root process exits, whichever
// comes first. Go's timers wake about 1.1 ms late on these machines whatever the
// duration asked (time.Sleep(200µs) took 1.1 ms), so a short --interval was not
// honoured and a short run's exit was noticed up to a millisecond late; ppoll on a
// pidfd of the root process has microsecond resolution and returns at its exit.
// Other events (signals, clones, forks) are noticed after at most d.
func (tr *tracer) pause(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	if tr.pidfd < 0 {
		unix.Nanosleep(&ts, nil)
		return
	}
	fds := []unix.PollFd{{Fd: int32(tr.pidfd), Events: unix.POLLIN}}
	unix.Ppoll(fds, &ts, nil)
}

// closePidfd closes the root's pidfd (once it has exited, it would poll ready forever).
func (tr *tracer) closePidfd() {
	if tr.pidfd >= 0 {
		unix.Close(tr.pidfd)
		tr.pidfd = -1
	}
}
