// Package faultloc says where in a program a fault happened: it turns the program
// counter that the fragprof runtime recorded when the kernel raised SIGSEGV, SIGBUS,
// SIGILL, SIGFPE or SIGTRAP (docs/runtime.md, "The fault record") into the function
// and source line of the binary, with its ELF symbols and DWARF line table, and
// describes the fault as a user needs to read it ("a store to address 0x0: a null
// pointer").
package faultloc

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/fragprof/fragprof/internal/instrument"
)

// A Fault is what the runtime recorded: the program counter, the faulting address
// (si_addr), the address at which the executable's ELF header was loaded (which maps
// the program counter back into the file for a position-independent executable),
// si_code and the stack pointer.
type Fault struct {
	PC, Addr, Base uint64
	Code           int
	SP             uint64
}

// stackReach is how far from the stack pointer a faulting access counts as a stack
// overflow: a frame's own accesses, or a probe of the guard page below it.
const stackReach = 64 << 10

// A Location is a program counter's place in the binary.
type Location struct {
	Addr     uint64 // the program counter's address in the binary
	InBinary bool   // the program counter is in the binary's executable code
	Func     string // the function (ELF symbol) that contains it, or ""
	File     string // the source file and line, from DWARF, or ""
	Line     int
	Trap     bool // the instruction there is ud2, a trap the compiler placed (__builtin_trap)
	// PastEnd reports a program counter in the padding just past the end of Func
	// (File and Line are then those of Func's last instruction): the program ran off
	// the end of the function, which it does where the compiler proved the code
	// unreachable (undefined behaviour).
	PastEnd bool
}

// padding is how far past a function's end a program counter still counts as having
// run off it: functions are aligned to 16 bytes.
const padding = 16

// Locate finds pc, recorded in a run of the executable bin whose ELF header was loaded
// at base, in bin.
func Locate(bin string, pc, base uint64) (Location, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return Location{}, err
	}
	defer f.Close()
	first := headerSegment(f)
	if first == nil || base == 0 {
		return Location{}, errors.New("no load address of the ELF header")
	}
	addr := pc - base + first.Vaddr
	loc := Location{Addr: addr}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_EXECINSTR != 0 && s.Type == elf.SHT_PROGBITS && addr >= s.Addr && addr < s.Addr+s.Size {
			loc.InBinary = true
			if b := make([]byte, 2); addr+2 <= s.Addr+s.Size {
				if _, err := s.ReadAt(b, int64(addr-s.Addr)); err == nil && b[0] == 0x0f && b[1] == 0x0b {
					loc.Trap = true
				}
			}
		}
	}
	exec := loc.InBinary
	for _, p := range f.Progs {
		exec = exec || p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && addr >= p.Vaddr && addr < p.Vaddr+p.Memsz
	}
	if !exec {
		return loc, nil
	}
	at := addr
	if syms, err := f.Symbols(); err == nil {
		sort.Slice(syms, func(i, j int) bool { return syms[i].Value < syms[j].Value })
		var last elf.Symbol // the function that ends last at or before addr
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value > addr {
				continue
			}
			if addr < s.Value+s.Size || s.Size == 0 && s.Value == addr {
				loc.Func = s.Name
			} else if s.Size > 0 && s.Value+s.Size > last.Value+last.Size {
				last = s
			}
		}
		if loc.Func == "" && last.Size > 0 && addr-(last.Value+last.Size) < padding {
			loc.Func, loc.PastEnd, loc.InBinary = last.Name, true, true
			at = last.Value + last.Size - 1
		}
	}
	if loc.Func == instrument.MainName {
		loc.Func = "main" // renamed by fragprof (docs/runtime.md, "main")
	}
	if d, err := f.DWARF(); err == nil && loc.Func != "" {
		loc.File, loc.Line = line(d, at)
	}
	return loc, nil
}

// headerSegment is the loadable segment that holds the ELF header (file offset 0):
// the runtime records where it was loaded (__ehdr_start), which maps a run's addresses
// back to the binary's.
func headerSegment(f *elf.File) *elf.Prog {
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Off == 0 {
			return p
		}
	}
	return nil
}

// line is the source line of addr in d's line tables, or "", 0.
func line(d *dwarf.Data, addr uint64) (string, int) {
	r := d.Reader()
	cu, err := r.SeekPC(addr)
	if err != nil || cu == nil {
		return "", 0
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return "", 0
	}
	var e dwarf.LineEntry
	if err := lr.SeekPC(addr, &e); err != nil || e.File == nil {
		return "", 0
	}
	return e.File.Name, e.Line
}

