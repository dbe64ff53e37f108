// Package trace reads and writes checkpoint traces: the records that the runtime's
// checkpoints (runtime/c/trace.c) send through the extra channel, and the trace
// files `fragprof trace` writes, one per trial, with the trial's inputs. It also runs
// the tracing trials (collect.go). The layouts are in docs/trace-format.md.
//
// A Trace is what the prediction metalayer (internal/predict) learns from: per
// thread, the checkpoints passed in order, with their times and recorded values.
package trace

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/atomicfile"
	"github.com/fragprof/fragprof/internal/jsonerr"
)

// RecordType is the extra-channel record type of checkpoint traces
// (docs/runtime.md).
const RecordType = 2

// Payload kinds of the type-2 records.
const (
	kindHeader = 1
	kindSite   = 2
	kindEvents = 3
	kindEnd    = 4
)

// FileMagic opens a trace file.
const FileMagic = "FPTRACE\x00"

// FileVersion is the version of the trace-file layout Write writes: 2, the records
// deflate-compressed (RFC 1951); version 1, the records verbatim, is still read.
const FileVersion = 2

// VarKind is the C type class of a recorded variable.
type VarKind uint8

// The variable kinds, as the runtime numbers them.
const (
	Signed   VarKind = 1 // any signed integer type (FP_I)
	Unsigned VarKind = 2 // unsigned integer types (FP_U)
	Double   VarKind = 3 // double or float (FP_D)
)

func (k VarKind) String() string {
	switch k {
	case Signed:
		return "signed"
	case Unsigned:
		return "unsigned"
	case Double:
		return "double"
	}
	return fmt.Sprintf("VarKind(%d)", k)
}

// Clock is the source of the timestamps.
type Clock uint8

// The clocks.
const (
	TSC       Clock = 1 // the time-stamp counter, converted to ns by calibration
	Monotonic Clock = 2 // CLOCK_MONOTONIC in ns
	ThreadCPU Clock = 3 // CLOCK_THREAD_CPUTIME_ID in ns: the thread's own CPU time
)

func (c Clock) String() string {
	switch c {
	case TSC:
		return "tsc"
	case Monotonic:
		return "monotonic"
	case ThreadCPU:
		return "thread"
	}
	return fmt.Sprintf("Clock(%d)", c)
}

// A Var is a variable recorded at a site.
type Var struct {
	Name string
	Kind VarKind
}

// A Site is one checkpoint in the program: a place where FP_POINT or FP_POINT_VARS
// is written, or where --auto-checkpoints inserted one. Several sites may share a
// Name; the name is the checkpoint's identity in the transition graph.
type Site struct {
	ID   uint32 // as numbered by the runtime, from 1
	Name string
	File string
	Line int
	Vars []Var
}

// A Thread holds one thread's events in order, as parallel slices.
type Thread struct {
	Index int       // 0 for the first thread that passed a checkpoint, ...
	Time  []int64   // ns since the trace started
	Site  []int32   // index into Trace.Sites
	Off   []int32   // event k's values are Vals[Off[k]:Off[k+1]]; len(Off) = events+1
	Vals  []float64 // recorded values, converted to float64
}

// Len returns the number of events.
func (t *Thread) Len() int { return len(t.Time) }

// Span returns the time from the thread's first event to its last (ns): a run's
// traced time when t is its main thread; 0 with fewer than two events.
func (t *Thread) Span() int64 {
	if len(t.Time) < 2 {
		return 0
	}
	return t.Time[len(t.Time)-1] - t.Time[0]
}

// Values returns the values of event k, in the order of its site's Vars.
func (t *Thread) Values(k int) []float64 { return t.Vals[t.Off[k]:t.Off[k+1]] }

// Header is what `fragprof trace` records about a trial beside the runtime's trace.
type Header struct {
	Program  string   `json:"program"`
	Trial    uint64   `json:"trial"`
	Seed     uint64   `json:"seed"`
	Inputs   []Input  `json:"inputs"`
	Args     []string `json:"args,omitempty"`
	Stdin    string   `json:"stdin,omitempty"`
	Status   string   `json:"status"`    // "exit status 0", "killed by signal ..."
	ExitCode int      `json:"exit_code"` // the shell's view: code, or 128+signal
	WallNs   int64    `json:"wall_ns"`   // the trial's wall time seen by fragprof
	Auto     bool     `json:"auto_checkpoints,omitempty"`
	// Rep is the repetition of the trial (0 for the first; fragprof trace
	// --repeat): every repetition runs the same inputs, except those in Vary.
	Rep int `json:"rep,omitempty"`
	// Vary names the nuisance inputs drawn anew in each repetition (fragprof trace
	// --vary): a model predicts its expectation over them, not from them.
	Vary []string `json:"vary,omitempty"`
}

