// This file implements the simplified CFG (instrument.Options.Simplified): the IR
// clang prints is simplified by LLVM's early function passes before it is
// instrumented, so that the counters are those of the code the optimiser keeps.

package build

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// SimplifyPasses returns the pipeline that Simplify runs with LLVM's opt: the function
// simplification that LLVM's -O1…-O3 pipelines run before their inliner
// (PassBuilder::buildModuleSimplificationPipeline: lower-expect, SimplifyCFG, SROA
// and EarlyCSE on each function, interprocedural constant propagation, GlobalOpt,
// then mem2reg, InstCombine and SimplifyCFG) — the point where clang's IR PGO
// (-fprofile-generate) instruments, but without its pre-inliner, so that every
// function keeps its own blocks and its own entry count. What it removes no counter
// has to keep alive: conditions whose value nothing uses (csmith's safe_math
// checks), diamonds that become selects, stores to locals that become registers.
//
// From LLVM 18 on, opt's bare "instcombine" stops with an error when one round does
// not reach a fixpoint, as a check for LLVM's own tests; its pipelines ask for
// instcombine<no-verify-fixpoint>, which LLVM 14 does not know: SimplifyPasses
// writes the one the version takes.
func SimplifyPasses(major int) string {
	ic := "instcombine"
	if major >= 18 {
		ic = "instcombine<no-verify-fixpoint>"
	}
	return "function(lower-expect,simplifycfg,sroa,early-cse),ipsccp,globalopt," +
		"function(mem2reg," + ic + ",simplifycfg,sroa,early-cse,simplifycfg," + ic + ")"
}

// Simplifies says whether a unit built at optimisation level opt is simplified when
// the simplified CFG is asked for: at -O0 nothing is optimised, so the counts are
// those of the source-level CFG there.
func Simplifies(opt string, asked bool) bool { return asked && opt != "-O0" }

// Simplify runs SimplifyPasses on the IR file ll, in place, with the opt of clang's
// LLVM version (Toolchain.Opt).
func (t *Toolchain) Simplify(ctx context.Context, ll string) error {
	opt, err := t.Opt()
	if err != nil {
		return err
	}
	tmp := ll + ".simplified"
	var stderr bytes.Buffer
	passes := SimplifyPasses(t.Major)
	cmd := exec.CommandContext(ctx, opt, "-S", "-passes="+passes, ll, "-o", tmp)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("simplifying the IR with %s -passes=%s: %v\n%s", opt, passes, err, strings.TrimSpace(stderr.String()))
	}
	return os.Rename(tmp, ll)
}

var (
	optPaths sync.Map // clang path → optResult: Opt, looked up once
	reLLVM   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`LLVM version (\d+)\.`) })
)

type optResult struct {
	path string
	err  error
}

// Opt returns the path of LLVM's opt of the same major version as clang: the one
// beside clang's real path (Debian's /usr/lib/llvm-N/bin/opt), else opt-N or opt on
// the PATH when it says it is LLVM N. The simplified CFG needs it; clang alone
// cannot run a chosen pass pipeline.
func (t *Toolchain) Opt() (string, error) {
	if r, ok := optPaths.Load(t.Clang); ok {
		return r.(optResult).path, r.(optResult).err
	}
	var cands []string
	if real, err := filepath.EvalSymlinks(t.Clang); err == nil {
		cands = append(cands, filepath.Join(filepath.Dir(real), "opt"))
	}
	for _, name := range []string{"opt-" + strconv.Itoa(t.Major), "opt"} {
		if p, err := exec.LookPath(name); err == nil {
			cands = append(cands, p)
		}
	}
	r := optResult{err: fmt.Errorf("the simplified CFG needs LLVM's opt of clang's version %d, which was not found beside %s nor on the PATH (Debian/Ubuntu: apt-get install llvm-%d)", t.Major, t.Clang, t.Major)}
	for _, c := range cands {
		out, err := exec.Command(c, "--version").Output()
		if err != nil {
			continue
		}
		if m := reLLVM().FindSubmatch(out); m != nil && string(m[1]) == strconv.Itoa(t.Major) {
			r = optResult{path: c}
			break
		}
	}
	optPaths.Store(t.Clang, r)
	return r.path, r.err
}
