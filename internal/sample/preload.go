// This file implements the in-process sampler: the preloaded library
// (preload/fragprof_sample.c), its compilation, a run under it and the reading of
// the bursts it leaves.

package sample

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"debug/elf"

	"golang.org/x/sys/unix"

	"github.com/fragprof/fragprof/hotcfg"
	"github.com/fragprof/fragprof/internal/cachedir"
	"github.com/fragprof/fragprof/internal/stats"
)

//go:embed preload/fragprof_sample.c
var preloadSource []byte

// The layout of the sampler's file (see the C source's struct header, chunk, rec, burst).
const (
	fpsMagic  = 0x31534d53504650
	fpsHeader = 4096
	fpsChunk  = 64 * 1024
	// fpsSize is the file's size: sparse, so only what is written takes room. At
	// 25 PCs and 4 KiB of stack a burst takes 4.3 KiB: 240,000 bursts.
	fpsSize = 1 << 30

	recBurst, recMaps, recNote, recMem = 1, 2, 3, 4
)

// preloadFlags compile the in-process sampler; the cached library is named by the
// hash of these flags and of the source. Two loadable segments instead of four, and no RELRO to
// protect after relocation: the dynamic loader's work for the library is the floor
// of every sampled run's cost (about 65 µs of CPU on this project's VM for an empty
// library; these two flags took 10–30 µs off the sampler's start).
var preloadFlags = []string{"-O2", "-fPIC", "-shared", "-fno-stack-protector", "-Wl,-z,noseparate-code", "-Wl,-z,norelro"}

// PreloadLib returns the path of the in-process sampler library, compiling it on
// first use with $FRAGPROF_CLANG when set, else the system's C compiler (cc, gcc or
// clang), and caching it by the hash of its source and flags in fragprof's cache
// directory (internal/cachedir).
func PreloadLib() (string, error) {
	var cc string
	for _, c := range []string{os.Getenv("FRAGPROF_CLANG"), "cc", "gcc", "clang"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			cc = p
			break
		}
	}
	if cc == "" {
		return "", errors.New("sample: no C compiler (cc, gcc or clang; or FRAGPROF_CLANG) to build the in-process sampler")
	}
	return cachedir.Entry("fragprof_sample", ".so", preloadKey(), func(tmp string) (string, error) {
		src := filepath.Join(tmp, "fragprof_sample.c")
		if err := os.WriteFile(src, preloadSource, 0o644); err != nil {
			return "", err
		}
		out := filepath.Join(tmp, "fragprof_sample.so")
		args := append(append([]string{}, preloadFlags...), "-o", out, src, "-ldl", "-lrt", "-pthread")
		if msg, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("sample: compiling the in-process sampler with %s: %v\n%s", cc, err, msg)
		}
		return out, nil
	})
}

// preloadKey is what the library is made from: its flags and its source.
func preloadKey() [][]byte { return [][]byte{[]byte(strings.Join(preloadFlags, " ")), preloadSource} }

// Preloadable reports whether the program at path can take the in-process sampler:
// an x86-64 ELF executable with a dynamic loader (PT_INTERP). Statically linked
// programs cannot (LD_PRELOAD needs the loader); the reason is returned.
func Preloadable(path string) (bool, string) {
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return false, err.Error()
		}
		path = p
	}
	f, err := elf.Open(path)
	if err != nil {
		return false, fmt.Sprintf("%s is not an ELF executable (%v)", path, err)
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return false, fmt.Sprintf("%s is not an x86-64 program", path)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true, ""
		}
	}
	return false, fmt.Sprintf("%s is statically linked (LD_PRELOAD needs the dynamic loader)", path)
}

// A Stack is the raw material of a call stack, taken at a burst's start: the
// registers and a copy of the stack from rsp up. Unwind turns it into return
// addresses.
type Stack struct {
	PC, SP, BP uint64
	Mem        []byte // the stack from SP
}

