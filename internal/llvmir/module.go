// Package llvmir reads and writes textual LLVM IR as clang prints it (clang 14 with
// typed pointers and clang ≥ 15 with opaque ptr). It understands just what fragprof
// needs — function definitions, basic blocks, terminators, debug locations — and keeps
// every line verbatim, so that writing an unmodified module gives back the same bytes.
// Instrumentation is a set of text edits (insert before or after a line, replace a
// line, append to the module), as cmd/cover does with Go source.
package llvmir

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
)

// A Module is one parsed IR file.
type Module struct {
	// Lines are the file's lines without their line terminators.
	Lines []string
	// FinalNewline reports whether the file ended with a newline.
	FinalNewline bool
	// Funcs are the function definitions, in file order.
	Funcs []*Func
	// Meta are the metadata nodes "!N = ...", by number.
	Meta map[int]*MDNode
	// Opaque is true when the module uses opaque pointers (ptr), as clang ≥ 15 prints
	// by default, and false for typed pointers (i8*), as clang 14 prints: what the
	// caller of ParseDialect said, or what Parse read from the first load or store.
	// Instrumentation writes in this dialect.
	Opaque bool
	// SourceFilename is the source_filename of the module.
	SourceFilename string

	maxMeta  int
	edits    []edit
	replaced map[int]string
	given    string                // the main source as given on the command line (SetSource)
	givenAbs string                // its absolute path
	strip    *stripPlan            // see StripDebug
	noReturn map[string]bool       // see mayNotReturn
	faults   map[string]cfg.Traits // see mayFault
	defined  map[string]*Func      // see definitions
	comdats  *comdats              // see comdatIndex
}

// A Func is a function definition.
type Func struct {
	Name        string // without the @, unquoted
	Line        int    // index in Module.Lines of the define line
	EndLine     int    // index of the closing "}"
	Dbg         int    // the !dbg attachment of the definition (a DISubprogram), or -1
	Blocks      []*Block
	Params      []Param
	RetType     string
	CallsSetjmp bool // calls a returns_twice function (setjmp family, vfork)
	Variadic    bool // its parameter list ends in "..."
}

// A Param is a formal parameter of a definition.
type Param struct {
	Type  string // as printed, attributes dropped ("i32", "double", "ptr", "i8*")
	Attrs string // its attributes as printed ("noundef signext"), for calls that must match
	Name  string // "%x" or "%0"
}

// A Block is a basic block.
type Block struct {
	Name      string // label without % ("entry", "for.body", "12")
	LabelLine int    // index of the label line; -1 for an implicit entry block
	Instrs    []*Instr
}

// Term returns the block's terminator (its last instruction).
func (b *Block) Term() *Instr { return b.Instrs[len(b.Instrs)-1] }

// FirstNonPhi returns the index in Instrs of the first instruction that is not a phi
// (where code may be inserted at the top of the block).
func (b *Block) FirstNonPhi() int {
	for i, in := range b.Instrs {
		if in.Op != "phi" {
			return i
		}
	}
	return len(b.Instrs)
}

// EHPad returns the opcode of the exception-handling pad that opens b ("landingpad",
// "catchpad", "cleanuppad", "catchswitch"), or "" for an ordinary block. Only an
// unwind edge may enter a pad, and nothing may precede the pad instruction but phis.
func (b *Block) EHPad() string {
	if i := b.FirstNonPhi(); i < len(b.Instrs) {
		switch op := b.Instrs[i].Op; op {
		case "landingpad", "catchpad", "cleanuppad", "catchswitch":
			return op
		}
	}
	return ""
}

// InsertionPoint returns the line before which code may be inserted at the top of
// b: after the phis, and after a landingpad, catchpad or cleanuppad. A catchswitch
// block has none (ok is false).
func (b *Block) InsertionPoint() (line int, ok bool) {
	i := b.FirstNonPhi()
	switch b.EHPad() {
	case "catchswitch":
		return 0, false
	case "":
	default:
		i++
	}
	return b.Instrs[i].Line, true
}

// An Instr is one instruction; a switch, an invoke, a callbr or a landingpad may
// span several lines.
type Instr struct {
	Line    int    // index of its first line
	EndLine int    // index of its last line
	Result  string // "%x" or ""
	Op      string // opcode ("br", "call", "phi", ...); "call" also for tail/musttail call
	Dbg     int    // the !dbg attachment, or -1
	Callee  string // call, invoke: the callee's name without @ if direct; "" for indirect calls and asm
	// Targets are the successor labels of a terminator, in operand order.
	Targets []Target
}

// A Target is one successor of a terminator.
type Target struct {
	Label string     // without %
	Kind  TargetKind // which operand it is
	Case  string     // case value for a switch case ("i32 3" printed as "3")
}

// TargetKind says which operand of a terminator a target is.
type TargetKind uint8

// The target kinds.
const (
	Uncond TargetKind = iota
	CondTrue
	CondFalse
	SwitchCase
	SwitchDefault
	IndirectDest
	Unwind // invoke's unwind destination, an exception-handling pad's edges
)

// IsTerminator reports whether op ends a basic block.
func IsTerminator(op string) bool {
	switch op {
	case "br", "switch", "indirectbr", "ret", "unreachable", "invoke", "callbr",
		"resume", "catchswitch", "catchret", "cleanupret":
		return true
	}
	return false
}

