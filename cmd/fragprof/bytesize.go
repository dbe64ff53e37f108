// This file reads and prints sizes in bytes ("500M", "2G") for flags.

package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/textout"
)

// byteSize is a flag value in bytes: a number with an optional unit K, M, G or T
// (powers of 1024, an optional trailing "B" or "iB"); 0 means no limit.
type byteSize int64

func (b *byteSize) String() string { return textout.Bytes(float64(int64(*b))) }

func (b *byteSize) Type() string { return "size" }

func (b *byteSize) Set(s string) error {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "IB"), "B")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return fmt.Errorf("%q is not a size: want a number of bytes with an optional unit K, M, G or T, such as 500M or 2G (0: no limit)", s)
	}
	*b = byteSize(v * float64(mult))
	return nil
}
