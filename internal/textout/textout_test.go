package textout

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestNs(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		want string
	}{
		{0, "0 ns"}, {812, "812 ns"}, {999.9, "999.9 ns"}, {1000, "1 µs"}, {1234567, "1.235 ms"},
		{2.5e9, "2.5 s"}, {-1500, "-1.5 µs"}, {3600e9, "3600 s"},
	} {
		if got := Ns(c.ns); got != c.want {
			t.Errorf("Ns(%g) = %q, want %q", c.ns, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		b    float64
		want string
	}{
		{0, "0 B"}, {512, "512 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {48 << 10, "48 KiB"},
		{6.1 * (1 << 20), "6.1 MiB"}, {1.5 * (1 << 30), "1.5 GiB"}, {2 << 40, "2 TiB"},
	} {
		if got := Bytes(c.b); got != c.want {
			t.Errorf("Bytes(%g) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 runs"}, {1, "1 run"}, {2, "2 runs"}, {1000, "1000 runs"}} {
		if got := Count(c.n, "run"); got != c.want {
			t.Errorf("Count(%d, run) = %q, want %q", c.n, got, c.want)
		}
	}
}

type failAfter struct {
	n   int
	buf bytes.Buffer
}

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return f.buf.Write(p)
}

func TestWriterKeepsFirstError(t *testing.T) {
	f := &failAfter{n: 2}
	w := &Writer{W: f}
	for i := range 5 {
		fmt.Fprintf(w, "line %d\n", i)
	}
	if w.Err == nil || w.Err.Error() != "disk full" {
		t.Fatalf("Err = %v, want disk full", w.Err)
	}
	if got := f.buf.String(); got != "line 0\nline 1\n" {
		t.Errorf("written %q, want the two lines before the failure", got)
	}
	if f.n != 0 {
		t.Errorf("writes after the failure reached the writer")
	}
}
