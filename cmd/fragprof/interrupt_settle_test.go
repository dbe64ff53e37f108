package main

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// TestInterruptSettle checks that a report made as soon as the program died of
// SIGINT waits for fragprof's own copy of a group-wide SIGINT still on its way, gives
// up after its 100 ms when none comes, and does not wait for other signals. Its timer
// is the test's: settle's wait is seen asked for, and ends when the test says so.
func TestInterruptSettle(t *testing.T) {
	intr := catchInterrupts()
	defer intr.stop()
	asked := make(chan time.Duration, 1)
	fire := make(chan time.Time)
	intr.after = func(d time.Duration) <-chan time.Time {
		asked <- d
		return fire
	}

	intr.settle(syscall.SIGKILL) // not a signal fragprof catches: no wait
	select {
	case d := <-asked:
		t.Errorf("settle(SIGKILL) waited %v", d)
	default:
	}

	// No signal comes: settle waits its 100 ms, and returns when they are over.
	done := make(chan struct{})
	go func() {
		intr.settle(syscall.SIGINT)
		close(done)
	}()
	if d := <-asked; d != 100*time.Millisecond {
		t.Errorf("settle(SIGINT) waits %v, want 100ms", d)
	}
	select {
	case <-done:
		t.Fatal("settle(SIGINT) returned before its wait was over")
	default:
	}
	fire <- time.Time{}
	<-done
	if intr.caught() != 0 {
		t.Fatalf("no signal sent: caught %v", intr.caught())
	}

	// The signal is sent now and reaches the interrupts' goroutine through the Go
	// runtime some time later: settle waits for it, and its timer never fires.
	intr.after = func(time.Duration) <-chan time.Time { return nil }
	syscall.Kill(os.Getpid(), syscall.SIGINT)
	intr.settle(syscall.SIGINT)
	if intr.caught() != syscall.SIGINT || intr.mark() != "interrupted" {
		t.Errorf("SIGINT sent just before: caught %v, mark %q; want SIGINT, interrupted", intr.caught(), intr.mark())
	}
}
