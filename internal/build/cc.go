// This file implements `fragprof cc`, a drop-in C compiler: every C translation unit
// is compiled to IR, instrumented and compiled; a link adds the runtime.

package build

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/tmpdir"
)

// Options of clang that take their value as the next argument.
var separateArg = map[string]bool{
	"-o": true, "-I": true, "-D": true, "-U": true, "-include": true, "-imacros": true,
	"-isystem": true, "-iquote": true, "-idirafter": true, "-isysroot": true, "-iprefix": true,
	"-x": true, "-MF": true, "-MT": true, "-MQ": true, "-L": true, "-l": true,
	"-Xlinker": true, "-Xclang": true, "-Xassembler": true, "-Xpreprocessor": true,
	"-target": true, "--target": true, "-arch": true, "--param": true, "-z": true, "-T": true,
	"-u": true, "-e": true, "--sysroot": true, "-B": true, "-F": true, "-std": false,
}

// Preprocessor options that apply only when compiling C, not IR.
var cppOnly = map[string]bool{"-I": true, "-D": true, "-U": true, "-include": true, "-imacros": true,
	"-isystem": true, "-iquote": true, "-idirafter": true, "-iprefix": true, "-MF": true, "-MT": true, "-MQ": true, "-x": true}

// An arg is one option (with its separate value) or one input.
type arg struct {
	opt, val string // val is the separate value, if any
	input    bool
}

// Stdio are the standard streams of a `fragprof cc` invocation.
type Stdio struct {
	In       io.Reader // a source named "-" is read from it
	Out, Err io.Writer // Out nil: Err
}

