// This file implements workers that run a fragprof-built program on inputs drawn from
// an input model: through its fork server, by exec, or in one process.

package montecarlo

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/dump"
	"github.com/fragprof/fragprof/internal/faultloc"
	"github.com/fragprof/fragprof/internal/runner"
)

// Isolation says how trials are kept apart.
type Isolation uint8

const (
	// Fork runs every trial in a fresh process forked from a server that
	// initialised once (the default).
	Fork Isolation = iota
	// Exec starts the program anew for every trial (FreqSys's way; slow).
	Exec
	// None runs the trials one after the other in one process, counters reset in
	// between: only for programs whose main leaves no state behind and returns.
	None
)

var isolationNames = [...]string{"fork", "exec", "none"}

func (i Isolation) String() string { return isolationNames[i] }

// ParseIsolation reads an isolation name.
func ParseIsolation(s string) (Isolation, error) {
	for i, n := range isolationNames {
		if n == s {
			return Isolation(i), nil
		}
	}
	return 0, fmt.Errorf("unknown isolation %q (want fork, exec or none)", s)
}

// A Program runs a fragprof-built binary on drawn inputs.
type Program struct {
	Binary    string
	Inputs    *dist.File // model and templates (stdin, args, files)
	Seed      uint64
	Isolation Isolation
	Timeout   time.Duration // per trial; 0: none
	// Linger is how long an exec'd trial waits, after its first process ended, for
	// the processes it started (0: runner.Linger). A trial whose processes are still
	// running then is a failure: their counts would be missing.
	Linger time.Duration
	// CountNonZero counts trials that exit with a non-zero status (their counts are
	// complete); otherwise they are failures.
	CountNonZero bool
	Dir          string    // each worker works in Dir/wK, where input files are written
	Output       io.Writer // the trials' stdout and stderr; nil discards them
	// Encode, when set, writes a trial's stdin from its values instead of the stdin
	// template: the binary stream of a function-mode harness (internal/harness).
	Encode func(dst []byte, s *dist.Sample) []byte
	// Unit, above 1, draws the inputs as Latin hypercube units of Unit consecutive
	// trials (dist.Sample.SetUnit); the run's Config.Unit must say the same.
	Unit int
}

// TrialInputs is what trial i is given.
type TrialInputs struct {
	Args  []string // nil when the model has no args templates: the program gets none
	Stdin []byte
	Files map[string][]byte
	// Values describes the drawn values, for reports and replay.
	Values string
	// Items names the population items drawn (dist.Sample.Items): the file or
	// record behind the trial; "" without a population input.
	Items string
}

// TrialInputs draws and renders the inputs of trial i.
func (p *Program) TrialInputs(i uint64) (TrialInputs, error) {
	s := p.Inputs.Model.NewSample()
	return p.render(s, i)
}

func (p *Program) render(s *dist.Sample, i uint64) (TrialInputs, error) {
	var in TrialInputs
	s.SetUnit(p.Unit)
	if err := p.Inputs.Model.DrawInto(s, p.Seed, i); err != nil {
		return in, fmt.Errorf("trial %d: drawing inputs: %v", i, err)
	}
	in.Values = s.String()
	in.Items = s.Items()
	if p.Encode != nil {
		in.Stdin = p.Encode(nil, s)
	} else if t := p.Inputs.Stdin; t != nil {
		in.Stdin = t.Append(nil, s)
	}
	in.Args = []string{}
	for _, t := range p.Inputs.Args {
		in.Args = append(in.Args, string(t.Append(nil, s)))
	}
	if len(p.Inputs.Files) > 0 {
		in.Files = map[string][]byte{}
		for _, f := range p.Inputs.Files {
			in.Files[f.Name] = f.Template.Append(nil, s)
		}
	}
	return in, nil
}

