// This file implements symbols, source lines and offline decoding from the ELF files
// mapped into a traced process.

package sample

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/go-delve/delve/pkg/dwarf/frame"

	"github.com/fragprof/fragprof/hotcfg"
)

// An elfFile is one mapped file's symbols and line table.
type elfFile struct {
	f       *elf.File
	path    string
	fdes    frame.FrameDescriptionEntries // .eh_frame, parsed whole on first use (cfi)
	cfiOnce sync.Once
	// The table of .eh_frame_hdr (nil when none is usable), read on first use,
	// and the entries parsed from it one at a time, by offset in .eh_frame (fdeFor;
	// an elfFile is shared by every Files of the process).
	hdrOnce sync.Once
	hdr     *fdeTable
	fdeMu   sync.Mutex
	fdeAt   map[uint64]*frame.FrameDescriptionEntry
	rulesMu sync.Mutex
	rules   map[uint64]frameRule // by PC (frameRule)
	progs   []*elf.Prog
	// The symbols, and the files they and lines come from (the file, its separate
	// debug file), are read on first use (symbols): a sampled run that is only
	// unwound and decoded never needs them, and reading them was most of
	// `fragprof sample`'s own CPU time (libc's and its debug file's symbol
	// tables, 20-30 ms a run on this project's VM).
	symsOnce  sync.Once
	syms      []elf.Symbol // functions sorted by Value
	sources   []*elf.File
	linesOnce sync.Once
	lines     []lineRow // sorted by address; read on first use (lineTable)
}

type lineRow struct {
	addr uint64
	file string
	line int
}

// DebugDirs are where separate debug files are looked for, as gdb and perf do:
// DIR/.build-id/xx/yyyy.debug by build ID, and DIR/<the file's directory>/NAME by
// .gnu_debuglink.
var DebugDirs = []string{"/usr/lib/debug"}

// openELF opens a mapped file with its symbols and line table: from the file itself,
// from its separate debug file when there is one (stripped distribution binaries and
// libraries with their -dbg/-dbgsym package installed), and from .dynsym, the
// exported functions, when nothing else names them.
func openELF(path string) (*elfFile, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	e := &elfFile{f: f, path: path}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			e.progs = append(e.progs, p)
		}
	}
	return e, nil
}

// symbols reads, on first use, the function symbols sorted by address: the file's
// own, its debug file's, then .dynsym's.
func (e *elfFile) symbols() []elf.Symbol {
	e.symsOnce.Do(func() {
		e.sources = []*elf.File{e.f}
		if d := debugFile(e.f, e.path); d != nil {
			e.sources = append(e.sources, d)
		}
		seen := map[uint64]bool{}
		add := func(syms []elf.Symbol) {
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 && !seen[s.Value] {
					seen[s.Value] = true
					e.syms = append(e.syms, s)
				}
			}
		}
		for _, src := range e.sources {
			syms, _ := src.Symbols()
			add(syms)
		}
		dyn, _ := e.f.DynamicSymbols()
		add(dyn)
		sort.Slice(e.syms, func(i, j int) bool { return e.syms[i].Value < e.syms[j].Value })
	})
	return e.syms
}

// lineTable reads the line table on first use (from the debug file first): a
// sampled run that is only unwound or decoded never needs it.
func (e *elfFile) lineTable() []lineRow {
	e.linesOnce.Do(func() {
		e.symbols() // finds the debug file
		for i := len(e.sources) - 1; i >= 0; i-- {
			if d, err := e.sources[i].DWARF(); err == nil {
				if e.lines = readLines(d); len(e.lines) > 0 {
					break
				}
			}
		}
	})
	return e.lines
}

// buildID returns the NT_GNU_BUILD_ID of f, hex-encoded, or "".
func buildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz, dsz, typ := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:]), f.ByteOrder.Uint32(b[8:])
			name := 12 + (int(nsz)+3)&^3
			end := name + (int(dsz)+3)&^3
			if end > len(b) || name > len(b) || 12+int(nsz) > len(b) {
				break
			}
			if typ == 3 && nsz == 4 && string(b[12:15]) == "GNU" && int(dsz) <= end-name {
				return hex.EncodeToString(b[name : name+int(dsz)])
			}
			b = b[end:]
		}
	}
	return ""
}

// debugFile finds the separate debug file of f (opened from path): by build ID
// under each of DebugDirs, then by the .gnu_debuglink name next to the file, in its
// .debug directory and under DebugDirs, checking the link's CRC-32 (as gdb does).
// A candidate whose build ID differs from f's is refused.
func debugFile(f *elf.File, path string) *elf.File {
	id := buildID(f)
	try := func(p string, crc uint32, checkCRC bool) *elf.File {
		if p == path {
			return nil
		}
		if checkCRC {
			b, err := os.ReadFile(p)
			if err != nil || crc32.ChecksumIEEE(b) != crc {
				return nil
			}
		}
		d, err := elf.Open(p)
		if err != nil {
			return nil
		}
		if did := buildID(d); id != "" && did != "" && did != id {
			d.Close()
			return nil
		}
		return d
	}
	if len(id) > 2 {
		for _, dir := range DebugDirs {
			if d := try(filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug"), 0, false); d != nil {
				return d
			}
		}
	}
	if s := f.Section(".gnu_debuglink"); s != nil {
		if b, err := s.Data(); err == nil {
			if i := bytes.IndexByte(b, 0); i > 0 && len(b) >= 4 {
				name := string(b[:i])
				crc := f.ByteOrder.Uint32(b[len(b)-4:])
				real, err := filepath.EvalSymlinks(path)
				if err != nil {
					real = path
				}
				dir := filepath.Dir(real)
				cands := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
				for _, d := range DebugDirs {
					cands = append(cands, filepath.Join(d, dir, name))
				}
				for _, c := range cands {
					if d := try(c, crc, true); d != nil {
						return d
					}
				}
			}
		}
	}
	return nil
}

