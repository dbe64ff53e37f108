// This file implements a sampling session: the runs of one program that
// `fragprof sample` makes and the batches file they go to.

package sample

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/fragprof/fragprof/hotcfg"
)

// DefaultInProcessShare is the in-process sampler's default cost bound
// (Options.Overhead): below 5 % with room for what the bursts' own CPU time does not
// count (starting the library, caches).
const DefaultInProcessShare = 0.04

// DefaultInterval is the mean interval between bursts when none is given: 1 ms of
// each thread's CPU time in process, 3 ms of wall time under ptrace.
func DefaultInterval(inProcess bool) time.Duration {
	if inProcess {
		return time.Millisecond
	}
	return 3 * time.Millisecond
}

// ChooseSampler says whether the in-process sampler runs for the sampler asked for
// ("auto", "inprocess" or "ptrace"), the process to attach to (pid, 0 for none) and
// the program to start, and why not when it does not ("" when ptrace was asked for).
func ChooseSampler(sampler string, pid int, prog []string) (bool, string) {
	switch {
	case sampler == "ptrace":
		return false, ""
	case pid != 0:
		return false, "attaching to a running process needs ptrace"
	}
	return Preloadable(prog[0])
}

// A LazyCost is a cost read the first time it is needed (CachedStartCost), and kept.
type LazyCost struct {
	Read func() (StartCostResult, error)
	r    StartCostResult
	done bool
}

// Get returns the cost, reading it at the first call that succeeds.
func (l *LazyCost) Get() (StartCostResult, error) {
	if !l.done {
		r, err := l.Read()
		if err != nil {
			return r, err
		}
		l.r, l.done = r, true
	}
	return l.r, nil
}

// Done reports whether the cost was read.
func (l *LazyCost) Done() bool { return l.done }

// A Session samples the runs of one program, or of a process it attaches to, and
// writes their batches to one batches file (docs/batches.md): Repeat runs (at most,
// with Until), in process or under ptrace (ChooseSampler). In process, repeated runs
// are thinned to hold the sampler's cost within Options.Overhead (Thinning), and the
// remaining runs switch to ptrace when the program takes over the sampler's signal;
// under ptrace each run starts from the tick cost learned in the runs before it.
// MeasureOverhead alternates the runs with plain ones; Until repeats them until the
// hot CFG's own estimate of its similarity reaches it (EstimateSimilarity,
// untilStops).
type Session struct {
	// Target is the program, or the process to attach to. When the program runs
	// more than once its stdin is read whole first and replayed to every run.
	Target  Target
	Command []string // the program and its arguments, for the file's "cmd"
	Sampler string   // "auto", "inprocess" or "ptrace" (ChooseSampler)
	// Options are the sampler's. Interval 0 is DefaultInterval; Overhead 0 is
	// DefaultInProcessShare in process, no bound under ptrace; run i takes Seed+i.
	Options    Options
	StackBytes int  // in process: the stack copied at each burst's start
	BurstGiven bool // Options.Burst was asked for: Until does not lengthen it (UntilBurst)
	Repeat     int  // the runs; 0: 1, or DefaultUntilRuns with Until
	// MeasureOverhead alternates every run with a plain one, whose output is
	// discarded (Result.Plain).
	MeasureOverhead bool
	Until           float64 // the similarity share to repeat runs until; 0: none
	// OverheadText and UntilText are Options.Overhead and Until as they were
	// written ("5%"), for the batches file and the report.
	OverheadText, UntilText string
	Online                  bool      // also build the Bursts graph online (Result.Graph)
	Start                   *LazyCost // the library's start (CachedStartCost), for the thinning
	// Interrupted reports whether the runs were interrupted (Ctrl-C), for the runs
	// the thinning leaves plain; nil: never.
	Interrupted func() bool
	Log         io.Writer // notes while the runs go on ("fragprof sample: ...")
}

// A Result is what a session ran and sampled.
type Result struct {
	Total         Stats       // the sums over the runs
	Last          *Stats      // the last run's
	Traced        []PlainRun  // the times of the runs sampled (or thinned: the sampled arm)
	Plain         []PlainRun  // those of MeasureOverhead's plain runs
	InProcessRuns int         // runs sampled in process
	Thinned       int         // runs left plain by the thinning
	Steps         StepReport  // how the in-process bursts were stepped
	Maps          hotcfg.Maps // the executable mappings of every run
	Notes         []string    // the session's notes (a switch to ptrace); the last run's are in Last
	Batches       int         // the batches written
	Estimate      SimilarityEstimate
	EstimateOK    bool          // Estimate was made (MinEstimateBatches)
	Graph         *hotcfg.Graph // the online Bursts graph (Session.Online)

	// For the report: the session's cost bound, its thinning (in process,
	// repeated runs), Until, UntilText and MeasureOverhead.
	share            float64
	thin             *Thinning
	until            float64
	untilText        string
	measuredOverhead bool
}

