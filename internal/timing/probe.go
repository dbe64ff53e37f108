// This file implements `fragprof timers`: a small C probe (csrc/probe.c), linked with
// the runtime, measures every timer through the runtime's own read functions.

package timing

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fragprof/fragprof/internal/build"
)

//go:embed csrc/probe.c
var probeSource []byte

// TimerInfo is what the probe found out about one timer. Times are in nanoseconds.
type TimerInfo struct {
	Timer     Timer
	Available bool
	// ClaimedNs is clock_getres for a clock, one tick (1/frequency) for the TSC.
	ClaimedNs float64
	// ResolutionNs is the observed resolution: the smallest non-zero step between
	// consecutive reads, over 200,000 reads.
	ResolutionNs float64
	// ReadNs is the cost of one read: the median of 20,001 back-to-back pairs (the
	// second read minus the first); ReadMinNs their minimum.
	ReadNs, ReadMinNs float64
	// LoopNs is the cost of one read in a loop of 100,000, timed by
	// CLOCK_MONOTONIC_RAW: meaningful also for a timer coarser than its own cost.
	LoopNs float64
	// FragNs is what an empty fragment measures (median of 2001 through the runtime's
	// begin and end functions): the overhead `fragprof time` subtracts. FragMinNs is
	// its minimum.
	FragNs, FragMinNs float64
}

// TSCInfo is the TSC's calibration against CLOCK_MONOTONIC_RAW.
type TSCInfo struct {
	Present   bool
	Hz        float64 // mean of the slices
	MinHz     float64
	MaxHz     float64
	RelSD     float64 // relative standard deviation between slices
	Invariant bool    // cpuid 0x80000007 EDX[8]
	Slices    int
	SliceMs   int
}

// Probe is the outcome of probing the timers.
type Probe struct {
	Timers []TimerInfo
	TSC    TSCInfo
	System System
}

// ProbeOptions configure RunProbe.
type ProbeOptions struct {
	Slices, SliceMs int // TSC calibration: slices × ms (0: 10 × 20)
	CPU             int // pin the probe to this CPU; -1: no pinning
	Dir             string
	Stderr          io.Writer // the compiler's diagnostics
}

// RunProbe builds the probe with tc and runs it.
func RunProbe(ctx context.Context, tc *build.Toolchain, o ProbeOptions) (*Probe, error) {
	if o.Slices <= 0 {
		o.Slices = 10
	}
	if o.SliceMs <= 0 {
		o.SliceMs = 20
	}
	src := filepath.Join(o.Dir, "probe.c")
	if err := os.WriteFile(src, probeSource, 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(o.Dir, "probe")
	stderr := o.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	if _, err := tc.Build(ctx, stderr, build.Spec{Extra: []string{src}}, o.Dir, bin); err != nil {
		return nil, fmt.Errorf("building the timer probe: %v", err)
	}
	cmd := osexec.CommandContext(ctx, bin, strconv.Itoa(o.Slices), strconv.Itoa(o.SliceMs))
	if o.CPU >= 0 {
		cmd.Env = append(os.Environ(), "FRAGPROF_CPU="+strconv.Itoa(o.CPU))
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("running the timer probe: %v %s", err, strings.TrimSpace(errb.String()))
	}
	p, err := parseProbe(out)
	if err != nil {
		return nil, err
	}
	p.System = ReadSystem()
	return p, nil
}

// parseProbe reads the probe's output (csrc/probe.c describes the lines).
func parseProbe(out []byte) (*Probe, error) {
	p := &Probe{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		nums := func(from int) ([]float64, error) {
			var xs []float64
			for _, s := range f[from:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return nil, fmt.Errorf("timer probe output line %d: %q: %v", line, s, err)
				}
				xs = append(xs, x)
			}
			return xs, nil
		}
		switch {
		case f[0] == "tsc" && len(f) == 8:
			xs, err := nums(1)
			if err != nil {
				return nil, err
			}
			p.TSC = TSCInfo{Present: true, Hz: xs[0], MinHz: xs[1], MaxHz: xs[2], RelSD: xs[3],
				Invariant: xs[4] != 0, Slices: int(xs[5]), SliceMs: int(xs[6])}
		case f[0] == "timer" && len(f) == 10:
			t, err := ParseTimer(f[1])
			if err != nil {
				return nil, fmt.Errorf("timer probe output line %d: %v", line, err)
			}
			xs, err := nums(2)
			if err != nil {
				return nil, err
			}
			ti := TimerInfo{Timer: t, Available: xs[0] != 0, ClaimedNs: xs[1], ResolutionNs: xs[2],
				ReadNs: xs[3], ReadMinNs: xs[4], LoopNs: xs[5], FragNs: xs[6], FragMinNs: xs[7]}
			if t.IsTSC() && p.TSC.Hz > 0 {
				ti.ClaimedNs = 1e9 / p.TSC.Hz
			}
			p.Timers = append(p.Timers, ti)
		default:
			return nil, fmt.Errorf("timer probe output line %d: unexpected %q", line, sc.Text())
		}
	}
	if len(p.Timers) == 0 {
		return nil, fmt.Errorf("the timer probe printed no timers")
	}
	return p, nil
}
