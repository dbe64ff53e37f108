//go:build integration

package montecarlo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fragprof/fragprof/internal/build"
	"github.com/fragprof/fragprof/internal/dist"
)

// TestExecTrialLingering: an exec'd trial whose program leaves a child running
// past Linger (a daemon, which closed its output) is a failure that says so — its
// counts would lack the child's —, while a child that ends in time adds its counts
// to the trial's.
func TestExecTrialLingering(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two C programs with fragprof; skipped with -short")
	}
	tc, err := build.FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	model, err := dist.ParseOptions("", dist.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, childSleep string
		lingers          bool
	}{{"quick child", "usleep(20000)", false}, {"lingering child", "close(1); close(2); sleep(3)", true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "prog.c")
			prog := `#include <unistd.h>
int child_work(int n) { int s = 0; for (int i = 0; i < n; i++) s += i & 1; return s; }
int main(void) {
  if (fork() == 0) { ` + c.childSleep + `; return child_work(1000) == 500 ? 0 : 1; }
  return 0;
}
`
			if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, "prog")
			var msg bytes.Buffer
			if _, err := tc.Build(context.Background(), &msg, build.Spec{Sources: []string{src}}, dir, bin); err != nil {
				t.Fatalf("%v\n%s", err, msg.String())
			}
			p := &Program{Binary: bin, Inputs: &dist.File{Model: model}, Isolation: Exec, Linger: 500 * time.Millisecond, Dir: dir}
			w, err := p.NewWorker(0)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			outs, err := w.Trials(context.Background(), []uint64{0})
			if err != nil || len(outs) != 1 {
				t.Fatalf("%d outcomes, %v", len(outs), err)
			}
			o := outs[0]
			if c.lingers {
				if o.Cause != "processes left running" || o.Counts != nil {
					t.Errorf("cause %q, failure %q, counts %v: want the trial failed for its lingering child", o.Cause, o.Failure, o.Counts != nil)
				}
				return
			}
			if o.Failure != "" || o.Counts == nil {
				t.Fatalf("failure %q", o.Failure)
			}
			for i, f := range o.Prog.Funcs {
				if f.Name == "child_work" && o.Counts[i].Blocks[0] != 1 {
					t.Errorf("child_work entered %d times, want 1 (the child's counts)", o.Counts[i].Blocks[0])
				}
			}
		})
	}
}
