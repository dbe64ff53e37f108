// This file defines batches, the mappings that place addresses in files, and symbols.

package hotcfg

import (
	"path/filepath"
	"sort"
	"time"
)

// A Batch is a burst of consecutive program counters of one thread: PCs[i+1] is the
// instruction that executed right after PCs[i].
type Batch struct {
	Seq  int           // 1-based sequence number in the run
	Time time.Duration // since the program started
	PID  int           // process
	TID  int           // thread
	PCs  []uint64
	// Stack is the call stack at the burst's start: return addresses, innermost
	// first (the caller of PCs[0]'s function first); nil when none was taken.
	Stack []uint64
}

// A Mapping is an executable mapping of a file into the traced address space, as in
// /proc/pid/maps: addresses [Start, End) hold the file's bytes from Offset.
type Mapping struct {
	Start  uint64 `json:"start"`
	End    uint64 `json:"end"`
	Offset uint64 `json:"offset"`
	Path   string `json:"path"`
}

// Maps is a set of mappings sorted by Start.
type Maps []Mapping

// Find returns the mapping that holds addr.
func (m Maps) Find(addr uint64) (Mapping, bool) {
	i := sort.Search(len(m), func(i int) bool { return m[i].End > addr })
	if i < len(m) && m[i].Start <= addr {
		return m[i], true
	}
	return Mapping{}, false
}

// Add inserts or replaces (same Start) a mapping, keeping the order.
func (m *Maps) Add(x Mapping) {
	i := sort.Search(len(*m), func(i int) bool { return (*m)[i].Start >= x.Start })
	if i < len(*m) && (*m)[i].Start == x.Start {
		(*m)[i] = x
		return
	}
	*m = append(*m, Mapping{})
	copy((*m)[i+1:], (*m)[i:])
	(*m)[i] = x
}

// A Loc is an address made independent of where a file was loaded: the file's base
// name and the offset in the file. Addresses outside every mapping keep Module "" and
// Off equal to the address.
type Loc struct {
	Module string
	Off    uint64
}

// Loc returns addr's location.
func (m Maps) Loc(addr uint64) Loc {
	if x, ok := m.Find(addr); ok {
		return Loc{filepath.Base(x.Path), addr - x.Start + x.Offset}
	}
	return Loc{Off: addr}
}

// A Symbol names the function that holds an address and its source position.
type Symbol struct {
	Func    string // function name; "" if unknown
	Entry   uint64 // address of the function's first instruction
	File    string // source file of the address, if DWARF has it
	Line    int    // source line, 0 if unknown
	DefFile string // file of the function's definition
	DefLine int    // line of the function's definition
	Module  string // base name of the file that holds the address
}

// A Symbolizer names addresses. A nil Symbolizer names nothing.
type Symbolizer interface {
	Symbolize(addr uint64) Symbol
}