// An Input is one drawn input of a trial: its number (the value of a numeric scalar,
// the length of an array or string) and its text.
type Input struct {
	Name  string  `json:"name"`
	Kind  string  `json:"kind"` // the dist kind: int, float, string, int array, ...
	Value float64 `json:"value"`
	Text  string  `json:"text,omitempty"` // the value as the templates print it, when short
}

// A Trace is one process's checkpoint trace.
type Trace struct {
	Name   string // the file (or stream) it was read from, for messages
	Header Header // from the trace file; zero for a bare record stream

	Clock     Clock
	Pid       int
	NsPerTick float64 // the calibration used to convert ticks to ns
	// ClockFallback says the TSC was asked for but its calibration was unstable:
	// the monotonic clock was used (Clock is Monotonic).
	ClockFallback bool
	OverheadNs    float64 // the runtime's estimate of one checkpoint's cost in its thread
	Sites         []Site  // Sites[i].ID == i+1
	Threads       []Thread

	Finished  bool   // the END record is present: the runtime completed the trace
	Signal    int    // the fatal signal that ended the process, or 0
	Events    uint64 // events the runtime recorded (END)
	Lost      uint64 // events it could not record (END)
	Truncated bool   // FRAGPROF_TRACE_MAX was reached
	// Stopped says the run was a probe that FRAGPROF_TRACE_STOP or
	// FRAGPROF_TRACE_STOP_EVENTS ended once its budget was spent (fragprof trace
	// --stop-after, --stop-events): the trace is the run's beginning only.
	Stopped bool
	Other   int // records of other types in the channel (skipped)

	// The process's memory, from the END record of a runtime that measures it (0
	// in older traces), in bytes: PeakRSS its peak resident set (VmHWM at the
	// dump), FileRSS the file-backed and shared part of its resident set at the
	// dump (RssFile + RssShmem), BaseAnon its anonymous resident set just before
	// main (RssAnon), RuntimeBytes the most the runtime's own event buffers took at
	// once, AnonSeen the largest anonymous resident set the runtime's drainer
	// thread read (every millisecond). See WorkingSet.
	PeakRSS, FileRSS, BaseAnon, RuntimeBytes, AnonSeen uint64
}

// WorkingSet returns the bytes of data the program touched, and false when the
// trace does not say (an older runtime, or /proc unreadable):
//
//	max(PeakRSS − FileRSS, AnonSeen) − BaseAnon − RuntimeBytes
//
// the anonymous memory (heap, stack, mapped arrays) at its peak, less what the
// process had before main (the fork server's heap and stack) and the runtime's
// event buffers (mappings of their own). The pages of the libraries the program
// runs (RssFile: 1.6 MB of libc and ld.so here, which a process forked by the fork
// server maps anew) are not data; they only grow during a run, so the file part at
// the dump bounds the one at the peak. The kernel's peak is exact while the memory
// is mapped; memory freed before the end leaves a peak taken from lagging per-CPU
// counters (up to about 0.5 MB low here), which the runtime's exact readings — at
// the first checkpoint and every millisecond — make up for.
//
// It counts every page touched at least once, not the bytes one iteration reuses:
// an upper bound of the data a loop cycles through. A file the program maps counts
// as a library. docs/trace-format.md, "The working set".
func (t *Trace) WorkingSet() (float64, bool) {
	if t.PeakRSS == 0 || t.BaseAnon == 0 {
		return 0, false
	}
	peak := math.Max(float64(t.PeakRSS)-float64(t.FileRSS), float64(t.AnonSeen))
	return math.Max(0, peak-float64(t.BaseAnon)-float64(t.RuntimeBytes)), true
}

