// This file implements the measurement protocol: repetitions of a fragprof-built
// program on freshly drawn inputs, the fragments' samples collected from the runtime's
// timing records, the overhead subtracted, and the timing guide's statistics.

package timing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/runner"
	"github.com/fragprof/fragprof/internal/stats"
)

// FragKind says what a fragment is.
type FragKind uint8

// The fragment kinds.
const (
	FuncFrag    FragKind = iota // func:NAME, a whole function (entry to return)
	RegionFrag                  // region:NAME, between FP_BEGIN("NAME") and FP_END("NAME")
	ProgramFrag                 // program, one whole run
)

var fragKindNames = [...]string{"func", "region", "program"}

func (k FragKind) String() string {
	if int(k) < len(fragKindNames) {
		return fragKindNames[k]
	}
	return fmt.Sprintf("FragKind(%d)", k)
}

// A Fragment names a timed piece of the program.
type Fragment struct {
	Kind FragKind
	Name string // the function or region; empty for the program
}

// ParseFragment reads "func:NAME", "region:NAME" or "program".
func ParseFragment(s string) (Fragment, error) {
	if s == "program" {
		return Fragment{Kind: ProgramFrag}, nil
	}
	kind, name, ok := strings.Cut(s, ":")
	if ok && name != "" {
		switch kind {
		case "func":
			return Fragment{Kind: FuncFrag, Name: name}, nil
		case "region":
			return Fragment{Kind: RegionFrag, Name: name}, nil
		}
	}
	return Fragment{}, fmt.Errorf("fragment %q: want func:NAME, region:NAME or program", s)
}

// ParseFragments reads the fragments named by specs (ParseFragment), each once,
// in the order first named; an error names the --fragment flag, or says that none
// is named.
func ParseFragments(specs []string) ([]Fragment, error) {
	if len(specs) == 0 {
		return nil, errors.New("name at least one --fragment (func:NAME, region:NAME or program)")
	}
	var frags []Fragment
	seen := map[Fragment]bool{}
	for _, s := range specs {
		f, err := ParseFragment(s)
		if err != nil {
			return nil, fmt.Errorf("--fragment: %v", err)
		}
		if !seen[f] {
			frags = append(frags, f)
			seen[f] = true
		}
	}
	return frags, nil
}

// String is f as ParseFragment reads it.
func (f Fragment) String() string {
	if f.Kind == ProgramFrag {
		return "program"
	}
	return f.Kind.String() + ":" + f.Name
}

// Config describes a measurement.
type Config struct {
	Binary    string
	Fragments []Fragment
	// Inputs renders repetition i's arguments, stdin and files (its Binary and
	// Isolation are not used).
	Inputs *montecarlo.Program
	Timer  Timer
	// Reps is the number of repetitions, the Warmup ones included; with RelEps it is
	// the pilot's size.
	Reps   int
	Warmup int
	// Stats are the confidence, the normality test's level and the tail rule's k;
	// its Warmup is not used (warm-up is by repetition, above).
	Stats stats.TimingOptions
	// RelEps > 0 asks for the adaptive mode: after the pilot, repeat until every
	// fragment's mean is known to ±RelEps·mean at Stats.Confidence, or MaxReps.
	RelEps  float64
	MaxReps int
	// CPU pins the program to that CPU (FRAGPROF_CPU); -1 does not pin.
	CPU int
	// Exec starts the program anew for every repetition instead of forking it from a
	// server; measuring ProgramFrag implies it.
	Exec    bool
	Timeout time.Duration // per repetition; 0: none
	Dir     string        // working directory of the repetitions (input files go there)
	Output  io.Writer     // the program's stdout and stderr; nil discards them
	// Profile keeps the summed block and edge counts of all repetitions after the
	// warm-up (for the Markov composition).
	Profile bool
	// Progress, when set, is called after every repetition.
	Progress func(done, planned int)
}

