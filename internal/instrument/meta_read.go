// This file reads a function's metadata JSON token by token. The reflection-based
// decoder spent most of a large blob's decoding growing slices (sqlite3.c's blob: 62 MB
// allocated and 540,000 allocations to decode 6.2 MB of JSON, 100 ms on one core);
// this one reuses its slices from function to function and builds each function's
// blocks and edges in one allocation each.

package instrument

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/fragprof/fragprof/cfg"
	"github.com/go-json-experiment/json/jsontext"
)

// A funcReader reads the JSON of metaFunc objects. Not safe for concurrent use.
type funcReader struct {
	r   bytes.Reader
	dec *jsontext.Decoder
	err error // the first error: every read after it returns zero values
	// strs interns the strings many objects repeat: file names, edge kinds.
	strs map[string]string
	// Scratch, reused from function to function.
	mf     metaFunc
	lines  []int // the Lines of mf.Blocks, one after the other (nLines says whose)
	nLines []int
	calls  []string
	nCalls []int
}

func newFuncReader() *funcReader {
	fr := &funcReader{strs: map[string]string{}}
	fr.dec = jsontext.NewDecoder(&fr.r)
	return fr
}

// plan reads the JSON object js and returns its function's plan; s is the unit's
// scheme.
func (fr *funcReader) plan(js []byte, s Scheme) (*FuncPlan, error) {
	fr.r.Reset(js)
	fr.dec.Reset(&fr.r)
	fr.err = nil
	fr.readFunc()
	if fr.err != nil {
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", fr.err)
	}
	return fr.build(s)
}

// readFunc reads a metaFunc object into fr.mf and the scratch slices.
func (fr *funcReader) readFunc() {
	mf := &fr.mf
	*mf = metaFunc{Blocks: mf.Blocks[:0], Edges: mf.Edges[:0], Counters: mf.Counters[:0], Exits: mf.Exits[:0], Leaves: mf.Leaves[:0]}
	fr.lines, fr.nLines, fr.calls, fr.nCalls = fr.lines[:0], fr.nLines[:0], fr.calls[:0], fr.nCalls[:0]
	fr.object(func(key []byte) {
		switch string(key) {
		case "name":
			mf.Name = fr.str(false)
		case "file":
			mf.File = fr.str(true)
		case "line":
			mf.Line = fr.int()
		case "blocks":
			fr.array(func() {
				var mb metaBlock
				nl, nc := len(fr.lines), len(fr.calls)
				fr.object(func(key []byte) {
					switch string(key) {
					case "l":
						mb.Label = fr.str(false)
					case "s":
						fr.pos(&mb.Start)
					case "e":
						fr.pos(&mb.End)
					case "ln":
						fr.array(func() { fr.lines = append(fr.lines, fr.int()) })
					case "n":
						mb.Instrs = fr.int()
					case "c":
						fr.array(func() { fr.calls = append(fr.calls, fr.str(true)) })
					default:
						fr.skip()
					}
				})
				mf.Blocks = append(mf.Blocks, mb)
				fr.nLines = append(fr.nLines, len(fr.lines)-nl)
				fr.nCalls = append(fr.nCalls, len(fr.calls)-nc)
			})
		case "edges":
			fr.array(func() {
				var me metaEdge
				fr.tuple(func(i int) {
					switch i {
					case 0:
						me.From = fr.int()
					case 1:
						me.To = fr.int()
					case 2:
						me.Kind = fr.str(true)
					case 3:
						me.Case = fr.str(true)
					default:
						fr.fail("an edge has more than 4 elements")
					}
				})
				mf.Edges = append(mf.Edges, me)
			})
		case "counters":
			fr.array(func() {
				var c [3]int
				fr.tuple(func(i int) {
					if i >= 3 {
						fr.fail("a counter has more than 3 elements")
						return
					}
					c[i] = fr.int()
				})
				mf.Counters = append(mf.Counters, c)
			})
		case "scheme":
			mf.Scheme = fr.str(true)
		case "fallback":
			mf.Fallback = fr.str(true)
		case "exits":
			fr.array(func() { mf.Exits = append(mf.Exits, fr.int()) })
		case "nr":
			fr.array(func() { mf.Leaves = append(mf.Leaves, fr.int()) })
		case "setjmp":
			mf.Setjmp = fr.bool()
		case "shared":
			mf.Shared = fr.bool()
		case "entry":
			mf.Entry = fr.str(true)
		default:
			fr.skip() // a field of a later format
		}
	})
}

