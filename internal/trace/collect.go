// This file runs tracing trials: a fragprof-built program, through its fork server,
// on inputs drawn from an input model, one trace per trial.

package trace

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/runner"
)

// A Collector runs trials of a program built by fragprof with tracing on.
type Collector struct {
	Binary  string
	Program string     // how headers name the program (its sources)
	Inputs  *dist.File // the input model and templates
	Seed    uint64
	Timeout time.Duration // per trial; 0: none
	Dir     string        // work directory: worker k runs in Dir/tK, where input files go
	Output  io.Writer     // the trials' stdout and stderr; nil discards them
	Auto    bool          // the binary has automatic checkpoints (recorded in headers)
	// Clock is "tsc" (the default), "monotonic" or "thread" (FRAGPROF_TRACE_CLOCK).
	Clock string
	// MaxEvents bounds the events of one trial (FRAGPROF_TRACE_MAX); 0: the runtime's
	// default.
	MaxEvents uint64
	// StopAfter makes every trial a probe (FRAGPROF_TRACE_STOP): the trial ends
	// at its first checkpoint this long after its first, by the trace's clock;
	// 0: runs end as the program ends them.
	StopAfter time.Duration
	// StopEvents makes every trial a probe that ends at the StopEvents-th
	// checkpoint of any of its threads (FRAGPROF_TRACE_STOP_EVENTS); 0: none.
	StopEvents uint64
	// Repeat runs every trial this many times (0 or 1: once), on the same inputs
	// except those named in Vary, which each repetition draws anew.
	Repeat int
	Vary   []string
	// FirstRep numbers the first repetition round run: rounds FirstRep …
	// FirstRep+Repeat−1, the ones a longer --repeat would run (so that the rounds
	// of several trace runs can be interleaved in time).
	FirstRep int
}

// A Result is one trial: its header and the extra channel's bytes as they came.
type Result struct {
	Header Header
	Extra  []byte
	Err    error // the trial could not be run (the fork server died, ...)
}

// RepSeed is the seed from which repetition r of a trial draws its Vary inputs
// anew: the trial's seed for r = 0, another one, depending only on (seed, r), for
// each later repetition.
func RepSeed(seed uint64, r int) uint64 {
	if r == 0 {
		return seed
	}
	x := seed ^ uint64(r)*0x9e3779b97f4a7c15
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>29
}

// DrawRep returns repetition r of trial i's header fields (inputs, args, stdin) and
// what the program is given: its arguments (nil: none), stdin and input files. The
// inputs are trial i's, with those in c.Vary drawn anew from RepSeed(c.Seed, r)
// when r > 0.
func (c *Collector) DrawRep(s *dist.Sample, i uint64, r int) (Header, []string, []byte, map[string][]byte, error) {
	h := Header{Program: c.Program, Trial: i, Seed: c.Seed, Auto: c.Auto, Rep: r, Vary: c.Vary}
	m := c.Inputs.Model
	if err := m.DrawInto(s, c.Seed, i); err != nil {
		return h, nil, nil, nil, fmt.Errorf("trial %d: drawing inputs: %v", i, err)
	}
	if r > 0 && len(c.Vary) > 0 {
		if err := m.RedrawInto(s, RepSeed(c.Seed, r), i, c.Vary); err != nil {
			return h, nil, nil, nil, fmt.Errorf("trial %d, repetition %d: drawing %v anew: %v", i, r, c.Vary, err)
		}
	}
	for k, in := range m.Inputs {
		v := s.Values[k]
		x := Input{Name: in.Name, Kind: in.Kind.String()}
		if in.Kind.IsNumber() {
			x.Value = v.Number()
		} else {
			x.Value = float64(v.Len())
		}
		if txt := v.String(); len(txt) <= 200 {
			x.Text = txt
		}
		h.Inputs = append(h.Inputs, x)
	}
	var stdin []byte
	if t := c.Inputs.Stdin; t != nil {
		stdin = t.Append(nil, s)
	}
	args := []string{}
	for _, t := range c.Inputs.Args {
		args = append(args, string(t.Append(nil, s)))
	}
	var files map[string][]byte
	if len(c.Inputs.Files) > 0 {
		files = map[string][]byte{}
		for _, f := range c.Inputs.Files {
			files[f.Name] = f.Template.Append(nil, s)
		}
	}
	h.Args = args
	if len(stdin) <= 4096 {
		h.Stdin = string(stdin)
	}
	return h, args, stdin, files, nil
}

func (c *Collector) env() []string {
	env := []string{"FRAGPROF_TRACE=1"}
	if c.Clock != "" {
		env = append(env, "FRAGPROF_TRACE_CLOCK="+c.Clock)
	}
	if c.MaxEvents > 0 {
		env = append(env, fmt.Sprintf("FRAGPROF_TRACE_MAX=%d", c.MaxEvents))
	}
	if c.StopAfter > 0 {
		env = append(env, fmt.Sprintf("FRAGPROF_TRACE_STOP=%d", c.StopAfter.Nanoseconds()))
	}
	if c.StopEvents > 0 {
		env = append(env, fmt.Sprintf("FRAGPROF_TRACE_STOP_EVENTS=%d", c.StopEvents))
	}
	return env
}