// A Burst is a batch with the stack taken at its start (nil when none was taken).
type Burst struct {
	hotcfg.Batch
	Stack *Stack
	Cost  time.Duration // the thread's CPU time from the burst's start to its end
}

// Preload runs the target with the in-process sampler preloaded and returns its
// bursts in time order, through sink, once the program has ended. o.Overhead makes
// each thread's interval adaptive (its mean is the larger of o.Interval and the
// thread's mean burst cost / o.Overhead); stackBytes is how much stack each burst
// copies (0: none). Ctrl-C reaches the program (it is in the same process group);
// Preload waits for it to end and keeps what it recorded.
func Preload(t Target, o Options, stackBytes int, sink func(Burst, hotcfg.Code)) (*Stats, error) {
	s, data, err := preloadRun(t, o, stackBytes)
	if err != nil {
		return nil, err
	}
	r, err := readSamples(data, true)
	if err != nil {
		return nil, err
	}
	if err := r.check(t); err != nil {
		return nil, err
	}
	r.decode(s, sink)
	return s, nil
}

// preloadRun runs the target with the in-process sampler preloaded and returns
// its outcome (without the bursts) and the used part of the sampler's file.
func preloadRun(t Target, o Options, stackBytes int) (*Stats, []byte, error) {
	if o.Burst <= 0 || o.Burst > 1024 {
		return nil, nil, fmt.Errorf("sample: burst must be in 1..1024 with the in-process sampler")
	}
	if o.Interval <= 0 {
		return nil, nil, fmt.Errorf("sample: interval must be positive")
	}
	lib, err := PreloadLib()
	if err != nil {
		return nil, nil, err
	}
	f, err := os.CreateTemp(sampleFileDir(), "fragprof-sample-*.bin")
	if err != nil {
		return nil, nil, err
	}
	defer os.Remove(f.Name())
	var h [56]byte
	binary.LittleEndian.PutUint64(h[0:], fpsMagic)
	binary.LittleEndian.PutUint64(h[8:], fpsSize)
	binary.LittleEndian.PutUint64(h[16:], fpsHeader)
	binary.LittleEndian.PutUint64(h[24:], fpsChunk)
	_, err = f.Write(h[:])
	if err == nil {
		err = f.Truncate(fpsSize)
	}
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	env := t.Env
	if env == nil {
		env = os.Environ()
	}
	env, userPreload := withoutVar(env, "LD_PRELOAD")
	preload := lib
	if userPreload != "" {
		preload = lib + ":" + userPreload
	}
	env = append(env,
		"LD_PRELOAD="+preload,
		"FRAGPROF_SAMPLE_LD_PRELOAD="+userPreload,
		"FRAGPROF_SAMPLE_FILE="+f.Name(),
		"FRAGPROF_SAMPLE="+sampleConfig(o, stackBytes))
	t.Env = env
	// Ctrl-C goes to the whole foreground process group: the program decides what
	// to do with it; we wait for it and keep what it recorded.
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(ch)
	run, err := runPlain(t)
	if err != nil {
		return nil, nil, err
	}
	s := &Stats{Wall: run.Wall, CPU: run.CPU, ExitCode: run.ExitCode, Exited: true}
	select {
	case sig := <-ch:
		s.Interrupted = true
		s.Notes = append(s.Notes, fmt.Sprintf("interrupted by %s: the program ended; the bursts it recorded are kept", unix.SignalName(sig.(syscall.Signal))))
	default:
	}
	if run.Signal != 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("program killed by %s", unix.SignalName(run.Signal)))
	}
	data, err := readUsed(f.Name())
	if err != nil {
		return nil, nil, err
	}
	return s, data, nil
}

