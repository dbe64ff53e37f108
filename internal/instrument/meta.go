// This file encodes a unit's CFG and counter plan into the metadata blob the binary
// carries, and decodes it back.

package instrument

import (
	"bytes"
	"compress/zlib"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/fragprof/fragprof/cfg"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// metaVersion is the version of the metadata blob Encode writes; Decode reads it and
// every earlier one. Version 2 added a function's "entry": "calls"; version 3 the
// self-loops counted at their block (AtSelfLoop), which an earlier reader would
// take for edge counts; version 4 the stop counters of blocks that may fault
// (AtStop), which the runtime's stack walk increments.
const metaVersion = 4

// The blob is compact JSON compressed with zlib (RFC 1950); docs/runtime.md documents
// it. Compression takes sqlite3.c's blob from 6.2 MB to 1.1 MB: the binary carries
// it, every dump written outside the fork server copies it, and the instrumented
// IR spells it out as an escaped string (8.1 MB of text, 2.4 MB compressed).
// Blobs of fragprof before compression (plain JSON, starting with '{') still read.
type metaUnit struct {
	Version int        `json:"v"`
	Source  string     `json:"src"`
	Scheme  string     `json:"scheme"`
	Mem     bool       `json:"mem,omitempty"` // Unit.InMemory
	Funcs   []metaFunc `json:"funcs"`
	// Promoted: some counters live in locals inside loops (Unit.Promoted).
	Promoted bool `json:"promoted,omitempty"`
	// Simplified: the CFG is the one LLVM's early simplification left (Unit.Simplified).
	Simplified bool `json:"simplified,omitempty"`
}

type metaFunc struct {
	Name     string      `json:"name"`
	File     string      `json:"file"`
	Line     int         `json:"line"`
	Blocks   []metaBlock `json:"blocks"`
	Edges    []metaEdge  `json:"edges"`              // from, to, kind, case
	Counters [][3]int    `json:"counters"`           // block, edge, place
	Scheme   string      `json:"scheme,omitempty"`   // when it differs from the unit's
	Fallback string      `json:"fallback,omitempty"` // why
	Exits    []int       `json:"exits,omitempty"`    // chords: blocks joined to the virtual exit
	Setjmp   bool        `json:"setjmp,omitempty"`
	Shared   bool        `json:"shared,omitempty"` // linkonce/weak/COMDAT: counts add up across units
	Entry    string      `json:"entry,omitempty"`  // "calls": FuncPlan.EntryFromCalls
	// Leaves lists the blocks with successors and a call that may not return
	// (cfg.MayNotReturn): an exception may leave them without their terminator even
	// in a run whose main returned. Absent in blobs of fragprof before it.
	Leaves []int `json:"nr,omitempty"`
}

type metaBlock struct {
	Label  string   `json:"l"`
	Start  metaPos  `json:"s"` // file, line, col
	End    metaPos  `json:"e"`
	Lines  []int    `json:"ln,omitempty"`
	Instrs int      `json:"n"`
	Calls  []string `json:"c,omitempty"` // cfg.Block.Calls; absent in blobs of fragprof before call edges
}

// Encode returns the unit's metadata blob.
func (u *Unit) Encode() ([]byte, error) {
	mu := metaUnit{Version: metaVersion, Source: u.Source, Scheme: u.Scheme.String(), Mem: u.InMemory, Promoted: u.Promoted, Simplified: u.Simplified}
	for _, p := range u.Funcs {
		f := p.Func
		mf := metaFunc{Name: f.Name, File: f.File, Line: f.Line}
		for _, b := range f.Blocks {
			mf.Blocks = append(mf.Blocks, metaBlock{
				Label:  b.Label,
				Start:  metaPos(b.Start),
				End:    metaPos(b.End),
				Lines:  b.Lines,
				Instrs: b.Instrs,
				Calls:  b.Calls,
			})
		}
		for _, e := range f.Edges {
			mf.Edges = append(mf.Edges, metaEdge{e.From.ID, e.To.ID, e.Kind.String(), e.Case})
		}
		for _, c := range p.Counters {
			mf.Counters = append(mf.Counters, [3]int{c.Block, c.Edge, int(c.Place)})
		}
		if p.Scheme != u.Scheme {
			mf.Scheme = p.Scheme.String()
		}
		mf.Fallback, mf.Exits, mf.Setjmp, mf.Shared = p.Fallback, p.Exits, f.ReturnsTwice, p.Shared
		if p.EntryFromCalls {
			mf.Entry = "calls"
		}
		for _, b := range f.Blocks {
			if b.Traits&cfg.MayNotReturn != 0 && len(b.Succs) > 0 {
				mf.Leaves = append(mf.Leaves, b.ID)
			}
		}
		mu.Funcs = append(mu.Funcs, mf)
	}
	js, err := json.Marshal(mu)
	if err != nil {
		return nil, err
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if _, err := w.Write(js); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// Decode reads a metadata blob back into a unit whose plans can Reconstruct counts.
// A freq run waits for its binary's blob before it folds its first trial, its fork
// server idle meanwhile (sqlite3.c's blob, 3,000 functions in 6.2 MB of JSON, took
// 100 ms), so the work is spread over the CPUs: this goroutine inflates the blob and
// cuts the functions' JSON apart, GOMAXPROCS others decode them (funcReader).
func Decode(blob []byte) (*Unit, error) {
	var in io.Reader = bytes.NewReader(blob)
	if len(blob) == 0 || blob[0] != '{' { // else plain JSON: fragprof before compression
		z, err := zlib.NewReader(in)
		if err != nil {
			return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
		}
		defer z.Close()
		in = z
	}
	type job struct {
		i  int
		js []byte
	}
	jobs := make(chan job, 64)
	var (
		mu    sync.Mutex
		plans []*FuncPlan
		errs  []error
		wg    sync.WaitGroup
	)
	var scheme Scheme // set before the first job is sent
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			fr := newFuncReader()
			for j := range jobs {
				p, err := fr.plan(j.js, scheme)
				mu.Lock()
				for len(plans) <= j.i {
					plans, errs = append(plans, nil), append(errs, nil)
				}
				plans[j.i], errs[j.i] = p, err
				mu.Unlock()
			}
		})
	}
	u, nfuncs, err := readUnit(jsontext.NewDecoder(in), func(s Scheme) { scheme = s }, func(i int, js []byte) {
		jobs <- job{i, js}
	})
	close(jobs)
	wg.Wait()
	var ve versionError
	switch {
	case errors.As(err, &ve):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("corrupt fragprof metadata: %v", err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err // the first function's
		}
	}
	if nfuncs > 0 {
		u.Funcs = plans
	}
	return u, nil
}

