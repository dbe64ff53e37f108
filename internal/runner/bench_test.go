//go:build integration

package runner

import (
	"bytes"
	"context"
	"io"
	"testing"
)

// BenchmarkTrial compares one trial of newton.c through the fork server, in process,
// and by exec.
func BenchmarkTrial(b *testing.B) {
	bin := buildExample(&testing.T{}, "newton.c", "")
	in := []byte("400\n")
	for _, mode := range []struct {
		name   string
		inproc bool
	}{{"fork", false}, {"none", true}} {
		b.Run(mode.name, func(b *testing.B) {
			s, err := StartServer(bin, ServerOptions{InProcess: mode.inproc})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			for b.Loop() {
				if _, err := s.Run(context.Background(), nil, in, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("exec", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Run(context.Background(), Command{Path: bin, Stdin: bytes.NewReader(in), Stdout: io.Discard, Stderr: io.Discard}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