// sampleConfig is the value of FRAGPROF_SAMPLE, the library's configuration (the
// C source's init).
func sampleConfig(o Options, stackBytes int) string {
	posixTimer := 1
	if o.TaskClock {
		posixTimer = 0
	}
	trapFlag := 0 // --stepping singlestep: the trap flag; otherwise breakpoints
	if o.Stepping == SingleStep {
		trapFlag = 1
	}
	return fmt.Sprintf("%d %d %d %d %d %d %d %d %d %d %d", o.Interval.Nanoseconds(), o.Burst, o.Seed,
		int64(o.Overhead*1e6), stackBytes, trapFlag, posixTimer, KernelTick().Nanoseconds(), o.BurstCost.Nanoseconds(),
		o.brokenSteps, boolInt(o.probeSteps))
}

// check says why the samples of a run of t are no use: the library never started.
func (r *samples) check(t Target) error {
	if !r.started {
		return fmt.Errorf("sample: the in-process sampler did not start in %s (was LD_PRELOAD honoured? a set-user-ID program ignores it)", t.Path)
	}
	return nil
}

// tally adds what the sampler's file says of its run to s, without decoding the
// bursts: their number, PCs and cost, the mappings' cost, the stepping and the
// notes.
func (r *samples) tally(s *Stats) {
	s.Maps = r.maps
	s.Steps = r.steps
	s.Notes = append(s.Notes, r.notes...)
	s.Batches += r.nBursts
	s.Sampled += r.nPCs
	s.SelfCost += r.cost
	s.SetupCost = r.mapsCost
	s.Skipped = int(r.skipped)
	if r.lost > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d bursts lost: the sample file (%d MiB) was full", r.lost, fpsSize>>20))
	}
	if r.conflict != 0 {
		s.Conflict = syscall.Signal(r.conflict)
		s.Notes = append(s.Notes, fmt.Sprintf("the program installed its own %s handler: in-process sampling stopped there (%d bursts kept) and handed %s to the program's handler; sample it with --sampler ptrace",
			unix.SignalName(s.Conflict), s.Batches, unix.SignalName(s.Conflict)))
	}
}

// decode tallies the run into s (tally) and gives its bursts to sink in time
// order, each with its instructions decoded from the mapped files and its call
// stack unwound.
func (r *samples) decode(s *Stats, sink func(Burst, hotcfg.Code)) {
	code := &burstCode{files: NewFiles(r.maps), mem: r.mem, learned: map[uint64]hotcfg.Insn{}}
	for _, b := range r.bursts {
		code.learn(b.PCs)
	}
	for _, b := range r.bursts {
		b.Batch.Stack = code.files.Unwind(b.Stack, 64)
		sink(b, code)
	}
	r.tally(s)
}

// sampleFileDir returns the directory of the sampler's file: /dev/shm when it is a
// writable tmpfs, else the temporary directory. The program writes its bursts into
// that file through a shared mapping, and on a disk file system each first write to
// a page of the sparse file allocates its blocks in the program's own time: measured
// on this project's VM (ext4), 2 ms of CPU in every run that writes its first chunk,
// as much as a whole short run of sqlite3, against 0.15 ms on tmpfs.
func sampleFileDir() string {
	const shm = "/dev/shm"
	var st unix.Statfs_t
	if unix.Statfs(shm, &st) == nil && st.Type == unix.TMPFS_MAGIC && unix.Access(shm, unix.W_OK) == nil {
		return shm
	}
	return os.TempDir()
}

// readUsed reads the part of the sampler's (sparse) file that holds chunks.
func readUsed(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := make([]byte, fpsHeader)
	if _, err := io.ReadFull(f, h); err != nil {
		return nil, fmt.Errorf("sample: the sampler's file: %v", err)
	}
	next := min(binary.LittleEndian.Uint64(h[16:]), fpsSize)
	data := make([]byte, max(next, fpsHeader))
	copy(data, h)
	if next > fpsHeader {
		if _, err := f.ReadAt(data[fpsHeader:], fpsHeader); err != nil {
			return nil, fmt.Errorf("sample: the sampler's file: %v", err)
		}
	}
	return data, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// withoutVar returns env without the variable name, and its value.
func withoutVar(env []string, name string) ([]string, string) {
	out := make([]string, 0, len(env)+4)
	val := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			val = v
			continue
		}
		out = append(out, kv)
	}
	return out, val
}