// build makes the plan of the function read.
func (fr *funcReader) build(s Scheme) (*FuncPlan, error) {
	mf := &fr.mf
	bad := func(f string, a ...any) error {
		return fmt.Errorf("corrupt fragprof metadata: function %s: %s", mf.Name, fmt.Sprintf(f, a...))
	}
	f := &cfg.Func{Name: mf.Name, File: mf.File, Line: mf.Line, ReturnsTwice: mf.Setjmp}
	blocks := make([]cfg.Block, len(mf.Blocks))
	f.Blocks = make([]*cfg.Block, len(blocks))
	lines, calls := slices.Clone(fr.lines), slices.Clone(fr.calls)
	for i, mb := range mf.Blocks {
		b := &blocks[i]
		*b = cfg.Block{ID: i, Label: mb.Label, Start: cfg.Pos(mb.Start), End: cfg.Pos(mb.End), Instrs: mb.Instrs}
		if n := fr.nLines[i]; n > 0 {
			b.Lines, lines = lines[:n:n], lines[n:]
		}
		if n := fr.nCalls[i]; n > 0 {
			b.Calls, calls = calls[:n:n], calls[n:]
		}
		f.Blocks[i] = b
	}
	// Each block's successor and predecessor lists are slices of one array, in the
	// order AddEdge would have appended to them.
	nSucc, nPred := make([]int, len(blocks)), make([]int, len(blocks))
	for _, me := range mf.Edges {
		if me.From < 0 || me.From >= len(blocks) || me.To < 0 || me.To >= len(blocks) {
			return nil, bad("edge %v", me)
		}
		nSucc[me.From]++
		nPred[me.To]++
	}
	adj := make([]*cfg.Edge, 2*len(mf.Edges))
	for i := range blocks { // nil lists where there is no edge, as AddEdge leaves them
		if n := nSucc[i]; n > 0 {
			blocks[i].Succs, adj = adj[:0:n], adj[n:]
		}
		if n := nPred[i]; n > 0 {
			blocks[i].Preds, adj = adj[:0:n], adj[n:]
		}
	}
	edges := make([]cfg.Edge, len(mf.Edges))
	if len(edges) > 0 {
		f.Edges = make([]*cfg.Edge, len(edges))
	}
	for i, me := range mf.Edges {
		k, err := cfg.ParseEdgeKind(me.Kind)
		if err != nil {
			return nil, bad("%v", err)
		}
		e := &edges[i]
		*e = cfg.Edge{ID: i, From: f.Blocks[me.From], To: f.Blocks[me.To], Kind: k, Case: me.Case}
		f.Edges[i] = e
		e.From.Succs = append(e.From.Succs, e)
		e.To.Preds = append(e.To.Preds, e)
	}
	if err := f.Check(); err != nil {
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
	}
	for _, b := range mf.Leaves {
		if b < 0 || b >= len(blocks) {
			return nil, bad("block %d that may not return", b)
		}
		blocks[b].Traits |= cfg.MayNotReturn
	}
	p := &FuncPlan{Func: f, Scheme: s, Fallback: mf.Fallback, Shared: mf.Shared}
	switch mf.Entry {
	case "":
	case "calls":
		p.EntryFromCalls = true
	default:
		return nil, bad("entry %q", mf.Entry)
	}
	if mf.Scheme != "" {
		var err error
		if p.Scheme, err = ParseScheme(mf.Scheme); err != nil {
			return nil, bad("%v", err)
		}
	}
	for _, b := range mf.Exits {
		if b < 0 || b >= len(blocks) {
			return nil, bad("exit block %d", b)
		}
	}
	if len(mf.Exits) > 0 {
		p.Exits = slices.Clone(mf.Exits)
	}
	if len(mf.Counters) > 0 {
		p.Counters = make([]Counter, 0, len(mf.Counters))
	}
	for _, mc := range mf.Counters {
		if mc[0] >= len(blocks) || mc[1] >= len(f.Edges) || (mc[0] < 0) == (mc[1] < 0) {
			return nil, bad("counter %v", mc)
		}
		p.Counters = append(p.Counters, Counter{Block: mc[0], Edge: mc[1], Place: Place(mc[2])})
	}
	return p, nil
}

