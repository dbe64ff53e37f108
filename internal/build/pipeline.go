// This file implements the pipeline steps: C → IR → instrumented IR → object →
// binary linked with the runtime.

package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/cachedir"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/llvmir"
	fpruntime "github.com/fragprof/fragprof/runtime"
)

// IRFlags are the flags that make clang print unoptimised IR that is still meant to be
// optimised (no optnone), with debug locations and readable block names.
var IRFlags = []string{"-O2", "-Xclang", "-disable-llvm-passes", "-g", "-S", "-emit-llvm",
	"-fno-discard-value-names", "-D__FRAGPROF__=1"}

// EmitIR compiles the C file src to textual IR at out. cflags are the user's
// preprocessor and language flags (-I, -D, -std, ...).
func (t *Toolchain) EmitIR(ctx context.Context, stderr io.Writer, src, out string, cflags []string) error {
	inc, err := t.IncludeDir()
	if err != nil {
		return err
	}
	args := append([]string{}, IRFlags...)
	args = append(args, "-I", inc)
	args = append(args, cflags...)
	args = append(args, "-Qunused-arguments", "-o", out, src)
	return t.run(ctx, stderr, args...)
}

// An Edit is a further change to an instrumented module, applied after the counters:
// fragment timers, checkpoints. It schedules text edits on m.
type Edit func(m *llvmir.Module, u *instrument.Unit) error

// InstrumentFile reads the IR at in (printed by EmitIR with cflags), instruments it,
// applies the further edits and writes it to out.
// It stops, with ctx's error, once ctx has ended.
func (t *Toolchain) InstrumentFile(ctx context.Context, in, out string, cflags []string, opt instrument.Options, edits ...Edit) (*instrument.Unit, error) {
	return t.instrumentFile(ctx, in, out, cflags, opt, false, edits...)
}