// samples is what a sampler file holds.
type samples struct {
	started       bool          // the library mapped the file (it records the mappings at the first burst)
	mapsCost      time.Duration // CPU time the library spent recording the mappings
	bursts        []Burst
	maps          hotcfg.Maps
	mem           map[uint64][]byte // memory images (the vDSO) by start address
	lost, skipped uint64
	conflict      int
	notes         []string
	steps         StepReport
	nBursts       int           // bursts recorded
	nPCs          uint64        // their PCs
	cost          time.Duration // their CPU time
}

// readSamples parses a sampler file. A malformed chunk is an error naming its
// offset. Without keep, only the tallies, the mappings, the notes and the header's
// facts are read: not the bursts, nor the memory images.
func readSamples(data []byte, keep bool) (*samples, error) {
	le := binary.LittleEndian
	if len(data) < fpsHeader || le.Uint64(data) != fpsMagic {
		return nil, errors.New("sample: the sampler's file has no valid header")
	}
	next := min(le.Uint64(data[16:]), uint64(len(data)))
	r := &samples{mem: map[uint64][]byte{}, lost: le.Uint64(data[32:]), conflict: int(le.Uint64(data[40:])), skipped: le.Uint64(data[48:]),
		started: le.Uint64(data[56:]) != 0, mapsCost: time.Duration(le.Uint64(data[64:])),
		steps: decodeSteps([3]uint64{le.Uint64(data[72:]), le.Uint64(data[80:]), le.Uint64(data[88:])},
			[2]uint64{le.Uint64(data[96:]), le.Uint64(data[104:])})}
	for off := uint64(fpsHeader); off+fpsChunk <= next; off += fpsChunk {
		c := data[off : off+fpsChunk]
		pid, tid, used := int(le.Uint32(c)), int(le.Uint32(c[4:])), int(le.Uint32(c[8:]))
		recs := c[16:]
		if used > len(recs) {
			return nil, fmt.Errorf("sample: sampler file: chunk at %#x claims %d bytes", off, used)
		}
		for p := 0; p < used; {
			if p+8 > used {
				return nil, fmt.Errorf("sample: sampler file: truncated record at %#x", off+16+uint64(p))
			}
			typ, n := le.Uint32(recs[p:]), int(le.Uint32(recs[p+4:]))
			if n < 8 || p+n > used {
				return nil, fmt.Errorf("sample: sampler file: record of %d bytes at %#x", n, off+16+uint64(p))
			}
			body := recs[p+8 : p+n]
			switch typ {
			case recBurst:
				if len(body) < 40 {
					return nil, fmt.Errorf("sample: sampler file: short burst at %#x", off+16+uint64(p))
				}
				np, ns := int(le.Uint32(body[16:])), int(le.Uint32(body[20:]))
				if 40+8*np+ns > len(body) {
					return nil, fmt.Errorf("sample: sampler file: burst of %d PCs overruns its record at %#x", np, off+16+uint64(p))
				}
				r.nBursts++
				r.nPCs += uint64(np)
				r.cost += time.Duration(le.Uint64(body[8:]))
				if !keep {
					break
				}
				b := Burst{Batch: hotcfg.Batch{Time: time.Duration(le.Uint64(body)), PID: pid, TID: tid, PCs: make([]uint64, np)},
					Cost: time.Duration(le.Uint64(body[8:]))}
				for i := range b.PCs {
					b.PCs[i] = le.Uint64(body[40+8*i:])
				}
				if ns > 0 {
					b.Stack = &Stack{PC: b.PCs[0], SP: le.Uint64(body[24:]), BP: le.Uint64(body[32:]),
						Mem: bytes.Clone(body[40+8*np : 40+8*np+ns])}
				}
				r.bursts = append(r.bursts, b)
			case recMaps:
				r.started = true
				for _, m := range parseMaps(string(bytes.TrimRight(body, "\x00"))) {
					r.maps.Add(m)
				}
			case recMem:
				if keep && len(body) > 8 {
					r.mem[le.Uint64(body)] = bytes.Clone(body[8:])
				}
			case recNote:
				r.notes = append(r.notes, string(bytes.TrimRight(body, "\x00")))
			}
			p += n
		}
	}
	sort.SliceStable(r.bursts, func(i, j int) bool { return r.bursts[i].Time < r.bursts[j].Time })
	return r, nil
}

