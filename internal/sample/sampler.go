// This file implements the burst sampler.

package sample

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync/atomic"
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
		rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
		gap := func() time.Duration {
			return o.Interval/2 + time.Duration(rng.Int64N(int64(o.Interval)))
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
				time.Sleep(min(d, time.Millisecond))
				continue
			}
			tr.tick(o, s, sink)
			next = time.Now().Add(gap())
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