// NewWorker starts worker k.
func (p *Program) NewWorker(k int) (Worker, error) {
	dir := filepath.Join(p.Dir, fmt.Sprintf("w%d", k))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	w := &programWorker{p: p, dir: dir, sample: p.Inputs.Model.NewSample()}

	if p.Isolation != Exec {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	return w, nil
}

type programWorker struct {
	p      *Program
	dir    string
	sample *dist.Sample
	server *runner.Server
}

func (w *programWorker) start() error {
	out := w.p.Output
	s, err := runner.StartServer(w.p.Binary, runner.ServerOptions{
		Dir: w.dir, Stdout: out, Stderr: out, InProcess: w.p.Isolation == None,
	})
	if err != nil {
		return err
	}
	w.server = s
	return nil
}

// Trials runs the trials is. Through a server they go as one batch of requests
// (one at a time when the model writes input files, which all trials share); a
// server that dies is restarted, and the trial it died in is a failure (an
// in-process server dies when the program calls exit(), or is killed at a timeout).
func (w *programWorker) Trials(ctx context.Context, is []uint64) ([]Outcome, error) {
	if w.p.Isolation == Exec || len(w.p.Inputs.Files) > 0 {
		outs := make([]Outcome, 0, len(is))
		for _, i := range is {
			o, err := w.trial(ctx, i)
			if err != nil {
				return outs, err
			}
			outs = append(outs, o)
		}
		return outs, nil
	}
	reqs := make([]runner.Request, len(is))
	for k, i := range is {
		in, err := w.p.render(w.sample, i)
		if err != nil {
			return nil, err
		}
		reqs[k] = runner.Request{Args: in.Args, Stdin: in.Stdin}
	}
	return w.trialsOnServer(ctx, reqs)
}

// trialsOnServer runs reqs through the server; the trial a server dies in is a
// failure, and the rest go on through a new one.
func (w *programWorker) trialsOnServer(ctx context.Context, reqs []runner.Request) ([]Outcome, error) {
	outs := make([]Outcome, 0, len(reqs))
	for len(outs) < len(reqs) {
		var perr error
		killed := false // the last trial passed on was killed at its timeout
		err := w.server.RunBatch(ctx, reqs[len(outs):], w.p.Timeout, func(_ int, t runner.Trial) error {
			killed = t.TimedOut
			o, err := w.outcome(t.Status, t.TimedOut, nil, t.Dump, t.Known)
			if err != nil {
				perr = err
				return err
			}
			outs = append(outs, o)
			return nil
		})
		if perr != nil {
			return outs, perr
		}
		// A server that died is started anew by the next RunBatch.
		if err == runner.ErrServerDied && !killed {
			reason := "the fork server died"
			if w.p.Isolation == None {
				reason = "the program ended its process (exit() or a signal): it cannot run with --isolation none"
			}
			outs = append(outs, Outcome{Failure: reason, Cause: "fork server died", Exit: -1})
		} else if err != nil && err != runner.ErrServerDied {
			return outs, err
		}
	}
	return outs, nil
}

// trial runs trial i alone: by exec, or through the server after writing the input
// files.
func (w *programWorker) trial(ctx context.Context, i uint64) (Outcome, error) {
	in, err := w.p.render(w.sample, i)
	if err != nil {
		return Outcome{}, err
	}
	for name, data := range in.Files {
		if err := os.WriteFile(filepath.Join(w.dir, name), data, 0o644); err != nil {
			return Outcome{}, fmt.Errorf("writing input file %s: %v", name, err)
		}
	}
	if w.p.Isolation != Exec {
		outs, err := w.trialsOnServer(ctx, []runner.Request{{Args: in.Args, Stdin: in.Stdin}})
		if err != nil || len(outs) == 0 {
			return Outcome{}, err
		}
		return outs[0], nil
	}
	tctx := ctx
	if w.p.Timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, w.p.Timeout)
		defer cancel()
	}
	out := w.p.Output
	if out == nil {
		out = io.Discard
	}
	d, st, runErr := runner.Run(tctx, runner.Command{
		Path: w.p.Binary, Args: in.Args, Stdin: bytes.NewReader(in.Stdin),
		Stdout: out, Stderr: out, Dir: w.dir, WorkDir: w.dir, Linger: w.p.Linger,
	})
	timedOut := tctx.Err() != nil && ctx.Err() == nil
	if runErr != nil && !timedOut {
		return Outcome{Failure: runErr.Error(), Cause: "no counts", Exit: st.ShellCode()}, nil
	}
	if st.Vanished > 0 && !timedOut {
		return Outcome{Failure: fmt.Sprintf("%d forked process(es) of the program ended without writing their counts (killed by SIGKILL, an exit system call of their own, or an exec of a program not built by fragprof)", st.Vanished),
			Cause: "no counts", Exit: st.ShellCode()}, nil
	}
	if st.NLost > 0 && !timedOut {
		return Outcome{Failure: fmt.Sprintf("%d process(es) of the program wrote no counts (process %d: %s)", st.NLost, st.Lost.Pid, st.Lost.Cause(w.dir)),
			Cause: "no counts", Exit: st.ShellCode()}, nil
	}
	if st.Lingering && !timedOut {
		linger := w.p.Linger
		if linger <= 0 {
			linger = runner.Linger
		}
		return Outcome{Failure: fmt.Sprintf("processes the program started were still running %v after it ended: their counts would be missing", linger),
			Cause: "processes left running", Exit: st.ShellCode()}, nil
	}
	return w.outcome(st, timedOut, d, nil, nil)
}