// edit is a pending text change; see Insert, Replace and Append.
type edit struct {
	line  int // line index; len(Lines) for the end of the module
	order int // 0 before the line, 2 after it
	seq   int
	text  string
}

// InsertBefore schedules text (one or more lines, no final newline) before line i.
func (m *Module) InsertBefore(i int, text string) { m.addEdit(i, 0, text) }

// InsertAfter schedules text after line i.
func (m *Module) InsertAfter(i int, text string) { m.addEdit(i, 2, text) }

// Replace schedules line i to be replaced by text; a later Replace of the same line
// wins. Text returns the line as it will be written.
func (m *Module) Replace(i int, text string) {
	if m.replaced == nil {
		m.replaced = map[int]string{}
	}
	m.replaced[i] = text
}

// Text returns line i with any scheduled replacement applied.
func (m *Module) Text(i int) string {
	if t, ok := m.replaced[i]; ok {
		return t
	}
	return m.Lines[i]
}

// Append schedules text at the end of the module.
func (m *Module) Append(text string) { m.addEdit(len(m.Lines), 0, text) }

func (m *Module) addEdit(line, order int, text string) {
	m.edits = append(m.edits, edit{line: line, order: order, seq: len(m.edits), text: text})
}

// NewMeta returns a metadata number not used in the module.
func (m *Module) NewMeta() int {
	m.maxMeta++
	return m.maxMeta
}

// size returns the number of bytes WriteTo writes, at most.
func (m *Module) size() int {
	size := len(m.Lines)
	for _, l := range m.Lines {
		size += len(l)
	}
	for _, e := range m.edits {
		size += len(e.text) + 1
	}
	for _, t := range m.replaced {
		size += len(t)
	}
	return size
}

// WriteTo writes the module with all scheduled edits applied, streaming through a
// buffer of its own (the module is not copied whole). Without edits the output is
// byte-identical to the input. After StripDebug, it leaves the debug information out.
func (m *Module) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	buf := bufio.NewWriterSize(cw, 1<<20)
	es := m.sortedEdits()
	if p := m.strip; p != nil {
		m.eachOutput(es, func(s string) {
			if t, ok := p.filter(s); ok {
				buf.WriteString(t)
				buf.WriteByte('\n')
			}
		})
		err := buf.Flush()
		return cw.n, err
	}
	k := 0
	for i := 0; i <= len(m.Lines); i++ {
		for ; k < len(es) && es[k].line == i && es[k].order == 0; k++ {
			buf.WriteString(es[k].text)
			buf.WriteByte('\n')
		}
		if i < len(m.Lines) {
			buf.WriteString(m.Text(i))
			if i < len(m.Lines)-1 || m.FinalNewline || k < len(es) {
				buf.WriteByte('\n')
			}
		}
		for ; k < len(es) && es[k].line == i && es[k].order == 2; k++ {
			buf.WriteString(es[k].text)
			buf.WriteByte('\n')
		}
	}
	err := buf.Flush()
	return cw.n, err
}

// sortedEdits returns the scheduled edits in the order WriteTo applies them.
func (m *Module) sortedEdits() []edit {
	es := append([]edit(nil), m.edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].line != es[j].line {
			return es[i].line < es[j].line
		}
		if es[i].order != es[j].order {
			return es[i].order < es[j].order
		}
		return es[i].seq < es[j].seq
	})
	return es
}

// eachOutput calls f with every line WriteTo writes (edits es applied, an edit's
// text split into its lines), in order.
func (m *Module) eachOutput(es []edit, f func(string)) {
	text := func(t string) {
		for {
			nl := strings.IndexByte(t, '\n')
			if nl < 0 {
				f(t)
				return
			}
			f(t[:nl])
			t = t[nl+1:]
		}
	}
	k := 0
	for i := 0; i <= len(m.Lines); i++ {
		for ; k < len(es) && es[k].line == i && es[k].order == 0; k++ {
			text(es[k].text)
		}
		if i < len(m.Lines) {
			f(m.Text(i))
		}
		for ; k < len(es) && es[k].line == i && es[k].order == 2; k++ {
			text(es[k].text)
		}
	}
}

// eachOutputLine calls f with every line WriteTo writes, before any stripping.
func (m *Module) eachOutputLine(f func(string)) { m.eachOutput(m.sortedEdits(), f) }

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Bytes returns the module as text, edits applied.
func (m *Module) Bytes() []byte {
	var b bytes.Buffer
	b.Grow(m.size())
	m.WriteTo(&b)
	return b.Bytes()
}

// An Error is IR the reader does not understand, with its place.
type Error struct {
	File string // the IR file, if known
	Line int    // 1-based line in the IR
	Func string // the enclosing function, if any
	Msg  string
	// SrcLine and SrcCol are the source position of the IR line (its !dbg
	// DILocation), when it has one; 0 otherwise.
	SrcLine, SrcCol int
}

func (e *Error) Error() string {
	var sb strings.Builder
	if e.File != "" {
		sb.WriteString(e.File)
		sb.WriteByte(':')
	}
	fmt.Fprintf(&sb, "%d: ", e.Line)
	if e.Func != "" {
		fmt.Fprintf(&sb, "in function @%s: ", e.Func)
	}
	sb.WriteString(e.Msg)
	return sb.String()
}
