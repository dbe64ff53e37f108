//go:build integration

package runner

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestRunForwardsTheSignal interrupts a run with a context ended by SIGTERM, as
// fragprof's own SIGTERM ends it: the program, which no signal reached, gets SIGTERM,
// and the status says so. Before, it got SIGINT whatever fragprof had received.
func TestRunForwardsTheSignal(t *testing.T) {
	bin := buildExample(t, "pause.c", "#include <unistd.h>\nint main(void) { for (;;) pause(); }\n")
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		ctx, cancel := context.WithCancelCause(context.Background())
		time.AfterFunc(300*time.Millisecond, func() { cancel(SignalCause{Signal: sig}) })
		d, st, err := Run(context.Background(), Command{Path: bin, Interrupt: ctx})
		if err != nil {
			t.Fatal(err)
		}
		if !st.Interrupted || st.Signal != sig || d.Signal != int(sig) {
			t.Errorf("interrupted by %v: status %+v, dump signal %d; want the program killed by %v", sig, st, d.Signal, sig)
		}
		if st.Lingering {
			t.Errorf("interrupted by %v: the run says processes were still running; the program started none", sig)
		}
	}
}