// Result is a finished measurement.
type Result struct {
	// Timer is the timer the runtime used; Asked the one asked for. They differ
	// when the CPU lacks the instruction asked (no TSC, or no rdtscp: cpuid), and
	// the runtime then uses CLOCK_MONOTONIC.
	Timer, Asked Timer
	// NsPerTick converts every sample: the median over the repetitions' own
	// calibrations (1 for clocks). One process calibrates over its lifetime, a
	// millisecond or two for a short exec'd run, so one run's figure can be off by
	// a fraction of a percent; the median across runs is not.
	NsPerTick float64
	// OverheadNs is the timer's own overhead subtracted from every sample: the median
	// over repetitions of each process's median of 2001 empty fragments.
	OverheadNs    float64
	OverheadMinNs float64
	InvariantTSC  bool
	Pinned        bool
	CalSpanNs     float64 // median TSC calibration baseline
	HzFromEnv     bool
	Reps          int // repetitions run, warm-up included
	Warmup        int
	Failures      []Failure
	Frags         []*FragResult
	// Pilot is the adaptive mode's pilot: its size and the repetitions it said were
	// needed (0 without RelEps).
	Pilot, Needed int
	RelEps        float64
	Confidence    float64
	Elapsed       time.Duration
	// Prog and Counts are the summed counts of the repetitions after the warm-up,
	// when Config.Profile is set.
	Prog   *cfg.Program
	Counts []cfg.Counts
	// ProfileReps is how many repetitions Counts sums; RepCounts[i] holds
	// repetition i's counts (nil for the warm-up and failed ones).
	ProfileReps int
	RepCounts   [][]cfg.Counts
}

// NeverRan is the error of a result in which some fragment never ran (the first
// such), nil when each ran at least once.
func (r *Result) NeverRan() error {
	for _, f := range r.Frags {
		if f.Summary.N == 0 {
			return fmt.Errorf("fragment %s never ran in %d repetitions (is the function called, or the region reached, with these inputs?)", f.Fragment, r.Reps)
		}
	}
	return nil
}

// A Failure is a repetition whose samples were not used.
type Failure struct {
	Rep    int
	Reason string
}

// FragResult is one fragment's measurements.
type FragResult struct {
	Fragment Fragment
	// How it was timed: the runtime timer, or "wall clock (fragprof, around fork/exec
	// and wait)" for the program.
	Method string
	// ByRep holds the samples of every repetition (ns, overhead subtracted), warm-up
	// repetitions included; nil for a failed one.
	ByRep [][]float64
	// Samples are the samples after the warm-up, in order; Warmup those dropped.
	Samples, Warmup []float64
	Summary         stats.TimingSummary
	Dropped         uint64 // activations beyond the runtime's sample cap
	Open, Unmatched uint64 // activations open at a dump; ends without a begin
	// NeededN is the number of samples a ±RelEps (or ±1 % without it) mean needs at
	// the confidence, from these samples (SampleSizeMean); RelErr the relative error
	// reached (RelErrMean).
	NeededN, RelErr float64
	// RelTarget is the relative error NeededN is for.
	RelTarget float64
}

// PerRep returns the mean number of samples per repetition after the warm-up.
func (f *FragResult) PerRep(warmup int) float64 {
	n, reps := 0, 0
	for i, s := range f.ByRep {
		if i < warmup || s == nil {
			continue
		}
		n += len(s)
		reps++
	}
	if reps == 0 {
		return 0
	}
	return float64(n) / float64(reps)
}

// rep is what one repetition produced.
type rep struct {
	records []*Record
	wallNs  float64 // the program's wall time (exec mode)
	dump    []byte
	known   *dump.Known // resolves dump's units written by reference (fork server)
	failure string
}

