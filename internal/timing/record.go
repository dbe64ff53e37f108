// This file reads the runtime's timing records (type 1 of the extra channel; layout
// in docs/timing.md).

package timing

import (
	"encoding/binary"
	"fmt"
	"math"
)

// RecordType is the extra-channel record type of fragment timing (docs/runtime.md).
const RecordType = 1

// Timer names a time source of the runtime.
type Timer uint32

// The timers, numbered as in runtime/c/timing.c.
const (
	TSC Timer = iota
	RDTSCP
	Monotonic
	MonotonicRaw
	ProcessCPU
	ThreadCPU
	numTimers
)

var timerNames = [...]string{"tsc", "rdtscp", "monotonic", "monotonic_raw", "process", "thread"}

// timerDoc says how each timer is read.
var timerDoc = [...]string{
	"rdtsc between lfences (lfence; rdtsc; lfence), ticks calibrated against CLOCK_MONOTONIC_RAW",
	"rdtscp then lfence, ticks calibrated against CLOCK_MONOTONIC_RAW",
	"clock_gettime(CLOCK_MONOTONIC)",
	"clock_gettime(CLOCK_MONOTONIC_RAW)",
	"clock_gettime(CLOCK_PROCESS_CPUTIME_ID): CPU time of the process",
	"clock_gettime(CLOCK_THREAD_CPUTIME_ID): CPU time of the thread",
}

func (t Timer) String() string {
	if t < numTimers {
		return timerNames[t]
	}
	return fmt.Sprintf("Timer(%d)", uint32(t))
}

// Doc says how the timer is read.
func (t Timer) Doc() string {
	if t < numTimers {
		return timerDoc[t]
	}
	return ""
}

// IsTSC reports whether the timer counts TSC ticks.
func (t Timer) IsTSC() bool { return t == TSC || t == RDTSCP }

// ParseTimer reads a timer name.
func ParseTimer(s string) (Timer, error) {
	for i, n := range timerNames {
		if n == s {
			return Timer(i), nil
		}
	}
	return 0, fmt.Errorf("unknown timer %q (want tsc, rdtscp, monotonic, monotonic_raw, process or thread)", s)
}

// Record flags.
const (
	FlagInvariantTSC = 1 << iota // cpuid 0x80000007 EDX[8]: the TSC is invariant
	FlagHzFromEnv                // the TSC frequency came from FRAGPROF_TSC_HZ
	FlagSignal                   // the record was written on a fatal signal
	FlagPinned                   // FRAGPROF_CPU pinned the process
)

// A Record is what one process reported at its dump: the timer, its calibration and
// overhead, and the raw samples of every fragment it used.
type Record struct {
	Timer     Timer
	Flags     uint32
	NsPerTick float64 // 1 for clock_gettime timers
	// SpanNs is how long the TSC calibration baseline was (0 for clocks and when the
	// frequency came from FRAGPROF_TSC_HZ).
	SpanNs float64
	// Overhead is the median and OverheadMin the minimum, in ticks, of OverheadReps
	// empty fragments measured at the dump: what the timer adds to every sample.
	Overhead, OverheadMin float64
	OverheadReps          int
	Frags                 []FragRecord
}

// FragRecord is one fragment's samples in one process.
type FragRecord struct {
	Name      string   // "func:NAME" or "region:NAME"
	Ticks     []uint64 // outermost activations, in order of completion, raw
	Dropped   uint32   // activations beyond the sample cap
	Open      uint32   // activations not yet ended at the dump (in the dumping thread)
	Unmatched uint32   // ends without a begin
}

// OverheadNs returns the median overhead in nanoseconds.
func (r *Record) OverheadNs() float64 { return r.Overhead * r.NsPerTick }

// ParseExtra returns the timing records among the framed records of an extra channel
// (u32 type, u32 length, payload); other types are skipped.
func ParseExtra(data []byte) ([]*Record, error) {
	var out []*Record
	le := binary.LittleEndian
	for off := 0; off < len(data); {
		if len(data)-off < 8 {
			return nil, fmt.Errorf("extra channel: truncated record header at byte %d", off)
		}
		typ, n := le.Uint32(data[off:]), int(le.Uint32(data[off+4:]))
		off += 8
		if n > len(data)-off {
			return nil, fmt.Errorf("extra channel: record at byte %d claims %d bytes, %d left", off-8, n, len(data)-off)
		}
		if typ == RecordType {
			r, err := ParseRecord(data[off : off+n])
			if err != nil {
				return nil, fmt.Errorf("extra channel: timing record at byte %d: %v", off-8, err)
			}
			out = append(out, r)
		}
		off += n
	}
	return out, nil
}

// ParseRecord reads the payload of one timing record.
func ParseRecord(p []byte) (*Record, error) {
	le := binary.LittleEndian
	if len(p) < 56 || string(p[:4]) != "FPTM" {
		return nil, fmt.Errorf("not a timing record (bad magic or %d bytes)", len(p))
	}
	if v := le.Uint32(p[4:]); v != 1 {
		return nil, fmt.Errorf("timing record version %d; this fragprof reads version 1", v)
	}
	r := &Record{
		Timer:        Timer(le.Uint32(p[8:])),
		Flags:        le.Uint32(p[12:]),
		NsPerTick:    math.Float64frombits(le.Uint64(p[16:])),
		SpanNs:       math.Float64frombits(le.Uint64(p[24:])),
		Overhead:     math.Float64frombits(le.Uint64(p[32:])),
		OverheadMin:  math.Float64frombits(le.Uint64(p[40:])),
		OverheadReps: int(le.Uint32(p[48:])),
	}
	if r.Timer >= numTimers {
		return nil, fmt.Errorf("unknown timer %d", r.Timer)
	}
	nf := int(le.Uint32(p[52:]))
	off := 56
	for i := 0; i < nf; i++ {
		if len(p)-off < 24 {
			return nil, fmt.Errorf("fragment %d: truncated header", i)
		}
		nl, ns := int(le.Uint32(p[off:])), int(le.Uint32(p[off+4:]))
		f := FragRecord{Dropped: le.Uint32(p[off+8:]), Open: le.Uint32(p[off+12:]), Unmatched: le.Uint32(p[off+16:])}
		off += 24
		padded := (nl + 7) / 8 * 8
		if len(p)-off < padded || (len(p)-off-padded)/8 < ns {
			return nil, fmt.Errorf("fragment %d: %d-byte name and %d samples exceed the record", i, nl, ns)
		}
		f.Name = string(p[off : off+nl])
		off += padded
		f.Ticks = make([]uint64, ns)
		for k := range f.Ticks {
			f.Ticks[k] = le.Uint64(p[off:])
			off += 8
		}
		r.Frags = append(r.Frags, f)
	}
	if off != len(p) {
		return nil, fmt.Errorf("%d bytes left after %d fragments", len(p)-off, nf)
	}
	return r, nil
}