// instrumentFile is InstrumentFile; with strip, the IR written leaves out the debug
// information that EmitIR asked clang for (llvmir.Module.StripDebug), which fragprof
// reads but a build without -g should not pay for in clang's back end.
func (t *Toolchain) instrumentFile(ctx context.Context, in, out string, cflags []string, opt instrument.Options, strip bool, edits ...Edit) (*instrument.Unit, error) {
	if opt.Simplified {
		if err := t.Simplify(ctx, in); err != nil {
			return nil, fmt.Errorf("%s: %v", opt.Source, err)
		}
	}
	m, err := await(ctx, func() (*llvmir.Module, error) { return t.ReadIR(in, cflags) })
	if err != nil {
		return nil, IRError(opt.Source, err)
	}
	u, err := await(ctx, func() (*instrument.Unit, error) { return instrument.ModuleContext(ctx, m, opt) })
	if err != nil {
		return nil, IRError(opt.Source, err)
	}
	for _, e := range edits {
		if err := e(m, u); err != nil {
			return nil, err
		}
	}
	if strip {
		m.StripDebug() // false: something refers to the debug information; it stays
	}
	_, err = await(ctx, func() (bool, error) {
		return true, atomicfile.WriteWith(out, func(w io.Writer) error {
			_, err := m.WriteTo(w)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// await returns f's result, or ctx's error as soon as ctx ends: the steps fragprof
// runs itself on a module (parsing, instrumenting, writing) take seconds each on a
// file of 20,000 functions, which a Ctrl-C must not wait for. f then runs on
// unobserved, and its result is dropped.
func await[T any](ctx context.Context, f func() (T, error)) (T, error) {
	if ctx.Done() == nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// WantsDebug reports whether clang flags ask for debug information: a -g option
// (-g, -g3, -ggdb, -gline-tables-only, -gdwarf-5, ...) not overridden by a later -g0.
// Options that only qualify debug information (-gno-column-info, -gsplit-dwarf,
// -gz) ask for none by themselves.
func WantsDebug(flags []string) bool {
	want := false
	for _, f := range flags {
		switch {
		case f == "-g0":
			want = false
		case f == "-g", strings.HasPrefix(f, "-g") && len(f) > 2 && (f[2] >= '1' && f[2] <= '3' ||
			strings.HasPrefix(f, "-ggdb") || strings.HasPrefix(f, "-glldb") || strings.HasPrefix(f, "-gsce") ||
			strings.HasPrefix(f, "-gdbx") || strings.HasPrefix(f, "-gline-") || strings.HasPrefix(f, "-gdwarf") ||
			f == "-gfull" || f == "-gused" || f == "-gcodeview"):
			want = true
		}
	}
	return want
}

// Promote says whether to keep loops' counters in locals (instrument.Options.Promote)
// for code compiled at optimisation level opt, with atomic increments or not: yes
// unless FRAGPROF_PROMOTE=0, which keeps every count exact even for runs that end by
// a fault inside a loop, or -O0 with plain increments, where the locals would stay
// in memory and gain nothing. With atomic increments at -O0 they do: a local on the
// thread's stack is incremented without a lock prefix and without sharing its cache
// line with the other threads, and only the loop's exit adds it atomically
// (bench/overhead.sh, threads: 1.76× the plain increments' time without).
func Promote(opt string, atomic bool) bool {
	return (opt != "-O0" || atomic) && os.Getenv("FRAGPROF_PROMOTE") != "0"
}

// CompileIR compiles IR to an object file. flags carry the optimisation level and
// code-generation options.
func (t *Toolchain) CompileIR(ctx context.Context, stderr io.Writer, ll, obj string, flags []string) error {
	args := append([]string{"-c", "-x", "ir"}, ll)
	args = append(args, flags...)
	args = append(args, "-Qunused-arguments", "-Wno-override-module", "-o", obj)
	return t.run(ctx, stderr, args...)
}

// key hashes the toolchain and the runtime sources.
func (t *Toolchain) key() string {
	h := sha256.New()
	h.Write([]byte(t.Clang + "\x00" + t.Version + "\x00"))
	files := fpruntime.Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		h.Write([]byte(n + "\x00"))
		h.Write(files[n])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// IncludeDir returns a directory holding fragprof.h.
func (t *Toolchain) IncludeDir() (string, error) {
	d, err := cachedir.Dir()
	if err != nil {
		return "", err
	}
	inc := filepath.Join(d, "include-"+t.key())
	h := filepath.Join(inc, "fragprof.h")
	if _, err := os.Stat(h); err == nil {
		return inc, nil
	}
	if err := os.MkdirAll(inc, 0o755); err != nil {
		return "", err
	}
	if err := atomicfile.Write(filepath.Join(inc, "fragprof_model.h"), fpruntime.ModelHeader); err != nil {
		return "", err
	}
	return inc, atomicfile.Write(h, fpruntime.Header)
}

// Runtime returns the path of the runtime object compiled for this toolchain,
// compiling it on first use.
func (t *Toolchain) Runtime(ctx context.Context) (string, error) {
	return cachedir.Entry("fragprof_rt", ".o", [][]byte{[]byte(t.key())}, func(srcDir string) (string, error) {
		// One translation unit that includes every runtime source (a unity build).
		var unity strings.Builder
		// The feature macro goes first, so that no file's system headers are read
		// without it; the files follow in name order, so the object is reproducible.
		unity.WriteString("#define _GNU_SOURCE\n")
		files := fpruntime.Files()
		names := make([]string, 0, len(files))
		for name := range files {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if err := os.WriteFile(filepath.Join(srcDir, name), files[name], 0o644); err != nil {
				return "", err
			}
			if strings.HasSuffix(name, ".c") {
				fmt.Fprintf(&unity, "#include \"%s\"\n", name)
			}
		}
		src := filepath.Join(srcDir, "fragprof_runtime.c")
		if err := os.WriteFile(src, []byte(unity.String()), 0o644); err != nil {
			return "", err
		}
		obj := filepath.Join(srcDir, "fragprof_runtime.o")
		var msg strings.Builder
		if err := t.C().run(ctx, &msg, "-O2", "-fPIC", "-c", src, "-o", obj); err != nil {
			return "", fmt.Errorf("compiling the fragprof runtime: %v\n%s", err, msg.String())
		}
		return obj, nil
	})
}

// Link links objects (and other link inputs) with the runtime into out.
func (t *Toolchain) Link(ctx context.Context, stderr io.Writer, inputs []string, out string, ldflags []string) error {
	rt, err := t.Runtime(ctx)
	if err != nil {
		return err
	}
	// The runtime goes first, so that the program's code is followed by what follows
	// it in the plain build (a function that falls off its end — undefined behaviour,
	// as -O2 compiles a store through a null pointer — runs the same bytes).
	// The model library (fragprof_model.h) follows the program's objects: the
	// linker takes from it only what they call.
	lib, err := t.ModelLib(ctx)
	if err != nil {
		return err
	}
	args := append([]string{rt}, inputs...)
	args = append(args, lib, "-lm")
	args = append(args, ldflags...)
	args = append(args, "-o", out)
	return t.run(ctx, stderr, args...)
}

// IRError turns an error about the IR clang made of src into one about src: the
// temporary IR file's name is replaced by the source's, and the message says that
// the fault is fragprof's (the program is valid C: clang compiled it) and how to
// keep the IR for a bug report.
func IRError(src string, err error) error {
	var ie *llvmir.Error
	if !errors.As(err, &ie) {
		return err
	}
	where := ""
	if ie.Func != "" {
		where = " in function " + ie.Func
	}
	if ie.SrcLine > 0 {
		src = fmt.Sprintf("%s:%d:%d", src, ie.SrcLine, ie.SrcCol)
	}
	return fmt.Errorf("%s: fragprof cannot read the LLVM IR that clang made of this file%s: %s "+
		"(line %d of the IR, kept with FRAGPROF_KEEP=1); a limit of fragprof, not an error in the program", src, where, ie.Msg, ie.Line)
}
