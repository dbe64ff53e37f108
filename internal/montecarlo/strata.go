// This file implements the engine's side of stratified populations: the
// counts of each block per stratum, and the rounds of Neyman's allocation.

package montecarlo

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// gate hands out trial numbers to the workers, in order, below the run's
// limit and below the end of the rounds planned: with a Neyman schedule, a
// trial of round r is started only once round r is planned.
type gate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	next  uint64
	until uint64 // trials at and above it wait for their round's plan
	done  bool
}

// newGate returns the gate of a run of schedule s (nil: no strata), which ends
// with ctx.
func newGate(ctx context.Context, s *dist.Schedule) *gate {
	g := &gate{until: math.MaxUint64}
	g.cond = sync.NewCond(&g.mu)
	if s != nil && s.Alloc() == dist.Neyman {
		g.until = plannedUntil(s, s.Planned())
	}
	go func() {
		<-ctx.Done()
		g.mu.Lock()
		g.done = true
		g.cond.Broadcast()
		g.mu.Unlock()
	}()
	return g
}

// claim returns the next at most size trials [lo, hi), waiting while the next
// is not planned; ok is false when no trial is left (the limit is reached or
// the run has ended).
func (g *gate) claim(size uint64, limit *atomic.Uint64) (lo, hi uint64, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for {
		lim := limit.Load()
		if g.done || g.next >= lim {
			return 0, 0, false
		}
		if g.next < g.until {
			lo, hi = g.next, min(g.next+size, lim, g.until)
			g.next = hi
			return lo, hi, true
		}
		g.cond.Wait()
	}
}

// open lets the trials below until start.
func (g *gate) open(until uint64) {
	g.mu.Lock()
	g.until = until
	g.cond.Broadcast()
	g.mu.Unlock()
}

// foldStratum adds trial i's counts to its stratum's.
func (f *folder) foldStratum(i uint64, o Outcome) error {
	sched := f.c.Strata
	if f.strataN == nil {
		f.strataN = make([]uint64, len(sched.Sizes()))
		f.strataDist = make([][][]*stats.CountDist, len(sched.Sizes()))
		f.strataLag = make([][]uint64, len(sched.Sizes()))
		f.round = 1
	}
	if o.Failure == "" {
		h, _, err := sched.Stratum(i)
		if err != nil {
			return err
		}
		f.strataN[h]++
		if f.strataDist[h] == nil {
			f.strataDist[h] = make([][]*stats.CountDist, len(o.Counts))
			f.strataLag[h] = make([]uint64, len(o.Counts))
		}
		for fi, c := range o.Counts {
			if c.Blocks == nil {
				f.strataLag[h][fi]++
				continue
			}
			ds := f.strataDist[h][fi]
			if ds == nil {
				ds = make([]*stats.CountDist, len(c.Blocks))
				for b := range ds {
					ds[b] = &stats.CountDist{}
				}
				f.strataDist[h][fi] = ds
			}
			lag := f.strataLag[h][fi]
			f.strataLag[h][fi] = 0
			for b, v := range c.Blocks {
				if lag > 0 {
					ds[b].AddN(0, lag)
				}
				ds[b].Add(v)
			}
		}
	}
	return nil
}

// planRound plans the next round of a Neyman schedule when every trial before
// it is folded, and lets its trials start.
func (f *folder) planRound() error {
	sched := f.c.Strata
	if sched.Alloc() == dist.Neyman && f.seen == sched.RoundStart(f.round) && f.seen < sum(sched.Sizes()) {
		if err := sched.Plan(f.round, f.neymanSD()); err != nil {
			return err
		}
		f.round++
		f.gate.open(plannedUntil(sched, f.round))
	}
	return nil
}

// strata returns block b of function fi's counts per stratum.
func (f *folder) strata(fi, b int) []stopping.Stratum {
	sizes := f.c.Strata.Sizes()
	out := make([]stopping.Stratum, len(sizes))
	for h, n := range sizes {
		out[h].Size = n
		if f.strataN == nil {
			continue
		}
		var d *stats.CountDist
		if f.strataDist[h] != nil && f.strataDist[h][fi] != nil {
			d = f.strataDist[h][fi][b]
			out[h].S = d.SummaryZeros(f.strataLag[h][fi])
		} else {
			out[h].S = (&stats.CountDist{}).SummaryZeros(f.strataN[h])
		}
	}
	return out
}

// strataDists returns every block's count distribution over each stratum's
// trials (Result.StrataDists), the trials in which its function did not run
// counted as 0.
func (f *folder) strataDists() [][][]stats.CountDist {
	out := make([][][]stats.CountDist, len(f.c.Strata.Sizes()))
	for h := range out {
		out[h] = make([][]stats.CountDist, len(f.res.Blocks))
		for fi := range f.res.Blocks {
			ds := make([]stats.CountDist, len(f.res.Blocks[fi]))
			for b := range ds {
				switch {
				case f.strataN == nil:
				case f.strataDist[h] != nil && f.strataDist[h][fi] != nil:
					ds[b] = *f.strataDist[h][fi][b].Clone()
					ds[b].AddN(0, f.strataLag[h][fi])
				default:
					ds[b].AddN(0, f.strataN[h])
				}
			}
			out[h][fi] = ds
		}
	}
	return out
}

// neymanSD returns the strata's standard deviations that Neyman's allocation
// follows in the next round: those of the block that holds the run, the
// undecided block of the functions that decide the stop whose rule projects
// the most trials (the first of equals), or none (zeros: proportional
// allocation) when every block is decided. The run has many blocks and one
// allocation: it serves the one furthest from its goal.
func (f *folder) neymanSD() []float64 {
	best, need := [2]int{-1, -1}, -1.0
	if f.res != nil {
		for fi := range f.res.Blocks {
			if !f.watch[fi] || !f.funcRan[fi] {
				continue
			}
			for b := range f.res.Blocks[fi] {
				if f.decided[fi][b] {
					continue
				}
				d := f.decide(fi, b)
				if d.State == stats.Unconverged && d.Need > need {
					best, need = [2]int{fi, b}, d.Need
				}
			}
		}
	}
	if best[0] < 0 {
		return make([]float64, len(f.c.Strata.Sizes()))
	}
	return stopping.NeymanSD(f.strata(best[0], best[1]))
}

// plannedUntil returns the first trial of round r, the first not planned, or
// no bound when the rounds end before it (trials past N repeat the first N's
// strata).
func plannedUntil(s *dist.Schedule, r int) uint64 {
	if b := s.RoundStart(r); b < sum(s.Sizes()) {
		return b
	}
	return math.MaxUint64
}

func sum(xs []uint64) uint64 {
	var t uint64
	for _, x := range xs {
		t += x
	}
	return t
}
