// Package dump reads the counter dumps that the fragprof runtime writes (layout in
// docs/runtime.md) and turns them into a profile: each unit's metadata blob gives its
// CFG and counter plan, and the plan reconstructs every block and edge count.
package dump

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/faultloc"
	"github.com/fragprof/fragprof/internal/instrument"
	"github.com/fragprof/fragprof/profile"
)

// Magic opens every dump.
const Magic = "FPDUMP\x00\x01"

// FileMagic opens a dump file: a header and two slots, one of which holds the dump
// (docs/runtime.md, "Dump file"). The runtime writes one for FRAGPROF_OUT.
const FileMagic = "FPDUMP\x00\x02"

// fileHeader is the size of a dump file's header.
const fileHeader = 64

// unwrap returns the dump a dump file holds: the slot its header's state word names
// (the low bit: the slot; the other 63 bits: the dump's length). Data that is not a
// dump file (a bare dump: a fork-server trial's, FRAGPROF_FD's, an older fragprof's) is
// returned as it is.
func unwrap(name string, data []byte) ([]byte, error) {
	if len(data) < 8 || !bytes.Equal(data[:8], []byte(FileMagic)) {
		return data, nil
	}
	if len(data) < fileHeader {
		return nil, fmt.Errorf("%s: not a valid fragprof dump file: truncated header", name)
	}
	le := binary.LittleEndian
	state, slotCap := le.Uint64(data[8:]), le.Uint64(data[16:])
	n, slot := state>>1, state&1
	if slotCap > uint64(len(data)) || fileHeader+2*slotCap > uint64(len(data)) || n > slotCap {
		return nil, fmt.Errorf("%s: not a valid fragprof dump file: slots of %d bytes, a dump of %d, in %d bytes", name, slotCap, n, len(data))
	}
	off := fileHeader + slot*slotCap
	return data[off : off+n], nil
}

// ReadFile reads the file path (a dump file or a bare dump, for Parse) under a shared
// flock, which the runtime's writers exclude while they write.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != syscall.EINTR {
			break
		}
	}
	return io.ReadAll(f)
}

// A Dump is one process's counters.
type Dump struct {
	MainReturned bool // main returned (rather than exit(), a signal, ...)
	Signal       int  // the fatal signal that caused the dump, or 0
	Pid          int
	Units        []Unit
	// Continuous reports a dump written in continuous mode: the counters lived in the
	// file while the program ran (runtime/c/rt_continuous.c).
	Continuous bool
	// Finished reports that the runtime completed the dump (at exit or on a signal).
	// A continuous dump without it comes from a program that was killed (SIGKILL,
	// _exit): its counts are those of the moment it stopped.
	Finished bool
	// Fault is where the fault that killed the program happened, when the kernel
	// raised it (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP from an instruction), or nil.
	Fault *faultloc.Fault
	// Unwalked reports that the runtime's walk of the faulting thread's stack, which
	// counts where each activation stopped in builds at -O0 (instrument.AtStop),
	// met a frame it could not read or trust: the counts near the fault may be off
	// by one.
	Unwalked bool
	// Warnings are filled by Profile: what the reader of the counts should know
	// (counts near a stopping point that may be off by one, schemes that fell back).
	Warnings []string
}

// Header flags (offset 28).
const (
	flagContinuous = 1  // page-aligned counter blocks, the counters lived in the file
	flagFinished   = 2  // the runtime completed the dump
	flagMerged     = 4  // the counts of several processes of one run, added up
	flagFault      = 8  // a fault record (faultSize bytes) ends the dump
	flagUnwalked   = 16 // the stack walk after a fault met a frame it could not read (runtime/c/walk.c)
)

// faultSize is the size of the fault record: five little-endian 64-bit words, the
// program counter, the faulting address, the executable's load address, si_code and
// the stack pointer.
const faultSize = 40

// pageSize is the alignment of counter blocks in a continuous dump.
const pageSize = instrument.CounterPage