// readUnit reads a unit's JSON object: its fields into a Unit, and each function's
// JSON, copied, to fn in order, once the unit's version is checked and its scheme
// passed to setScheme (Encode writes both before the functions; functions that come
// first wait for them).
func readUnit(dec *jsontext.Decoder, setScheme func(Scheme), fn func(i int, js []byte)) (*Unit, int, error) {
	var mu metaUnit
	var late [][]byte // functions read before the version and the scheme
	n := 0
	ready := false
	token := func(k jsontext.Kind) error {
		t, err := dec.ReadToken()
		if err == nil && t.Kind() != k {
			err = fmt.Errorf("want %v, got %v", k, t)
		}
		return err
	}
	if err := token('{'); err != nil {
		return nil, 0, err
	}
	for dec.PeekKind() != '}' {
		t, err := dec.ReadToken()
		if err != nil {
			return nil, 0, err
		}
		var field any
		switch key := t.String(); key {
		case "funcs":
			if dec.PeekKind() == 'n' {
				break // null: no functions
			}
			if err := token('['); err != nil {
				return nil, 0, fmt.Errorf("funcs: %v", err)
			}
			for dec.PeekKind() != ']' {
				v, err := dec.ReadValue()
				if err != nil {
					return nil, 0, err
				}
				if ready {
					fn(n, bytes.Clone(v))
				} else {
					late = append(late, bytes.Clone(v))
				}
				n++
			}
			if err := token(']'); err != nil {
				return nil, 0, err
			}
			continue
		case "v":
			field = &mu.Version
		case "src":
			field = &mu.Source
		case "scheme":
			field = &mu.Scheme
		case "mem":
			field = &mu.Mem
		case "promoted":
			field = &mu.Promoted
		case "simplified":
			field = &mu.Simplified
		}
		v, err := dec.ReadValue()
		if err != nil {
			return nil, 0, err
		}
		if field == nil {
			continue // a field of a later format
		}
		if err := jsonv2.Unmarshal(v, field); err != nil {
			return nil, 0, err
		}
		if !ready && mu.Version != 0 && mu.Scheme != "" {
			if mu.Version < 1 || mu.Version > metaVersion {
				return nil, 0, errVersion(mu.Version)
			}
			s, err := ParseScheme(mu.Scheme)
			if err != nil {
				return nil, 0, err
			}
			setScheme(s)
			ready = true
			for i, js := range late {
				fn(i, js)
			}
			late = nil
		}
	}
	if err := token('}'); err != nil {
		return nil, 0, err
	}
	// The end of the stream, which for a compressed blob checks its checksum.
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the unit")
		}
		return nil, 0, err
	}
	if mu.Version < 1 || mu.Version > metaVersion {
		return nil, 0, errVersion(mu.Version)
	}
	s, err := ParseScheme(mu.Scheme)
	if err != nil {
		return nil, 0, err
	}
	return &Unit{Source: mu.Source, Scheme: s, InMemory: mu.Mem, Promoted: mu.Promoted, Simplified: mu.Simplified}, n, nil
}

// A versionError is a blob of another format version.
type versionError int

func errVersion(v int) error { return versionError(v) }

func (v versionError) Error() string {
	return fmt.Sprintf("fragprof metadata version %d, this fragprof reads versions 1 to %d: rebuild the program, or use the fragprof that built it", int(v), metaVersion)
}

// metaPos is a source position, written [file, line, col].
type metaPos cfg.Pos

// metaEdge is an edge, written [from, to, kind, case].
type metaEdge struct {
	From, To   int
	Kind, Case string
}

func (p metaPos) MarshalJSON() ([]byte, error) { return json.Marshal([3]any{p.File, p.Line, p.Col}) }

func (e metaEdge) MarshalJSON() ([]byte, error) {
	return json.Marshal([4]any{e.From, e.To, e.Kind, e.Case})
}
