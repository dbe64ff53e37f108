package build

import (
	"context"
	"errors"
	"testing"
)

// TestAwait: await returns f's result, or the context's error as soon as the context
// ends while f still runs.
func TestAwait(t *testing.T) {
	if v, err := await(context.Background(), func() (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Errorf("await(f) = %d, %v; want 7, nil", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	go cancel()
	if v, err := await(ctx, func() (int, error) { <-release; return 7, nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("await(f) with f blocked and the context ended: %d, %v; want context.Canceled", v, err)
	}
}
