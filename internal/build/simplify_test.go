package build

import (
	"strings"
	"testing"
)

// TestOptMissing: without LLVM's opt of clang's version beside clang or on the PATH,
// the simplified CFG fails with a message that says what to install, not with
// opt's own error or a build of the source-level CFG.
func TestOptMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	tc := &Toolchain{Clang: "/nonexistent/clang", Major: 14}
	_, err := tc.Opt()
	if err == nil || !strings.Contains(err.Error(), "apt-get install llvm-14") {
		t.Fatalf("Opt() with no opt anywhere: %v", err)
	}
	if err := tc.Simplify(t.Context(), "x.ll"); err == nil || !strings.Contains(err.Error(), "opt of clang's version 14") {
		t.Fatalf("Simplify with no opt anywhere: %v", err)
	}
}