// burstCode decodes the PCs of a sampled run offline: from the mapped files, from
// the memory images the library saved (the vDSO), and with the lengths of VEX
// instructions (which x86asm does not decode) learned from consecutive PCs.
type burstCode struct {
	files   *Files
	mem     map[uint64][]byte
	learned map[uint64]hotcfg.Insn
}

func (c *burstCode) raw(addr uint64) (insn, bool) {
	for start, b := range c.mem {
		if addr >= start && addr < start+uint64(len(b)) {
			return decode(b[addr-start:], addr)
		}
	}
	if m, ok := c.files.Maps.Find(addr); ok {
		if f, err := openReaderAt(m.Path); err == nil {
			var buf [16]byte
			n, _ := f.ReadAt(buf[:], int64(addr-m.Start+m.Offset))
			return decode(buf[:n], addr)
		}
	}
	return insn{}, false
}

// learn records the length of each unsure instruction followed by another in pcs.
func (c *burstCode) learn(pcs []uint64) {
	for i := 0; i+1 < len(pcs); i++ {
		if _, ok := c.learned[pcs[i]]; ok {
			continue
		}
		in, ok := c.raw(pcs[i])
		if !ok {
			continue
		}
		if in.unsure {
			if d := pcs[i+1] - pcs[i]; pcs[i+1] > pcs[i] && d <= 15 {
				c.learned[pcs[i]] = hotcfg.Insn{Addr: pcs[i], Len: uint8(d), Kind: hotcfg.Other}
			}
			continue
		}
		c.learned[pcs[i]] = in.Insn
	}
}

// Insn implements hotcfg.Code.
func (c *burstCode) Insn(addr uint64) (hotcfg.Insn, bool) {
	if in, ok := c.learned[addr]; ok {
		return in, true
	}
	in, ok := c.raw(addr)
	if !ok || in.unsure {
		return hotcfg.Insn{}, false
	}
	c.learned[addr] = in.Insn
	return in.Insn, true
}

// A PlainRun is the cost and outcome of one run of a program.
type PlainRun struct {
	Wall     time.Duration
	CPU      time.Duration // user + system time of the program and its waited-for descendants
	ExitCode int           // 128+signal when killed
	Signal   syscall.Signal
}

// runPlain runs the target (with the same address-space layout as a traced run).
func runPlain(t Target) (PlainRun, error) {
	var r PlainRun
	err := locked(func() error {
		path := t.Path
		if !strings.Contains(path, "/") {
			p, err := exec.LookPath(path)
			if err != nil {
				return err
			}
			path = p
		}
		cmd := exec.Command(path, t.Args...)
		cmd.Args[0] = t.Path
		cmd.Env = t.Env
		cmd.Stdin, cmd.Stdout, cmd.Stderr = t.Stdin, t.Stdout, t.Stderr
		// Killed with fragprof, even by SIGKILL: the parent-death signal follows this
		// locked thread, which lives until the program has been waited for.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if !t.ASLR {
			old := personality(0xffffffff)
			personality(old | addrNoRandomize)
			defer personality(old)
		}
		// A SIGINT or SIGTERM to fragprof alone (kill PID, not Ctrl-C) would leave
		// the program running: it gets it too (endOwn).
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		start := time.Now()
		if err := cmd.Start(); err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var err error
		select {
		case err = <-done:
		case s := <-ch:
			err = endOwn(cmd.Process, s.(syscall.Signal), done)
		}
		r.Wall = time.Since(start)
		if cmd.ProcessState != nil {
			r.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
				if ws.Signaled() {
					r.Signal = ws.Signal()
					r.ExitCode = 128 + int(ws.Signal())
				} else {
					r.ExitCode = ws.ExitStatus()
				}
			}
		}
		if _, ok := err.(*exec.ExitError); ok {
			return nil
		}
		return err
	})
	return r, err
}