// Measure runs the protocol. A fragment that never ran in any repetition is reported
// with no samples (not an error); the caller decides.
func Measure(ctx context.Context, c Config) (*Result, error) {
	if c.Reps <= c.Warmup {
		return nil, fmt.Errorf("timing: %d repetitions leave nothing after %d warm-up", c.Reps, c.Warmup)
	}
	exe := c.Exec
	for _, f := range c.Fragments {
		exe = exe || f.Kind == ProgramFrag
	}
	env := []string{"FRAGPROF_TIMER=" + c.Timer.String()}
	if c.CPU >= 0 {
		env = append(env, "FRAGPROF_CPU="+strconv.Itoa(c.CPU))
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	m := &measurer{c: c, exe: exe, env: env}
	defer m.close()
	res := &Result{Timer: c.Timer, Asked: c.Timer, Warmup: c.Warmup, RelEps: c.RelEps, Confidence: c.Stats.Confidence}
	var reps []rep
	planned := c.Reps
	maxReps := max(c.MaxReps, c.Reps)
	for len(reps) < planned {
		i := len(reps)
		r, err := m.run(ctx, i)
		if err != nil {
			return nil, err
		}
		reps = append(reps, r)
		if r.failure != "" {
			res.Failures = append(res.Failures, Failure{Rep: i, Reason: r.failure})
			if len(res.Failures) > 20 && len(res.Failures)*2 > len(reps) {
				return nil, fmt.Errorf("timing: %d of %d repetitions failed; the last: %s", len(res.Failures), len(reps), r.failure)
			}
		}
		if c.Progress != nil {
			c.Progress(len(reps), planned)
		}
		if ctx.Err() != nil {
			break
		}
		if c.RelEps > 0 && len(reps) == planned && planned < maxReps {
			// The pilot (or the last batch) is in: how many repetitions does the
			// requested relative error need?
			if err := res.fill(c, reps); err != nil {
				return nil, err
			}
			need := len(reps)
			for _, f := range res.Frags {
				per := f.PerRep(c.Warmup)
				if f.Summary.N < 2 || per == 0 {
					continue
				}
				if f.RelErr <= c.RelEps {
					continue
				}
				// Not there yet: the pilot's estimate of N, and at least a tenth more
				// repetitions (the estimate moves as the samples grow).
				need = max(need, c.Warmup+int(math.Ceil(f.NeededN/per)), len(reps)+max(10, len(reps)/10))
			}
			if res.Pilot == 0 {
				res.Pilot, res.Needed = len(reps), need
			}
			planned = min(need, maxReps)
		}
	}
	if err := res.fill(c, reps); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// fill computes everything from the repetitions so far.
func (res *Result) fill(c Config, reps []rep) error {
	res.Reps = len(reps)
	var npts, ovh, ovhMin, spans []float64
	for _, r := range reps {
		for _, rec := range r.records {
			npts = append(npts, rec.NsPerTick)
			ovh = append(ovh, rec.OverheadNs())
			ovhMin = append(ovhMin, rec.OverheadMin*rec.NsPerTick)
			spans = append(spans, rec.SpanNs)
			res.Timer = rec.Timer
			res.InvariantTSC = rec.Flags&FlagInvariantTSC != 0
			res.Pinned = res.Pinned || rec.Flags&FlagPinned != 0
			res.HzFromEnv = rec.Flags&FlagHzFromEnv != 0
		}
	}
	res.NsPerTick, res.OverheadNs, res.CalSpanNs, res.OverheadMinNs = 0, 0, 0, 0
	if len(npts) > 0 { // no records: only the program was timed
		res.NsPerTick, res.OverheadNs, res.CalSpanNs = stats.Median(npts), stats.Median(ovh), stats.Median(spans)
		res.OverheadMinNs = slices.Min(ovhMin)
	}
	res.Frags = res.Frags[:0]
	for _, f := range c.Fragments {
		fr := &FragResult{Fragment: f, ByRep: make([][]float64, len(reps))}
		if f.Kind == ProgramFrag {
			fr.Method = "wall clock around fork/exec and wait (fragprof, CLOCK_MONOTONIC), as hyperfine measures; nothing subtracted"
		} else {
			fr.Method = fmt.Sprintf("%s: %s; overhead %.1f ns subtracted", res.Timer, res.Timer.Doc(), res.OverheadNs)
		}
		name := f.String()
		for i, r := range reps {
			if r.failure != "" {
				continue
			}
			if f.Kind == ProgramFrag {
				fr.ByRep[i] = []float64{r.wallNs}
				continue
			}
			fr.ByRep[i] = []float64{}
			for _, rec := range r.records {
				for _, fg := range rec.Frags {
					if fg.Name != name {
						continue
					}
					for _, t := range fg.Ticks {
						fr.ByRep[i] = append(fr.ByRep[i], float64(t)*res.NsPerTick-res.OverheadNs)
					}
					fr.Dropped += uint64(fg.Dropped)
					fr.Open += uint64(fg.Open)
					fr.Unmatched += uint64(fg.Unmatched)
				}
			}
		}
		for i, s := range fr.ByRep {
			if i < c.Warmup {
				fr.Warmup = append(fr.Warmup, s...)
			} else {
				fr.Samples = append(fr.Samples, s...)
			}
		}
		o := c.Stats
		o.Warmup = 0
		fr.Summary = stats.SummarizeTimes(fr.Samples, o)
		fr.Summary.Warmup = fr.Warmup
		fr.RelTarget = c.RelEps
		if fr.RelTarget <= 0 {
			fr.RelTarget = 0.01
		}
		if fr.Summary.N >= 2 {
			fr.NeededN = stats.SampleSizeMean(o.Confidence, fr.Summary.Mean, fr.Summary.StdDev, fr.RelTarget)
			fr.RelErr = stats.RelErrMean(o.Confidence, fr.Summary.Mean, fr.Summary.StdDev, fr.Summary.N)
		}
		res.Frags = append(res.Frags, fr)
	}
	if c.Profile {
		res.Prog, res.Counts, res.ProfileReps = nil, nil, 0
		res.RepCounts = make([][]cfg.Counts, len(reps))
		for i, r := range reps {
			if i < c.Warmup || r.failure != "" || len(r.dump) == 0 {
				continue
			}
			d, err := dump.ParseKnown(c.Binary, r.dump, r.known)
			if err != nil {
				return fmt.Errorf("repetition %d: %v", i, err)
			}
			p, err := d.Profile()
			if err != nil {
				return fmt.Errorf("repetition %d: %v", i, err)
			}
			if res.Prog == nil {
				res.Prog = p.Program
				for _, f := range p.Program.Funcs {
					res.Counts = append(res.Counts, cfg.NewCounts(f))
				}
			}
			if len(p.Counts) != len(res.Counts) {
				return fmt.Errorf("repetition %d: %d functions in the dump, %d before", i, len(p.Counts), len(res.Counts))
			}
			for k := range p.Counts {
				res.Counts[k].Add(p.Counts[k])
			}
			res.RepCounts[i] = p.Counts
			res.ProfileReps++
		}
	}
	return nil
}

// Frag returns the result of the named fragment, or nil.
func (res *Result) Frag(name string) *FragResult {
	for _, f := range res.Frags {
		if f.Fragment.String() == name {
			return f
		}
	}
	return nil
}

// measurer runs repetitions.
type measurer struct {
	c      Config
	exe    bool
	env    []string
	server *runner.Server
	null   *os.File
}

func (m *measurer) close() {
	if m.server != nil {
		m.server.Close()
	}
	if m.null != nil {
		m.null.Close()
	}
}

// run runs repetition i. An error means the machinery broke; a repetition that went
// wrong has a failure.
func (m *measurer) run(ctx context.Context, i int) (rep, error) {
	in, err := m.c.Inputs.TrialInputs(uint64(i))
	if err != nil {
		return rep{}, err
	}
	for name, data := range in.Files {
		if err := os.WriteFile(filepath.Join(m.c.Dir, name), data, 0o644); err != nil {
			return rep{}, fmt.Errorf("writing input file %s: %v", name, err)
		}
	}
	if m.exe {
		return m.runExec(ctx, i, in)
	}
	if m.server == nil {
		s, err := runner.StartServer(m.c.Binary, runner.ServerOptions{Dir: m.c.Dir, Stdout: m.c.Output, Stderr: m.c.Output, Env: m.env})
		if err != nil {
			return rep{}, err
		}
		m.server = s
	}
	t, err := m.server.Run(ctx, in.Args, in.Stdin, m.c.Timeout)
	if err == runner.ErrServerDied {
		m.server.Close()
		m.server = nil
		return rep{failure: "the fork server died"}, nil
	}
	if err != nil {
		return rep{}, err
	}
	var r rep
	switch {
	case t.TimedOut && ctx.Err() != nil:
		r.failure = "interrupted"
	case t.TimedOut:
		r.failure = fmt.Sprintf("timed out after %v", m.c.Timeout)
	case t.Status.Signal != 0:
		r.failure = t.Status.String()
	}
	recs, err := ParseExtra(t.Extra)
	if err != nil {
		return rep{}, fmt.Errorf("repetition %d: %v", i, err)
	}
	r.records = recs
	if m.c.Profile {
		r.dump, r.known = bytes.Clone(t.Dump), t.Known
	}
	return r, nil
}

// runExec runs repetition i as a fresh exec and times it from before the fork to
// after the wait, the way hyperfine does.
func (m *measurer) runExec(ctx context.Context, i int, in montecarlo.TrialInputs) (rep, error) {
	extra := filepath.Join(m.c.Dir, ".fragprof-extra")
	counts := filepath.Join(m.c.Dir, ".fragprof-counts")
	os.Remove(extra)
	os.Remove(counts)
	stdin, err := os.CreateTemp(m.c.Dir, ".stdin")
	if err != nil {
		return rep{}, err
	}
	defer os.Remove(stdin.Name())
	defer stdin.Close()
	if _, err := stdin.Write(in.Stdin); err != nil {
		return rep{}, err
	}
	if _, err := stdin.Seek(0, 0); err != nil {
		return rep{}, err
	}
	out := m.c.Output
	if out == nil {
		if m.null == nil {
			if m.null, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0); err != nil {
				return rep{}, err
			}
		}
		out = m.null
	}
	if ctx.Err() != nil {
		return rep{failure: "interrupted"}, nil
	}
	cmd := exec.Command(m.c.Binary, in.Args...)
	cmd.Env = runner.BindNow(append(append(os.Environ(), m.env...), "FRAGPROF_EXTRA_OUT="+extra))
	if m.c.Profile {
		cmd.Env = append(cmd.Env, "FRAGPROF_OUT="+counts)
	}
	cmd.Dir = m.c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, out, out
	var timer *time.Timer
	t0 := time.Now()
	if err := runner.Start(cmd); err != nil { // killed with fragprof, even by SIGKILL
		return rep{}, fmt.Errorf("starting %s: %v", m.c.Binary, err)
	}
	if m.c.Timeout > 0 {
		timer = time.AfterFunc(m.c.Timeout, func() { cmd.Process.Kill() })
	}
	stop := context.AfterFunc(ctx, func() { cmd.Process.Kill() })
	werr := cmd.Wait()
	wall := time.Since(t0)
	stop()
	if timer != nil {
		timer.Stop()
	}
	r := rep{wallNs: float64(wall.Nanoseconds())}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws := ee.Sys().(syscall.WaitStatus); ws.Signaled() {
			r.failure = "killed by signal " + ws.Signal().String()
			switch {
			case ctx.Err() != nil:
				r.failure = "interrupted"
			case m.c.Timeout > 0 && wall >= m.c.Timeout:
				r.failure = fmt.Sprintf("timed out after %v", m.c.Timeout)
			}
		}
	} else if werr != nil {
		return rep{}, fmt.Errorf("running %s: %v", m.c.Binary, werr)
	}
	if data, err := os.ReadFile(extra); err == nil {
		if r.records, err = ParseExtra(data); err != nil {
			return rep{}, fmt.Errorf("repetition %d: %v", i, err)
		}
	}
	if m.c.Profile {
		r.dump, _ = os.ReadFile(counts)
	}
	return r, nil
}
