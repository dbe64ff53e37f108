// This file implements the profile file: Write, WriteFile and Parse. The layout
// extends the feedback file of ORC's edge profiler (docs/methods.md: file header, per-function
// headers, name table, counter data) with a section table, the CFG itself (so that
// a profile is read without the binary), and a checksum; docs/profile-format.md
// documents it for other implementations.
//
// All integers are little-endian. The file is
//
//	header (64 bytes)
//	  0  [8]byte magic "\x89FPP\r\n\x1a\n"
//	  8  uint16  major version (1): a reader refuses other majors
//	 10  uint16  minor version (2): additions a reader may ignore
//	 12  uint32  header size (64)
//	 16  uint64  file size
//	 24  uint32  number of sections
//	 28  uint32  CRC-32C (Castagnoli) of the whole file, computed with this field zero
//	 32  uint64  offset of the section table
//	 40  [24]byte zero
//	section table: per section 24 bytes
//	  uint32 type, uint32 flags (bit 0: critical), uint64 offset, uint64 length
//	sections, each starting at a multiple of 8.
//
// Section types: 1 summary, 2 names, 3 functions, 4 cfg, 5 counts, 6 statistics
// (the Monte Carlo engine's exact per-block count distributions; ancillary; its
// encoding is in stats.go), 7 identity (since 1.1; ancillary; identity.go), 8 calls
// (the blocks' direct callees, since 1.2; ancillary; calls.go), 9 rates (the edge
// rates of a sampled profile; ancillary; rates.go), 10 strata (a stratified run's
// statistics per stratum; ancillary; strata.go). A reader
// refuses a file with a critical section it does not know and keeps ancillary ones it
// does not know in Profile.Extra.
package profile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/atomicfile"
)

// Magic opens every profile file. Like PNG's signature, its first byte has the high
// bit set and it holds CR LF, ^Z and LF, so that text-mode transfers are detected.
const Magic = "\x89FPP\r\n\x1a\n"

// The format version this package writes; it reads every minor version of Major.
const (
	Major = 1
	Minor = 2
)

// Section types.
const (
	SecSummary = 1 // runs, counters, number of functions
	SecNames   = 2 // the string table
	SecFuncs   = 3 // the function headers
	SecCFG     = 4 // blocks and edges of every function
	SecCounts  = 5 // block and edge counts
	SecStats   = 6 // per-block exact count distributions of Monte Carlo trials (stats.go)
	// SecIdentity  = 7: the program's identity (identity.go)
	// SecCalls     = 8: the blocks' direct callees (calls.go)
	// SecRates     = 9: the edge rates of a sampled profile (rates.go)
	// SecStrata    = 10: a stratified run's statistics per stratum (strata.go)
	FlagCritical = 1 // section flag: a reader that does not know the type must refuse the file
)

const (
	headerSize  = 64
	secEntry    = 24
	funcHdrSize = 64
	// MaxFileSize bounds what Parse reads, so that a hostile stream cannot exhaust
	// memory.
	MaxFileSize = 1 << 32
)

var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

var le = binary.LittleEndian