// StartCost measures what the in-process sampler costs a process outside its
// bursts, which the bursts' own clock cannot see: loading the library, starting it
// (the file's mapping, the handlers, the timer) and its exit. It runs true(1), a
// dynamically linked program of the system, pairs times plainly and pairs times
// under a sampler that takes no burst (an interval of an hour), alternating, and
// returns the median of the per-pair differences of CPU time (user + system, from
// wait4), floored at 0. ok is false when no preloadable true(1) is found. On this
// project's VM it is about 0.1 ms (docs/sampling.md), 3–6% of a 2–4 ms run and
// nothing measurable in one of a tenth of a second.
func StartCost(pairs int) (cost time.Duration, ok bool, err error) {
	t, done, err := trueTarget()
	if t == nil || err != nil {
		return 0, false, err
	}
	defer done()
	plain := func() (time.Duration, error) {
		r, err := runPlain(*t)
		return r.CPU, err
	}
	preloaded := func() (time.Duration, error) {
		s, err := Preload(*t, Options{Interval: time.Hour, Burst: 1}, 0, func(Burst, hotcfg.Code) {})
		if err != nil {
			return 0, err
		}
		return s.CPU, nil
	}
	cost, err = pairedCost(pairs, plain, preloaded)
	return cost, err == nil, err
}

// pairedCost returns the median over pairs pairs of the difference of the CPU
// times of a run of with and one of without, floored at 0. The pairs alternate which
// run comes first (without first in even pairs), so that a trend in the machine's
// load falls on both alike. The first error ends it.
func pairedCost(pairs int, without, with func() (time.Duration, error)) (time.Duration, error) {
	diffs := make([]float64, 0, pairs)
	for i := 0; i < pairs; i++ {
		var base, cost time.Duration
		for k := 0; k < 2; k++ {
			var err error
			if (i+k)%2 == 0 {
				base, err = without()
			} else {
				cost, err = with()
			}
			if err != nil {
				return 0, err
			}
		}
		diffs = append(diffs, float64(cost-base))
	}
	return time.Duration(max(stats.Median(diffs), 0)), nil
}

// trueTarget returns true(1) as a target with its input and outputs on /dev/null,
// and what closes them; nil when the system has no preloadable true(1).
func trueTarget() (*Target, func(), error) {
	path, err := exec.LookPath("true")
	if err != nil {
		return nil, nil, nil
	}
	if can, _ := Preloadable(path); !can {
		return nil, nil, nil
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	return &Target{Path: path, Stdin: null, Stdout: null, Stderr: null}, func() { null.Close() }, nil
}

// ProbeSteps runs true(1) under the in-process sampler with every stepping method
// tried at start (a trial burst each: int3, hardware breakpoints, the trap flag) and
// returns the trials, to say which methods deliver on this host. ok is false when
// the system has no preloadable true(1).
func ProbeSteps() (r StepReport, ok bool, err error) {
	t, done, err := trueTarget()
	if t == nil || err != nil {
		return r, false, err
	}
	defer done()
	s, err := Preload(*t, Options{Interval: time.Hour, Burst: 25, probeSteps: true}, 0, func(Burst, hotcfg.Code) {})
	if err != nil {
		return r, false, err
	}
	return s.Steps, true, nil
}
