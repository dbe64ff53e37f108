//go:build integration

package instrument

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// callSitesC has one function of each kind EntriesFromCalls tells apart.
const callSitesC = `
extern void maybe_exit(int);
static int leaf(int x) { return x * 2; }              /* counted at its calls */
static int viaptr(int x) { return x + 1; }            /* its address is taken */
static int rec(int n) { return n ? rec(n - 1) : 0; }  /* recursive */
static int ping(int n);
static int pong(int n) { return n ? ping(n - 1) : 1; } /* recursive through ping */
static int ping(int n) { return n ? pong(n - 1) : 0; }
static int afterexit(int x) { return x - 1; }         /* a call that may not return precedes it */
static int afterload(int x) { return x + 3; }         /* a load that may fault precedes it */
static int never(int x) { return x; }                  /* never called */
int notstatic(int x) { return x; }                    /* other units may call it */
int (*fp)(int) = viaptr;
int g(int *p, int x) {
	int s = leaf(x) + leaf(x + 1);
	s += rec(x) + ping(x);
	s += afterload(*p);
	maybe_exit(x);
	s += afterexit(x);
	return s + fp(x) + notstatic(x);
}
int main(void) { int v = 1; return g(&v, 2) + (v > 9 ? never(v) : 0); }
`

// TestEntriesFromCalls: of the functions above, only leaf — and afterload where
// faults need not be counted — are counted at their call sites, with clang 14 and 19.
func TestEntriesFromCalls(t *testing.T) {
	dir := t.TempDir()
	for _, clang := range []string{"clang-14", "clang-19"} {
		m, err := llvmir.Parse(clang+".ll", unoptimisedIR(t, clang, filepath.Join(dir, "p.c"), callSitesC))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			faults bool
			want   []string
		}{{true, []string{"leaf", "never"}}, {false, []string{"afterload", "leaf", "never"}}} {
			got := slices.Sorted(maps.Keys(m.EntriesFromCalls(c.faults)))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("%s, faults %v: counted at their calls %v, want %v", clang, c.faults, got, c.want)
			}
		}
	}
}

// unoptimisedIR writes text to src and returns the IR clang makes of it at -O2 before
// any LLVM pass, as fragprof reads it.
func unoptimisedIR(t *testing.T, clang, src, text string, flags ...string) []byte {
	t.Helper()
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-O2", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm", "-o", "-"}, flags...)
	out, err := exec.Command(clang, append(args, src)...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", clang, src, err)
	}
	return out
}

// callSitesCXX has C++ inline functions of each kind EntriesFromCalls tells apart.
const callSitesCXX = `
inline int twice(int x) { return 2 * x; }               // counted at its calls, made internal
inline int viaptr(int x) { return x + 1; }              // its address is taken
template <class T> T grown(T x) { return x + 1; }        // called by code that is not counted:
template <class T> struct Box { T v; T get() const { return grown(v); } };
extern template struct Box<int>;                         // Box<int>::get is available_externally
inline int grouped(int x) { return x - 1; }             // another global joins its COMDAT group
int (*fp)(int) = viaptr;
int g(int x) { Box<int> b{x}; return twice(x + 1) + b.get() + grouped(x) + fp(x); }
int main() { return g(2); }
`

// TestEntriesFromCallsCXX: of the inline functions above, with clang 14 and 19, only
// twice is counted at its call sites; Internalize makes it internal, out of its
// COMDAT group and hidden visibility, in IR that clang compiles, where the others stay
// weak.
func TestEntriesFromCallsCXX(t *testing.T) {
	dir := t.TempDir()
	for _, clang := range []string{"clang-14", "clang-19"} {
		data := unoptimisedIR(t, clang, filepath.Join(dir, "p.cpp"), callSitesCXX, "-fvisibility-inlines-hidden")
		// A global in grouped's COMDAT group, as a constructor's C5 group holds two.
		data = append(data, "\n@grouped.tag = linkonce_odr global i32 0, comdat($_Z7groupedi)\n"...)
		m, err := llvmir.Parse(clang+".ll", data)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(m.EntriesFromCalls(false)))
		if want := []string{"_Z5twicei"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: counted at their calls %v, want %v", clang, got, want)
		}
		for _, name := range []string{"_Z5twicei", "_Z1gi", "main"} {
			if changed := m.Internalize(name); changed != (name == "_Z5twicei") {
				t.Errorf("%s: Internalize(%s) changed the module: %v", clang, name, changed)
			}
		}
		out := filepath.Join(dir, clang+"-internal.ll")
		if err := os.WriteFile(out, m.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(m.Bytes()), "\n") {
			if strings.Contains(l, "@_Z5twicei(") && strings.HasPrefix(l, "define") &&
				(!strings.Contains(l, " internal ") || strings.Contains(l, " comdat") || strings.Contains(l, " hidden ")) {
				t.Errorf("%s: twice defined as %q", clang, l)
			}
			if strings.HasPrefix(l, "$_Z5twicei ") {
				t.Errorf("%s: twice's COMDAT group is still declared: %q", clang, l)
			}
		}
		// -O0 keeps the out-of-line copies to look at.
		obj := filepath.Join(dir, clang+".o")
		if msg, err := exec.Command(clang, "-c", "-O0", "-Wno-override-module", out, "-o", obj).CombinedOutput(); err != nil {
			t.Fatalf("%s: the internalised IR does not compile: %v\n%s", clang, err, msg)
		}
		syms, err := exec.Command("nm", obj).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{" t _Z5twicei", " W _Z6viaptri", " W _Z7groupedi"} {
			if !strings.Contains(string(syms), want+"\n") {
				t.Errorf("%s: no %q in the object's symbols:\n%s", clang, want, syms)
			}
		}
	}
}