// A Unit is one translation unit's plan and counter values.
type Unit struct {
	Unit     *instrument.Unit
	Counters []uint64
}

// maxSize bounds the sizes a header may claim, so a hostile file cannot make the
// reader allocate without limit.
const maxSize = 1 << 30

// Parse reads a dump. name is used in errors.
func Parse(name string, data []byte) (*Dump, error) { return ParseKnown(name, data, nil) }

// refML is the metadata length of a unit whose metadata a fork server's trial wrote
// by reference: 8 bytes follow, the FNV-1a hash of the metadata, which the client
// has from an earlier dump of the same server (docs/runtime.md, "Dump layout").
const refML = 0xFFFFFFFF

// Known is the metadata a fork server's client has received, by hash: the units that
// its later trials write by reference (exec.Server learns it from every reply). The
// zero value is ready to use; not safe for concurrent use.
type Known struct {
	byHash map[uint64]*instrument.Unit
	hashed map[*instrument.Unit]bool
}

func (k *Known) learn(blob []byte, u *instrument.Unit) {
	if k.hashed[u] {
		return
	}
	if k.byHash == nil {
		k.byHash, k.hashed = map[uint64]*instrument.Unit{}, map[*instrument.Unit]bool{}
	}
	h := fnv.New64a()
	h.Write(blob)
	k.byHash[h.Sum64()] = u
	k.hashed[u] = true
}

// Learn learns the metadata of the units that the dump data carries in full. A
// damaged dump teaches what precedes the damage.
func (k *Known) Learn(data []byte) {
	le := binary.LittleEndian
	if len(data) < 32 || !bytes.Equal(data[:8], []byte(Magic)) || le.Uint32(data[28:])&flagContinuous != 0 {
		return
	}
	off := 32
	for i := uint32(0); i < le.Uint32(data[12:]) && off+8 <= len(data); i++ {
		nc, ml := int(le.Uint32(data[off:])), int(le.Uint32(data[off+4:]))
		off += 8
		if nc > maxSize/8 {
			return
		}
		if ml == refML {
			off += 8 + 8*nc
			continue
		}
		if ml > maxSize || off+ml > len(data) {
			return
		}
		if u, err := decodeMeta(data[off : off+ml]); err == nil {
			k.learn(data[off:off+ml], u)
		}
		off += ml + (8-ml%8)%8 + 8*nc
	}
}

// ParseKnown reads a dump whose units may refer to metadata by reference, resolved
// with known, which learns the metadata of the units written in full. With a nil
// known, a reference is an error.
func ParseKnown(name string, data []byte, known *Known) (*Dump, error) {
	return parse(name, data, known, false)
}

// ParseView is ParseKnown for a caller done with the dump before data changes: the
// units' counters may be views of data itself (on a little-endian host), not
// copies. A freq trial of sqlite3 so reads its 100,000 counters without copying
// them, once a trial, into memory of their own. The dump must not be modified (Add).
func ParseView(name string, data []byte, known *Known) (*Dump, error) {
	return parse(name, data, known, true)
}

// littleEndian reports a host whose uint64s have the dump's byte order.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// counters returns the nc little-endian counters at b: a view of b when view is set,
// the host is little-endian and b is aligned for uint64; otherwise a copy.
func counters(b []byte, nc int, view bool) []uint64 {
	if nc == 0 {
		return []uint64{}
	}
	if view && littleEndian && uintptr(unsafe.Pointer(&b[0]))%8 == 0 {
		return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), nc)
	}
	vals := make([]uint64, nc)
	for k := range vals {
		vals[k] = binary.LittleEndian.Uint64(b[8*k:])
	}
	return vals
}

