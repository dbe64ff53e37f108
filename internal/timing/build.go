// This file builds programs for timing: the func: timers inserted, and by default no
// block counters, so that the timed code runs as the user's compiler options make it.

package timing

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/instrument"
)

// Build compiles spec into out with timers on the func: fragments among frags, keeping
// intermediate files in dir. With counted, the program also carries the block
// counters (build.Toolchain.Build with the timers as an edit): counts come with
// every run, and the timed code pays for the increments. Without, it carries only
// the timers. A func: fragment whose function no source defines is an error that
// names it.
func Build(ctx context.Context, tc *build.Toolchain, stderr io.Writer, spec build.Spec, frags []Fragment, counted bool, dir, out string) error {
	var names []string
	for _, f := range frags {
		if f.Kind == FuncFrag {
			names = append(names, f.Name)
		}
	}
	timers := instrument.NewTimers(names)
	if counted {
		spec.Edits = append(append([]build.Edit(nil), spec.Edits...), timers.Apply)
		if _, err := tc.Build(ctx, stderr, spec, dir, out); err != nil {
			return err
		}
	} else if err := buildUncounted(ctx, tc, stderr, spec, timers, dir, out); err != nil {
		return err
	}
	if miss := timers.Missing(); len(miss) > 0 {
		return fmt.Errorf("fragment func:%s: no function %s is defined in %s", miss[0], miss[0], strings.Join(spec.Sources, ", "))
	}
	return nil
}

// buildUncounted is build.Toolchain.Build without counters.
func buildUncounted(ctx context.Context, tc *build.Toolchain, stderr io.Writer, spec build.Spec, timers *instrument.Timers, dir, out string) error {
	tc = tc.For(spec) // C++: clang++ links the C++ library
	opt := spec.Opt
	if opt == "" {
		opt = "-O2"
	}
	var objs []string
	for i, src := range spec.Sources {
		base := fmt.Sprintf("%d-%s", i, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
		ll := filepath.Join(dir, base+".ll")
		if err := tc.EmitIR(ctx, stderr, src, ll, spec.CFlags); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		m, err := tc.ReadIR(ll, spec.CFlags)
		if err != nil {
			return build.IRError(src, err)
		}
		u, err := instrument.Uncounted(m, src)
		if err != nil {
			return err
		}
		if err := timers.Apply(m, u); err != nil {
			return err
		}
		for _, e := range spec.Edits {
			if err := e(m, u); err != nil {
				return err
			}
		}
		tll := filepath.Join(dir, base+".fpt.ll")
		if err := atomicfile.Write(tll, m.Bytes()); err != nil {
			return err
		}
		obj := filepath.Join(dir, base+".o")
		if err := tc.CompileIR(ctx, stderr, tll, obj, append([]string{opt}, tc.IRReaderFlags(spec.CFlags)...)); err != nil {
			return fmt.Errorf("%s: compiling the timed IR: %w", src, err)
		}
		objs = append(objs, obj)
	}
	if len(spec.Extra) > 0 {
		return fmt.Errorf("timing build: extra sources are not supported")
	}
	return tc.Link(ctx, stderr, objs, out, append([]string{"-lm"}, spec.LDFlags...))
}
