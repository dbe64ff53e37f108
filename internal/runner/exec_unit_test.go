package runner

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRunRemovesTemporaryDump: a program killed while its runtime writes the dump
// leaves the temporary file (which a runaway dump once grew to gigabytes); Run
// removes it, and says that no counts came.
func TestRunRemovesTemporaryDump(t *testing.T) {
	dir := t.TempDir()
	_, st, err := Run(context.Background(), Command{
		Path: "/bin/sh",
		Args: []string{"-c", `echo partial > "$FRAGPROF_OUT.tmp"; echo partial > "$FRAGPROF_OUT.123.tmp"; kill -KILL $$`},
		Dir:  dir,
	})
	if err == nil || !strings.Contains(err.Error(), "wrote no counts") || st.Signal != syscall.SIGKILL {
		t.Errorf("Run: status %v, error %v; want SIGKILL and \"wrote no counts\"", st, err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}