// Describe says where and how the fault f of signal sig happened in a run of bin:
// "at 0x1c17 in main (x.c:12): a store to address 0x0, a null pointer". Addresses are
// those of the binary, not of the run, so that a run with the same seed gives the
// same report whatever the address space layout; an address outside the binary is
// described, not printed. It never fails: what cannot be found is left out.
func Describe(bin string, sig syscall.Signal, f Fault) string {
	loc, err := Locate(bin, f.PC, f.Base)
	where := ""
	switch {
	case err != nil:
		where = "at an unknown place"
	case !loc.InBinary && f.Addr == f.PC && (sig == syscall.SIGSEGV || sig == syscall.SIGBUS):
		to := "there"
		if f.PC < 4096 {
			to = fmt.Sprintf("to address %#x", f.PC)
		}
		return fmt.Sprintf("outside the program's code: it jumped %s (through a null or corrupted function pointer or return address, or past the end of code the compiler proved unreachable: undefined behaviour)", to)
	case !loc.InBinary:
		where = "outside the program's code (in a library)"
	case loc.PastEnd:
		where = fmt.Sprintf("at %#x, just past the end of %s", loc.Addr, loc.Func)
		if loc.File != "" {
			where += fmt.Sprintf(" (whose code ends at %s:%d)", filepath.Base(loc.File), loc.Line)
		}
		return where + ": the program ran off the end of the function, which it does where the compiler proved the code unreachable: undefined behaviour (a store through a null pointer, a loop that cannot end and has no side effect, a missing return...)"
	default:
		where = fmt.Sprintf("at %#x", loc.Addr)
		if loc.Func != "" {
			where += " in " + loc.Func
		}
		if loc.File != "" {
			where += fmt.Sprintf(" (%s:%d)", filepath.Base(loc.File), loc.Line)
		}
	}
	what := ""
	switch sig {
	case syscall.SIGSEGV, syscall.SIGBUS:
		switch {
		case f.Addr == f.PC:
			what = "executing an address it may not execute"
		case f.Addr < 4096:
			what = fmt.Sprintf("an access to address %#x, a null pointer", f.Addr)
		case f.SP != 0 && f.Addr+stackReach > f.SP && f.Addr < f.SP+stackReach:
			what = "an access next to the stack pointer: a stack overflow (deep or endless recursion, or large local arrays; the limit is 'ulimit -s')"
		case sig == syscall.SIGBUS && f.Code == 2: // BUS_ADRERR
			what = "an access to a page of a mapped file past the file's end: the file is shorter than its mapping (truncated after mmap, or mapped beyond its size)"
		case sig == syscall.SIGBUS && f.Code == 1: // BUS_ADRALN
			what = "a misaligned access"
		default:
			what = "an access to " + dataAddr(bin, f.Addr-f.Base)
			if sig == syscall.SIGSEGV && f.Code == 2 { // SEGV_ACCERR
				what += " (mapped, but not for that access: a write to read-only data?)"
			}
		}
	case syscall.SIGFPE:
		switch f.Code {
		case 1: // FPE_INTDIV
			what = "an integer division by zero"
		case 2: // FPE_INTOVF
			what = "an integer division overflow (INT_MIN / -1)"
		default:
			what = "a floating-point exception"
		}
	case syscall.SIGILL:
		if loc.Trap {
			what = "a ud2 trap instruction (__builtin_trap, a sanitizer's check, or code the compiler proved unreachable)"
		} else {
			what = "an illegal instruction"
		}
	}
	if what == "" {
		return where
	}
	return where + ": " + what
}

// dataAddr describes off, an address relative to the load address of bin's ELF
// header: a data symbol of the binary ("table+0x1000, past the end of table (4096
// bytes)"), or "an address outside the program's data (the heap, a library, or
// nowhere)".
func dataAddr(bin string, off uint64) string {
	const outside = "an address outside the program's data (the heap, a library, or unmapped memory)"
	f, err := elf.Open(bin)
	if err != nil {
		return outside
	}
	defer f.Close()
	first := headerSegment(f)
	if first == nil {
		return outside
	}
	addr := off + first.Vaddr
	inside := false
	for _, p := range f.Progs {
		inside = inside || p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Memsz
	}
	// An access up to 1 MiB past the last segment is still blamed on the object
	// before it: an index past the end of an array.
	var best elf.Symbol
	if syms, err := f.Symbols(); err == nil {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Size > 0 && s.Value <= addr && s.Value > best.Value {
				best = s
			}
		}
	}
	switch {
	case best.Size == 0 || addr-best.Value > 1<<20:
		if inside {
			return fmt.Sprintf("address %#x of the program's data", addr)
		}
		return outside
	case addr < best.Value+best.Size:
		return fmt.Sprintf("%s+%#x", best.Name, addr-best.Value)
	default:
		return fmt.Sprintf("%s+%#x, past the end of %s (%d bytes)", best.Name, addr-best.Value, best.Name, best.Size)
	}
}
