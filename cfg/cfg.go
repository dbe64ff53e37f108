// Package cfg is fragprof's one model of a program's control flow: functions, their
// basic blocks with source positions, and the edges between blocks. Every method of
// fragprof (exact counting, Monte Carlo frequencies, edge profiling, timing, sampling,
// prediction) reads and writes this model; counts and statistics live beside it in
// slices indexed by Block.ID and Edge.ID.
//
// A Func built from LLVM IR has one Block per IR basic block; a Func built by the
// sampler (package hotcfg) has one Block per machine basic block, with Addr set.
//
// The package is public because the profile format (package profile) and the hot-CFG
// builders (package hotcfg) hand it to other tools.
package cfg

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"
)

// A Program is the set of functions fragprof knows about, in source order when built
// from IR (sorted by file, then line).
type Program struct {
	Funcs []*Func
}

// Func returns the function named name, or nil.
func (p *Program) Func(name string) *Func {
	for _, f := range p.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// A Func is one function's control-flow graph.
//
// Invariants (checked by Check): Blocks[0] is the entry and has no predecessors;
// Blocks[i].ID == i; Edges[i].ID == i; Edges are ordered by source block, then by the
// position of the target among the terminator's operands; Block.Succs lists a block's
// out-edges in terminator order and Block.Preds its in-edges in Edges order, so the two
// mirror each other. Two edges may join the same pair of blocks (a switch with two
// cases to one target, or a conditional branch with equal targets): they are distinct
// edges.
type Func struct {
	Name   string   // linkage name, as in the IR or the symbol table
	File   string   // source file, as given to the compiler
	Line   int      // line of the definition; 0 if unknown
	Blocks []*Block // Blocks[0] is the entry
	Edges  []*Edge
	// ReturnsTwice reports that the function calls setjmp (or another function that
	// returns twice): control may come back into the middle of a block.
	ReturnsTwice bool
}

// A Pos is a source position. Line 0 means unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return "?"
	}
	if p.Col == 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// A Block is a basic block: straight-line code entered only at the top.
type Block struct {
	ID     int
	Label  string // IR label ("for.body", "12"), or the address in hex for machine blocks
	Start  Pos    // position of the first instruction that has one
	End    Pos    // position of the last instruction that has one
	Lines  []int  // sorted distinct source lines (in Start.File) holding its instructions
	Instrs int    // number of instructions, terminator included
	Addr   uint64 // machine blocks: address of the first instruction; 0 for IR blocks
	Traits Traits // what its instructions do (calls, stores, returns), for the heuristics
	Cond   Cond   // the comparison deciding its conditional branch, if it has one
	// Calls are the linkage names of the functions its call and invoke instructions
	// call directly, in instruction order, one entry per call instruction (calls.go).
	// Indirect calls (through a pointer), inline assembly and LLVM intrinsics are
	// left out. Nil for machine blocks and for profiles written before format 1.2.
	Calls []string
	Succs []*Edge
	Preds []*Edge
}

// An Edge is a possible transfer of control from one block to another.
type Edge struct {
	ID   int
	From *Block
	To   *Block
	Kind EdgeKind
	Case string // the case value, for Kind == Case
	// Threads is, for an edge into a block that branches on a value this edge
	// fixes — the join of a short-circuit && or ||, whose i1 phi takes a constant
	// from this edge —, the successor that block then takes; nil otherwise. The
	// static heuristics judge the edge by where control goes on to (EstimateStatic).
	Threads *Block
}

// EdgeKind says which part of the terminator an edge comes from.
type EdgeKind uint8

// The edge kinds. For machine blocks, True is a taken conditional branch and False
// its fall-through.
const (
	Unconditional EdgeKind = iota // br label %x, or a plain jump or fall-through
	True                          // br i1 %c, label %x, ...: the condition held
	False                         // br i1 %c, ..., label %y: it did not
	Case                          // switch: a case value (Edge.Case)
	Default                       // switch: the default destination
	Indirect                      // indirectbr, or an indirect jump
	Call                          // machine CFG: a call to the target block
	Return                        // machine CFG: a return to the target block
	Unwind                        // invoke's unwind edge to its landing pad, or an edge between exception-handling pads
)

var kindNames = [...]string{"unconditional", "true", "false", "case", "default", "indirect", "call", "return", "unwind"}

func (k EdgeKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("EdgeKind(%d)", k)
}

// Valid reports whether k is one of the edge kinds.
func (k EdgeKind) Valid() bool { return int(k) < len(kindNames) }

// ParseEdgeKind is the inverse of EdgeKind.String.
func ParseEdgeKind(s string) (EdgeKind, error) {
	for i, n := range kindNames {
		if n == s {
			return EdgeKind(i), nil
		}
	}
	return 0, fmt.Errorf("cfg: unknown edge kind %q", s)
}

// Entry returns the entry block.
func (f *Func) Entry() *Block { return f.Blocks[0] }

// AddBlock appends a block with the given label and returns it.
func (f *Func) AddBlock(label string) *Block {
	b := &Block{ID: len(f.Blocks), Label: label}
	f.Blocks = append(f.Blocks, b)
	return b
}

