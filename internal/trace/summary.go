// This file gathers what a tracing run reports at its end, and guards the size of
// the trace files it writes.

package trace

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/textout"
)

// Check reports what is wrong with c's options for a run of n trials, in the words
// of the trace command's flags; nil when they can run.
func (c *Collector) Check(n uint64) error {
	switch {
	case n == 0:
		return errors.New("--trials must be at least 1")
	case c.Clock != "tsc" && c.Clock != "monotonic" && c.Clock != "thread":
		return fmt.Errorf("--clock %q: want tsc, monotonic or thread", c.Clock)
	case c.Repeat < 1:
		return errors.New("--repeat must be at least 1")
	case c.FirstRep < 0:
		return errors.New("--first-rep must be at least 0")
	}
	if c.Inputs != nil {
		names := c.Inputs.Model.Names()
		for _, v := range c.Vary {
			if !slices.Contains(names, v) {
				return fmt.Errorf("--vary %s: no input of that name (inputs: %s)", v, strings.Join(names, ", "))
			}
		}
	}
	return nil
}

// CheckSources reports what is wrong with where a trace run's program and traces
// come from, in the words of the trace command's flags: the C files to build or
// binary, a program built already (not both); autoLevel, the checkpoints to insert
// when building ("" for none, "outer" or "all"); dir, the traces' directory. Nil
// when they can run.
func CheckSources(binary string, files []string, autoLevel, dir string) error {
	switch {
	case binary == "" && len(files) == 0:
		return errors.New("name the C files to build, or --binary PROG")
	case binary != "" && len(files) > 0:
		return fmt.Errorf("--binary takes no C files (got %v)", files)
	case autoLevel != "" && autoLevel != "outer" && autoLevel != "all":
		return fmt.Errorf("--auto-checkpoints=%s: want outer (the default) or all", autoLevel)
	case binary != "" && autoLevel != "":
		return errors.New("--auto-checkpoints needs the C files (it inserts checkpoints when building)")
	case dir == "":
		return errors.New("name the directory for the traces with -o DIR")
	}
	return nil
}

// A Summary gathers the traces of a run as they are written: how many, their
// events, checkpoints and times, what went wrong, and the files' total size
// against a budget.
type Summary struct {
	Bytes, Files        int64 // trace files written and their size
	warned              bool  // the size budget's warning was given
	Fallback            int   // runs timed with the monotonic clock for want of a stable TSC
	Trials, Failed, Bad int   // runs recorded; trials that could not run; runs that ended badly
	Reps                int   // runs per trial (--repeat)
	Events              int64
	Truncated, Lost     uint64
	Stopped             int // probes ended by their budget
	names               map[string]bool
	MinNs, MaxNs        int64 // the shortest and longest traced time of a run
}

// Add counts one run's trace t, of header h.
func (s *Summary) Add(h Header, t *Trace) {
	if s.names == nil {
		s.names = map[string]bool{}
	}
	s.Trials++
	if h.ExitCode != 0 {
		s.Bad++
	}
	if t.Truncated {
		s.Truncated++
	}
	if t.Stopped {
		s.Stopped++
	}
	s.Lost += t.Lost
	if t.ClockFallback {
		s.Fallback++
	}
	for _, site := range t.Sites {
		s.names[site.Name] = true
	}
	for _, th := range t.Threads {
		s.Events += int64(th.Len())
	}
	if m := t.Main(); m != nil && m.Len() > 0 {
		d := m.Time[m.Len()-1] - m.Time[0]
		if s.Trials == 1 || d < s.MinNs {
			s.MinNs = d
		}
		if d > s.MaxNs {
			s.MaxNs = d
		}
	}
}

// Budget adds a trace file of size bytes to the run's total, of runs files in all
// when the run ends. When the total projected over all runs exceeds max it returns
// a warning, once (after the first file, so the user can stop before the disk
// fills); when the total reaches max it returns the error that stops the run. A
// max of 0 or less is no budget.
func (s *Summary) Budget(size, runs, max int64) (warning string, err error) {
	s.Bytes += size
	s.Files++
	if max <= 0 {
		return "", nil
	}
	if s.Bytes >= max {
		return "", fmt.Errorf("stopped after %d of %d runs: their trace files take %s, the --max-size budget (%s); the files written are kept. "+
			"Fewer --trials, a larger --max-size, --max-events, or checkpoints outside the innermost loops",
			s.Files, runs, textout.Bytes(float64(s.Bytes)), textout.Bytes(float64(max)))
	}
	if projected := s.Bytes * runs / s.Files; projected > max && !s.warned {
		s.warned = true
		return fmt.Sprintf("warning: at %s a run, the %d runs' trace files would take about %s, over the --max-size budget of %s: "+
			"the run stops when it is reached (lower --trials, raise --max-size, or mark fewer checkpoints in hot loops)",
			textout.Bytes(float64(s.Bytes/s.Files)), runs, textout.Bytes(float64(projected)), textout.Bytes(float64(max))), nil
	}
	return "", nil
}

