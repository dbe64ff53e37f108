// This file reads gcc's notes file (.gcno): every function's blocks, arcs and the
// source lines each block holds — the structure gcov computes line counts over.

package oracle

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
)

// Notes is the content of a .gcno file that the oracle needs.
type Notes struct {
	Version string // gcc's version stamp, "B22*" for gcc 12.2
	Funcs   []*NotesFunc
}

// A NotesFunc is one function's graph as gcc instrumented it. Block 0 is gcc's
// ENTRY block and block 1 its EXIT block; both hold no code.
type NotesFunc struct {
	Name   string
	File   string
	Line   int
	Blocks []NotesBlock
}

// A NotesBlock is one of gcc's basic blocks.
type NotesBlock struct {
	Lines []FileLine // in gcc's order: the lines of its statements
	Succs []NotesArc
	Preds []int // source blocks of the arcs entering it, fake arcs excluded
}

// A FileLine is a line of a source file.
type FileLine struct {
	File string
	Line int
}

// A NotesArc is one arc of gcc's graph.
type NotesArc struct {
	To   int
	Fake bool // a call that may not return, to EXIT: no transfer of control
}

// The record tags of the notes file (gcc's gcov-io.h).
const (
	tagFunction = 0x01000000
	tagBlocks   = 0x01410000
	tagArcs     = 0x01430000
	tagLines    = 0x01450000
	notesMagic  = 0x67636e6f // "gcno"
	arcFake     = 0x2
)

// ReadNotes parses a notes file written by gcc 12 or 13 (records whose lengths count
// bytes, strings as a byte length and unpadded bytes). It fails on any other layout
// rather than guess.
func ReadNotes(data []byte) (*Notes, error) {
	r := &notesReader{data: data}
	if r.u32() != notesMagic {
		return nil, fmt.Errorf("gcno: bad magic (not a gcc notes file, or big-endian)")
	}
	v := r.u32()
	n := &Notes{Version: string([]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})}
	if n.Version[0] != 'B' {
		return nil, fmt.Errorf("gcno: version %q: this reader knows gcc 12 and 13 (B2x*, B3x*)", n.Version)
	}
	r.u32() // stamp
	r.u32() // checksum
	r.str() // compilation directory
	r.u32() // has_unexecuted_blocks
	var f *NotesFunc
	for r.err == nil && r.off < len(data) {
		tag, length := r.u32(), int(r.u32())
		end := r.off + length
		if r.err != nil || end > len(data) || length < 0 {
			return nil, fmt.Errorf("gcno: record %#x at offset %d runs past the end", tag, r.off-8)
		}
		switch tag {
		case tagFunction:
			r.u32() // ident
			r.u32() // lineno checksum
			r.u32() // cfg checksum
			f = &NotesFunc{Name: r.str()}
			r.u32() // artificial
			f.File = r.str()
			f.Line = int(r.u32())
			n.Funcs = append(n.Funcs, f)
		case tagBlocks:
			if f == nil {
				return nil, fmt.Errorf("gcno: blocks before any function")
			}
			nb := int(r.u32())
			if nb < 2 || nb > 1<<24 {
				return nil, fmt.Errorf("gcno: function %s: %d blocks", f.Name, nb)
			}
			f.Blocks = make([]NotesBlock, nb)
		case tagArcs:
			src := int(r.u32())
			if f == nil || src >= len(f.Blocks) {
				return nil, fmt.Errorf("gcno: arcs from block %d outside the function", src)
			}
			for r.err == nil && r.off < end {
				dst, flags := int(r.u32()), r.u32()
				if dst >= len(f.Blocks) {
					return nil, fmt.Errorf("gcno: function %s: arc %d→%d outside the function", f.Name, src, dst)
				}
				fake := flags&arcFake != 0
				f.Blocks[src].Succs = append(f.Blocks[src].Succs, NotesArc{To: dst, Fake: fake})
				if !fake {
					f.Blocks[dst].Preds = append(f.Blocks[dst].Preds, src)
				}
			}
		case tagLines:
			b := int(r.u32())
			if f == nil || b >= len(f.Blocks) {
				return nil, fmt.Errorf("gcno: lines of block %d outside the function", b)
			}
			file := ""
			for r.err == nil && r.off < end {
				ln := r.u32()
				if ln != 0 {
					f.Blocks[b].Lines = append(f.Blocks[b].Lines, FileLine{File: file, Line: int(ln)})
					continue
				}
				if file = r.str(); file == "" {
					break
				}
			}
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.off > end {
			return nil, fmt.Errorf("gcno: record %#x at offset %d is longer than its length says", tag, end-length-8)
		}
		r.off = end
	}
	return n, r.err
}

type notesReader struct {
	data []byte
	off  int
	err  error
}

func (r *notesReader) u32() uint32 {
	if r.err != nil || r.off+4 > len(r.data) {
		if r.err == nil {
			r.err = fmt.Errorf("gcno: truncated at offset %d", r.off)
		}
		return 0
	}
	v := binary.LittleEndian.Uint32(r.data[r.off:])
	r.off += 4
	return v
}

