//go:build integration

package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// timedSource has a function with several returns, a recursive one, one whose return
// follows a musttail call, one without debug information, and main; it calls the
// timer itself through fragprof.h's declarations, as FP_BEGIN does.
const timedSource = `
void __fragprof_frag_begin(int *slot, const char *name);
int pick(int x) {
	if (x > 3)
		return 1;
	if (x < -3)
		return -1;
	return 0;
}
int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
int callee(int x);
int tailer(int x) { __attribute__((musttail)) return callee(x); }
__attribute__((nodebug)) int quiet(int x) { return x + 1; }
int main(void) { static int s; __fragprof_frag_begin(&s, "region:x"); return pick(5) + fact(4) + quiet(1); }
`

// TestTimersEdit inserts the func: timers into the IR of clang 14 (typed pointers)
// and clang 16 (opaque pointers), checks where the calls went and what they carry,
// and lets clang's verifier accept the result at -O2.
func TestTimersEdit(t *testing.T) {
	for _, clang := range []string{"clang-14", "clang-16"} {
		t.Run(clang, func(t *testing.T) {
			if _, err := exec.LookPath(clang); err != nil {
				t.Fatalf("%s is needed (apt-get install %s): %v", clang, clang, err)
			}
			dir := t.TempDir()
			src := filepath.Join(dir, "timed.c")
			os.WriteFile(src, []byte(timedSource), 0o644)
			ll := filepath.Join(dir, "timed.ll")
			cmd := exec.Command(clang, "-O2", "-Xclang", "-disable-llvm-passes", "-g", "-S", "-emit-llvm", "-o", ll, src)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, msg)
			}
			data, _ := os.ReadFile(ll)
			m, err := llvmir.Parse(ll, data)
			if err != nil {
				t.Fatal(err)
			}
			u, err := Module(m, Options{Scheme: Chords, Source: src})
			if err != nil {
				t.Fatal(err)
			}
			tm := NewTimers([]string{"pick", "fact", "tailer", "quiet", "main", "absent"})
			if err := tm.Apply(m, u); err != nil {
				t.Fatal(err)
			}
			if miss := tm.Missing(); len(miss) != 1 || miss[0] != "absent" {
				t.Errorf("Missing() = %v, want [absent]", miss)
			}
			out := m.Bytes()
			text := string(out)

			// Per function: one begin, one end per ret.
			rets := map[string]int{}
			for _, f := range m.Funcs {
				for _, b := range f.Blocks {
					for _, in := range b.Instrs {
						if in.Op == "ret" {
							rets[f.Name]++
						}
					}
				}
			}
			m2, err := llvmir.Parse("edited", out)
			if err != nil {
				t.Fatalf("the edited IR does not parse: %v", err)
			}
			for _, f := range m2.Funcs {
				begins, ends, undbg := 0, 0, 0
				for _, b := range f.Blocks {
					for _, in := range b.Instrs {
						switch in.Callee {
						case FragBegin:
							if !strings.Contains(m2.Lines[in.Line], "__fragprof.tname") {
								continue // main's own call, not the edit's
							}
							begins++
						case FragEnd:
							ends++
						default:
							continue
						}
						if in.Dbg < 0 {
							undbg++
						}
					}
				}
				name := f.Name
				if name == "main" {
					continue // the main fragprof adds, which calls the runtime
				}
				if name == MainName {
					name = "main"
				}
				switch name {
				case "pick", "fact", "tailer", "quiet", "main":
				default:
					continue
				}
				// An end before every ret the reader found (clang may merge the
				// returns, and leaves a dead one after a musttail call).
				if begins != 1 || ends != rets[name] || ends == 0 {
					t.Errorf("%s: %d begins and %d ends, want 1 and %d", f.Name, begins, ends, rets[name])
				}
				if f.Name != "quiet" && undbg > 0 {
					t.Errorf("%s: %d inserted calls without !dbg", f.Name, undbg)
				}
				if f.Name == "quiet" && undbg != 2 {
					t.Errorf("quiet (no debug info): %d calls without !dbg, want 2", undbg)
				}
			}
			// Nothing may come between a musttail call and its ret.
			if regexp.MustCompile(`musttail call [^\n]*\n\s*call void @__fragprof_frag_end`).MatchString(text) {
				t.Error("an end call sits between a musttail call and its ret")
			}
			// One registration per timed function in fragprof_sites; the runtime's
			// functions declared once (the unit declared begin itself).
			if n := strings.Count(text, `section "fragprof_sites"`); n != 5 {
				t.Errorf("%d site registrations, want 5", n)
			}
			if n := len(regexp.MustCompile(`(?m)^declare [^\n]*@`+FragBegin+`\(`).FindAllString(text, -1)); n != 1 {
				t.Errorf("%s declared %d times", FragBegin, n)
			}
			if m.Opaque != (clang == "clang-16") {
				t.Errorf("%s: opaque pointers = %v", clang, m.Opaque)
			}
			edited := filepath.Join(dir, "edited.ll")
			os.WriteFile(edited, out, 0o644)
			cmd = exec.Command(clang, "-c", "-O2", "-x", "ir", edited, "-o", edited+".o")
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s rejects the edited IR: %v\n%s", clang, err, msg)
			}
		})
	}
}