// AddEdge appends an edge from → to. Callers add each block's out-edges in terminator
// order and blocks in order, which keeps the Edges invariant.
func (f *Func) AddEdge(from, to *Block, kind EdgeKind, caseVal string) *Edge {
	e := &Edge{ID: len(f.Edges), From: from, To: to, Kind: kind, Case: caseVal}
	f.Edges = append(f.Edges, e)
	from.Succs = append(from.Succs, e)
	to.Preds = append(to.Preds, e)
	return e
}

// Label returns how reports name an edge: "for.cond → for.body (true)".
func (e *Edge) String() string {
	k := e.Kind.String()
	if e.Kind == Case {
		k = "case " + e.Case
	}
	return fmt.Sprintf("%s → %s (%s)", e.From.Label, e.To.Label, k)
}

// Exits returns the blocks with no successors (returns, unreachable, noreturn calls).
func (f *Func) Exits() []*Block {
	var out []*Block
	for _, b := range f.Blocks {
		if len(b.Succs) == 0 {
			out = append(out, b)
		}
	}
	return out
}

// Check verifies the invariants stated on Func and returns the first violation,
// naming the function and block.
func (f *Func) Check() error {
	if len(f.Blocks) == 0 {
		return fmt.Errorf("cfg: function %s has no blocks", f.Name)
	}
	if len(f.Blocks[0].Preds) != 0 {
		return fmt.Errorf("cfg: function %s: entry block %s has predecessors", f.Name, f.Blocks[0].Label)
	}
	for i, b := range f.Blocks {
		if b.ID != i {
			return fmt.Errorf("cfg: function %s: block %s has ID %d at index %d", f.Name, b.Label, b.ID, i)
		}
		for _, e := range b.Succs {
			if e.From != b || f.Edges[e.ID] != e {
				return fmt.Errorf("cfg: function %s: block %s: successor edge %d does not belong to it", f.Name, b.Label, e.ID)
			}
		}
		for _, e := range b.Preds {
			if e.To != b || f.Edges[e.ID] != e {
				return fmt.Errorf("cfg: function %s: block %s: predecessor edge %d does not lead to it", f.Name, b.Label, e.ID)
			}
		}
	}
	prev := -1
	for i, e := range f.Edges {
		if e.ID != i {
			return fmt.Errorf("cfg: function %s: edge %d has ID %d", f.Name, i, e.ID)
		}
		if e.From.ID < prev {
			return fmt.Errorf("cfg: function %s: edges out of order at edge %d", f.Name, i)
		}
		prev = e.From.ID
		if !contains(e.From.Succs, e) || !contains(e.To.Preds, e) {
			return fmt.Errorf("cfg: function %s: edge %s missing from its blocks' lists", f.Name, e)
		}
	}
	return nil
}

func contains(es []*Edge, e *Edge) bool {
	for _, x := range es {
		if x == e {
			return true
		}
	}
	return false
}

// Checksum is a structural hash of the function: the number of blocks and, for every
// edge, its endpoints and kind. Labels and positions do not enter it, so a profile
// stays valid across edits that move code without changing control flow; any change
// of the graph changes it (with the probability of a 64-bit FNV-1a collision).
func (f *Func) Checksum() uint64 {
	// The bytes hashed are those of fmt's "%d;" and, per edge, "%d>%d:%d:%s;" (the
	// stored profiles' checksums depend on them), appended without fmt: merging
	// large profiles spent a third of its time formatting here.
	b := make([]byte, 0, 16+16*len(f.Edges))
	b = strconv.AppendInt(b, int64(len(f.Blocks)), 10)
	b = append(b, ';')
	for _, e := range f.Edges {
		b = strconv.AppendInt(b, int64(e.From.ID), 10)
		b = append(b, '>')
		b = strconv.AppendInt(b, int64(e.To.ID), 10)
		b = append(b, ':')
		b = strconv.AppendUint(b, uint64(e.Kind), 10)
		b = append(b, ':')
		b = append(b, e.Case...)
		b = append(b, ';')
	}
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// SortFuncs orders functions by source file, then line, then name: the source order
// every report uses. The program's own files come first, then the system's headers
// (the C++ library's templates and inline functions) and code without a file.
func (p *Program) SortFuncs() {
	sort.SliceStable(p.Funcs, func(i, j int) bool {
		a, b := p.Funcs[i], p.Funcs[j]
		if sa, sb := SystemFile(a.File), SystemFile(b.File); sa != sb {
			return sb
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Name < b.Name
	})
}

// SystemFile reports a file of the system's headers (under /usr/, such as the C++
// library's <vector>), or no file at all (code without debug locations).
func SystemFile(file string) bool {
	return file == "" || strings.HasPrefix(file, "/usr/")
}

// String dumps the function in a stable text form, for golden files and debugging.
func (f *Func) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "func %s (%s:%d)\n", f.Name, f.File, f.Line)
	for _, b := range f.Blocks {
		fmt.Fprintf(&sb, "  %d %s lines=%v instrs=%d", b.ID, b.Label, b.Lines, b.Instrs)
		if len(b.Calls) > 0 {
			fmt.Fprintf(&sb, " calls=%v", b.Calls)
		}
		sb.WriteByte('\n')
		for _, e := range b.Succs {
			fmt.Fprintf(&sb, "    -> %d %s\n", e.To.ID, e.Kind)
		}
	}
	return sb.String()
}