// outcome turns a trial's end into an Outcome: a failure, or its counts from the
// parsed dump d or the raw dump data.
func (w *programWorker) outcome(st runner.Status, timedOut bool, d *dump.Dump, data []byte, known *dump.Known) (Outcome, error) {
	switch {
	case timedOut:
		return Outcome{Failure: fmt.Sprintf("timed out after %v", w.p.Timeout), Cause: "timeout", Exit: st.ShellCode()}, nil
	case st.Signal != 0:
		failure := st.String()
		if d == nil && len(data) > 0 {
			d, _ = dump.ParseKnown(w.p.Binary, data, known) // for the fault record only
		}
		if d != nil && d.Fault != nil {
			failure += " " + faultloc.Describe(w.p.Binary, st.Signal, *d.Fault)
		}
		return Outcome{Failure: failure, Cause: signalCause(st.Signal), Exit: st.ShellCode()}, nil
	case st.Code != 0 && !w.p.CountNonZero:
		return Outcome{Failure: st.String(), Cause: st.String(), Exit: st.Code}, nil
	}
	if d == nil {
		if len(data) == 0 {
			return Outcome{Failure: fmt.Sprintf("no counts (%s): the program ended by _exit or was not built by fragprof", st), Cause: "no counts", Exit: st.ShellCode()}, nil
		}
		var err error
		// A view: the profile below copies what it keeps of the counters, and data
		// is the server's until the next trial.
		if d, err = dump.ParseView(w.p.Binary, data, known); err != nil {
			return Outcome{}, err
		}
	}
	prof, err := d.SparseProfile()
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Prog: prof.Program, Counts: prof.Counts, Exit: st.Code}, nil
}

func (w *programWorker) Close() error {
	if w.server != nil {
		return w.server.Close()
	}
	return nil
}

// signalCause names a signal for the failure tally: "signal SIGSEGV".
func signalCause(sig syscall.Signal) string {
	if name := unix.SignalName(sig); name != "" {
		return "signal " + name
	}
	return "signal " + sig.String()
}

// NameItems adds to the reasons of the first n failures the population items
// their trials drew (the file or record behind each, TrialInputs.Items), when
// the inputs have a finite population.
func (p *Program) NameItems(fails []Failure, n int) {
	if len(p.Inputs.Model.Populations()) == 0 {
		return
	}
	for k := range fails[:min(len(fails), n)] {
		if in, err := p.TrialInputs(fails[k].Trial); err == nil && in.Items != "" {
			fails[k].Reason += " [" + in.Items + "]"
		}
	}
}
