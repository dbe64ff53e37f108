// Package textout holds what every text report of fragprof shares: durations and
// sizes printed with a unit a person reads at a glance, and a writer that keeps the
// first error of a run of writes so that a report checks it once, at its end.
package textout

import (
	"fmt"
	"io"
	"math"
)

// Ns prints a duration given in nanoseconds with four significant digits and the
// largest unit that keeps it at least 1: "812 ns", "1.234 ms", "2.5 s".
func Ns(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return fmt.Sprintf("%.4g s", ns/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.4g ms", ns/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.4g µs", ns/1e3)
	}
	return fmt.Sprintf("%.4g ns", ns)
}

// Bytes prints a size in binary units with three significant digits: "512 B",
// "48 KiB", "6.1 MiB", "1.5 GiB", "2 TiB".
func Bytes(b float64) string {
	if math.Abs(b) < 1024 {
		return fmt.Sprintf("%.0f B", b)
	}
	for _, u := range []string{"KiB", "MiB", "GiB"} {
		b /= 1024
		if math.Abs(b) < 1024 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
	}
	return fmt.Sprintf("%.3g TiB", b/1024)
}

// Count prints n with its noun, singular for 1 and plural otherwise (the noun with
// an "s"): "1 function", "8 counters", "0 runs".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Writer passes writes to W until one fails; from then on it drops them and Err
// holds that first error. A report writes through it freely and checks Err once.
type Writer struct {
	W   io.Writer
	Err error
}

func (w *Writer) Write(p []byte) (int, error) {
	if w.Err != nil {
		return len(p), nil
	}
	n, err := w.W.Write(p)
	w.Err = err
	return n, nil
}