// CCStdio compiles and links as clang would with args, instrumenting every C and C++
// source (t in C++ mode is the drop-in clang++: see Toolchain.CXX). The
// counter scheme comes from $FRAGPROF_COUNTERS (chords, edges or blocks), atomic updates
// from $FRAGPROF_ATOMIC=1 and the simplified CFG from $FRAGPROF_SIMPLIFIED=1.
//
// Without an -O option the code is compiled at -O0, as clang's own default. The
// invocations that compile nothing — preprocessing (-E, -M, -MM, -dM), queries
// (--version, -v, -dumpversion, -print-*, -###), -emit-llvm, and those without a
// source to compile — run clang itself with s's streams untouched (its output on
// stdout, where `CPP="$CC -E"` expects it), and a non-zero status of clang's is a
// ClangExit. A C or C++ source named "-" (after -x c or -x c++) is read from s.In
// and instrumented like a file; an object made of it without -o is "-.o", as clang
// names it. An -o that names one of the sources is refused, as gcc does.
func (t *Toolchain) CCStdio(ctx context.Context, args []string, s Stdio) error {
	stderr := s.Err
	var parsed []arg
	var srcs []int
	mode := "link"
	out, opt, lang := "", "", ""
	passThrough, deps, hasMF, hasMT, stdinSrc := false, false, false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-x" && i+1 < len(args) {
			lang = args[i+1]
		} else if strings.HasPrefix(a, "-x") && len(a) > 2 {
			lang = a[2:] // -xc
		}
		switch {
		case separateArg[a] && i+1 < len(args):
			parsed = append(parsed, arg{opt: a, val: args[i+1]})
			i++
			switch a {
			case "-o":
				out = args[i]
			case "-MF":
				hasMF = true
			case "-MT", "-MQ":
				hasMT = true
			}
			continue
		case a == "-c":
			mode = "obj"
		case a == "-S":
			if mode != "obj" {
				mode = "asm"
			}
		case a == "-E", a == "-M", a == "-MM", a == "-dM", a == "-emit-llvm", a == "--version", a == "-v",
			a == "-dumpversion", a == "-dumpmachine", strings.HasPrefix(a, "-print-"), a == "-###":
			passThrough = true
		case a == "-" && (lang == "c" || lang == "c++"):
			stdinSrc = true
			srcs = append(srcs, len(parsed))
			parsed = append(parsed, arg{opt: a, input: true})
			continue
		case a == "-MD", a == "-MMD":
			deps = true
		case strings.HasPrefix(a, "-O"):
			opt = a
		case !strings.HasPrefix(a, "-") && IsSource(a):
			srcs = append(srcs, len(parsed))
			parsed = append(parsed, arg{opt: a, input: true})
			continue
		}
		parsed = append(parsed, arg{opt: a, input: !strings.HasPrefix(a, "-")})
	}
	for _, si := range srcs {
		if src := parsed[si].opt; out != "" && src != "-" && SameFile(out, src) {
			return fmt.Errorf("-o %s is the source file %s: writing there would overwrite it; name another output", out, src)
		}
	}
	if passThrough || (len(srcs) == 0 && mode != "link") {
		return t.passThrough(ctx, args, s)
	}
	if len(srcs) > 1 && out != "" && mode != "link" {
		return fmt.Errorf("cannot specify -o when generating multiple output files")
	}
	if opt == "" {
		opt = "-O0"
	}
	scheme := instrument.DefaultScheme
	if s := os.Getenv("FRAGPROF_COUNTERS"); s != "" {
		var err error
		if scheme, err = instrument.ParseScheme(s); err != nil {
			return fmt.Errorf("FRAGPROF_COUNTERS: %v", err)
		}
	}
	atomic := os.Getenv("FRAGPROF_ATOMIC") == "1"
	times := os.Getenv("FRAGPROF_CC_TIMES") == "1"
	iopt := instrument.Options{Scheme: scheme, Atomic: atomic, Volatile: os.Getenv("FRAGPROF_VOLATILE") == "1", Promote: Promote(opt, atomic), Walk: opt == "-O0",
		Simplified: Simplifies(opt, os.Getenv("FRAGPROF_SIMPLIFIED") == "1")}
	tmp, err := TempDir("cc")
	if err != nil {
		return err
	}
	if os.Getenv("FRAGPROF_KEEP") == "" {
		defer tmpdir.Remove(tmp)
	} else {
		tmpdir.Keep(tmp)
		fmt.Fprintf(stderr, "fragprof cc: intermediate files kept in %s\n", tmp)
	}
	stdinCopy := ""
	if stdinSrc {
		if stdinCopy, err = copyStdin(s.In, tmp); err != nil {
			return err
		}
	}
	objs := map[int]string{}
	for n, si := range srcs {
		src := parsed[si].opt
		stem := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		srcFlags := []string(nil)
		if src == "-" {
			// The copy is named <stdin> in the debug information, as clang names stdin.
			src, srcFlags = stdinCopy, []string{"-ffile-prefix-map=" + tmp + "/="}
		}
		var target string
		switch {
		case mode == "obj" && out != "":
			target = out
		case mode == "obj":
			target = stem + ".o"
		case mode == "asm" && out != "":
			target = out
		case mode == "asm":
			target = stem + ".s"
		default:
			target = filepath.Join(tmp, fmt.Sprintf("%d-%s.o", n, stem))
		}
		// The front end sees every option but the outputs, the mode and -O.
		var front []string
		for _, p := range parsed {
			if p.input || p.opt == "-o" || p.opt == "-c" || p.opt == "-S" || strings.HasPrefix(p.opt, "-O") {
				continue
			}
			front = append(front, p.opt)
			if p.val != "" {
				front = append(front, p.val)
			}
		}
		if deps && !hasMF {
			front = append(front, "-MF", strings.TrimSuffix(target, filepath.Ext(target))+".d")
		}
		if deps && !hasMT {
			front = append(front, "-MT", target)
		}
		ll := filepath.Join(tmp, fmt.Sprintf("%d-%s.ll", n, stem))
		t0 := time.Now()
		if err := t.EmitIR(ctx, stderr, src, ll, append(front, srcFlags...)); err != nil {
			return err
		}
		fll := filepath.Join(tmp, fmt.Sprintf("%d-%s.fp.ll", n, stem))
		o := iopt
		o.Source = parsed[si].opt
		t1 := time.Now()
		// The IR carries debug information for fragprof's positions; the object
		// carries it only if the user asked for it, as clang's own would.
		if err := lowPeak(func() error {
			_, err := t.instrumentFile(ctx, ll, fll, front, o, !WantsDebug(front))
			return err
		}); err != nil {
			return err
		}
		t2 := time.Now()
		// The back end sees code-generation options only.
		back := append([]string{opt}, t.IRReaderFlags(front)...)
		for _, p := range parsed {
			if p.input || p.opt == "-o" || p.opt == "-c" || p.opt == "-S" || cppOnly[p.opt] ||
				strings.HasPrefix(p.opt, "-O") || strings.HasPrefix(p.opt, "-M") || strings.HasPrefix(p.opt, "-x") ||
				strings.HasPrefix(p.opt, "-I") || strings.HasPrefix(p.opt, "-D") || strings.HasPrefix(p.opt, "-U") ||
				strings.HasPrefix(p.opt, "-std") || strings.HasPrefix(p.opt, "-l") || strings.HasPrefix(p.opt, "-L") ||
				strings.HasPrefix(p.opt, "-Wl,") {
				continue
			}
			back = append(back, p.opt)
			if p.val != "" {
				back = append(back, p.val)
			}
		}
		if mode == "asm" {
			back = append(back, "-S")
		}
		peak, err := t.compileTo(ctx, stderr, fll, target, back)
		if err != nil {
			return err
		}
		if times {
			printTimes(stderr, src, ll, fll, t1.Sub(t0), t2.Sub(t1), time.Since(t2), peak)
		}
		objs[si] = target
	}
	if mode != "link" {
		return nil
	}
	var link []string
	for i, p := range parsed {
		if o, ok := objs[i]; ok {
			link = append(link, o)
			continue
		}
		if p.opt == "-o" || strings.HasPrefix(p.opt, "-M") || cppOnly[p.opt] || strings.HasPrefix(p.opt, "-x") {
			continue // -xc: the objects are not C
		}
		link = append(link, p.opt)
		if p.val != "" {
			link = append(link, p.val)
		}
	}
	if out == "" {
		out = "a.out"
	}
	return t.Link(ctx, stderr, append(link, "-Qunused-arguments"), out, nil)
}

