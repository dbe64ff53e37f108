// This file decides whether parallelising pays (docs/methods.md): by Amdahl's law a
// computation of time t split over N processors takes t/N + P(N), where P(N) is the
// cost of starting and joining the N workers, so it pays iff
//
//	P(N) < ((N − 1)/N) · t.
//
// t comes from the model's prediction; P(N) is measured on this machine by a small
// C probe (cprobe/probe.c) or given.

// Package advise decides from a prediction whether running on N processors pays
// (Amdahl's condition, docs/methods.md), with the cost of starting N threads
// measured on this machine by a C probe.
package advise

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/predict"
	"github.com/fragprof/fragprof/internal/textout"
)

//go:embed cprobe/probe.c
var probeSource []byte

// Overhead is P(N).
type Overhead struct {
	N      int     `json:"n"`
	Ns     float64 `json:"ns"` // the median
	Q1, Q3 float64 `json:"-"`
	Min    float64 `json:"-"` // the least disturbed repetition
	// Available is the number of processors that ran at once in the probe (N on
	// an idle machine); 0 when not measured.
	Available float64 `json:"available,omitempty"`
	Reps      int     `json:"reps,omitempty"`
	Measured  bool    `json:"measured"`
}

// MeasureOverhead builds the probe with clang in dir and runs it: the median of reps
// times starting and joining n threads.
func MeasureOverhead(ctx context.Context, clang, dir string, n, reps int) (Overhead, error) {
	src := filepath.Join(dir, "probe.c")
	bin := filepath.Join(dir, "probe")
	if err := os.WriteFile(src, probeSource, 0o644); err != nil {
		return Overhead{}, err
	}
	var msg bytes.Buffer
	cc := exec.CommandContext(ctx, clang, "-O2", "-pthread", src, "-o", bin)
	cc.Stdout, cc.Stderr = &msg, &msg
	if err := cc.Run(); err != nil {
		return Overhead{}, fmt.Errorf("building the overhead probe: %v\n%s", err, msg.String())
	}
	out, err := exec.CommandContext(ctx, bin, strconv.Itoa(n), strconv.Itoa(reps)).Output()
	if err != nil {
		return Overhead{}, fmt.Errorf("running the overhead probe: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 5 {
		return Overhead{}, fmt.Errorf("overhead probe printed %q", out)
	}
	var v [5]float64
	for i := range v {
		if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
			return Overhead{}, fmt.Errorf("overhead probe printed %q", out)
		}
	}
	return Overhead{N: n, Ns: v[0], Q1: v[1], Q3: v[2], Min: v[3], Available: v[4], Reps: reps, Measured: true}, nil
}

// Advice is the decision for one input and N processors.
type Advice struct {
	N        int        `json:"procs"`
	Overhead Overhead   `json:"overhead"`
	TimeNs   float64    `json:"time_ns"`     // the predicted sequential time, without the checkpoints' cost
	Interval [2]float64 `json:"interval_ns"` // its interval
	// Bound is ((N−1)/N)·time: parallelising pays iff P(N) is below it.
	Bound       float64 `json:"bound_ns"`
	Parallelise bool    `json:"parallelise"`
	// Certain reports that the condition holds (or fails) over the whole interval
	// of the predicted time; otherwise the decision is the mean's, and borderline.
	Certain bool    `json:"certain"`
	Margin  float64 `json:"margin"`  // Bound / P(N)
	Speedup float64 `json:"speedup"` // time / (time/N + P(N)), the expected speedup
	// Busy is set when the probe found fewer than 3/4 of the N processors free;
	// Now is then the decision with the processors available (Amdahl's condition
	// with N_eff = Overhead.Available), SpeedupNow its expected speedup.
	Busy       bool    `json:"busy"`
	Now        bool    `json:"parallelise_now"`
	SpeedupNow float64 `json:"speedup_now"`
	// Cache is the prediction's cache crossing, if any: its working set leaves (or
	// enters) a cache level no training run did, so the time per operation is
	// likely to rise (or fall) beyond what the interval allows. A decision that such
	// a change could overturn is then not certain.
	Cache *predict.CacheCrossing `json:"cache_crossing,omitempty"`
}

