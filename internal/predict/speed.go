// This file measures how much the machine's speed moved the training runs' times,
// and with --speed-adjust takes it out. A shared virtual machine runs at more than
// one speed: on the project VM the same program's run took 6.3 or 9.5–11 µs a row
// of gemm in spells of seconds, whatever our own load — most likely other
// tenants in the shared cache and memory, since the memory-bound kernels slow
// most. The thread's CPU time cannot see it (the thread is running, only slower). Each trial measures the cost of its checkpoints just
// before main (the runtime's probe: 6000 passes, in thread CPU time, trace.Trace.
// OverheadNs), and the probe is slower in the slow spells: 556 ns in runs of 6.3 µs
// a row, 601–650 in runs of 7.7–8.5, 671–729 in runs of 8.9–11.1.

package predict

import (
	"fmt"
	"math"
	"slices"

	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/trace"
)

// Speed is the dependence of the training runs' times on the machine's speed
// measured by the probe: ln t = f(inputs) + β·ln(p / p₀) + ε, with p the run's
// probe and p₀ the normal speed's, the 10% quantile of the training runs' probes.
// β is the least-squares slope of the within-point deviations — ln t and ln p
// less their means over the point's runs, which takes the inputs' effect out —
// through the origin, with its standard error from the residuals (n − points − 1
// degrees of freedom).
type Speed struct {
	Beta float64 `json:"beta"`
	SE   float64 `json:"se"`
	// RefNs is p₀; Spread the 90% over the 10% quantile of the probes.
	RefNs  float64 `json:"ref_ns"`
	Spread float64 `json:"spread"`
	// Runs of the training runs had a probe, in Points points with two or more.
	Runs   int `json:"runs"`
	Points int `json:"points"`
	// Slow is the share of the runs whose probe is over SlowProbe·p₀.
	Slow float64 `json:"slow"`
	// Adjusted says the times were divided by (p / p₀)^β (--speed-adjust) before
	// anything was learnt from them or compared with them: the model predicts
	// the time at the machine's normal speed.
	Adjusted bool `json:"adjusted"`
}

// SlowProbe is the probe, as a factor of the normal speed's, beyond which a run
// counts as slow in Speed.Slow: the project VM's probes lay within 5% of p₀ in
// its normal spells.
const SlowProbe = 1.1

// MinSpeedT is the t-statistic β/SE above which the dependence is taken as real:
// --speed-adjust adjusts nothing below it.
const MinSpeedT = 3

// fitSpeed estimates Speed from traces (graph.InputPoints: a point's runs are its
// repetitions); nil when fewer than 3 points have two runs with a probe, or the
// probes do not vary.
func fitSpeed(traces []*trace.Trace) *Speed {
	point := graph.InputPoints(traces)
	type run struct{ lt, lp float64 }
	byPoint := map[int][]run{}
	var probes []float64
	for i, t := range traces {
		th := t.Main()
		if t.OverheadNs <= 0 || th == nil || th.Len() < 2 {
			continue
		}
		d := float64(th.Span())
		if d <= 0 {
			continue
		}
		byPoint[point[i]] = append(byPoint[point[i]], run{math.Log(d), math.Log(t.OverheadNs)})
		probes = append(probes, t.OverheadNs)
	}
	s := &Speed{Runs: len(probes)}
	var sxy, sxx float64
	var dev [][2]float64
	for _, rs := range byPoint {
		if len(rs) < 2 {
			continue
		}
		s.Points++
		var mt, mp float64
		for _, r := range rs {
			mt += r.lt / float64(len(rs))
			mp += r.lp / float64(len(rs))
		}
		for _, r := range rs {
			x, y := r.lp-mp, r.lt-mt
			sxy += x * y
			sxx += x * x
			dev = append(dev, [2]float64{x, y})
		}
	}
	if s.Points < 3 || sxx <= 0 {
		return nil
	}
	slices.Sort(probes)
	q := func(p float64) float64 { return probes[int(p*float64(len(probes)-1))] }
	s.RefNs, s.Spread = q(0.1), q(0.9)/q(0.1)
	for _, p := range probes {
		if p > SlowProbe*s.RefNs {
			s.Slow++
		}
	}
	s.Slow /= float64(len(probes))
	s.Beta = sxy / sxx
	var rss float64
	for _, d := range dev {
		r := d[1] - s.Beta*d[0]
		rss += r * r
	}
	if dof := len(dev) - s.Points - 1; dof > 0 {
		s.SE = math.Sqrt(rss / float64(dof) / sxx)
	} else {
		s.SE = math.Inf(1)
	}
	return s
}

// Significant reports whether β is positive and MinSpeedT standard errors from 0.
func (s *Speed) Significant() bool { return s.Beta > 0 && s.Beta >= MinSpeedT*s.SE }

// adjust returns the traces with every time of a run with a probe divided by
// (p / p₀)^β: copies of the traces and of their threads' times, the rest shared.
func (s *Speed) adjust(traces []*trace.Trace) []*trace.Trace {
	out := make([]*trace.Trace, len(traces))
	for i, t := range traces {
		out[i] = t
		if t.OverheadNs <= 0 {
			continue
		}
		f := math.Pow(t.OverheadNs/s.RefNs, -s.Beta)
		c := *t
		c.Threads = slices.Clone(t.Threads)
		for k := range c.Threads {
			th := &c.Threads[k]
			times := make([]int64, len(th.Time))
			for e, v := range th.Time {
				times[e] = int64(math.Round(float64(v) * f))
			}
			th.Time = times
		}
		out[i] = &c
	}
	return out
}

// String says what the probe showed, and what was done with it.
func (s *Speed) String() string {
	out := fmt.Sprintf("machine speed: the runs' checkpoint probe spread %.3g× (90%%/10%% quantiles; %.3g%% of the %d runs over %.2g× the normal %.4g ns); within an input, time ∝ probe^%.2f ± %.2f",
		s.Spread, 100*s.Slow, s.Runs, SlowProbe, s.RefNs, s.Beta, s.SE)
	switch {
	case s.Adjusted:
		out += ": times adjusted to the normal speed (--speed-adjust), before learning and before the held-out comparison"
	case s.Significant():
		out += ": the machine's speed moved the times — --speed-adjust predicts the time at its normal speed"
	default:
		out += ": no dependence beyond the noise"
	}
	return out
}
