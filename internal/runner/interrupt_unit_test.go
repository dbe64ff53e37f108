package runner

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestAwaitInterrupted: once the run is interrupted, the wait for the processes
// the program started still sees their end (the same Ctrl-C ends them), and gives up
// InterruptLinger later when they do not end, however long its own linger: asked
// to wait an hour, it returns (a wait of the whole hour would end in the test
// binary's timeout). Before, an interrupt already received made it report processes
// still running at once, on every Ctrl-C.
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
	if readLive(r).await(time.Hour, done) {
		t.Error("a process still running, interrupted: await reports none")
	}
}
