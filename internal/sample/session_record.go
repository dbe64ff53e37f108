// This file implements a session's plain in-process run: one run of a started
// program with nothing that needs the bursts while it runs, so they are kept as
// the sampler wrote them (a record, Record) and decoded when the file is read.

package sample

import (
	"fmt"
	"os"
	"strings"
)

// Recordable reports whether the session is a plain in-process run, which needs
// nothing of the bursts while it runs: one run of a program it starts, in process,
// with no online graph, no similarity to reach and no unsampled runs beside it.
func (s *Session) Recordable() bool {
	if s.Target.PID != 0 || s.Repeat > 1 || s.MeasureOverhead || s.Online || s.Until > 0 || len(s.Command) == 0 {
		return false
	}
	inProcess, _ := ChooseSampler(s.Sampler, s.Target.PID, s.Command)
	return inProcess
}

// Record runs a Recordable session's program once under the in-process sampler
// and writes its record to out (Record), with the info lines its batches file
// would open with and the in-process defaults (DefaultInterval,
// DefaultInProcessShare) where none was given. The result has one run, sampled in
// process, for the report's whole cost (Result.WholeCost).
func (s *Session) Record(out string) (*Result, error) {
	o := s.Options
	if o.Interval == 0 {
		o.Interval = DefaultInterval(true)
	}
	overhead := s.OverheadText
	if overhead == "" {
		o.Overhead, overhead = DefaultInProcessShare, fmt.Sprintf("%g%%", 100*DefaultInProcessShare)
	}
	info := []Info{{Key: "cmd", Value: strings.Join(s.Command, " ")}, {Key: "interval", Value: o.Interval.String()},
		{Key: "burst", Value: fmt.Sprint(o.Burst)}, {Key: "overhead", Value: overhead}, {Key: "sampler", Value: "inprocess"}}
	st, err := Record(s.Target, o, s.StackBytes, info, out)
	if err != nil {
		return nil, err
	}
	return &Result{Total: *st, Last: st, Traced: []PlainRun{{Wall: st.Wall, CPU: st.CPU}}, InProcessRuns: 1,
		Steps: st.Steps, Batches: st.Batches}, nil
}

// Write samples the session into the file out: a record when the session is
// Recordable (Record), else a batches file (Run).
func (s *Session) Write(out string) (*Result, error) {
	if s.Recordable() {
		return s.Record(out)
	}
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(f)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return res, err
}
