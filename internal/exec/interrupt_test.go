package exec

import (
	"context"
	"os"
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

// TestAwaitInterrupted: once the run is interrupted, the wait for the processes
// the program started still sees their end (the same Ctrl-C ends them), and gives up
// InterruptLinger later when they do not end. Before, an interrupt already received
// made it report processes still running at once, on every Ctrl-C.
func TestAwaitInterrupted(t *testing.T) {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	w.Close() // every process of the run has ended
	if !readLive(r).await(Linger, done) {
		t.Error("all processes ended, interrupted: await reports some still running")
	}
	r.Close()
	r, w, err = os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // a process still holds the pipe
	start := time.Now()
	if readLive(r).await(Linger, done) {
		t.Error("a process still running, interrupted: await reports none")
	}
	if time.Since(start) >= Linger {
		t.Errorf("interrupted: await waited the whole Linger (%v), not InterruptLinger", Linger)
	}
}