// Write writes p in the profile file format.
func (p *Profile) Write(w io.Writer) error {
	data, err := p.encode()
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// WriteFile writes p to the file name atomically: to a temporary file in the same
// directory, then renamed into place, so that a reader never sees a partial profile.
func (p *Profile) WriteFile(name string) error {
	data, err := p.encode()
	if err != nil {
		return err
	}
	return atomicfile.Write(name, data)
}

// names interns strings; index 0 is "".
type names struct {
	list  []string
	index map[string]uint32
}

func (n *names) id(s string) uint32 {
	if n.index == nil {
		n.index = map[string]uint32{"": 0}
		n.list = []string{""}
	}
	if i, ok := n.index[s]; ok {
		return i
	}
	i := uint32(len(n.list))
	n.list = append(n.list, s)
	n.index[s] = i
	return i
}

func (p *Profile) encode() ([]byte, error) {
	if p.Program == nil {
		return nil, errors.New("profile: no program")
	}
	if p.Counts != nil && len(p.Counts) != len(p.Program.Funcs) {
		return nil, fmt.Errorf("profile: %d count sets for %d functions", len(p.Counts), len(p.Program.Funcs))
	}
	var nm names
	nm.id("")
	var cfgSec, counts []byte
	funcs := make([]byte, 0, funcHdrSize*len(p.Program.Funcs))
	for i, f := range p.Program.Funcs {
		start := len(cfgSec)
		for _, b := range f.Blocks {
			cfgSec = binary.AppendUvarint(cfgSec, uint64(nm.id(b.Label)))
			for _, pos := range []cfg.Pos{b.Start, b.End} {
				cfgSec = binary.AppendUvarint(cfgSec, uint64(nm.id(pos.File)))
				cfgSec = binary.AppendUvarint(cfgSec, uint64(pos.Line))
				cfgSec = binary.AppendUvarint(cfgSec, uint64(pos.Col))
			}
			cfgSec = binary.AppendUvarint(cfgSec, uint64(len(b.Lines)))
			prev := 0
			for _, l := range b.Lines {
				cfgSec = binary.AppendVarint(cfgSec, int64(l-prev))
				prev = l
			}
			cfgSec = binary.AppendUvarint(cfgSec, uint64(b.Instrs))
			cfgSec = binary.AppendUvarint(cfgSec, b.Addr)
			cfgSec = binary.AppendUvarint(cfgSec, uint64(b.Traits))
			cfgSec = binary.AppendUvarint(cfgSec, uint64(b.Cond))
		}
		for _, e := range f.Edges {
			cfgSec = binary.AppendUvarint(cfgSec, uint64(e.From.ID))
			cfgSec = binary.AppendUvarint(cfgSec, uint64(e.To.ID))
			cfgSec = binary.AppendUvarint(cfgSec, uint64(e.Kind))
			cfgSec = binary.AppendUvarint(cfgSec, uint64(nm.id(e.Case)))
		}
		var h [funcHdrSize]byte
		le.PutUint32(h[0:], nm.id(f.Name))
		le.PutUint32(h[4:], nm.id(f.File))
		le.PutUint32(h[8:], uint32(f.Line))
		var flags uint32
		if f.ReturnsTwice {
			flags |= 1
		}
		le.PutUint32(h[12:], flags)
		le.PutUint64(h[16:], f.Checksum())
		le.PutUint32(h[24:], uint32(len(f.Blocks)))
		le.PutUint32(h[28:], uint32(len(f.Edges)))
		le.PutUint64(h[32:], uint64(start))
		le.PutUint64(h[40:], uint64(len(cfgSec)-start))
		if p.Counts != nil {
			c := p.Counts[i]
			if len(c.Blocks) != len(f.Blocks) || len(c.Edges) != len(f.Edges) {
				return nil, fmt.Errorf("profile: function %s: counts do not fit its graph", f.Name)
			}
			le.PutUint32(h[48:], uint32(len(f.Blocks)+len(f.Edges)))
			le.PutUint64(h[56:], uint64(len(counts)))
			for _, v := range c.Blocks {
				counts = le.AppendUint64(counts, v)
			}
			for _, v := range c.Edges {
				counts = le.AppendUint64(counts, v)
			}
		}
		funcs = append(funcs, h[:]...)
	}
	var namesSec []byte
	namesSec = le.AppendUint32(namesSec, uint32(len(nm.list)))
	for _, s := range nm.list {
		namesSec = le.AppendUint32(namesSec, uint32(len(s)))
		namesSec = append(namesSec, s...)
	}
	var summary []byte
	summary = le.AppendUint64(summary, uint64(p.Runs))
	summary = le.AppendUint64(summary, uint64(p.Counters))
	summary = le.AppendUint32(summary, uint32(len(p.Program.Funcs)))
	var hasCounts uint32
	if p.Counts != nil {
		hasCounts = 1
	}
	summary = le.AppendUint32(summary, hasCounts)

	secs := []Section{
		{SecSummary, FlagCritical, summary},
		{SecNames, FlagCritical, namesSec},
		{SecFuncs, FlagCritical, funcs},
		{SecCFG, FlagCritical, cfgSec},
	}
	if p.Counts != nil {
		secs = append(secs, Section{SecCounts, FlagCritical, counts})
	}
	if p.Stats != nil {
		st, err := p.encodeStats()
		if err != nil {
			return nil, err
		}
		secs = append(secs, Section{SecStats, 0, st})
	}
	if p.Stats != nil && p.Strata != nil {
		st, err := p.encodeStrata()
		if err != nil {
			return nil, err
		}
		secs = append(secs, Section{SecStrata, 0, st})
	}
	if p.Identity != (Identity{}) {
		secs = append(secs, Section{SecIdentity, 0, p.encodeIdentity()})
	}
	calls := p.hasCalls()
	if calls {
		secs = append(secs, Section{SecCalls, 0, p.encodeCalls()})
	}
	if p.Rates != nil {
		rs, err := p.encodeRates()
		if err != nil {
			return nil, err
		}
		secs = append(secs, Section{SecRates, 0, rs})
	}
	for _, x := range p.Extra {
		if x.Type == SecStats && p.Stats != nil || x.Type == SecIdentity && p.Identity != (Identity{}) || x.Type == SecCalls && calls ||
			x.Type == SecRates && p.Rates != nil || x.Type == SecStrata && p.Strata != nil {
			continue
		}
		secs = append(secs, x)
	}
	table := headerSize
	off := align8(table + secEntry*len(secs))
	out := make([]byte, off)
	copy(out, Magic)
	le.PutUint16(out[8:], Major)
	le.PutUint16(out[10:], Minor)
	le.PutUint32(out[12:], headerSize)
	le.PutUint32(out[24:], uint32(len(secs)))
	le.PutUint64(out[32:], uint64(table))
	for i, s := range secs {
		e := out[table+secEntry*i:]
		le.PutUint32(e[0:], s.Type)
		le.PutUint32(e[4:], s.Flags)
		le.PutUint64(e[8:], uint64(len(out)))
		le.PutUint64(e[16:], uint64(len(s.Data)))
		out = append(out, s.Data...)
		for len(out)%8 != 0 {
			out = append(out, 0)
		}
	}
	le.PutUint64(out[16:], uint64(len(out)))
	le.PutUint32(out[28:], crc32.Checksum(out, crcTable()))
	return out, nil
}

func align8(n int) int { return (n + 7) &^ 7 }

// A FormatError is a file that is not a valid profile, with the place of the fault.
type FormatError struct {
	Offset int64 // byte offset in the file, or -1
	Msg    string
}

func (e *FormatError) Error() string {
	if e.Offset < 0 {
		return "not a valid fragprof profile: " + e.Msg
	}
	return fmt.Sprintf("not a valid fragprof profile: at byte %d: %s", e.Offset, e.Msg)
}

func bad(off int, f string, a ...any) error {
	return &FormatError{Offset: int64(off), Msg: fmt.Sprintf(f, a...)}
}

// Parse reads a profile file. It verifies the checksum, every offset and length
// against the file's size before using it (so a hostile file can make it allocate no
// more than a small multiple of its own size), every function's graph, that the
// graph hashes to the stored CFG checksum, and flow conservation of the counts.
//
// It reads the header first and no more than the size it declares (and a byte, to
// tell a file extended past it): a file that does not start with Magic is refused
// after its first bytes, however long it is (/dev/zero, a disk image).
func Parse(r io.Reader) (*Profile, error) {
	head := make([]byte, headerSize)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	if n < headerSize || !IsProfile(head) {
		return parse(head) // says what is wrong: not a profile, or truncated
	}
	size := le.Uint64(head[16:])
	if size > MaxFileSize {
		return nil, bad(16, "its header says %d bytes, more than a profile may hold (%d)", size, int64(MaxFileSize))
	}
	rest, err := io.ReadAll(io.LimitReader(r, int64(max(size, headerSize))-headerSize+1))
	if err != nil {
		return nil, err
	}
	data := append(head, rest...)
	if uint64(len(data)) > size && size >= headerSize {
		return nil, bad(16, "file is longer than the %d bytes its header says (extended, or two files joined)", size)
	}
	return parse(data)
}

// ParseFile reads the profile file name; errors name the file.
func ParseFile(name string) (*Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// IsProfile reports whether data starts like a profile file.
func IsProfile(data []byte) bool { return bytes.HasPrefix(data, []byte(Magic)) }

func parse(data []byte) (*Profile, error) {
	if len(data) < headerSize || !IsProfile(data) {
		return nil, bad(-1, "bad magic (not a .fpp file, or truncated)")
	}
	if v := le.Uint16(data[8:]); v != Major {
		return nil, bad(8, "format version %d.%d, this fragprof reads version %d", v, le.Uint16(data[10:]), Major)
	}
	if hs := le.Uint32(data[12:]); hs != headerSize {
		return nil, bad(12, "header size %d, want %d", hs, headerSize)
	}
	if size := le.Uint64(data[16:]); size != uint64(len(data)) {
		return nil, bad(16, "file is %d bytes but its header says %d (truncated or extended)", len(data), size)
	}
	sum := le.Uint32(data[28:])
	le.PutUint32(data[28:], 0)
	got := crc32.Checksum(data, crcTable())
	le.PutUint32(data[28:], sum)
	if got != sum {
		return nil, bad(28, "checksum mismatch (stored %08x, computed %08x): the file is corrupted", sum, got)
	}
	nsec := uint64(le.Uint32(data[24:]))
	table := le.Uint64(data[32:])
	if table < headerSize || table > uint64(len(data)) || nsec > (uint64(len(data))-table)/secEntry {
		return nil, bad(24, "section table (%d entries at %d) outside the file", nsec, table)
	}
	p := &Profile{}
	secs := map[uint32][]byte{}
	secOff := map[uint32]int{}
	for i := uint64(0); i < nsec; i++ {
		at := int(table + secEntry*i)
		e := data[at:]
		typ, flags := le.Uint32(e[0:]), le.Uint32(e[4:])
		off, n := le.Uint64(e[8:]), le.Uint64(e[16:])
		if off > uint64(len(data)) || n > uint64(len(data))-off {
			return nil, bad(at, "section %d (type %d) outside the file", i, typ)
		}
		body := data[off : off+n]
		switch typ {
		case SecSummary, SecNames, SecFuncs, SecCFG, SecCounts, SecStats, SecIdentity, SecCalls, SecRates, SecStrata:
			if _, dup := secs[typ]; dup {
				return nil, bad(at, "section type %d appears twice", typ)
			}
			secs[typ], secOff[typ] = body, int(off)
		default:
			if flags&FlagCritical != 0 {
				return nil, bad(at, "critical section of unknown type %d (written by a newer fragprof?)", typ)
			}
			p.Extra = append(p.Extra, Section{Type: typ, Flags: flags, Data: append([]byte(nil), body...)})
		}
	}
	for _, t := range []uint32{SecSummary, SecNames, SecFuncs, SecCFG} {
		if _, ok := secs[t]; !ok {
			return nil, bad(-1, "missing section type %d", t)
		}
	}
	sm := secs[SecSummary]
	if len(sm) < 24 {
		return nil, bad(secOff[SecSummary], "summary section too short")
	}
	runs, counters := le.Uint64(sm[0:]), le.Uint64(sm[8:])
	nfuncs, hasCounts := uint64(le.Uint32(sm[16:])), le.Uint32(sm[20:]) != 0
	if runs > 1<<62 || counters > 1<<62 {
		return nil, bad(secOff[SecSummary], "implausible run or counter total")
	}
	p.Runs, p.Counters = int(runs), int(counters)
	// Names.
	ns := secs[SecNames]
	if len(ns) < 4 {
		return nil, bad(secOff[SecNames], "name table too short")
	}
	nn := uint64(le.Uint32(ns))
	if nn > uint64(len(ns)-4)/4 {
		return nil, bad(secOff[SecNames], "name table claims %d names in %d bytes", nn, len(ns))
	}
	strs := make([]string, nn)
	at := 4
	for i := range strs {
		if at+4 > len(ns) {
			return nil, bad(secOff[SecNames]+at, "name %d truncated", i)
		}
		l := int(le.Uint32(ns[at:]))
		at += 4
		if l < 0 || l > len(ns)-at {
			return nil, bad(secOff[SecNames]+at, "name %d truncated", i)
		}
		strs[i] = string(ns[at : at+l])
		at += l
	}
	name := func(i uint64) (string, bool) {
		if i >= uint64(len(strs)) {
			return "", false
		}
		return strs[i], true
	}
	// Functions.
	fs := secs[SecFuncs]
	if uint64(len(fs)) != nfuncs*funcHdrSize {
		return nil, bad(secOff[SecFuncs], "%d function headers need %d bytes, the section has %d", nfuncs, nfuncs*funcHdrSize, len(fs))
	}
	cs, hasCountSec := secs[SecCounts]
	if hasCounts != hasCountSec {
		return nil, bad(secOff[SecSummary], "summary and sections disagree on whether counts are present")
	}
	cg := secs[SecCFG]
	p.Program = &cfg.Program{Funcs: make([]*cfg.Func, 0, nfuncs)}
	if hasCounts {
		p.Counts = make([]cfg.Counts, 0, nfuncs)
	}
	for i := uint64(0); i < nfuncs; i++ {
		hoff := secOff[SecFuncs] + int(i)*funcHdrSize
		h := fs[i*funcHdrSize:]
		fname, ok1 := name(uint64(le.Uint32(h[0:])))
		file, ok2 := name(uint64(le.Uint32(h[4:])))
		if !ok1 || !ok2 {
			return nil, bad(hoff, "function %d: name index out of range", i)
		}
		f := &cfg.Func{Name: fname, File: file, Line: int(le.Uint32(h[8:])), ReturnsTwice: le.Uint32(h[12:])&1 != 0}
		sum := le.Uint64(h[16:])
		nb, ne := uint64(le.Uint32(h[24:])), uint64(le.Uint32(h[28:]))
		coff, clen := le.Uint64(h[32:]), le.Uint64(h[40:])
		if coff > uint64(len(cg)) || clen > uint64(len(cg))-coff {
			return nil, bad(hoff, "function %s: graph outside the cfg section", fname)
		}
		// Every block takes at least 12 bytes and every edge 4: check before allocating.
		if nb == 0 || nb*12+ne*4 > clen {
			return nil, bad(hoff, "function %s: %d blocks and %d edges cannot fit in %d bytes", fname, nb, ne, clen)
		}
		if err := decodeGraph(f, cg[coff:coff+clen], nb, ne, name); err != nil {
			return nil, bad(secOff[SecCFG]+int(coff), "function %s: %v", fname, err)
		}
		if err := f.Check(); err != nil {
			return nil, bad(secOff[SecCFG]+int(coff), "%v", err)
		}
		if got := f.Checksum(); got != sum {
			return nil, bad(hoff, "function %s: CFG checksum %016x does not match the stored %016x", fname, got, sum)
		}
		p.Program.Funcs = append(p.Program.Funcs, f)
		nc, doff := uint64(le.Uint32(h[48:])), le.Uint64(h[56:])
		if !hasCounts {
			if nc != 0 {
				return nil, bad(hoff, "function %s has counts but the file has no count section", fname)
			}
			continue
		}
		if nc != nb+ne {
			return nil, bad(hoff, "function %s: %d counts for %d blocks and %d edges", fname, nc, nb, ne)
		}
		if doff%8 != 0 || doff > uint64(len(cs)) || nc > (uint64(len(cs))-doff)/8 {
			return nil, bad(hoff, "function %s: counts outside the count section", fname)
		}
		c := cfg.NewCounts(f)
		for k := range c.Blocks {
			c.Blocks[k] = le.Uint64(cs[doff+8*uint64(k):])
		}
		for k := range c.Edges {
			c.Edges[k] = le.Uint64(cs[doff+8*(nb+uint64(k)):])
		}
		p.Counts = append(p.Counts, c)
	}
	if err := p.Check(cfg.Entered); err != nil {
		return nil, &FormatError{Offset: -1, Msg: err.Error()}
	}
	if st, ok := secs[SecStats]; ok {
		if err := p.decodeStats(st, secOff[SecStats]); err != nil {
			return nil, err
		}
	}
	if st, ok := secs[SecStrata]; ok {
		if err := p.decodeStrata(st, secOff[SecStrata]); err != nil {
			return nil, err
		}
	}
	if id, ok := secs[SecIdentity]; ok {
		if err := p.parseIdentity(id, secOff[SecIdentity]); err != nil {
			return nil, err
		}
	}
	if cl, ok := secs[SecCalls]; ok {
		if err := p.parseCalls(cl, secOff[SecCalls]); err != nil {
			return nil, err
		}
	}
	if rs, ok := secs[SecRates]; ok {
		if err := p.parseRates(rs, secOff[SecRates]); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// decodeGraph reads nb blocks and ne edges of f from b.
func decodeGraph(f *cfg.Func, b []byte, nb, ne uint64, name func(uint64) (string, bool)) error {
	r := &varReader{b: b}
	str := func() string {
		s, ok := name(r.u())
		if !ok && r.err == nil {
			r.err = errors.New("name index out of range")
		}
		return s
	}
	small := func() int {
		v := r.u()
		if v > 1<<31 && r.err == nil {
			r.err = errors.New("number out of range")
		}
		return int(v)
	}
	f.Blocks = make([]*cfg.Block, 0, nb)
	for i := uint64(0); i < nb; i++ {
		blk := f.AddBlock(str())
		for _, pos := range []*cfg.Pos{&blk.Start, &blk.End} {
			pos.File = str()
			pos.Line = small()
			pos.Col = small()
		}
		nl := r.u()
		if nl > uint64(len(b)) {
			return errors.New("line list longer than the graph")
		}
		if nl > 0 {
			blk.Lines = make([]int, 0, nl)
		}
		prev := int64(0)
		for k := uint64(0); k < nl && r.err == nil; k++ {
			d := r.s()
			if d < 0 && k > 0 || d > 1<<31 || prev+d > 1<<31 {
				return errors.New("line numbers out of order")
			}
			prev += d
			blk.Lines = append(blk.Lines, int(prev))
		}
		blk.Instrs = small()
		blk.Addr = r.u()
		blk.Traits = cfg.Traits(r.u())
		blk.Cond = cfg.Cond(r.u())
		if r.err != nil {
			return fmt.Errorf("block %d: %v", i, r.err)
		}
	}
	for i := uint64(0); i < ne; i++ {
		from, to, kind := r.u(), r.u(), r.u()
		cs := str()
		if r.err != nil {
			return fmt.Errorf("edge %d: %v", i, r.err)
		}
		if from >= nb || to >= nb || kind > 255 || !cfg.EdgeKind(kind).Valid() {
			return fmt.Errorf("edge %d: %d → %d (kind %d) out of range", i, from, to, kind)
		}
		if len(f.Edges) > 0 && int(from) < f.Edges[len(f.Edges)-1].From.ID {
			return fmt.Errorf("edge %d out of order", i)
		}
		f.AddEdge(f.Blocks[from], f.Blocks[to], cfg.EdgeKind(kind), cs)
	}
	if r.i != len(b) {
		return fmt.Errorf("%d bytes left over after the graph", len(b)-r.i)
	}
	return nil
}

type varReader struct {
	b   []byte
	i   int
	err error
}

func (r *varReader) u() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.i:])
	if n <= 0 {
		r.err = errors.New("truncated or overlong number")
		return 0
	}
	r.i += n
	return v
}

func (r *varReader) s() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.i:])
	if n <= 0 {
		r.err = errors.New("truncated or overlong number")
		return 0
	}
	r.i += n
	return v
}