// session is a Session's state while it runs.
type session struct {
	*Session
	res       *Result
	w         *hotcfg.Writer
	opts      Options
	inProcess bool
	input     []byte
	repeat    int
	kept      []hotcfg.Batch   // every batch, for the similarity's own estimate
	insns     hotcfg.InsnTable // and their instructions
	online    *hotcfg.Bursts
	code      hotcfg.InsnTable // the online graph's instructions
}

// Run runs the session and writes its batches file to out (which it does not close).
func (s *Session) Run(out io.Writer) (*Result, error) {
	r := &session{Session: s, res: &Result{until: s.Until, untilText: s.UntilText, measuredOverhead: s.MeasureOverhead},
		opts: s.Options, repeat: s.Repeat, insns: hotcfg.InsnTable{}}
	if r.repeat == 0 {
		r.repeat = 1
		if s.Until > 0 {
			r.repeat = DefaultUntilRuns
		}
	}
	if s.MeasureOverhead || r.repeat > 1 || s.Until > 0 {
		b, err := io.ReadAll(s.Target.Stdin)
		if err != nil {
			return nil, err
		}
		r.input = b
	}
	r.w = hotcfg.NewWriter(out)
	if err := r.setUp(); err != nil {
		return nil, err
	}
	if err := r.runs(); err != nil {
		return nil, err
	}
	return r.res, r.finish()
}

// setUp chooses the sampler and its defaults and writes them to the file's head.
func (r *session) setUp() error {
	r.w.Info("cmd", strings.Join(r.Command, " "))
	var why string
	r.inProcess, why = ChooseSampler(r.Sampler, r.Target.PID, r.Command)
	if r.opts.Interval == 0 {
		r.opts.Interval = DefaultInterval(r.inProcess)
	}
	r.w.Info("interval", r.opts.Interval.String())
	if r.Until > 0 && r.inProcess && !r.BurstGiven {
		r.opts.Burst = UntilBurst
	}
	r.w.Info("burst", fmt.Sprint(r.opts.Burst))
	if r.Online {
		r.code = hotcfg.InsnTable{}
		r.online = hotcfg.NewBursts(r.code)
	}
	if r.opts.Overhead > 0 {
		r.w.Info("overhead", r.OverheadText)
	}
	if r.Sampler == "inprocess" && !r.inProcess {
		return fmt.Errorf("sample: --sampler inprocess: %s", why)
	}
	if r.inProcess {
		if r.OverheadText == "" {
			r.opts.Overhead = DefaultInProcessShare
			r.w.Info("overhead", fmt.Sprintf("%g%%", 100*DefaultInProcessShare))
		}
		r.w.Info("sampler", "inprocess")
	} else {
		r.w.Info("sampler", "ptrace")
		if r.Sampler == "auto" && why != "" {
			fmt.Fprintf(r.Log, "fragprof sample: using ptrace: %s\n", why)
		}
	}
	r.res.share = r.opts.Overhead
	if r.inProcess && r.repeat > 1 {
		r.res.thin = NewThinning(r.opts.Overhead, 0, r.Options.Seed)
	}
	return nil
}

// sink numbers a batch and writes it, and keeps it for the estimate and the
// online graph.
func (r *session) sink(b hotcfg.Batch, c hotcfg.Code) {
	r.res.Batches++
	b.Seq = r.res.Batches
	r.w.Batch(b, c)
	r.kept = append(r.kept, b)
	for _, pc := range b.PCs {
		if in, ok := c.Insn(pc); ok {
			r.insns[pc] = in
		}
	}
	if r.online != nil {
		for _, pc := range b.PCs {
			if in, ok := c.Insn(pc); ok {
				r.code[pc] = in
			}
		}
		r.online.AddBatch(b)
	}
}

// target is the target of one run, its stdin replayed when read ahead.
func (r *session) target() Target {
	t := r.Target
	if r.input != nil {
		t.Stdin = bytes.NewReader(r.input)
	}
	return t
}

// runs makes the runs, until Repeat, an interruption or Until.
func (r *session) runs() error {
	until := newUntilRule(r.Until)
	for i := 0; i < r.repeat; i++ {
		// Sampled and plain runs alternate, the sampled one first on odd
		// runs, so that a trend in the machine's load falls on both alike.
		if r.MeasureOverhead && i%2 == 0 {
			if err := r.plainRun(); err != nil {
				return err
			}
		}
		s, err := r.sampledRun(i)
		if err != nil {
			return err
		}
		if r.MeasureOverhead && i%2 == 1 {
			if err := r.plainRun(); err != nil {
				return err
			}
		}
		r.add(s)
		if s.Interrupted || until.stop(r.kept, r.insns, r.res.Maps) {
			break
		}
	}
	r.res.Estimate, r.res.EstimateOK = until.final(r.kept, r.insns, r.res.Maps)
	return nil
}

