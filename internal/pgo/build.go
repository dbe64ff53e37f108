// This file builds an optimised program from C sources and a profile.

package pgo

import (
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/profile"
)

// stub satisfies FRAGPROF_DUMP() in programs that include fragprof.h: the optimised
// program carries no counters and no runtime.
const stub = "__attribute__((weak)) void __fragprof_dump(int sig) { (void)sig; }\n"

// Build compiles spec's sources to IR exactly as the profiled build did (so that the
// CFGs and their checksums agree), annotates each module with p, and compiles and
// links the result at spec.Opt (default -O2) into out, without instrumentation. The
// annotated IR is kept in dir. It returns one report per source, and
// ErrOtherProgram, with nothing linked, when the profile holds none of the
// sources' functions.
func Build(ctx context.Context, tc *build.Toolchain, spec build.Spec, p *profile.Profile, dir, out string, stderr io.Writer) ([]*Report, error) {
	tc = tc.For(spec) // C++: clang++ links the C++ library
	opt := spec.Opt
	if opt == "" {
		opt = "-O2"
	}
	var objs []string
	var reports []*Report
	for i, src := range spec.Sources {
		base := fmt.Sprintf("%d-%s", i, strings.TrimSuffix(filepath.Base(src), filepath.Ext(src)))
		ll := filepath.Join(dir, base+".ll")
		if err := tc.EmitIR(ctx, stderr, src, ll, spec.CFlags); err != nil {
			return nil, fmt.Errorf("%s: %v", src, err)
		}
		m, err := tc.ReadIR(ll, spec.CFlags)
		if err != nil {
			return nil, build.IRError(src, err)
		}
		r, err := Annotate(m, p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", src, err)
		}
		reports = append(reports, r)
		pll := filepath.Join(dir, base+".pgo.ll")
		if err := atomicfile.Write(pll, m.Bytes()); err != nil {
			return nil, err
		}
		obj := filepath.Join(dir, base+".o")
		if err := tc.CompileIR(ctx, stderr, pll, obj, append([]string{opt}, tc.IRReaderFlags(spec.CFlags)...)); err != nil {
			return nil, fmt.Errorf("%s: compiling the annotated IR: %v", src, err)
		}
		objs = append(objs, obj)
	}
	if OtherProgram(reports) {
		return reports, ErrOtherProgram
	}
	stubC := filepath.Join(dir, "fragprof_stub.c")
	if err := os.WriteFile(stubC, []byte(stub), 0o644); err != nil {
		return nil, err
	}
	args := append(append([]string{}, objs...), "-x", "c", stubC, "-x", "none", "-O2", "-lm")
	if tc.Cxx {
		args = append([]string{"--driver-mode=g++"}, args...)
	}
	args = append(args, spec.LDFlags...)
	args = append(args, "-o", out)
	cmd := osexec.CommandContext(ctx, tc.Clang, args...)
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("linking %s: clang failed (%v)", out, err)
	}
	return reports, nil
}