// pos reads [file, line, col].
func (fr *funcReader) pos(p *metaPos) {
	fr.tuple(func(i int) {
		switch i {
		case 0:
			p.File = fr.str(true)
		case 1:
			p.Line = fr.int()
		case 2:
			p.Col = fr.int()
		default:
			fr.fail("a position has more than 3 elements")
		}
	})
}

func (fr *funcReader) fail(f string, a ...any) {
	if fr.err == nil {
		fr.err = fmt.Errorf(f, a...)
	}
}

// value reads the next value whole (valid until the next read), nil after an error.
func (fr *funcReader) value() jsontext.Value {
	if fr.err != nil {
		return nil
	}
	v, err := fr.dec.ReadValue()
	if err != nil {
		fr.err = err
		return nil
	}
	return v
}

func (fr *funcReader) skip() { fr.value() }

// str reads a string; intern says that many objects repeat it.
func (fr *funcReader) str(intern bool) string {
	v := fr.value()
	if v == nil {
		return ""
	}
	if v.Kind() != '"' {
		fr.fail("want a string, got %s", v)
		return ""
	}
	raw := []byte(v[1 : len(v)-1])
	if bytes.IndexByte(raw, '\\') >= 0 {
		var err error
		if raw, err = jsontext.AppendUnquote(nil, v); err != nil {
			fr.fail("%v", err)
			return ""
		}
	}
	if !intern {
		return string(raw)
	}
	if s, ok := fr.strs[string(raw)]; ok {
		return s
	}
	s := string(raw)
	fr.strs[s] = s
	return s
}

// int reads an integer.
func (fr *funcReader) int() int {
	v := fr.value()
	if v == nil {
		return 0
	}
	neg := len(v) > 0 && v[0] == '-'
	digits := v
	if neg {
		digits = v[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		fr.fail("want an integer, got %s", v)
		return 0
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			fr.fail("want an integer, got %s", v)
			return 0
		}
		n = 10*n + int(c-'0')
	}
	if neg {
		return -n
	}
	return n
}

func (fr *funcReader) bool() bool {
	switch v := fr.value(); string(v) {
	case "true":
		return true
	case "false", "":
		return false
	default:
		fr.fail("want true or false, got %s", v)
		return false
	}
}

// token reads a delimiter, which must be of kind k.
func (fr *funcReader) token(k jsontext.Kind) {
	if fr.err != nil {
		return
	}
	t, err := fr.dec.ReadToken()
	if err != nil {
		fr.err = err
	} else if t.Kind() != k {
		fr.fail("want %v, got %v", k, t)
	}
}

// null reads a null in place of an array or object: what encoding/json writes for a
// nil slice.
func (fr *funcReader) null() bool {
	if fr.err == nil && fr.dec.PeekKind() == 'n' {
		fr.skip()
		return true
	}
	return false
}

// object reads an object, calling member with each member's name (valid during the
// call; a switch on string(key) does not allocate); member reads its value.
func (fr *funcReader) object(member func(key []byte)) {
	if fr.null() {
		return
	}
	fr.token('{')
	for fr.err == nil && fr.dec.PeekKind() != '}' {
		v := fr.value()
		if v == nil {
			break
		}
		if v.Kind() != '"' || bytes.IndexByte(v, '\\') >= 0 {
			fr.fail("unexpected member name %s", v)
			break
		}
		member(v[1 : len(v)-1])
	}
	fr.token('}')
}

// array reads an array, calling elem to read each element.
func (fr *funcReader) array(elem func()) {
	fr.tuple(func(int) { elem() })
}

// tuple reads an array, calling elem with each element's index.
func (fr *funcReader) tuple(elem func(i int)) {
	if fr.null() {
		return
	}
	fr.token('[')
	for i := 0; fr.err == nil && fr.dec.PeekKind() != ']'; i++ {
		elem(i)
	}
	fr.token(']')
}
