package build

import (
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/llvmir"
)

// TestIRError: IR the reader cannot place is reported against the C file, at the
// source line and column of the IR line (its !dbg), with the function, never the
// temporary .ll's name.
func TestIRError(t *testing.T) {
	ir := `define i32 @main() !dbg !5 {
entry:
  %x = add i32 1, 2, !dbg !8
  br label %nowhere, !dbg !9
}
!5 = distinct !DISubprogram(name: "main", line: 1)
!8 = !DILocation(line: 2, column: 3, scope: !5)
!9 = !DILocation(line: 3, column: 7, scope: !5)
`
	_, err := llvmir.Parse("/tmp/fragprof-123/0-prog.ll", []byte(ir))
	if err == nil {
		t.Fatal("the reader accepted a branch to an unknown block")
	}
	msg := IRError("prog.c", err).Error()
	for _, w := range []string{"prog.c:3:7: ", "in function main", "nowhere", "a limit of fragprof"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
	if strings.Contains(msg, "/tmp/fragprof-") || strings.Contains(msg, ".ll:") {
		t.Errorf("the temporary IR file in %q", msg)
	}
}