// str reads a string: its byte length (with the terminating NUL; 0 for none), then
// the bytes.
func (r *notesReader) str() string {
	n := int(r.u32())
	if n == 0 || r.err != nil {
		return ""
	}
	if r.off+n > len(r.data) || n < 1 {
		r.err = fmt.Errorf("gcno: string at offset %d runs past the end", r.off)
		return ""
	}
	s := string(r.data[r.off : r.off+n-1])
	r.off += n
	return s
}

// A chain is a maximal straight-line run of gcc blocks: gcc ends a block after every
// call that may not return (adding a fake arc to EXIT), so one basic block in the
// usual sense — and one of clang's — is a chain of gcc blocks, each the only
// successor of the one before and entered only from it.
type chain struct {
	fn     int
	blocks []int
}

// SingleBlockLines returns the lines of the source file named file (compared after
// filepath.Clean) for which gcov's line count is the count of a single basic block:
// the gcc blocks holding the line lie in one chain (see chain), and gcov's line-count
// rule reduces over them to that chain's count.
//
// gcov's rule (gcc 12 gcov.cc, add_line_counts and accumulate_line_info): let R be
// the blocks whose last line is this line, excluding the function's first and last
// block. If R is empty, the count is the sum of the counts of the blocks holding the
// line; otherwise it is the sum of the arcs entering R from outside R plus the counts
// of cycles within R. So a line is single-block when its blocks lie in one chain and
// either R is empty and one block holds it, or R is a contiguous run of the chain (the
// arcs inside the run are internal; only the run's head is entered from outside).
// Every block of a chain runs as often as the chain is entered when every call
// returns.
func (n *Notes) SingleBlockLines(file string) map[int]bool {
	file = filepath.Clean(file)
	type piece struct {
		ch   *chain
		pos  int
		n    int  // how often the block lists the line
		last bool // the line is the block's last and the block may join R
	}
	held := map[int][]piece{}
	for fi, f := range n.Funcs {
		for _, ch := range f.chains(fi) {
			for pos, b := range ch.blocks {
				ls := f.Blocks[b].Lines
				if len(ls) == 0 {
					continue
				}
				last := ls[len(ls)-1]
				times := map[int]int{}
				var order []int
				for _, l := range ls {
					if filepath.Clean(l.File) != file {
						continue
					}
					if times[l.Line] == 0 {
						order = append(order, l.Line)
					}
					times[l.Line]++
				}
				for _, l := range order {
					isLast := last.Line == l && filepath.Clean(last.File) == file && b != 0 && b != len(f.Blocks)-1
					held[l] = append(held[l], piece{ch: ch, pos: pos, n: times[l], last: isLast})
				}
			}
		}
	}
	out := map[int]bool{}
	for line, ps := range held {
		one := true
		var r []int
		for _, p := range ps {
			if p.ch != ps[0].ch {
				one = false
			}
			if p.last {
				r = append(r, p.pos)
			}
		}
		if !one {
			continue
		}
		if len(r) == 0 {
			out[line] = len(ps) == 1 && ps[0].n == 1
			continue
		}
		contiguous := true
		for i := 1; i < len(r); i++ {
			if r[i] != r[i-1]+1 {
				contiguous = false
			}
		}
		out[line] = contiguous
	}
	for l, ok := range out {
		if !ok {
			delete(out, l)
		}
	}
	return out
}

// chains splits f's blocks (but ENTRY and EXIT) into maximal straight-line chains.
func (f *NotesFunc) chains(fi int) []*chain {
	realSuccs := func(b int) []int {
		var s []int
		for _, a := range f.Blocks[b].Succs {
			if !a.Fake {
				s = append(s, a.To)
			}
		}
		return s
	}
	// next[b] is the block that continues b's chain, or -1.
	next := make([]int, len(f.Blocks))
	cont := make([]bool, len(f.Blocks)) // b continues some chain
	for b := range f.Blocks {
		next[b] = -1
		if b < 2 {
			continue
		}
		if s := realSuccs(b); len(s) == 1 && s[0] >= 2 && s[0] != b && len(f.Blocks[s[0]].Preds) == 1 {
			next[b] = s[0]
			cont[s[0]] = true
		}
	}
	var out []*chain
	done := make([]bool, len(f.Blocks))
	start := func(b int) {
		ch := &chain{fn: fi}
		for ; b >= 0 && !done[b]; b = next[b] {
			done[b] = true
			ch.blocks = append(ch.blocks, b)
		}
		out = append(out, ch)
	}
	for b := 2; b < len(f.Blocks); b++ {
		if !cont[b] {
			start(b)
		}
	}
	// What is left are cycles of single-entry blocks (unreachable loops): start anywhere.
	for b := 2; b < len(f.Blocks); b++ {
		if !done[b] {
			start(b)
		}
	}
	return out
}