func parse(name string, data []byte, known *Known, view bool) (*Dump, error) {
	bad := func(f string, a ...any) error {
		return fmt.Errorf("%s: not a valid fragprof dump: %s", name, fmt.Sprintf(f, a...))
	}
	data, err := unwrap(name, data)
	if err != nil {
		return nil, err
	}
	if len(data) < 32 || !bytes.Equal(data[:8], []byte(Magic)) {
		return nil, bad("bad header (was the program built by fragprof, and did it run to a dump?)")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != 1 {
		return nil, bad("version %d, this fragprof reads version 1", v)
	}
	n := le.Uint32(data[12:])
	d := &Dump{MainReturned: le.Uint32(data[16:]) != 0, Signal: int(le.Uint32(data[20:])), Pid: int(le.Uint32(data[24:]))}
	flags := le.Uint32(data[28:])
	d.Continuous = flags&flagContinuous != 0
	d.Unwalked = flags&flagUnwalked != 0
	d.Finished = !d.Continuous || flags&flagFinished != 0
	if flags&flagFault != 0 {
		if len(data) < 32+faultSize {
			return nil, bad("truncated fault record")
		}
		r := data[len(data)-faultSize:]
		d.Fault = &faultloc.Fault{PC: le.Uint64(r), Addr: le.Uint64(r[8:]), Base: le.Uint64(r[16:]), Code: int(int64(le.Uint64(r[24:]))), SP: le.Uint64(r[32:])}
		data = data[:len(data)-faultSize]
	}
	off := 32
	for i := uint32(0); i < n; i++ {
		if off+8 > len(data) {
			return nil, bad("truncated at unit %d", i)
		}
		nc, ml := int(le.Uint32(data[off:])), int(le.Uint32(data[off+4:]))
		off += 8
		if ml == refML {
			if known == nil || d.Continuous || off+8+8*nc > len(data) || nc > maxSize/8 {
				return nil, bad("unit %d refers to metadata by reference where none can be", i)
			}
			h := le.Uint64(data[off:])
			u := known.byHash[h]
			if u == nil {
				return nil, bad("unit %d refers to metadata %016x that no earlier dump of this fork server carried", i, h)
			}
			if u.NumCounters() != nc {
				return nil, bad("unit %s has %d counters but its plan needs %d", u.Source, nc, u.NumCounters())
			}
			off += 8
			vals := counters(data[off:off+8*nc], nc, view)
			off += 8 * nc
			d.Units = append(d.Units, Unit{Unit: u, Counters: vals})
			continue
		}
		pad := (8 - ml%8) % 8
		span := 8 * nc
		if d.Continuous {
			pad = (pageSize - (off+ml)%pageSize) % pageSize
			span = 8 * instrument.PaddedCounters(nc)
		}
		if nc > maxSize/8 || ml > maxSize || off+ml+pad+span > len(data) {
			return nil, bad("truncated at unit %d", i)
		}
		u, err := decodeMeta(data[off : off+ml])
		if err != nil {
			return nil, fmt.Errorf("%s: unit %d: %v", name, i, err)
		}
		if known != nil {
			known.learn(data[off:off+ml], u)
		}
		off += ml + pad
		if u.NumCounters() != nc {
			return nil, bad("unit %s has %d counters but its plan needs %d", u.Source, nc, u.NumCounters())
		}
		vals := counters(data[off:off+8*nc], nc, view)
		off += span
		d.Units = append(d.Units, Unit{Unit: u, Counters: vals})
	}
	if off != len(data) {
		return nil, bad("%d bytes of trailing data", len(data)-off)
	}
	return d, nil
}

// Flow returns how strictly flow conservation can be checked on this dump's counts:
// Conserved when main returned and no function calls setjmp (a longjmp leaves frames
// without returning), Entered otherwise.
func (d *Dump) Flow() cfg.Flow {
	if !d.MainReturned || !d.Finished {
		return cfg.Entered
	}
	for _, u := range d.Units {
		for _, fp := range u.Unit.Funcs {
			if fp.Func.ReturnsTwice {
				return cfg.Entered
			}
		}
	}
	return cfg.Conserved
}

// stoppedAbruptly reports whether an activation may have stopped in a block without
// a call: the program died of a signal or was killed.
func (d *Dump) stoppedAbruptly() bool { return d.Signal != 0 || !d.Finished }

// Profile reconstructs every block and edge count and returns them as a profile,
// functions in source order. It checks flow conservation and fails rather than return
// counts that contradict each other.
func (d *Dump) Profile() (*profile.Profile, error) { return d.profile(false) }

// SparseProfile is Profile, except that a function none of whose counters moved
// (it did not run) gets the zero cfg.Counts, nil slices, instead of all-zero ones:
// what a freq trial folds, where most functions of a large program never run
// (sqlite3: 90 % of 3,000) and reconstructing and folding their zeros was most of
// a trial's cost in fragprof.
func (d *Dump) SparseProfile() (*profile.Profile, error) { return d.profile(true) }

func (d *Dump) profile(sparse bool) (*profile.Profile, error) {
	lay := layoutOf(d)
	p := &profile.Profile{Program: &cfg.Program{Funcs: lay.funcs}, Runs: 1}
	p.Counts = make([]cfg.Counts, len(lay.funcs))
	idle := make([]bool, len(lay.funcs)) // no counter moved: every count 0, conserved
	// solved: every copy's counts come from solving the chords' flow equations,
	// which checks conservation at every node (FuncPlan.Reconstruct); a trial's
	// sparse profile does not check them again (a twentieth of a sqlite3 trial).
	solved := make([]bool, len(lay.funcs))
	owned := make([]bool, len(lay.funcs)) // sparse: p.Counts[k] is a copy of its own
	for i := range idle {
		idle[i], solved[i] = true, sparse
	}
	d.Warnings = nil
	abrupt := d.stoppedAbruptly()
	chords, promoted := false, false
	for _, u := range d.Units {
		promoted = promoted || u.Unit.Promoted
	}
	var adjusted []string
	for ui, u := range d.Units {
		funcs := u.Unit.Funcs
		offs := lay.offs[ui]
		// Each function's counts; those counted at their call sites
		// (EntryFromCalls) once the counts of their callers are known.
		sc := scratchFor(len(funcs))
		defer sc.release()
		cs, rans, errs, done := sc.cs, sc.rans, sc.errs, sc.done
		solve := func(j int, calls uint64) {
			fp := funcs[j]
			vals := u.Counters[offs[j]:offs[j+1]]
			ran := !allZero(vals) || calls > 0
			var c cfg.Counts
			var err error
			switch {
			case sparse && !ran:
			case abrupt:
				var adj bool
				c, adj, err = fp.ReconstructTolerant(vals, calls)
				if adj {
					adjusted = append(adjusted, fp.Func.Name)
				}
			case sparse: // a freq trial's: read, never modified, below or after
				c, err = fp.ReconstructShared(vals, calls)
			default:
				c, err = fp.ReconstructCalls(vals, calls)
			}
			cs[j], rans[j], errs[j], done[j] = c, ran, err, true
		}
		left := 0
		for j, fp := range funcs {
			if fp.EntryFromCalls {
				left++
			} else {
				solve(j, 0)
			}
		}
		for left > 0 {
			progress := false
			for j, fp := range funcs {
				if done[j] || !fp.EntryFromCalls {
					continue
				}
				sites := u.Unit.Calls(j)
				ready := true
				var calls uint64
				for _, s := range sites {
					if !done[s.Func] {
						ready = false
						break
					}
					if b := cs[s.Func].Blocks; b != nil {
						calls += uint64(s.N) * b[s.Block]
					}
				}
				if ready {
					solve(j, calls)
					left--
					progress = true
				}
			}
			if !progress {
				return nil, fmt.Errorf("unit %s: the functions counted at their call sites call each other in a cycle (please report this as a fragprof bug)", u.Unit.Source)
			}
		}
		for j, fp := range funcs {
			c, ran, err := cs[j], rans[j], errs[j]
			if err != nil {
				if abrupt && promoted {
					return nil, fmt.Errorf("%v (the run %s inside a loop whose counters were kept in registers; count it with a build made with FRAGPROF_PROMOTE=0 and --counters blocks or edges)", err, d.stopText())
				}
				if abrupt {
					return nil, fmt.Errorf("%v (the run %s where chord counters cannot tell; count it with --counters blocks or edges)", err, d.stopText())
				}
				return nil, err
			}
			chords = chords || fp.Scheme == instrument.Chords
			if fp.Fallback != "" {
				d.Warnings = append(d.Warnings, fmt.Sprintf("function %s %s", fp.Func.Name, fp.Fallback))
			}
			p.Counters += len(fp.Counters)
			// Copies of a shared function in several units: one function, counts
			// added (a sparse idle copy has nothing to add).
			k := lay.dest[ui][j]
			switch {
			case c.Blocks == nil:
			case p.Counts[k].Blocks == nil:
				p.Counts[k] = c
			default:
				if sparse && !owned[k] { // the first copy's counts may be shared (ReconstructShared)
					p.Counts[k] = p.Counts[k].Clone()
					owned[k] = true
				}
				p.Counts[k].Add(c)
			}
			idle[k] = idle[k] && !ran
			solved[k] = solved[k] && (c.Blocks == nil || !abrupt && fp.Scheme == instrument.Chords)
		}
	}
	d.Warnings = append(d.Warnings, lay.warnings...)
	if !d.Finished {
		d.Warnings = append(d.Warnings, "the program was killed before it could finish (continuous mode kept the counts up to that moment)")
	}
	if d.stoppedFromOutside() {
		for _, u := range d.Units {
			if !u.Unit.InMemory {
				d.Warnings = append(d.Warnings, fmt.Sprintf("the run %s from outside: the counts of loops that were running then may be short, as the compiler keeps a counter in a register inside a loop; build with --volatile (FRAGPROF_VOLATILE=1 for fragprof cc) for counts exact at every moment", d.stopText()))
				break
			}
		}
	}
	if abrupt && chords && (d.Fault == nil || len(adjusted) > 0) { // a fault record: raised by an instruction
		w := fmt.Sprintf("the run %s: if the signal came from outside (not raised by a call or a faulting instruction of the program), the counts of the blocks where the active functions stopped may be off by one under --counters chords (blocks and edges count exactly)", d.stopText())
		if len(adjusted) > 0 {
			w += fmt.Sprintf("; in %v a stop outside a call was found and accounted for", adjusted)
		}
		d.Warnings = append(d.Warnings, w)
	}
	if d.Unwalked {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the run %s, and the walk of its stack that finds where each active function stopped met a frame it could not read or trust (a stack overflow, whose fault may come before the frame pointer moved): the counts of the blocks where they stopped may be off by one under --counters chords (blocks and edges count exactly)", d.stopText()))
	}
	if promoted && d.Finished && isFault(d.Signal) {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the run %s: in a build that keeps counters in registers (promoted, above -O0), the counts of the loop and of the block where the fault struck may be off; build with FRAGPROF_PROMOTE=0 for exact counts of runs that fault", d.stopText()))
	}
	flow := d.Flow()
	for i, f := range p.Program.Funcs {
		if idle[i] || solved[i] {
			continue
		}
		if err := f.CheckFlow(p.Counts[i], flow); err != nil {
			return nil, fmt.Errorf("counts fail flow conservation (please report this as a fragprof bug): %v", err)
		}
	}
	return p, nil
}

// A scratch holds what profile computes of one unit's functions before it adds
// them to the profile. Reused from one dump to the next (scratches): a trial of
// sqlite3, 3,000 functions, otherwise allocated 200 KB of it, and paid the page
// faults of fresh memory, every trial.
type scratch struct {
	cs   []cfg.Counts
	rans []bool
	errs []error
	done []bool
}

var scratches sync.Pool

// scratchFor returns a cleared scratch for n functions.
func scratchFor(n int) *scratch {
	sc, _ := scratches.Get().(*scratch)
	if sc == nil || cap(sc.cs) < n {
		return &scratch{cs: make([]cfg.Counts, n), rans: make([]bool, n), errs: make([]error, n), done: make([]bool, n)}
	}
	sc.cs, sc.rans, sc.errs, sc.done = sc.cs[:n], sc.rans[:n], sc.errs[:n], sc.done[:n]
	return sc
}

// release clears sc (it holds no counts of the dump) and returns it for reuse.
func (sc *scratch) release() {
	clear(sc.cs)
	clear(sc.rans)
	clear(sc.errs)
	clear(sc.done)
	scratches.Put(sc)
}

// allZero reports whether every counter value is 0.
func allZero(vals []uint64) bool {
	for _, v := range vals {
		if v != 0 {
			return false
		}
	}
	return true
}

// Simplified reports that some unit counted the CFG LLVM's early simplification
// left rather than the source-level one (instrument.Unit.Simplified).
func (d *Dump) Simplified() bool {
	for _, u := range d.Units {
		if u.Unit.Simplified {
			return true
		}
	}
	return false
}

// stoppedFromOutside reports a run stopped by a signal that comes from outside the
// program (Ctrl-C, a timeout, kill) rather than from a fault or a call of its own.
func (d *Dump) stoppedFromOutside() bool {
	if !d.Finished {
		return true
	}
	switch syscall.Signal(d.Signal) {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGALRM, syscall.SIGXCPU:
		return true
	}
	return false
}

// isFault reports whether sig is raised by a faulting instruction.
func isFault(sig int) bool {
	switch syscall.Signal(sig) {
	case syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGILL:
		return true
	}
	return false
}

// stopText says how the run stopped, for messages.
func (d *Dump) stopText() string {
	if !d.Finished {
		return "was killed"
	}
	if syscall.Signal(d.Signal) == syscall.SIGABRT && d.isCXX() {
		return "ended by signal aborted (in a C++ program, most often an exception that nothing caught: std::terminate calls abort(); the counts up to the throw are kept)"
	}
	return fmt.Sprintf("ended by signal %s", syscall.Signal(d.Signal))
}

// isCXX reports whether the program has C++ functions (Itanium-mangled names).
func (d *Dump) isCXX() bool {
	for _, u := range d.Units {
		for _, fp := range u.Unit.Funcs {
			if strings.HasPrefix(fp.Func.Name, "_Z") {
				return true
			}
		}
	}
	return false
}

// sharedFuncs finds the copies of one function that several units define (C++
// inline functions and templates): same name, same CFG. Each unit counted the
// activations of its own copy (out of line or inlined), so the program's counts are
// their sum — one function in the profile, not one per unit, nothing split or
// doubled.
type sharedFuncs map[string][]*cfg.Func

func (s sharedFuncs) find(f *cfg.Func) *cfg.Func {
	for _, g := range s[f.Name] {
		if checksum(g) == checksum(f) && g.File == f.File && g.Line == f.Line {
			return g
		}
	}
	return nil
}

func (s sharedFuncs) differs(f *cfg.Func) bool { return len(s[f.Name]) > 0 }

func (s sharedFuncs) add(f *cfg.Func) { s[f.Name] = append(s[f.Name], f) }

// checksums caches cfg.Func.Checksum of the shared functions of decoded metadata,
// which every dump of a binary shares (meta_cache.go).
var checksums sync.Map // *cfg.Func → uint64

func checksum(f *cfg.Func) uint64 {
	if v, ok := checksums.Load(f); ok {
		return v.(uint64)
	}
	c := f.Checksum()
	checksums.Store(f, c)
	return c
}
