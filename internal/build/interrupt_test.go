//go:build integration

package build

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuildInterrupted: a build whose context has ended stops, with an error that
// says clang was stopped and wraps the context's cause — not "clang failed", which
// fragprof reported for a Ctrl-C — and the IR step, which runs in fragprof, stops
// too: before, it went through every function of a large file regardless.
func TestBuildInterrupted(t *testing.T) {
	tc, err := FindToolchain()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var src strings.Builder
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&src, "int f%d(int x) { return x > %d ? x - %d : x + 1; }\n", i, i, i)
	}
	src.WriteString("int main(void) { return f0(1); }\n")
	c := filepath.Join(dir, "many.c")
	if err := os.WriteFile(c, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stopped by the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(stop)
	var msg bytes.Buffer
	_, err = tc.Build(ctx, &msg, Spec{Sources: []string{c}}, dir, filepath.Join(dir, "prog"))
	if err == nil || !errors.Is(err, stop) || !strings.Contains(err.Error(), "clang was stopped") {
		t.Errorf("Build after the end of its context: %v; want clang stopped, by the context's cause", err)
	}
	ll := filepath.Join(dir, "many.ll")
	if err := tc.EmitIR(context.Background(), &msg, c, ll, nil); err != nil {
		t.Fatalf("%v\n%s", err, msg.String())
	}
	spec := Spec{Sources: []string{c}}
	if _, err := tc.InstrumentFile(ctx, ll, filepath.Join(dir, "many.fp.ll"), nil, spec.instrOptions(c)); !errors.Is(err, context.Canceled) {
		t.Errorf("InstrumentFile after the end of its context: %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "many.fp.ll")); err == nil {
		t.Error("InstrumentFile after the end of its context wrote the instrumented IR")
	}
	if _, err := tc.InstrumentFile(context.Background(), ll, filepath.Join(dir, "many.fp.ll"), nil, spec.instrOptions(c)); err != nil {
		t.Errorf("InstrumentFile: %v", err)
	}
}
