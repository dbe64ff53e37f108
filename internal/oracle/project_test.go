//go:build integration

package oracle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
	"github.com/fragprof/fragprof/internal/runner"
)

// projectFiles are the sources of testdata/cxx/project that the oracle compares: its
// three translation units and its header-only template library, whose functions
// (linkonce_odr, instantiated in every unit) must have one set of counts each.
var projectFiles = []string{"src/main.cpp", "src/tokens.cpp", "src/histogram.cpp",
	"include/minilib/algo.hpp", "include/minilib/stats.hpp"}

// TestCXXProject builds the unmodified C++ project testdata/cxx/project three ways —
// its Makefile with CXX="fragprof c++", its CMakeLists.txt with
// -DCMAKE_CXX_COMPILER="fragprof;c++", and its Makefile with g++ --coverage — runs the
// three programs on the same input, and checks that they print the same, that the
// Make and CMake builds count the same, and that the counts equal gcov's on every
// single-block line of every source, the header library included (gcov's counts of a
// header are the sum over the units that instantiate it).
func TestCXXProject(t *testing.T) {
	tl := needTools(t)
	for _, tool := range []string{"make", "cmake", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed; install with %s", tool, InstallHint)
		}
	}
	dir := t.TempDir()
	fp := filepath.Join(dir, "fragprof")
	if _, err := command("", "go", "build", "-o", fp, "../../cmd/fragprof"); err != nil {
		t.Fatal(err)
	}
	proj := filepath.Join(repoRoot(t), "testdata", "cxx", "project")
	input, err := os.ReadFile(filepath.Join(proj, "input.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "FRAGPROF_CLANG="+tl.Clang14.Clang)

	// make CXX="fragprof c++", in a copy of the project.
	mk := filepath.Join(dir, "make")
	copyTree(t, proj, mk)
	if out, err := runIn(mk, env, "make", "CXX="+fp+" c++"); err != nil {
		t.Fatalf("make CXX=\"fragprof c++\": %v\n%s", err, out)
	}
	made := countRun(t, filepath.Join(mk, "wordstats"), mk, input)

	// cmake -DCMAKE_CXX_COMPILER="fragprof;c++" (the compiler and its first argument),
	// with the Makefile's flags: fragprof c++ follows the build's own -O, and CMake
	// without a build type passes none (-O0).
	cm := filepath.Join(dir, "cmake")
	if out, err := runIn(dir, env, "cmake", "-S", proj, "-B", cm, "-DCMAKE_CXX_COMPILER="+fp+";c++", "-DCMAKE_CXX_FLAGS=-O2 -g"); err != nil {
		t.Fatalf("cmake: %v\n%s", err, out)
	}
	if out, err := runIn(dir, env, "cmake", "--build", cm); err != nil {
		t.Fatalf("cmake --build: %v\n%s", err, out)
	}
	cmade := countRun(t, filepath.Join(cm, "wordstats"), cm, input)

	// The same Makefile with g++ --coverage.
	gd := filepath.Join(dir, "gcov")
	copyTree(t, proj, gd)
	if out, err := runIn(gd, nil, "make", "CXX="+tl.GXX, "CXXFLAGS=-O0 -g --coverage -fstack-reuse=none", "LDFLAGS=--coverage"); err != nil {
		t.Fatalf("make with g++ --coverage: %v\n%s", err, out)
	}
	cmd := exec.Command(filepath.Join(gd, "wordstats"))
	cmd.Dir, cmd.Stdin = gd, bytes.NewReader(input)
	gout, err := cmd.Output()
	if err != nil {
		t.Fatalf("g++ build: %v", err)
	}

	if !bytes.Equal(made.out, gout) || !bytes.Equal(cmade.out, gout) {
		t.Errorf("outputs differ:\nmake+fragprof:  %q\ncmake+fragprof: %q\ng++:            %q", made.out, cmade.out, gout)
	}
	if a, b := countsByName(made.json), countsByName(cmade.json); a != b {
		t.Errorf("the Make and CMake builds count differently:\n%s\n---\n%s", a, b)
	}
	shared := 0
	for _, name := range []string{"minilib::Stats<int>::add(int)", "void minilib::insertion_sort<int>(std::vector<int, std::allocator<int> >&)"} {
		n := 0
		for _, f := range made.json.Functions {
			if f.Name == name {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s, instantiated in several units, appears %d times in the profile; want once", name, n)
		}
		shared += n
	}

	// The same Makefile with clang 14's source-based coverage, read by llvm-cov:
	// the second oracle, checked file by file below.
	ld := filepath.Join(dir, "llvm-cov")
	copyTree(t, proj, ld)
	if out, err := runIn(ld, nil, "make", "CXX="+tl.Clang14.Clang+" --driver-mode=g++",
		"CXXFLAGS=-O0 -g -fprofile-instr-generate -fcoverage-mapping", "LDFLAGS=-fprofile-instr-generate"); err != nil {
		t.Fatalf("make with clang++ -fprofile-instr-generate: %v\n%s", err, out)
	}
	cmd = exec.Command(filepath.Join(ld, "wordstats"))
	cmd.Dir, cmd.Stdin = ld, bytes.NewReader(input)
	cmd.Env = append(os.Environ(), "LLVM_PROFILE_FILE="+filepath.Join(ld, "prog.profraw"))
	if lout, err := cmd.Output(); err != nil || !bytes.Equal(lout, gout) {
		t.Errorf("clang++ -fprofile-instr-generate build: %v, printed %q", err, lout)
	}
	if _, err := command(ld, llvmTool(t, tl.Clang14, "llvm-profdata"), "merge", "-o", "prog.profdata", "prog.profraw"); err != nil {
		t.Fatal(err)
	}
	lj, err := command(ld, llvmTool(t, tl.Clang14, "llvm-cov"), "export", "-instr-profile=prog.profdata", "wordstats")
	if err != nil {
		t.Fatal(err)
	}
	lc, err := ParseLLVMCov(lj)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range lc.Files {
		if rel, err := filepath.Rel(ld, f.File); err == nil {
			lc.Files[i].File = rel
		}
	}
	var lcTotal Comparison

	// gcov, over the three units' data files.
	var gcdas []string
	notes := map[string]*Notes{}
	for _, src := range projectFiles[:3] {
		stem := strings.TrimSuffix(src, ".cpp")
		gcdas = append(gcdas, stem+".gcda")
		data, err := os.ReadFile(filepath.Join(gd, stem+".gcno"))
		if err != nil {
			t.Fatal(err)
		}
		if notes[src], err = ReadNotes(data); err != nil {
			t.Fatal(err)
		}
	}
	js, err := command(gd, tl.Gcov, append([]string{"--json-format", "--stdout", "-b"}, gcdas...)...)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := ParseGcovJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	var total Comparison
	for _, file := range projectFiles {
		side := GcovSide{File: file, Single: map[int]bool{}, Report: &GcovFile{File: file}}
		for _, n := range notes {
			for l := range n.SingleBlockLines(file) {
				side.Single[l] = true
			}
		}
		calls := map[string]int{}
		for _, r := range reps {
			g := r.File(file)
			if g == nil {
				continue
			}
			side.Report.Lines = append(side.Report.Lines, g.Lines...) // Compare adds up repeated lines
			for _, fn := range g.Functions {
				if k, ok := calls[fn.Name]; ok {
					side.Report.Functions[k].ExecutionCount += fn.ExecutionCount
					continue
				}
				calls[fn.Name] = len(side.Report.Functions)
				side.Report.Functions = append(side.Report.Functions, fn)
			}
		}
		src, err := os.ReadFile(filepath.Join(proj, file))
		if err != nil {
			t.Fatal(err)
		}
		side.Labels = LabelLines(src)
		c := Compare(&made.json, side, true)
		for _, m := range c.Mismatches {
			t.Errorf("%s:%s", file, m)
		}
		if c.CountLines == 0 || c.Funcs == 0 {
			t.Errorf("%s: nothing compared (%d count lines, %d functions)", file, c.CountLines, c.Funcs)
		}
		total.CountLines += c.CountLines
		total.ExecLines += c.ExecLines
		total.Funcs += c.Funcs

		// llvm-cov: where it differs from fragprof, gcov must agree with
		// fragprof (TestLLVMCovOracleCXX).
		gl, gf := map[int]uint64{}, map[string]uint64{}
		for _, l := range side.Report.Lines {
			gl[l.LineNumber] += l.Count
		}
		for _, f := range side.Report.Functions {
			gf[f.Name] = f.ExecutionCount
		}
		lcmp, diffs := CompareLLVMCov(&made.json, lc, file, BraceLines(src))
		for _, d := range diffs {
			gc, ok := gl[d.Line]
			if d.Line == 0 {
				gc, ok = gf[d.Func]
			}
			if ok && (gc == d.Frag || d.Exec && (gc > 0) == (d.Frag > 0)) {
				t.Logf("%s: %s; gcov agrees with fragprof (%d)", file, d, gc)
				continue
			}
			t.Errorf("%s: %s; gcov %d (known: %v)", file, d, gc, ok)
		}
		lcTotal.CountLines += lcmp.CountLines
		lcTotal.ExecLines += lcmp.ExecLines
		lcTotal.Funcs += lcmp.Funcs
	}
	t.Logf("project: %d single-block line counts, %d executed-or-not lines, %d call counts equal to gcov's; %d shared template functions counted once",
		total.CountLines, total.ExecLines, total.Funcs, shared)
	t.Logf("project: %d one-count lines, %d executed-or-not lines, %d function counts compared with llvm-cov",
		lcTotal.CountLines, lcTotal.ExecLines, lcTotal.Funcs)
	if lcTotal.CountLines < 20 || lcTotal.Funcs < 5 {
		t.Errorf("too little compared with llvm-cov")
	}
}

type countedRun struct {
	out  []byte
	json report.JSONProgram
}

// countRun runs a program built by fragprof c++ with input on stdin and reads its
// counts, as count --binary does.
func countRun(t *testing.T, bin, dir string, input []byte) countedRun {
	t.Helper()
	var out, errb bytes.Buffer
	d, st, err := runner.Run(context.Background(), runner.Command{Path: bin, Stdin: bytes.NewReader(input), Stdout: &out, Stderr: &errb, Dir: dir})
	if err != nil || st.Code != 0 {
		t.Fatalf("%s: %v, %v\n%s", bin, err, st, errb.String())
	}
	p, err := d.Profile()
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	if err := p.Check(d.Flow()); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return countedRun{out: out.Bytes(), json: report.JSON(p)}
}

// countsByName prints every function's block counts under its linkage name, sorted,
// for comparing builds whose file names differ (CMake gives absolute paths).
func countsByName(p report.JSONProgram) string {
	var lines []string
	for _, f := range p.Functions {
		var cs []string
		for _, b := range f.Blocks {
			if b.Count != nil {
				cs = append(cs, fmt.Sprint(*b.Count))
			}
		}
		name := f.Name
		if f.Mangled != "" {
			name = f.Mangled
		}
		lines = append(lines, name+" "+strings.Join(cs, ","))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func runIn(dir string, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	return cmd.CombinedOutput()
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