// Advise applies Amdahl's condition to a prediction.
func Advise(p *predict.Prediction, n int, o Overhead) Advice {
	cost := p.TimeNs - p.UntracedNs // the checkpoints' own cost
	t := p.UntracedNs
	if math.IsNaN(t) { // the checkpoints dominate: the traced time is all there is
		cost, t = 0, p.TimeNs
	}
	lo, hi := math.Max(0, p.Interval[0]-cost), math.Max(0, p.Interval[1]-cost)
	frac := float64(n-1) / float64(n)
	a := Advice{N: n, Overhead: o, TimeNs: t, Interval: [2]float64{lo, hi}, Bound: frac * t}
	holds := func(t float64) bool { return o.Ns < frac*t }
	a.Parallelise = holds(t)
	a.Certain = holds(lo) == holds(hi)
	// A longer sequential time only favours parallelising, a shorter one only
	// disfavours it: a time likely to rise past the interval leaves "parallelise"
	// certain and makes "do not" uncertain, and the reverse for a fall. A
	// prediction from probes measured the input there: no caveat.
	if c := p.Cache; c != nil && p.Probe == nil {
		a.Cache = c
		if c.Direction == "beyond" && !a.Parallelise || c.Direction != "beyond" && a.Parallelise {
			a.Certain = false
		}
	}
	if o.Ns > 0 {
		a.Margin = a.Bound / o.Ns
	} else {
		a.Margin = math.Inf(1)
	}
	if d := t/float64(n) + o.Ns; d > 0 {
		a.Speedup = t / d
	}
	a.Now, a.SpeedupNow = a.Parallelise, a.Speedup
	if o.Available > 0 && o.Available < 0.75*float64(n) {
		a.Busy = true
		ne := math.Max(1, o.Available)
		a.Now = o.Ns < (1-1/ne)*t
		if d := t/ne + o.Ns; d > 0 {
			a.SpeedupNow = t / d
		}
	}
	return a
}

// WriteText prints the advice.
func (a Advice) WriteText(w io.Writer) error {
	bw := &textout.Writer{W: w}
	fmt.Fprintf(bw, "predicted sequential time: %s  [%s, %s]  (without the checkpoints' cost)\n",
		textout.Ns(a.TimeNs), textout.Ns(a.Interval[0]), textout.Ns(a.Interval[1]))
	how := "given"
	if a.Overhead.Measured {
		how = fmt.Sprintf("measured: starting and joining %d threads, median of %d; quartiles %s … %s, least %s",
			a.Overhead.N, a.Overhead.Reps, textout.Ns(a.Overhead.Q1), textout.Ns(a.Overhead.Q3), textout.Ns(a.Overhead.Min))
	}
	fmt.Fprintf(bw, "P(%d) = %s (%s)\n", a.N, textout.Ns(a.Overhead.Ns), how)
	if a.Overhead.Available > 0 {
		fmt.Fprintf(bw, "processors free during the probe: %.2g of %d\n", a.Overhead.Available, a.N)
	}
	fmt.Fprintf(bw, "Amdahl: parallelising on %d processors pays iff P(%d) < (%d−1)/%d · time = %s\n",
		a.N, a.N, a.N, a.N, textout.Ns(a.Bound))
	verdict := "do not parallelise"
	if a.Parallelise {
		verdict = "parallelise"
	}
	sure := ""
	switch {
	case !a.Certain && a.Cache != nil && (holdsAt(a, a.Interval[0]) == holdsAt(a, a.Interval[1])):
		rise := "rise"
		if a.Cache.Direction != "beyond" {
			rise = "fall"
		}
		sure = fmt.Sprintf(" (not certain: the working set, about %s, crosses the L%d cache no training run crossed, so the time is likely to %s beyond its interval)",
			textout.Bytes(a.Cache.WorkingSet), a.Cache.Level, rise)
	case !a.Certain:
		sure = " (borderline: the condition changes within the interval of the predicted time)"
	}
	fmt.Fprintf(bw, "decision: %s%s\n", verdict, sure)
	if a.Parallelise {
		fmt.Fprintf(bw, "margin: P(%d) is %.3g times below the bound; expected time %s (speedup %.2f)\n",
			a.N, a.Margin, textout.Ns(a.TimeNs/float64(a.N)+a.Overhead.Ns), a.Speedup)
	} else {
		fmt.Fprintf(bw, "margin: P(%d) is %.3g times the bound; a parallel run would take %s (speedup %.2f)\n",
			a.N, 1/a.Margin, textout.Ns(a.TimeNs/float64(a.N)+a.Overhead.Ns), a.Speedup)
	}
	if a.Busy {
		now := "do not parallelise"
		if a.Now {
			now = "parallelise"
		}
		fmt.Fprintf(bw, "warning: the machine is busy: with the %.2g processors free now, %s (expected speedup %.2f)\n",
			a.Overhead.Available, now, a.SpeedupNow)
	}
	return bw.Err
}

// holdsAt reports Amdahl's condition for a's overhead at sequential time t.
func holdsAt(a Advice, t float64) bool {
	return a.Overhead.Ns < float64(a.N-1)/float64(a.N)*t
}
