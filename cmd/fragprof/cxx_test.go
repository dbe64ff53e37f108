//go:build integration

package main

// Tests of C++ programs through the commands: freq on C++ functions
// (overloads, references, reproducibility), profiles merged and shown, the report
// page, threads with --atomic, -x c++, and an uncaught exception. The counts
// themselves are checked against gcov in internal/oracle (TestGcovOracleCXX,
// TestCXXProject) and against the examples' own comments (TestExampleCounts).

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/report"
)

// TestCXXFreqFunc: freq --func on C++ functions by demangled name — one overload of
// two, a function taking references to scalars, one taking a std::vector<double> by
// value — is reproducible for one seed with one worker or two and estimates what is
// known; an ambiguous name lists the overloads; a parameter of a type --func cannot
// fill is named with its C++ type.
func TestCXXFreqFunc(t *testing.T) {
	src := "testdata/overloads.cpp"
	var got [2]report.JSONFreq
	for k, jobs := range []string{"1", "2"} {
		r, code, stderr := freq(t, src, "--func", "fib(int)", "--input", "n = uniform_int(1, 12)",
			"--eps", "0.5", "--jobs", jobs, "--seed", "7", "--max-trials", "300")
		if code != 0 {
			t.Fatalf("freq --func 'fib(int)': exit %d: %s", code, stderr)
		}
		r.Elapsed = 0
		got[k] = r
	}
	a, _ := json.Marshal(got[0])
	b, _ := json.Marshal(got[1])
	if !bytes.Equal(a, b) {
		t.Errorf("--jobs 1 and --jobs 2 differ:\n%s\n%s", a, b)
	}
	found := false
	for _, f := range got[0].Functions {
		if f.Name == "fib(int)" && f.Mangled == "_Z3fibi" {
			found = true
		}
	}
	if !found {
		t.Errorf("no function fib(int) (mangled _Z3fibi) in the estimate")
	}

	// References to scalars: the loop of acc::sumto runs n times, n uniform on 1..9.
	r, code, stderr := freq(t, src, "--func", "acc::sumto", "--input", "n = uniform_int(1, 9)",
		"--input", "total = uniform_int(0, 5)", "--eps", "0.3", "--seed", "3", "--max-trials", "4000")
	if code != 0 {
		t.Fatalf("freq --func acc::sumto: exit %d: %s", code, stderr)
	}
	checked := false
	for _, f := range r.Functions {
		if f.Name != "acc::sumto(int const&, int&)" {
			continue
		}
		for _, b := range f.Blocks {
			if b.Label == "for.body" {
				checked = true
				if b.HalfWidth == nil || b.Mean < 5-*b.HalfWidth || b.Mean > 5+*b.HalfWidth {
					t.Errorf("acc::sumto's loop body: %g ± %v, want 5 within the interval", b.Mean, b.HalfWidth)
				}
			}
		}
	}
	if !checked {
		t.Errorf("no loop body of acc::sumto(int const&, int&) in the estimate")
	}

	_, code, stderr = freq(t, src, "--func", "fib", "--input", "n = uniform_int(1, 12)", "--max-trials", "10")
	if code == 0 || !strings.Contains(stderr, "'fib(int)' (_Z3fibi)") || !strings.Contains(stderr, "'fib(double)' (_Z3fibd)") {
		t.Errorf("freq --func fib: exit %d, want both overloads listed:\n%s", code, stderr)
	}
	// std::vector<double> by value: n elements uniform on [0, 1), n uniform on 0..10,
	// so about n/2 = 2.5 of them exceed 0.5.
	r, code, stderr = freq(t, src, "--func", "above", "--input", "n = uniform_int(0, 10)",
		"--input", "v = array(n, uniform(0, 1))", "--input", "t = 0.5", "--eps", "0.2", "--seed", "5", "--max-trials", "4000")
	if code != 0 {
		t.Fatalf("freq --func above: exit %d: %s", code, stderr)
	}
	checked = false
	for _, f := range r.Functions {
		if f.Name != "above(std::vector<double, std::allocator<double> >, double)" {
			continue
		}
		for _, b := range f.Blocks {
			if b.Label == "if.then" {
				checked = true
				if b.HalfWidth == nil || b.Mean < 2.5-*b.HalfWidth || b.Mean > 2.5+*b.HalfWidth {
					t.Errorf("above's count of elements over 0.5: %g ± %v, want 2.5 within the interval", b.Mean, b.HalfWidth)
				}
			}
		}
	}
	if !checked {
		t.Errorf("no block if.then of above(std::vector<double, ...>, double) in the estimate")
	}
	_, code, stderr = freq(t, src, "--func", "length", "--input", "s = uniform_int(1, 12)", "--max-trials", "10")
	if code == 0 || !strings.Contains(stderr, "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&") {
		t.Errorf("freq --func length: exit %d, want the refusal to name the type as written:\n%s", code, stderr)
	}
}