// Main returns the thread the model follows: the first thread that passed a
// checkpoint, or nil when there were no events.
func (t *Trace) Main() *Thread {
	for i := range t.Threads {
		if t.Threads[i].Index == 0 {
			return &t.Threads[i]
		}
	}
	return nil
}

// Input returns the drawn value of the named input.
func (t *Trace) Input(name string) (float64, bool) {
	for _, in := range t.Header.Inputs {
		if in.Name == name {
			return in.Value, true
		}
	}
	return 0, false
}

// An Error is a malformed trace, with its place.
type Error struct {
	Name   string // file
	Offset int64  // byte offset of the offending record
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: offset %d: %s", e.Name, e.Offset, e.Msg) }

// maxRecord bounds a record's claimed length, so a hostile file cannot make the
// reader allocate without limit.
const maxRecord = 1 << 31

// ParseFile reads a trace file written by WriteFile.
func ParseFile(path string) (*Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse reads a trace file's bytes; name is used in errors.
func Parse(name string, data []byte) (*Trace, error) {
	if len(data) < 16 || string(data[:8]) != FileMagic {
		return nil, &Error{name, 0, "not a fragprof trace file (bad magic)"}
	}
	le := binary.LittleEndian
	v := le.Uint32(data[8:])
	if v != 1 && v != 2 {
		return nil, &Error{name, 8, fmt.Sprintf("trace file version %d, this fragprof reads 1 and 2", v)}
	}
	h := int64(le.Uint32(data[12:]))
	if 16+h > int64(len(data)) {
		return nil, &Error{name, 12, fmt.Sprintf("header of %d bytes overruns the file (%d bytes)", h, len(data))}
	}
	var hdr Header
	dec := json.NewDecoder(bytes.NewReader(data[16 : 16+h]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&hdr); err != nil {
		return nil, &Error{name, 16, fmt.Sprintf("header: %v", jsonerr.Explain(data[16:16+h], err))}
	}
	body, base := data[16+h:], 16+h
	if v == 2 {
		// Offsets in errors are then offsets in the decompressed records.
		zr := flate.NewReader(bytes.NewReader(body))
		raw, err := io.ReadAll(io.LimitReader(zr, maxRecord))
		if err != nil {
			return nil, &Error{name, 16 + h, fmt.Sprintf("compressed records: %v", err)}
		}
		body, base = raw, 0
	}
	t, err := parseRecords(name, body, base)
	if err != nil {
		return nil, err
	}
	t.Header = hdr
	return t, nil
}

// ParseRecords reads the extra channel of one process (records of every type;
// only type 2 is read).
func ParseRecords(name string, data []byte) (*Trace, error) { return parseRecords(name, data, 0) }

type rawEvents struct {
	thread uint32
	off    int64
	words  []byte
}

func parseRecords(name string, data []byte, base int64) (*Trace, error) {
	le := binary.LittleEndian
	t := &Trace{Name: name}
	var header bool
	var tick0, ns0, tick1, ns1 uint64
	var evs []rawEvents
	sites := map[uint32]Site{}
	for off := 0; off < len(data); {
		at := base + int64(off)
		if len(data)-off < 8 {
			return nil, &Error{name, at, fmt.Sprintf("%d stray bytes at the end (a record header needs 8)", len(data)-off)}
		}
		typ, n := le.Uint32(data[off:]), int64(le.Uint32(data[off+4:]))
		if n > maxRecord || int64(off)+8+n > int64(len(data)) {
			return nil, &Error{name, at, fmt.Sprintf("record of type %d claims %d bytes, only %d remain", typ, n, len(data)-off-8)}
		}
		p := data[off+8 : off+8+int(n)]
		off += 8 + int(n)
		if typ != RecordType {
			t.Other++
			continue
		}
		if len(p) < 4 {
			return nil, &Error{name, at, "trace record shorter than its kind"}
		}
		kind, p := le.Uint32(p), p[4:]
		switch kind {
		case kindHeader:
			if len(p) < 48 {
				return nil, &Error{name, at, fmt.Sprintf("HEADER record of %d bytes, want 48", len(p))}
			}
			if v := le.Uint32(p); v != 1 {
				return nil, &Error{name, at, fmt.Sprintf("trace records of version %d, this fragprof reads 1", v)}
			}
			header = true
			t.Clock = Clock(le.Uint32(p[4:]))
			t.Pid = int(le.Uint32(p[8:]))
			t.ClockFallback = le.Uint32(p[12:])&1 != 0
			tick0, ns0 = le.Uint64(p[16:]), le.Uint64(p[24:])
			t.NsPerTick = math.Float64frombits(le.Uint64(p[32:]))
			t.OverheadNs = math.Float64frombits(le.Uint64(p[40:]))
		case kindSite:
			s, err := parseSite(p)
			if err != nil {
				return nil, &Error{name, at, "SITE record: " + err.Error()}
			}
			sites[s.ID] = s
		case kindEvents:
			if len(p) < 4 || (len(p)-4)%8 != 0 {
				return nil, &Error{name, at, fmt.Sprintf("EVENTS record of %d bytes is not a thread number and whole words", len(p))}
			}
			evs = append(evs, rawEvents{thread: le.Uint32(p), off: at, words: p[4:]})
		case kindEnd:
			if len(p) < 44 {
				return nil, &Error{name, at, fmt.Sprintf("END record of %d bytes, want 48", len(p))}
			}
			t.Finished = true
			t.Signal = int(le.Uint32(p))
			tick1, ns1 = le.Uint64(p[8:]), le.Uint64(p[16:])
			t.Events, t.Lost = le.Uint64(p[24:]), le.Uint64(p[32:])
			t.Truncated = le.Uint32(p[40:]) != 0
			t.Stopped = le.Uint32(p[44:]) != 0
			if len(p) >= 88 { // a runtime that measures the working set
				t.PeakRSS, t.BaseAnon, t.FileRSS = le.Uint64(p[48:]), le.Uint64(p[56:]), le.Uint64(p[64:])
				t.RuntimeBytes, t.AnonSeen = le.Uint64(p[72:]), le.Uint64(p[80:])
			}
		default:
			return nil, &Error{name, at, fmt.Sprintf("unknown trace record kind %d", kind)}
		}
	}
	if !header {
		if len(evs) == 0 && len(sites) == 0 {
			return t, nil // the program passed no checkpoint
		}
		return nil, &Error{name, base, "trace records without a HEADER record"}
	}
	// Sites, densely numbered.
	t.Sites = make([]Site, len(sites))
	for id, s := range sites {
		if id == 0 || int(id) > len(sites) {
			return nil, &Error{name, base, fmt.Sprintf("site ids are not 1..%d (found %d)", len(sites), id)}
		}
		t.Sites[id-1] = s
	}
	// The tick → ns conversion: the whole run's own calibration when it is long
	// enough for the 20 ns uncertainty of each clock reading not to matter (20 ms:
	// better than 1e-6), else the runtime's 2 ms calibration at start.
	rate := t.NsPerTick
	if t.Clock == Monotonic || t.Clock == ThreadCPU {
		rate = 1
	} else if t.Finished && ns1 > ns0 && tick1 > tick0 && ns1-ns0 >= 20e6 {
		rate = float64(ns1-ns0) / float64(tick1-tick0)
		t.NsPerTick = rate
	}
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, &Error{name, base, fmt.Sprintf("bad clock calibration %g ns per tick", rate)}
	}
	threads := map[uint32]*Thread{}
	for _, r := range evs {
		th := threads[r.thread]
		if th == nil {
			th = &Thread{Index: int(r.thread), Off: []int32{0}}
			threads[r.thread] = th
		}
		w := r.words
		for i := 0; i < len(w); {
			if len(w)-i < 16 {
				return nil, &Error{name, r.off, "EVENTS record ends inside an event"}
			}
			tick := le.Uint64(w[i:])
			id := le.Uint32(w[i+8:])
			nv := int(le.Uint32(w[i+12:]))
			i += 16
			if id == 0 || int(id) > len(t.Sites) {
				return nil, &Error{name, r.off, fmt.Sprintf("event of unknown site %d", id)}
			}
			s := &t.Sites[id-1]
			if nv != len(s.Vars) {
				return nil, &Error{name, r.off, fmt.Sprintf("event of site %d (%s) has %d values, the site %d", id, s.Name, nv, len(s.Vars))}
			}
			if len(w)-i < 8*nv {
				return nil, &Error{name, r.off, "EVENTS record ends inside an event's values"}
			}
			th.Time = append(th.Time, int64(math.Round(float64(int64(tick-tick0))*rate)))
			th.Site = append(th.Site, int32(id-1))
			for k := 0; k < nv; k++ {
				bits := le.Uint64(w[i+8*k:])
				var v float64
				switch s.Vars[k].Kind {
				case Signed:
					v = float64(int64(bits))
				case Unsigned:
					v = float64(bits)
				default:
					v = math.Float64frombits(bits)
				}
				th.Vals = append(th.Vals, v)
			}
			i += 8 * nv
			th.Off = append(th.Off, int32(len(th.Vals)))
		}
	}
	for _, th := range threads {
		t.Threads = append(t.Threads, *th)
	}
	sort.Slice(t.Threads, func(i, j int) bool { return t.Threads[i].Index < t.Threads[j].Index })
	return t, nil
}

func parseSite(p []byte) (Site, error) {
	le := binary.LittleEndian
	if len(p) < 12 {
		return Site{}, fmt.Errorf("%d bytes, want at least 12", len(p))
	}
	s := Site{ID: le.Uint32(p), Line: int(int32(le.Uint32(p[4:])))}
	nv := int(le.Uint32(p[8:]))
	if nv > 64 || len(p) < 12+nv {
		return Site{}, fmt.Errorf("%d variables in %d bytes", nv, len(p))
	}
	kinds := p[12 : 12+nv]
	strs := strings.Split(string(p[12+nv:]), "\x00")
	if len(strs) < 2+nv {
		return Site{}, fmt.Errorf("%d strings, want %d (name, file, variables)", len(strs), 2+nv)
	}
	s.Name, s.File = strs[0], strs[1]
	for k := 0; k < nv; k++ {
		kind := VarKind(kinds[k])
		if kind < Signed || kind > Double {
			return Site{}, fmt.Errorf("variable %q of unknown kind %d", strs[2+k], kinds[k])
		}
		s.Vars = append(s.Vars, Var{Name: strs[2+k], Kind: kind})
	}
	return s, nil
}

// WriteFile writes a trace file: the header and the process's extra channel as it
// came (every record, of every type), compressed. It returns the file's size.
func WriteFile(path string, h Header, extra []byte) (int64, error) {
	var b bytes.Buffer
	if err := Write(&b, h, extra); err != nil {
		return 0, err
	}
	if err := atomicfile.Write(path, b.Bytes()); err != nil {
		return 0, err
	}
	return int64(b.Len()), nil
}

// Write writes a trace file to w (version 2: the records deflate-compressed at
// flate.BestSpeed — checkpoint events, a timestamp and a site id repeated with
// small changes, shrink about 8×).
func Write(w io.Writer, h Header, extra []byte) error {
	js, err := json.Marshal(h)
	if err != nil {
		return err
	}
	var pre [16]byte
	copy(pre[:], FileMagic)
	binary.LittleEndian.PutUint32(pre[8:], FileVersion)
	binary.LittleEndian.PutUint32(pre[12:], uint32(len(js)))
	if _, err := w.Write(pre[:]); err != nil {
		return err
	}
	if _, err := w.Write(js); err != nil {
		return err
	}
	zw, err := flate.NewWriter(w, flate.BestSpeed)
	if err != nil {
		return err
	}
	if _, err := zw.Write(extra); err != nil {
		return err
	}
	return zw.Close()
}

// FileName is the name of trial i's trace file in a trace directory.
func FileName(i uint64) string { return fmt.Sprintf("trial-%06d.fpt", i) }

// RepFileName is the name of repetition r of trial i's trace file: FileName(i) for
// r = 0, trial-000007-r02.fpt for i = 7, r = 2.
func RepFileName(i uint64, r int) string {
	if r == 0 {
		return FileName(i)
	}
	return fmt.Sprintf("trial-%06d-r%02d.fpt", i, r)
}

// ReadDir reads every trace file (*.fpt) of dir, in name order.
func ReadDir(dir string) ([]*Trace, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.fpt"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := os.Stat(dir); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: no trace files (*.fpt): collect them with fragprof trace -o %s", dir, dir)
	}
	sort.Strings(names)
	var out []*Trace
	for _, n := range names {
		t, err := ParseFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
