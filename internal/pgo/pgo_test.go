//go:build integration

package pgo

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/internal/llvmir"
	"github.com/fragprof/fragprof/internal/runner"
	"github.com/fragprof/fragprof/profile"
)

// toolchains returns Debian's default clang (typed pointers) and clang-16 (opaque
// pointers): the annotation must work with both IR dialects.
func toolchains(t *testing.T) []*build.Toolchain {
	var out []*build.Toolchain
	for _, name := range []string{"clang", "clang-16"} {
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is not installed: run scripts/deps.sh", name)
		}
		tc, err := build.NewToolchain(path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tc)
	}
	return out
}

// profileInterp counts the interpreter example running args and returns its profile.
func profileInterp(t *testing.T, tc *build.Toolchain, dir string, args ...string) *profile.Profile {
	t.Helper()
	spec := build.Spec{Sources: []string{"../../examples/pgo/interp.c"}, Instr: instrument.Options{Scheme: instrument.Chords}}
	bin := filepath.Join(dir, "interp.fp")
	if _, err := tc.Build(context.Background(), io.Discard, spec, dir, bin); err != nil {
		t.Fatal(err)
	}
	d, _, err := runner.Run(context.Background(), runner.Command{Path: bin, Args: args, Stdout: io.Discard, Stderr: io.Discard, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var reWeights = regexp.MustCompile(`!\{!"branch_weights"(, i32 \d+)+\}`)

// TestWeightsLand: the annotated IR carries branch weights, entry counts and a
// profile summary; after clang -O2 the optimised IR still carries branch weights
// and entry counts (LLVM read them, and kept them through its passes), and the
// dispatch switch's weights are the profile's counts.
func TestWeightsLand(t *testing.T) {
	for _, tc := range toolchains(t) {
		t.Run(filepath.Base(tc.Clang), func(t *testing.T) {
			dir := t.TempDir()
			p := profileInterp(t, tc, dir, "500")
			ll := filepath.Join(dir, "interp.ll")
			if err := tc.EmitIR(context.Background(), io.Discard, "../../examples/pgo/interp.c", ll, nil); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(ll)
			m, err := llvmir.Parse(ll, data)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Annotate(m, p)
			if err != nil {
				t.Fatal(err)
			}
			if r.Count(Applied) != 2 || r.Count(NeverRun) != 1 || r.Count(Stale)+r.Count(Missing) != 0 {
				t.Errorf("report %+v: want main and run applied, fail never run", r.Funcs)
			}
			out := m.Bytes()
			for _, want := range []string{`!"function_entry_count", i64 1}`, `!"ProfileSummary"`, `!"DetailedSummary"`} {
				if !strings.Contains(string(out), want) {
					t.Errorf("annotated IR lacks %s", want)
				}
			}
			if n := len(reWeights.FindAll(out, -1)); n < 10 {
				t.Errorf("annotated IR has %d branch_weights, want at least 10", n)
			}
			pll := filepath.Join(dir, "interp.pgo.ll")
			os.WriteFile(pll, out, 0o644)
			optLL := filepath.Join(dir, "interp.opt.ll")
			cmd := exec.Command(tc.Clang, "-O2", "-S", "-emit-llvm", "-x", "ir", pll, "-o", optLL)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("clang -O2 on the annotated IR: %v\n%s", err, msg)
			}
			opt, _ := os.ReadFile(optLL)
			if !strings.Contains(string(opt), "function_entry_count") || len(reWeights.FindAll(opt, -1)) < 5 {
				t.Errorf("optimised IR lost the profile: %d branch_weights", len(reWeights.FindAll(opt, -1)))
			}
			// The collatz program of the example executes opcode PUSH (case 1) more
			// than 1000 times for n = 500: a weight that large must be in the switch.
			if !regexp.MustCompile(`branch_weights", i32 1, i32 \d+, i32 \d{4,}`).Match(opt) {
				t.Errorf("the dispatch switch's weights are missing after -O2")
			}
		})
	}
}

// TestStaleNeverApplied: a function whose CFG changed is reported stale and gets no
// profile metadata; the others are annotated.
func TestStaleNeverApplied(t *testing.T) {
	tc := toolchains(t)[0]
	dir := t.TempDir()
	p := profileInterp(t, tc, dir, "100")
	src, _ := os.ReadFile("../../examples/pgo/interp.c")
	edited := strings.Replace(string(src), `	m.mem[2] = n;`, `	m.mem[2] = n;
	if (n < 0)
		n = -n;`, 1)
	c := filepath.Join(dir, "interp.c")
	os.WriteFile(c, []byte(edited), 0o644)
	ll := filepath.Join(dir, "edited.ll")
	if err := tc.EmitIR(context.Background(), io.Discard, c, ll, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ll)
	m, err := llvmir.Parse(ll, data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Annotate(m, p)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]Status{}
	for _, f := range r.Funcs {
		status[f.Name] = f.Status
	}
	if status["main"] != Stale || status["run"] != Applied {
		t.Fatalf("statuses %v: want main stale, run applied", status)
	}
	for _, l := range strings.Split(string(m.Bytes()), "\n") {
		if strings.HasPrefix(l, "define") && strings.Contains(l, "@main(") && strings.Contains(l, "!prof") {
			t.Errorf("stale main was annotated: %s", l)
		}
	}
}