// A ClangExit is clang's non-zero exit status in an invocation CCStdio passed through:
// clang has said why on stderr.
type ClangExit int

func (c ClangExit) Error() string { return fmt.Sprintf("clang exited with status %d", int(c)) }

// passThrough runs clang with args and s's streams untouched.
func (t *Toolchain) passThrough(ctx context.Context, args []string, s Stdio) error {
	if t.Cxx {
		args = append([]string{"--driver-mode=g++"}, args...)
	}
	cmd := exec.CommandContext(ctx, t.Clang, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.In, s.Out, s.Err
	if s.Out == nil {
		cmd.Stdout = s.Err
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		return ClangExit(ee.ExitCode())
	}
	return err
}

// copyStdin copies a source read from stdin (in) to the file dir/<stdin>, for the
// front end (told its language by -x) and fragprof to read.
func copyStdin(in io.Reader, dir string) (string, error) {
	name := filepath.Join(dir, "<stdin>")
	if in == nil {
		in = strings.NewReader("")
	}
	f, err := os.Create(name)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Close()
		return "", fmt.Errorf("reading the source from stdin: %v", err)
	}
	return name, f.Close()
}

// lowPeak runs f, the IR step, with the garbage collector collecting at half the
// default heap growth (GOGC=50), unless $GOGC says otherwise: its peak memory is then
// about 1.5 times the module it holds rather than twice (396 against 446 MB for
// sqlite3.c's 47 MB of IR), for 10 % more of its CPU time.
func lowPeak(f func() error) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(50))
	}
	return f()
}

// compileTo compiles IR into an object or assembly file with the given flags. It
// returns clang's peak resident set size in bytes.
func (t *Toolchain) compileTo(ctx context.Context, stderr io.Writer, ll, target string, flags []string) (int64, error) {
	args := []string{"-x", "ir", ll}
	if !contains(flags, "-S") {
		args = append(args, "-c")
	}
	args = append(args, flags...)
	args = append(args, "-Qunused-arguments", "-Wno-override-module", "-o", target)
	return t.runPeak(ctx, stderr, args...)
}

// printTimes writes the line FRAGPROF_CC_TIMES=1 asks for: the time of each step of
// compiling src (clang's front end, fragprof's IR step, clang's optimiser and code
// generator on the instrumented IR), the IR step's throughput in MB/s of input IR,
// and the peak resident set size of fragprof's own process and of the back end's
// clang — which Linux reports as at least fragprof's own, since the peak of the
// process that execs it (a vfork of fragprof's) is carried across the exec.
// bench/insttime.sh reads it.
func printTimes(w io.Writer, src, ll, fll string, front, instr, back time.Duration, backPeak int64) {
	size := func(p string) float64 {
		if fi, err := os.Stat(p); err == nil {
			return float64(fi.Size()) / 1e6
		}
		return 0
	}
	var ru syscall.Rusage
	var self int64
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = int64(ru.Maxrss) << 10
	}
	in := size(ll)
	fmt.Fprintf(w, "fragprof cc times: %s: front %.3f s, instrument %.3f s, back %.3f s, ir_in %.2f MB, ir_out %.2f MB, ir_rate %.1f MB/s, fragprof_peak %d MB, back_peak %d MB\n",
		src, front.Seconds(), instr.Seconds(), back.Seconds(), in, size(fll), in/instr.Seconds(), self>>20, backPeak>>20)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
