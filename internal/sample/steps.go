// This file describes how the in-process sampler stepped its bursts: the method it
// chose for one thread and for several, and the trial bursts that chose them
// (preload/fragprof_sample.c, "Checking that a stepping method delivers").

package sample

import (
	"fmt"
	"strings"
	"time"
)

// A StepMethod is how the in-process sampler follows a thread through a burst.
type StepMethod uint8

const (
	// StepUnused: no burst needed a method (the process never had a second thread).
	StepUnused StepMethod = iota
	// StepInt3: an int3 planted through /proc/self/mem at each block's branch (one thread).
	StepInt3
	// StepHardware: the thread's own hardware breakpoint (a perf breakpoint event).
	StepHardware
	// StepTrapFlag: the trap flag, a debug trap after every instruction.
	StepTrapFlag
	// StepPCOnly: no method delivers; a burst is the PC the timer interrupted.
	StepPCOnly
)

var stepMethodNames = [...]string{"unused", "int3 breakpoints", "hardware breakpoints", "the trap flag", "none (bursts of one PC)"}

func (m StepMethod) String() string {
	if int(m) < len(stepMethodNames) {
		return stepMethodNames[m]
	}
	return fmt.Sprintf("StepMethod(%d)", int(m))
}

// A TrialOutcome is what a method's trial burst showed.
type TrialOutcome uint8

const (
	TrialNotRun    TrialOutcome = iota // the method was not needed
	TrialOK                            // the burst reached its PCs within the cost bound
	TrialRefused                       // the breakpoint was refused (memory write, perf event)
	TrialShort                         // accepted, but its trap never came: the burst stopped short
	TrialTooCostly                     // it delivered, above the cost bound
	TrialStopped                       // it delivered in its trial, then stopped delivering in the bursts
)

// TrialPCs and TrialMaxCPU are a trial burst's length and cost bound (the C
// source's TRIAL_PCS and TRIAL_MAX_NS).
const (
	TrialPCs    = 16
	TrialMaxCPU = TrialPCs * 300 * time.Microsecond
)

// A StepTrial is the outcome of one method's trial burst.
type StepTrial struct {
	Method  StepMethod
	Outcome TrialOutcome
	PCs     int           // PCs the burst reached
	CPU     time.Duration // its thread CPU time
}

// Delivers says whether the trial showed that the method works on this host.
func (t StepTrial) Delivers() bool { return t.Outcome == TrialOK }

func (t StepTrial) String() string {
	cpu := fmt.Sprintf("%.0f µs", float64(t.CPU.Nanoseconds())/1e3)
	switch t.Outcome {
	case TrialOK:
		return fmt.Sprintf("%v: delivered (a trial burst of %d PCs in %s of CPU)", t.Method, t.PCs, cpu)
	case TrialRefused:
		if t.Method == StepInt3 {
			return fmt.Sprintf("%v: refused (/proc/self/mem did not take the write)", t.Method)
		}
		return fmt.Sprintf("%v: refused (the kernel did not open a perf breakpoint event: a kernel before 5.13, perf_event_paranoid 3, no debug registers)", t.Method)
	case TrialShort:
		return fmt.Sprintf("%v: not delivered (accepted, but the trial burst stopped at %d of %d PCs: the trap never came)", t.Method, t.PCs, TrialPCs)
	case TrialStopped:
		return fmt.Sprintf("%v: delivered in the trial, then stopped (3 bursts in a row whose trap never came)", t.Method)
	case TrialTooCostly:
		return fmt.Sprintf("%v: too costly (the trial burst took %s of CPU, above the bound of %v)", t.Method, cpu, TrialMaxCPU)
	}
	return fmt.Sprintf("%v: not tried", t.Method)
}

// A StepReport says how a run's bursts were stepped and why.
type StepReport struct {
	OneThread, Threads StepMethod  // StepUnused when no burst needed it
	Trials             []StepTrial // the trials made, in the order made
}

// decodeSteps reads the header's trial words (outcome | PCs << 8 | ns << 16, one per
// method: int3, hardware, trap flag) and method words (1 + the C method, or 0).
func decodeSteps(trial [3]uint64, method [2]uint64) StepReport {
	var r StepReport
	conv := func(w uint64) StepMethod {
		if w == 0 || w > 4 {
			return StepUnused
		}
		return StepMethod(w)
	}
	r.OneThread, r.Threads = conv(method[0]), conv(method[1])
	for i, w := range trial {
		if w == 0 {
			continue
		}
		r.Trials = append(r.Trials, StepTrial{Method: StepMethod(i + 1), Outcome: TrialOutcome(w & 255),
			PCs: int(w >> 8 & 255), CPU: time.Duration(w >> 16)})
	}
	return r
}

// Merge fills what r lacks from o, the report of a later run of the same program.
func (r *StepReport) Merge(o StepReport) {
	if r.OneThread == StepUnused {
		r.OneThread = o.OneThread
	}
	if r.Threads == StepUnused {
		r.Threads = o.Threads
	}
	for _, t := range o.Trials {
		if _, ok := r.trial(t.Method); !ok {
			r.Trials = append(r.Trials, t)
		}
	}
}

func (r StepReport) trial(m StepMethod) (StepTrial, bool) {
	for _, t := range r.Trials {
		if t.Method == m {
			return t, true
		}
	}
	return StepTrial{}, false
}

// String says which methods stepped the bursts, and why the ones before them in
// the order were passed over.
func (r StepReport) String() string {
	var parts []string
	if r.OneThread != StepUnused {
		parts = append(parts, "one thread: "+r.OneThread.String())
	}
	if r.Threads != StepUnused {
		parts = append(parts, "threads: "+r.Threads.String())
	}
	if len(parts) == 0 {
		return "no burst needed a stepping method"
	}
	s := strings.Join(parts, "; ")
	var why []string
	for _, t := range r.Trials {
		if !t.Delivers() {
			why = append(why, t.String())
		}
	}
	if len(why) > 0 {
		s += " (" + strings.Join(why, "; ") + ")"
	}
	return s
}

// Degraded says whether a method was passed over because it did not deliver.
func (r StepReport) Degraded() bool {
	for _, t := range r.Trials {
		if !t.Delivers() {
			return true
		}
	}
	return false
}
