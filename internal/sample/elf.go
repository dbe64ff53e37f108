// This file implements symbols, source lines and offline decoding from the ELF files
// mapped into a traced process.

package sample

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"io"
	"path/filepath"
	"sort"

	"github.com/fragprof/fragprof/hotcfg"
)

// An elfFile is one mapped file's symbols and line table.
type elfFile struct {
	f     *elf.File
	progs []*elf.Prog
	syms  []elf.Symbol // functions sorted by Value
	lines []lineRow    // sorted by address
}

type lineRow struct {
	addr uint64
	file string
	line int
}

func openELF(path string) (*elfFile, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	e := &elfFile{f: f}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			e.progs = append(e.progs, p)
		}
	}
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, s := range append(syms, dyn...) {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			e.syms = append(e.syms, s)
		}
	}
	sort.Slice(e.syms, func(i, j int) bool { return e.syms[i].Value < e.syms[j].Value })
	if d, err := f.DWARF(); err == nil {
		e.lines = readLines(d)
	}
	return e, nil
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
	i := sort.Search(len(e.syms), func(i int) bool { return e.syms[i].Value > va })
	for i > 0 {
		s := e.syms[i-1]
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
	i := sort.Search(len(e.lines), func(i int) bool { return e.lines[i].addr > va })
	if i == 0 {
		return "", 0
	}
	r := e.lines[i-1]
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
	e, err := openELF(path)
	if err != nil {
		e = nil
	}
	fs.files[path] = e
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
