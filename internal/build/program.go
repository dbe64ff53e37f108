// This file implements building whole programs from C sources: what `fragprof count`
// and `fragprof cfg` do before they run or print anything.

package build

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/instrument"
)

// A Spec describes a C program to build.
type Spec struct {
	Sources []string // C files, as the user named them
	CFlags  []string // preprocessor and language flags: -I, -D, -U, -std, ...
	Opt     string   // optimisation flag for the instrumented code; default -O2
	LDFlags []string // extra link flags (-lm, ...)
	Instr   instrument.Options
	Edits   []Edit   // further edits after the counters (timers, checkpoints)
	Extra   []string // further sources compiled plainly and linked (a harness)
	// ExactFaults keeps every counter in memory, in program order (no promotion,
	// instrument.Options.Promote): runs that fault are counted exactly above -O0 too.
	ExactFaults bool
}

// IsCXX reports whether the program is C++: a source with a C++ extension, or -x c++
// among the flags. It is then linked with the C++ standard library.
func (s Spec) IsCXX() bool {
	for _, src := range s.Sources {
		if IsCXXSource(src) {
			return true
		}
	}
	for i, f := range s.CFlags {
		if f == "-xc++" || f == "-x" && i+1 < len(s.CFlags) && s.CFlags[i+1] == "c++" {
			return true
		}
	}
	return false
}

// opt is the optimisation flag of the instrumented code.
func (spec Spec) opt() string {
	if spec.Opt == "" {
		return "-O2"
	}
	return spec.Opt
}

// instrOptions are the instrumentation options of the unit compiled from src.
func (spec Spec) instrOptions(src string) instrument.Options {
	o := spec.Instr
	o.Source = src
	o.Promote = Promote(spec.opt(), o.Atomic) && !spec.ExactFaults
	o.Walk = spec.opt() == "-O0"
	o.Simplified = Simplifies(spec.opt(), o.Simplified)
	return o
}

// For returns t in C++ mode if spec is a C++ program (Spec.IsCXX), else t: every
// pipeline that compiles and links a Spec starts with it.
func (t *Toolchain) For(spec Spec) *Toolchain {
	if spec.IsCXX() {
		return t.CXX()
	}
	return t
}

// Build compiles spec into the instrumented executable out, keeping intermediate
// files in dir. It returns the units, one per source.
func (t *Toolchain) Build(ctx context.Context, stderr io.Writer, spec Spec, dir, out string) ([]*instrument.Unit, error) {
	opt := spec.opt()
	t = t.For(spec)
	var objs []string
	var units []*instrument.Unit
	for i, src := range spec.Sources {
		base := fmt.Sprintf("%d-%s", i, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
		ll := filepath.Join(dir, base+".ll")
		if err := t.EmitIR(ctx, stderr, src, ll, spec.CFlags); err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		o := spec.instrOptions(src)
		u, err := t.InstrumentFile(ctx, ll, filepath.Join(dir, base+".fp.ll"), spec.CFlags, o, spec.Edits...)
		if err != nil {
			return nil, err
		}
		units = append(units, u)
		obj := filepath.Join(dir, base+".o")
		if err := t.CompileIR(ctx, stderr, filepath.Join(dir, base+".fp.ll"), obj, append([]string{opt}, t.IRReaderFlags(spec.CFlags)...)); err != nil {
			return nil, fmt.Errorf("%s: compiling instrumented IR: %w", src, err)
		}
		objs = append(objs, obj)
	}
	if len(spec.Extra) == 0 && !definesMain(units) {
		return nil, fmt.Errorf("no main function in %s: use --func NAME (fragprof freq --func) to study one function", strings.Join(spec.Sources, ", "))
	}
	for i, x := range spec.Extra {
		obj := filepath.Join(dir, fmt.Sprintf("extra%d.o", i))
		args := []string{"-c", "-O2", "-g", x, "-o", obj, "-Wno-override-module"}
		if err := t.C().run(ctx, stderr, args...); err != nil {
			return nil, fmt.Errorf("%s: %w", x, err)
		}
		objs = append(objs, obj)
	}
	return units, t.Link(ctx, stderr, objs, out, append([]string{"-lm"}, spec.LDFlags...))
}

// Analyze compiles the sources to IR and returns their CFGs (in source order) with
// the number of counters the given scheme would place.
func (t *Toolchain) Analyze(ctx context.Context, stderr io.Writer, spec Spec, dir string) (*cfg.Program, int, error) {
	p := &cfg.Program{}
	counters := 0
	for i, src := range spec.Sources {
		ll := filepath.Join(dir, fmt.Sprintf("%d-%s.ll", i, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))))
		if err := t.EmitIR(ctx, stderr, src, ll, spec.CFlags); err != nil {
			return nil, 0, fmt.Errorf("%s: %v", src, err)
		}
		o := spec.instrOptions(src)
		if o.Simplified {
			if err := t.Simplify(ctx, ll); err != nil {
				return nil, 0, fmt.Errorf("%s: %v", src, err)
			}
		}
		m, err := t.ReadIR(ll, spec.CFlags)
		if err != nil {
			return nil, 0, IRError(src, err)
		}
		m.SetSource(src)
		fromCalls := instrument.CountedAtCalls(m, o)
		walk := instrument.Walks(m, o)
		for _, f := range m.Funcs {
			g := m.CFG(f)
			if err := g.Check(); err != nil {
				return nil, 0, err
			}
			counters += len(instrument.Plan(g, o, fromCalls[f.Name], walk).Counters)
			p.Funcs = append(p.Funcs, g)
		}
	}
	p.SortFuncs()
	return p, counters, nil
}

// definesMain reports whether one of the units defines main.
func definesMain(units []*instrument.Unit) bool {
	for _, u := range units {
		for _, f := range u.Funcs {
			if f.Func.Name == "main" {
				return true
			}
		}
	}
	return false
}
