// This file holds the test harness: the corpus, and the builds and runs every
// oracle test shares (each done once per test binary, on first use).

package oracle

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
)

// runTimeout bounds every run of a corpus program. The csmith seeds were chosen to
// finish within 0.5 s at gcc -O0 (testdata/csmith-seeds.txt); the examples within
// milliseconds. Twenty times that leaves room for a loaded CI machine.
const runTimeout = 10 * time.Second

var (
	workRoot string // per-process directory for builds
	tools    *Tools
	toolsErr error
	warmOnce sync.Once
	warmErr  error
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "fragprof-oracle")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	workRoot = dir
	tools, toolsErr = FindTools()
	code := m.Run()
	if os.Getenv("FRAGPROF_KEEP") != "" {
		fmt.Fprintf(os.Stderr, "oracle: builds kept in %s\n", dir)
	} else {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// needTools fails the test when a tool is missing: in CI nothing may be skipped.
func needTools(t *testing.T) *Tools {
	t.Helper()
	if toolsErr != nil {
		t.Fatal(toolsErr)
	}
	// Compile both runtimes once, before tests build in parallel, so that no test's
	// timing includes it (TestRuntimeConcurrent checks concurrent first calls).
	warmOnce.Do(func() {
		for _, tc := range toolchains(tools) {
			if _, err := tc.Runtime(context.Background()); err != nil {
				warmErr = err
			}
		}
	})
	if warmErr != nil {
		t.Fatal(warmErr)
	}
	return tools
}

// repoRoot is the repository's root directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	r, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// corpus returns the examples and, unless -short, the csmith programs of
// testdata/csmith-seeds.txt (or of the list $FRAGPROF_ORACLE_SEEDS names).
func corpus(t *testing.T, tl *Tools) []Program {
	t.Helper()
	progs, err := Examples(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(progs) == 0 {
		t.Log("no examples/*.c yet")
	}
	if testing.Short() {
		t.Log("-short: the csmith corpus is left out")
		return relative(t, progs)
	}
	list := "testdata/csmith-seeds.txt"
	if l := os.Getenv("FRAGPROF_ORACLE_SEEDS"); l != "" {
		list = l // a longer soak, chosen by selectseeds
	}
	seeds, err := ReadSeeds(list)
	if err != nil {
		t.Fatal(err)
	}
	if len(seeds) < 30 {
		t.Fatalf("%s lists %d seeds; the oracle needs at least 30", list, len(seeds))
	}
	cache := os.Getenv("FRAGPROF_ORACLE_CACHE")
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			base = os.TempDir()
		}
		cache = filepath.Join(base, "fragprof", "oracle")
	}
	for _, s := range seeds {
		p, err := CsmithProgram(tl.Csmith, cache, s)
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	return relative(t, progs)
}

// relative names every source relative to the working directory, the way users
// name theirs (fragprof count examples/newton.c); every compiler runs in that
// directory, so gcov and fragprof report the same names. (TestFileAsGiven checks
// absolute names.)
func relative(t *testing.T, progs []Program) []Program {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for i := range progs {
		if r, err := filepath.Rel(wd, progs[i].Source); err == nil {
			progs[i].Source = r
		}
	}
	return progs
}

// A lazy value is computed once, by whichever test asks first.
type lazy struct {
	once sync.Once
	v    any
	err  error
}

var memo sync.Map

func memoize[T any](key string, f func() (T, error)) (T, error) {
	l, _ := memo.LoadOrStore(key, &lazy{})
	lz := l.(*lazy)
	lz.once.Do(func() { lz.v, lz.err = f() })
	v, _ := lz.v.(T)
	return v, lz.err
}

// progDir returns a fresh directory for one build of p.
func progDir(p Program, what string) (string, error) {
	d := filepath.Join(workRoot, strings.NewReplacer("/", "_", ".", "_").Replace(p.Name), what)
	return d, os.MkdirAll(d, 0o755)
}

// A run is how one execution of a corpus program ended.
type run struct {
	Stdout []byte
	Stderr []byte
	Status runner.Status
}

// checkStatus reports a run that did not end as p's header says it must.
func (r *run) checkStatus(p Program) error {
	if r.Status.Code == p.Exit && r.Status.Signal == p.Signal || p.Signal != 0 && r.Status.Signal == p.Signal {
		return nil
	}
	want := runner.Status{Code: p.Exit, Signal: p.Signal}
	if p.Signal != 0 {
		want.Code = -1
	}
	return fmt.Errorf("ended with %v, want %v (stderr: %q)", r.Status, want, r.Stderr)
}

// runBinary runs bin as p's header says, in dir, with runTimeout.
func runBinary(bin string, p Program, dir string) (*run, error) {
	return runBinaryEnv(bin, p, dir)
}

// runBinaryEnv is runBinary with variables added to the environment.
func runBinaryEnv(bin string, p Program, dir string, env ...string) (*run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, p.Args...)
	cmd.Dir = dir
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.Stdin = strings.NewReader(p.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%s: no end within %v", bin, runTimeout)
	}
	r := &run{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		ws := ee.Sys().(syscall.WaitStatus)
		r.Status.Code = ws.ExitStatus()
		if ws.Signaled() {
			r.Status.Signal = ws.Signal()
		}
	default:
		return nil, err
	}
	return r, nil
}