// plainRun makes one of MeasureOverhead's plain runs, its output discarded.
func (r *session) plainRun() error {
	pt := r.target()
	// /dev/null itself, not io.Discard: a writer that is not a
	// file makes exec copy the output through a pipe and a
	// goroutine, which the sampled run does not pay.
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	pt.Stdout, pt.Stderr = null, null
	p, err := Plain(pt)
	if err != nil {
		return err
	}
	r.res.Plain = append(r.res.Plain, p)
	if r.res.thin != nil {
		r.res.thin.Plain(p.CPU)
	}
	return nil
}

// sampledRun makes run i: sampled in process or under ptrace, or left plain by the
// thinning (then the sampled arm of MeasureOverhead).
func (r *session) sampledRun(i int) (*Stats, error) {
	res, thin := r.res, r.res.thin
	t := r.target()
	r.opts.Seed = r.Options.Seed + uint64(i)
	switch {
	case r.inProcess && thin != nil && !thin.Next():
		// Left plain, to hold the sampler's cost within --overhead (Thinning).
		p, err := Plain(t)
		if err != nil {
			return nil, err
		}
		thin.Plain(p.CPU)
		res.Thinned++
		return &Stats{Wall: p.Wall, CPU: p.CPU, ExitCode: p.ExitCode, Exited: true, Interrupted: r.Interrupted != nil && r.Interrupted()}, nil
	case r.inProcess:
		return r.inProcessRun(i, t)
	}
	if r.opts.Overhead > 0 && res.Total.Ticks > 0 {
		// Each run starts from the cost learned in the runs before it.
		r.opts.Interval = max(time.Duration(float64(res.Total.TickTime)/float64(res.Total.Ticks)/r.opts.Overhead), time.Microsecond)
	}
	return Sample(t, r.opts, r.sink, nil)
}

// inProcessRun samples run i in process; the runs after it switch to ptrace when
// the program takes over the sampler's signal.
func (r *session) inProcessRun(i int, t Target) (*Stats, error) {
	res, thin := r.res, r.res.thin
	if res.Total.Batches > 0 && res.Total.Ticks == 0 {
		// Each run's first gaps start from the burst cost learned in the runs before it.
		r.opts.BurstCost = res.Total.SelfCost / time.Duration(res.Total.Batches)
	}
	s, err := Preload(t, r.opts, r.StackBytes, func(b Burst, c hotcfg.Code) { r.sink(b.Batch, c) })
	res.InProcessRuns++
	if err != nil {
		return nil, err
	}
	res.Steps.Merge(s.Steps)
	if thin != nil {
		if res.InProcessRuns == 1 {
			start, err := r.Start.Get()
			if err != nil {
				return nil, err
			}
			thin.Start = start.Cost
		}
		thin.Sampled(s.CPU, s.SelfCost, s.SetupCost)
	}
	if s.Conflict != 0 && i+1 < r.repeat {
		r.inProcess = false
		res.Notes = append(res.Notes, fmt.Sprintf("run %d: the program handles %v itself: the remaining runs use ptrace", i+1, s.Conflict))
		r.w.Info("sampler", "inprocess+ptrace")
	}
	return s, nil
}

// add adds a run's statistics to the totals.
func (r *session) add(s *Stats) {
	res := r.res
	res.Traced = append(res.Traced, PlainRun{Wall: s.Wall, CPU: s.CPU})
	res.Total.Batches += s.Batches
	res.Total.Sampled += s.Sampled
	res.Total.Skipped += s.Skipped
	res.Total.Ticks += s.Ticks
	res.Total.TickTime += s.TickTime
	res.Total.SelfCost += s.SelfCost
	res.Total.SetupCost += s.SetupCost
	res.Total.Wall += s.Wall
	res.Total.CPU += s.CPU
	res.Last = s
	// The mappings of every run: a run's own are read when its bursts
	// meet code outside the known ones, so the last run alone may lack
	// a library the others sampled. Runs place code alike (no ASLR).
	for _, m := range s.Maps {
		res.Maps.Add(m)
	}
}

// finish writes the file's tail: the estimate, the mappings and the totals.
func (r *session) finish() error {
	res := r.res
	if res.EstimateOK {
		r.w.Info("estimated_similarity", fmt.Sprintf("%.4f", res.Estimate.Similarity))
	}
	for _, m := range res.Maps {
		r.w.Map(m)
	}
	r.w.Info("batches", fmt.Sprint(res.Total.Batches))
	r.w.Info("sampled", fmt.Sprint(res.Total.Sampled))
	r.w.Info("runs", fmt.Sprint(len(res.Traced)))
	if res.Thinned > 0 {
		r.w.Info("sampled_runs", fmt.Sprint(len(res.Traced)-res.Thinned))
	}
	if res.InProcessRuns > 0 {
		r.w.Info("stepping", res.Steps.String())
	}
	if r.online != nil {
		res.Graph = r.online.Graph()
		res.Graph.Maps = res.Maps
	}
	return r.w.Flush()
}