// Checkpoints returns the names of the checkpoints the runs passed, sorted.
func (s *Summary) Checkpoints() []string {
	names := make([]string, 0, len(s.names))
	for n := range s.names {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Write prints the summary of a run whose traces went to dir, each line starting
// with prefix.
func (s *Summary) Write(w io.Writer, prefix, dir string) error {
	bw := &textout.Writer{W: w}
	names := s.Checkpoints()
	shown := names
	if len(shown) > 8 {
		shown = append(shown[:8:8], fmt.Sprintf("… %d more", len(names)-8))
	}
	runs := fmt.Sprintf("%d trials", s.Trials)
	if s.Reps > 1 {
		runs = fmt.Sprintf("%d runs (%d trials × %d)", s.Trials, s.Trials/s.Reps, s.Reps)
	}
	fmt.Fprintf(bw, "%s%s → %s: %d events at %d checkpoints (%s)", prefix, runs, dir, s.Events, len(names), strings.Join(shown, ", "))
	if s.Trials > 0 {
		fmt.Fprintf(bw, "; traced time %s … %s", textout.Ns(float64(s.MinNs)), textout.Ns(float64(s.MaxNs)))
	}
	if s.Files > 0 {
		fmt.Fprintf(bw, "; %s of trace files", textout.Bytes(float64(s.Bytes)))
	}
	fmt.Fprintln(bw)
	if s.Bad > 0 {
		fmt.Fprintf(bw, "%s%d trials ended badly (crash, timeout or non-zero exit); model build leaves them out\n", prefix, s.Bad)
	}
	if s.Failed > 0 {
		fmt.Fprintf(bw, "%s%d trials could not be run\n", prefix, s.Failed)
	}
	if s.Fallback > 0 {
		fmt.Fprintf(bw, "%snote: the TSC's calibration was unstable (its rate against CLOCK_MONOTONIC varied by more than 0.2%%): "+
			"%d runs were timed with the monotonic clock instead; on a busy machine --clock thread leaves other programs' time out\n", prefix, s.Fallback)
	}
	if s.Truncated > 0 || s.Lost > 0 {
		fmt.Fprintf(bw, "%s%d traces truncated, %d events lost (--max-events)\n", prefix, s.Truncated, s.Lost)
	}
	if s.Stopped > 0 {
		fmt.Fprintf(bw, "%s%d of %d runs were probes stopped by their budget (for model predict --probe; model build learns nothing from them)\n", prefix, s.Stopped, s.Trials)
	}
	return bw.Err
}

// Save writes the trace of run r into dir (named by RepFileName), counts it, and
// charges its size to the budget of max bytes over runs files (see Budget).
func (s *Summary) Save(dir string, r Result, runs, max int64) (warning string, err error) {
	path := filepath.Join(dir, RepFileName(r.Header.Trial, r.Header.Rep))
	size, err := WriteFile(path, r.Header, r.Extra)
	if err != nil {
		return "", fmt.Errorf("writing %s: %v", path, err)
	}
	t, err := ParseRecords(path, r.Extra)
	if err != nil {
		return "", fmt.Errorf("trial %d: %v", r.Header.Trial, err)
	}
	s.Add(r.Header, t)
	return s.Budget(size, runs, max)
}

// Take handles the result r of one run of Collector.Run whose traces go to dir: a
// trial that could not run ends the run with its error, or, when keepGoing, is
// counted (Failed) and its error printed to log after prefix; a trace is saved
// (Save), its budget's warning printed the same way. The error returned, which
// ends the run, is r's own or one of saving, prefixed "trace: ".
func (s *Summary) Take(log io.Writer, prefix, dir string, r Result, keepGoing bool, runs, max int64) error {
	if r.Err != nil {
		if !keepGoing {
			return r.Err
		}
		fmt.Fprintf(log, "%s%v\n", prefix, r.Err)
		s.Failed++
		return nil
	}
	warning, err := s.Save(dir, r, runs, max)
	if warning != "" {
		fmt.Fprintf(log, "%s%s\n", prefix, warning)
	}
	if err != nil {
		return fmt.Errorf("trace: %v", err)
	}
	return nil
}

// NoCheckpoint is the error of a run whose programs passed no checkpoint (no
// event in any trace), nil when some did.
func (s *Summary) NoCheckpoint() error {
	if s.Events > 0 {
		return nil
	}
	return fmt.Errorf("trace: the program passed no checkpoint in %d trials: mark some with FP_POINT (fragprof.h) or use --auto-checkpoints", s.Trials)
}