// command runs a compiler or gcov in dir ("": the working directory) and returns
// its stdout; a failure carries its stderr.
func command(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, errb.String())
	}
	return out, nil
}

// A fragRun is p built by fragprof with one clang at one -O level, and run once.
type fragRun struct {
	run
	IR, InstrumentedIR string // the IR clang emitted and fragprof's instrumented IR
	MainReturned       bool
	JSON               report.JSONProgram // what count --json prints
}

// fragprof builds p in-process as fragprof count does (build.Toolchain.Build), runs
// it (internal/runner.Run) and reads its dump; the dump reader checks flow
// conservation on every function.
func fragprof(p Program, tc *build.Toolchain, opt string) (*fragRun, error) {
	return fragprofCFG(p, tc, opt, false)
}

// fragprofCFG is fragprof, counting the simplified CFG when simplified is set
// (count --simplified).
func fragprofCFG(p Program, tc *build.Toolchain, opt string, simplified bool) (*fragRun, error) {
	mode := opt
	if simplified {
		mode += "-simplified"
	}
	return memoize(fmt.Sprintf("fragprof|%s|%s|%s", p.Source, tc.Clang, mode), func() (*fragRun, error) {
		dir, err := progDir(p, fmt.Sprintf("fragprof-clang%d%s", tc.Major, mode))
		if err != nil {
			return nil, err
		}
		var msg bytes.Buffer
		bin := filepath.Join(dir, "prog")
		// A program that must end by a fault is built with every counter kept in
		// memory in program order: above -O0, promoted counters (the default) may
		// lose the increments just before a fault (docs/edge-profiling.md).
		spec := build.Spec{Sources: []string{p.Source}, CFlags: p.CFlags, Opt: opt, ExactFaults: isFault(p.Signal)}
		spec.Instr.Simplified = simplified
		if _, err := tc.Build(context.Background(), &msg, spec, dir, bin); err != nil {
			return nil, fmt.Errorf("fragprof build with %s %s: %v\n%s", tc.Clang, opt, err, msg.String())
		}
		r := &fragRun{}
		lls, _ := filepath.Glob(filepath.Join(dir, "*.ll"))
		for _, ll := range lls {
			if strings.HasSuffix(ll, ".fp.ll") {
				r.InstrumentedIR = ll
			} else {
				r.IR = ll
			}
		}
		if r.IR == "" || r.InstrumentedIR == "" {
			return nil, fmt.Errorf("build left no IR in %s (found %v)", dir, lls)
		}
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		var out, errb bytes.Buffer
		d, st, err := runner.Run(ctx, runner.Command{Path: bin, Args: p.Args, Stdin: strings.NewReader(p.Stdin),
			Stdout: &out, Stderr: &errb, Dir: dir})
		if ctx.Err() != nil {
			return nil, fmt.Errorf("instrumented %s (%s %s): no end within %v", p.Name, tc.Clang, opt, runTimeout)
		}
		if err != nil {
			return nil, fmt.Errorf("running the instrumented %s (%s %s): %v", p.Name, tc.Clang, opt, err)
		}
		r.run = run{Stdout: out.Bytes(), Stderr: errb.Bytes(), Status: st}
		r.MainReturned = d.MainReturned
		prof, err := d.Profile()
		if err != nil {
			return nil, fmt.Errorf("reading the counts of %s (%s %s): %v", p.Name, tc.Clang, opt, err)
		}
		if err := prof.Check(d.Flow()); err != nil {
			return nil, fmt.Errorf("%s (%s %s): %v", p.Name, tc.Clang, opt, err)
		}
		r.JSON = report.JSON(prof)
		return r, nil
	})
}

