//go:build integration

package instrument

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestAutoCheckpointsIR applies the automatic checkpoints to clang's IR of a small
// program, after the counters as the build does, and checks the text: one call per
// function entry, return and loop header (AutoAll), the descriptors naming them, the module
// still readable by the IR reader. (That the program runs and records the right
// events is checked end to end in internal/trace.)
func TestAutoCheckpointsIR(t *testing.T) {
	clang, err := exec.LookPath("clang")
	if err != nil {
		t.Fatalf("clang is needed: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "p.c")
	os.WriteFile(src, []byte(`
int sum(int n, double x) {
	int s = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			s += j;
	if (x > 0) return s;
	return -s;
}
void noop(char *p) { (void)p; }
int main(void) { noop(0); return sum(10, 1.0); }
`), 0o644)
	ll := filepath.Join(dir, "p.ll")
	out, err := exec.Command(clang, "-O2", "-Xclang", "-disable-llvm-passes", "-g", "-S", "-emit-llvm",
		"-fno-discard-value-names", "-o", ll, src).CombinedOutput()
	if err != nil {
		t.Fatalf("clang: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(ll)
	m, err := llvmir.Parse(ll, data)
	if err != nil {
		t.Fatal(err)
	}
	u, err := Module(m, Options{Scheme: DefaultScheme, Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if err := AutoCheckpointsAll(m, u); err != nil {
		t.Fatal(err)
	}
	text := string(m.Bytes())
	if _, err := llvmir.Parse("edited.ll", []byte(text)); err != nil {
		t.Fatalf("the edited module does not read back: %v", err)
	}
	calls := regexp.MustCompile(`call void \([^)]*\) @__fragprof_point_auto\(`).FindAllStringIndex(text, -1)
	// sum: entry, its return (clang joins the two return statements in one
	// block), 2 loop headers; noop: entry, return; main: entry, return.
	if len(calls) != 8 {
		t.Errorf("%d checkpoint calls, want 8", len(calls))
	}
	var names []string
	for _, m := range regexp.MustCompile(`@__fp\.desc\.\d+ = private unnamed_addr constant \[\d+ x i8\] c"([^\\"]*)\\00`).FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	got := strings.Join(names, " ")
	want := regexp.MustCompile(`^main main:ret noop noop:ret sum sum:loop@4 sum:loop@5 sum:ret$`)
	if !want.MatchString(got) {
		t.Errorf("checkpoint names %q", got)
	}
	// sum's entry records n (i32, sign-extended) and x (a double, by its bits);
	// noop's pointer parameter is not recorded.
	if !strings.Contains(text, "sext i32 %n to i64") || !strings.Contains(text, "bitcast double %x to i64") {
		t.Errorf("sum's parameters are not passed")
	}
	if !strings.Contains(text, `c"sum\00`) || !strings.Contains(text, `\00id\00sum.n\00sum.x\00"`) {
		t.Errorf("sum's descriptor lacks its variables")
	}
	if !strings.Contains(text, `c"noop\00`) || strings.Contains(text, "noop.p") {
		t.Errorf("noop's descriptor: pointer parameters must not be recorded")
	}
}