// TestCXXProfiles: profiles of a C++ program merge exactly; show, export and cfg
// take --func by demangled or mangled name; text, DOT, pprof and the report page
// show demangled names.
func TestCXXProfiles(t *testing.T) {
	dir := t.TempDir()
	src := "../../examples/exceptions.cpp"
	var fpps []string
	for _, name := range []string{"a.fpp", "b.fpp"} {
		fpp := filepath.Join(dir, name)
		if _, stderr, code := cli(t, "", "count", src, "--profile", fpp, "-o", fpp+".txt"); code != 0 {
			t.Fatalf("count: exit %d\n%s", code, stderr)
		}
		fpps = append(fpps, fpp)
	}
	all := filepath.Join(dir, "all.fpp")
	if _, stderr, code := cli(t, "", "merge", fpps[0], fpps[1], "-o", all); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	pa, pall := mustRead(t, fpps[0]), mustRead(t, all)
	for i, f := range pall.Program.Funcs {
		for k, n := range pall.Counts[i].Blocks {
			if n != 2*pa.Counts[i].Blocks[k] {
				t.Fatalf("merged %s block %d = %d, want twice %d", f.Name, k, n, pa.Counts[i].Blocks[k])
			}
		}
	}
	out, stderr, code := cli(t, "", "show", all, "--func", "rethrows(int)")
	if code != 0 || !strings.Contains(out, "rethrows(int)") || strings.Contains(out, "guarded(int)") {
		t.Errorf("show --func 'rethrows(int)': exit %d\n%s%s", code, out, stderr)
	}
	out, _, code = cli(t, "", "show", all, "--func", "_ZL7guardedi")
	if code != 0 || !strings.Contains(out, "guarded(int)") {
		t.Errorf("show --func _ZL7guardedi (mangled): exit %d\n%s", code, out)
	}
	out, _, code = cli(t, "", "export", all, "--format", "dot", "--func", "check")
	if code != 0 || !strings.Contains(out, "check(int)") {
		t.Errorf("export --format dot --func check: exit %d\n%s", code, out)
	}
	out, stderr, code = cli(t, "", "cfg", src, "--func", "Guard::~Guard()")
	if code != 0 || !strings.Contains(out, "Guard::~Guard()") {
		t.Errorf("cfg --func 'Guard::~Guard()': exit %d\n%s%s", code, out, stderr)
	}
	page := filepath.Join(dir, "page.html")
	if _, stderr, code := cli(t, "", "count", src, "--report", page); code != 0 {
		t.Fatalf("count --report: exit %d\n%s", code, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte("rethrows(int)")) || bytes.Contains(html, []byte(">_ZL8rethrowsi<")) {
		t.Errorf("the report page does not name rethrows(int) demangled")
	}
}

// TestCXXThreadsAtomic: a program whose four std::threads run one loop counts every
// iteration of every thread with --atomic (docs/cxx.md).
func TestCXXThreadsAtomic(t *testing.T) {
	ex := loadExample(t, "testdata/threads.cpp")
	p := countExample(t, ex, "--atomic")
	checkWants(t, ex, p)
}

// TestCXXThreadsAtomicPromoted: fragprof c++ -O0 with FRAGPROF_ATOMIC=1 keeps each
// thread's loop counters in locals of its own, added atomically when the loop ends
// (build.Promote): the counts are still every iteration of every thread.
func TestCXXThreadsAtomicPromoted(t *testing.T) {
	t.Setenv("FRAGPROF_ATOMIC", "1")
	ex := loadExample(t, "testdata/threads.cpp")
	bin := filepath.Join(t.TempDir(), "threads")
	if _, stderr, code := cli(t, "", "c++", "-O0", "-g", ex.path, "-o", bin, "-lpthread"); code != 0 {
		t.Fatalf("fragprof c++: exit %d\n%s", code, stderr)
	}
	checkWants(t, ex, countBinary(t, bin))
}

// TestCXXOpenMPAtomic: an OpenMP parallel loop (clang -fopenmp, libomp) on four
// threads with a dynamic schedule counts every iteration with --atomic, in the
// function clang outlines for the parallel region (docs/cxx.md).
func TestCXXOpenMPAtomic(t *testing.T) {
	ex := loadExample(t, "testdata/openmp.cpp")
	p := countExample(t, ex, "--atomic", "--cflags", "-fopenmp", "--ldflags", "-fopenmp")
	checkWants(t, ex, p)
}

// TestCXXLanguageFlag: -x c++ compiles a .c file as C++ and links the C++ library.
func TestCXXLanguageFlag(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "overloads.c")
	copyFile(t, "testdata/overloads.cpp", src)
	out, stderr, code := cli(t, "", "cfg", "-x", "c++", src, "--func", "fib(double)")
	if code != 0 || !strings.Contains(out, "fib(double)") {
		t.Errorf("cfg -x c++: exit %d\n%s%s", code, out, stderr)
	}
	if _, stderr, code := cli(t, "", "count", "-x", "c++", src); code != 0 || !strings.Contains(stderr, "fib(double)  (") {
		t.Errorf("count -x c++: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := cli(t, "", "count", "-x", "fortran", src); code == 0 || !strings.Contains(stderr, "want c or c++") {
		t.Errorf("count -x fortran: exit %d\n%s", code, stderr)
	}
}

// TestCXXUncaught: a program ended by an exception nothing catches keeps its counts
// and says that std::terminate aborted it.
func TestCXXUncaught(t *testing.T) {
	_, stderr, code := cli(t, "", "count", "../../examples/uncaught.cpp")
	if code != 128+6 || !strings.Contains(stderr, "exception that nothing caught") || !strings.Contains(stderr, "step(int)") {
		t.Errorf("count examples/uncaught.cpp: exit %d\n%s", code, stderr)
	}
}

// TestUnsplittableEdges: asm goto (callbr) and computed goto (indirectbr) edges
// that are critical cannot carry a counter of their own; every scheme still counts
// testdata/asmgoto.c, identically and as its comments state, on clang 14 (whose
// asm goto takes the target's address) and clang 19.
func TestUnsplittableEdges(t *testing.T) { agreeOnBothClangs(t, "testdata/asmgoto.c") }

// agreeOnBothClangs counts file under every scheme, with clang 14 and with clang 19,
// and checks that the schemes agree and that the counts are those its comments
// state.
func agreeOnBothClangs(t *testing.T, file string) {
	for _, clang := range []string{"clang-14", "clang-19"} {
		t.Run(clang, func(t *testing.T) {
			t.Setenv("FRAGPROF_CLANG", clang)
			ex := loadExample(t, file)
			checkWants(t, ex, agree(t, ex))
		})
	}
}

// TestCXXSample builds a CPU-bound C++ program with fragprof c++ (an instrumented,
// self-describing binary), counts it with count --binary, samples it, and draws its
// hot CFG, whose functions carry demangled C++ names.
func TestCXXSample(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "work")
	if _, stderr, code := cli(t, "", "c++", "-O2", "-g", "../../bench/cxx_work.cpp", "-o", bin); code != 0 {
		t.Fatalf("fragprof c++: exit %d\n%s", code, stderr)
	}
	// count --binary reads the counts of the self-describing binary: 16 operations, 8
	// of them Mul, applied in each of 600000 rounds.
	p := countBinary(t, bin)
	found := false
	for _, f := range p.Functions {
		if f.Name == "Mul::apply(long) const" {
			found = true
			if deref(f.Calls) != 8*600000 {
				t.Errorf("Mul::apply called %d times, want %d", deref(f.Calls), 8*600000)
			}
		}
	}
	if !found {
		t.Errorf("count --binary: no Mul::apply(long) const")
	}
	batches := filepath.Join(dir, "run.batches")
	if _, stderr, code := cli(t, "", "sample", "--interval", "1ms", "-o", batches, "--", bin); code != 0 {
		t.Fatalf("sample: exit %d\n%s", code, stderr)
	}
	dot, stderr, code := cli(t, "", "hotcfg", batches, "--format", "dot")
	if code != 0 {
		t.Fatalf("hotcfg: exit %d\n%s", code, stderr)
	}
	// The clusters' labels are the functions' names.
	cxx := 0
	for _, l := range strings.Split(dot, "\n") {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), "label=\"")
		if !ok {
			continue
		}
		if strings.HasPrefix(name, "_Z") {
			t.Errorf("function shown mangled: %s", l)
		}
		if strings.Contains(name, "::") && strings.Contains(name, "(") {
			cxx++
		}
	}
	if cxx == 0 {
		t.Errorf("the hot CFG names no C++ function demangled:\n%s", dot)
	}
}

// TestExceptionPassesThrough: an exception that passes through a frame whose
// landing pad does not match and has nothing to clean up, or through a frame
// without a landing pad, leaves a block without its terminator although main
// returns; every scheme counts testdata/passthrough.cpp, identically and as its
// comments state, on clang 14 and clang 19.
func TestExceptionPassesThrough(t *testing.T) { agreeOnBothClangs(t, "testdata/passthrough.cpp") }