// headerDir holds fragprof.h, which programs may include (its macros compile to
// nothing without fragprof); fragprof's own builds put it on the include path, the
// plain and gcc builds get this directory.
const headerDir = "../../runtime/c"

// A plainRun is p built by a compiler without instrumentation, and run once.
func plain(p Program, compiler, opt string) (*run, error) {
	return memoize(fmt.Sprintf("plain|%s|%s|%s", p.Source, compiler, opt), func() (*run, error) {
		dir, err := progDir(p, "plain-"+filepath.Base(compiler)+opt)
		if err != nil {
			return nil, err
		}
		bin := filepath.Join(dir, "prog")
		args := append(append([]string{opt, "-I", headerDir}, p.CFlags...), p.Source, "-o", bin, "-lm")
		if _, err := command("", compiler, args...); err != nil {
			return nil, err
		}
		return runBinary(bin, p, dir)
	})
}

// A gcovRun is p built with gcc --coverage -O0, run once, and read back by gcov.
//
// The build adds -fstack-reuse=none: otherwise gcc ends every scope with "clobber"
// statements for its locals that carry the location of some line of the scope and
// sit on the paths that leave it (a return elsewhere, the else branch), so gcov
// reports as executed lines whose code never ran (a "return x;" whose branch was
// not taken). Without them, gcc's blocks hold only the lines' own code.
type gcovRun struct {
	run
	Side  GcovSide // Side.Report is nil when the run left no data
	Notes *Notes   // gcc's notes file
}

func gcovOf(p Program, tl *Tools) (*gcovRun, error) {
	return memoize("gcov|"+p.Source, func() (*gcovRun, error) {
		dir, err := progDir(p, "gcc-coverage")
		if err != nil {
			return nil, err
		}
		obj, bin := filepath.Join(dir, "prog.o"), filepath.Join(dir, "prog")
		cc := tl.GCC
		if build.IsCXXSource(p.Source) {
			cc = tl.GXX
		}
		args := append(append([]string{"--coverage", "-O0", "-fstack-reuse=none", "-I", headerDir}, p.CFlags...), "-c", p.Source, "-o", obj)
		if _, err := command("", cc, args...); err != nil {
			return nil, err
		}
		if _, err := command(dir, cc, "--coverage", obj, "-o", bin, "-lm"); err != nil {
			return nil, err
		}
		r, err := runBinary(bin, p, dir)
		if err != nil {
			return nil, err
		}
		g := &gcovRun{run: *r}
		data, err := os.ReadFile(filepath.Join(dir, "prog.gcno"))
		if err != nil {
			return nil, err
		}
		if g.Notes, err = ReadNotes(data); err != nil {
			return nil, err
		}
		src, err := os.ReadFile(p.Source)
		if err != nil {
			return nil, err
		}
		g.Side = GcovSide{File: p.Source, Single: g.Notes.SingleBlockLines(p.Source), Labels: LabelLines(src)}
		if _, err := os.Stat(filepath.Join(dir, "prog.gcda")); err != nil {
			return g, nil // killed by a signal: gcov writes its data at exit only
		}
		js, err := command(dir, tl.Gcov, "--json-format", "--stdout", "-b", "prog.gcda")
		if err != nil {
			return nil, err
		}
		reps, err := ParseGcovJSON(bytes.NewReader(js))
		if err != nil {
			return nil, err
		}
		if len(reps) != 1 {
			return nil, fmt.Errorf("gcov printed %d reports, want 1", len(reps))
		}
		if g.Side.Report = reps[0].File(p.Source); g.Side.Report == nil {
			return nil, fmt.Errorf("gcov's report has no file %s", p.Source)
		}
		return g, nil
	})
}

// isFault reports whether sig is raised by a faulting instruction.
func isFault(sig syscall.Signal) bool {
	return sig == syscall.SIGSEGV || sig == syscall.SIGBUS || sig == syscall.SIGFPE || sig == syscall.SIGILL
}

// toolchains returns the oldest and the newest clang fragprof supports, clang 14
// (typed pointers) and clang 19 (opaque pointers), for table loops. (clang 16 is
// tested by the IR tests of internal/llvmir and internal/instrument.)
func toolchains(tl *Tools) []*build.Toolchain { return []*build.Toolchain{tl.Clang14, tl.Clang19} }
