//go:build integration

package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestCType: C types are spelled as the source writes them, from clang's debug info.
func TestCType(t *testing.T) {
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, ll := filepath.Join(dir, "t.c"), filepath.Join(dir, "t.ll")
	os.WriteFile(src, []byte(`struct pt { int x; double y; };
typedef unsigned long ul;
int grid[3][4];
const char *names[2];
struct pt pts[5];
union u { int i; float f; } uu;
int f(int a[][4], struct pt *p, ul n, double **pp, void *v) { return a[1][2] + p->x + (int)n + grid[0][1] + (pp != 0) + (v != 0); }
int main(void) { return f(0, 0, 0, 0, 0); }
`), 0o644)
	if err := tc.EmitIR(context.Background(), os.Stderr, src, ll, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(ll)
	m, err := llvmir.Parse(ll, data)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"grid": "int [3][4]", "names": "const char *[2]", "pts": "struct pt [5]", "uu": "union u",
	} {
		if got := cType(m, globalDIType(m, name)); got != want {
			t.Errorf("global %s: %q, want %q", name, got, want)
		}
	}
	var f *llvmir.Func
	for _, g := range m.Funcs {
		if g.Name == "f" {
			f = g
		}
	}
	for i, want := range []string{"int (*)[4]", "struct pt *", "ul", "double **", "void *"} {
		if got := cType(m, paramDIType(m, f, i)); got != want {
			t.Errorf("parameter %d: %q, want %q", i+1, got, want)
		}
	}
	if n, e, ok := irArray("[3 x [4 x i32]]"); !ok || n != 12 || e != "i32" {
		t.Errorf("irArray: %d %q %v", n, e, ok)
	}
	if _, _, ok := irArray("[3 x %struct.pt]"); !ok {
		t.Errorf("irArray of structs not read")
	}
}