func readLines(d *dwarf.Data) []lineRow {
	var rows []lineRow
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(cu)
		if err == nil && lr != nil {
			var le dwarf.LineEntry
			for {
				if err := lr.Next(&le); err != nil {
					if !errors.Is(err, io.EOF) {
						break
					}
					break
				}
				if le.EndSequence || le.File == nil {
					continue
				}
				rows = append(rows, lineRow{le.Address, le.File.Name, le.Line})
			}
		}
		r.SkipChildren()
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].addr < rows[j].addr })
	return rows
}

// vaddr converts a file offset to the ELF virtual address.
func (e *elfFile) vaddr(off uint64) (uint64, bool) {
	for _, p := range e.progs {
		if off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

func (e *elfFile) sym(va uint64) (elf.Symbol, bool) {
	syms := e.symbols()
	i := sort.Search(len(syms), func(i int) bool { return syms[i].Value > va })
	for i > 0 {
		s := syms[i-1]
		if va < s.Value+s.Size || s.Size == 0 && va-s.Value < 1<<16 {
			return s, true
		}
		if s.Size != 0 {
			break
		}
		i--
	}
	return elf.Symbol{}, false
}

func (e *elfFile) line(va uint64) (string, int) {
	lines := e.lineTable()
	i := sort.Search(len(lines), func(i int) bool { return lines[i].addr > va })
	if i == 0 {
		return "", 0
	}
	r := lines[i-1]
	return r.file, r.line
}

// Files symbolizes and decodes addresses of a traced address space from the files
// its mappings name; it implements hotcfg.Symbolizer and hotcfg.Code (reading code
// from the files, so it works after the process is gone).
type Files struct {
	Maps  hotcfg.Maps
	files map[string]*elfFile
	code  map[uint64]hotcfg.Insn
}

// NewFiles returns a Files over maps. Files that cannot be opened are skipped.
func NewFiles(maps hotcfg.Maps) *Files {
	return &Files{Maps: maps, files: map[string]*elfFile{}, code: map[uint64]hotcfg.Insn{}}
}

func (fs *Files) file(path string) *elfFile {
	if e, ok := fs.files[path]; ok {
		return e
	}
	e := sharedELF(path)
	fs.files[path] = e
	return e
}

// The ELF files opened so far, shared by every Files of this process (a sampled
// --repeat run opens the same libraries each run), keyed by path, size,
// modification time (a rebuilt file is read again) and DebugDirs.
var (
	elfMu    sync.Mutex
	elfCache = map[string]*elfFile{}
)

func sharedELF(path string) *elfFile {
	st, err := os.Stat(path)
	if err != nil {
		return nil
	}
	key := fmt.Sprintf("%s\x00%d\x00%d\x00%q", path, st.Size(), st.ModTime().UnixNano(), DebugDirs)
	elfMu.Lock()
	defer elfMu.Unlock()
	if e, ok := elfCache[key]; ok {
		return e
	}
	e, err := openELF(path)
	if err != nil {
		e = nil
	}
	elfCache[key] = e
	return e
}

// Symbolize implements hotcfg.Symbolizer.
func (fs *Files) Symbolize(addr uint64) hotcfg.Symbol {
	m, ok := fs.Maps.Find(addr)
	if !ok {
		return hotcfg.Symbol{}
	}
	out := hotcfg.Symbol{Module: filepath.Base(m.Path)}
	e := fs.file(m.Path)
	if e == nil {
		return out
	}
	off := addr - m.Start + m.Offset
	va, ok := e.vaddr(off)
	if !ok {
		return out
	}
	if s, ok := e.sym(va); ok {
		out.Func = s.Name
		out.Entry = addr - (va - s.Value)
		out.DefFile, out.DefLine = e.line(s.Value)
	}
	out.File, out.Line = e.line(va)
	return out
}

// Insn implements hotcfg.Code by decoding the bytes of the mapped file.
func (fs *Files) Insn(addr uint64) (hotcfg.Insn, bool) {
	if in, ok := fs.code[addr]; ok {
		return in, in.Len > 0
	}
	var in insn
	ok := false
	if m, found := fs.Maps.Find(addr); found {
		if e := fs.file(m.Path); e != nil {
			var buf [16]byte
			off := int64(addr - m.Start + m.Offset)
			if f, err := openReaderAt(m.Path); err == nil {
				n, _ := f.ReadAt(buf[:], off)
				in, ok = decode(buf[:n], addr)
			}
		}
	}
	fs.code[addr] = in.Insn
	return in.Insn, ok
}

// Lines returns the distinct source lines of the instructions of b, decoding them
// from the files.
func (fs *Files) Lines(b *hotcfg.Block) []int {
	seen := map[int]bool{}
	var out []int
	addr := b.Start
	for n := 0; n < b.Insns && addr <= b.Last; n++ {
		if s := fs.Symbolize(addr); s.Line > 0 && !seen[s.Line] {
			seen[s.Line] = true
			out = append(out, s.Line)
		}
		in, ok := fs.Insn(addr)
		if !ok {
			break
		}
		addr = in.Next()
	}
	sort.Ints(out)
	return out
}