// Run runs trials first, first+1, ..., first+n-1 on jobs workers (each with its own
// fork server) and hands every result to sink, in the order run. Timing is truest
// with one worker: parallel trials share the machine's cores and caches. With
// Repeat R > 1 the trials are run R times over, in R rounds (all trials, then all
// again, ...), so that a repetition does not share the momentary load of the
// previous one, each round in a fresh fork server (a fresh address-space layout);
// results carry their repetition in Header.Rep.
func (c *Collector) Run(ctx context.Context, first, n uint64, jobs int, sink func(Result) error) error {
	reps := max(c.Repeat, 1)
	if jobs < 1 {
		jobs = 1
	}
	if uint64(jobs) > n*uint64(reps) {
		jobs = int(max(n*uint64(reps), 1))
	}
	type job struct {
		i   uint64
		r   int
		out chan Result
	}
	jobsCh := make(chan job)
	var wg sync.WaitGroup
	errs := make([]error, jobs)
	for k := 0; k < jobs; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			w, err := c.newWorker(k)
			if err != nil {
				errs[k] = err
				for j := range jobsCh {
					j.out <- Result{Err: err}
				}
				return
			}
			defer w.close()
			for j := range jobsCh {
				j.out <- w.trial(ctx, j.i, j.r)
			}
		}(k)
	}
	// Results are handed on in trial order: the dispatcher queues each trial's
	// result channel before handing the trial to a worker.
	queue := make(chan chan Result, 2*jobs)
	var stop atomic.Bool
	go func() {
		defer close(jobsCh)
		defer close(queue)
		for r := c.FirstRep; r < c.FirstRep+reps; r++ {
			for i := first; i < first+n; i++ {
				if ctx.Err() != nil || stop.Load() {
					return
				}
				ch := make(chan Result, 1)
				queue <- ch
				jobsCh <- job{i, r, ch}
			}
		}
	}()
	var sinkErr error
	for ch := range queue {
		r := <-ch
		if sinkErr == nil {
			if sinkErr = sink(r); sinkErr != nil {
				stop.Store(true)
			}
		}
	}
	wg.Wait()
	if sinkErr != nil {
		return sinkErr
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

type worker struct {
	c      *Collector
	dir    string
	sample *dist.Sample
	server *runner.Server
	round  int // the repetition the server was started for
}

func (c *Collector) newWorker(k int) (*worker, error) {
	dir := filepath.Join(c.Dir, fmt.Sprintf("t%d", k))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &worker{c: c, dir: dir, sample: c.Inputs.Model.NewSample(), round: c.FirstRep}
	return w, w.start()
}

func (w *worker) start() error {
	s, err := runner.StartServer(w.c.Binary, runner.ServerOptions{
		Dir: w.dir, Stdout: w.c.Output, Stderr: w.c.Output, Env: w.c.env(),
	})
	if err != nil {
		return err
	}
	w.server = s
	return nil
}

func (w *worker) close() {
	if w.server != nil {
		w.server.Close()
	}
}

func (w *worker) trial(ctx context.Context, i uint64, r int) Result {
	h, args, stdin, files, err := w.c.DrawRep(w.sample, i, r)
	if err != nil {
		return Result{Header: h, Err: err}
	}
	// Every round in a fresh fork server: a forked trial inherits its server's
	// state — address-space layout, heap — so the trials of one server are not
	// independent executions, and the layout alone can move a program's time
	// (Mytkowicz et al., "Producing wrong data without doing anything obviously
	// wrong!", ASPLOS 2009; Curtsinger & Berger, "Stabilizer", ASPLOS 2013). A new
	// server is a new exec: a point's repetitions then sample its run-to-run
	// scatter as separate executions do.
	if r != w.round {
		w.round = r
		w.server.Close()
		if err := w.start(); err != nil {
			return Result{Header: h, Err: err}
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(w.dir, name), data, 0o644); err != nil {
			return Result{Header: h, Err: fmt.Errorf("trial %d: writing input file %s: %v", i, name, err)}
		}
	}
	start := time.Now()
	t, err := w.server.Run(ctx, args, stdin, w.c.Timeout)
	h.WallNs = time.Since(start).Nanoseconds()
	if err == runner.ErrServerDied {
		w.server.Close()
		if err := w.start(); err != nil {
			return Result{Header: h, Err: err}
		}
		return Result{Header: h, Err: fmt.Errorf("trial %d: the fork server died", i)}
	}
	if err != nil {
		return Result{Header: h, Err: err}
	}
	h.Status = t.Status.String()
	h.ExitCode = t.Status.ShellCode()
	if t.TimedOut {
		h.Status = fmt.Sprintf("timed out after %v", w.c.Timeout)
	}
	return Result{Header: h, Extra: append([]byte(nil), t.Extra...)}
}
