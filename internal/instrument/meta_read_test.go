package instrument

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// decodeReference is the decoder Decode replaced: reflection into metaUnit, blocks and
// edges added one by one. Decode must build the same units.
func decodeReference(js []byte) (*Unit, error) {
	var mu metaUnit
	if err := jsonv2.Unmarshal(js, &mu, jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
		jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, p *metaPos) error {
			return readTuple(d, &p.File, &p.Line, &p.Col)
		}),
		jsonv2.UnmarshalFromFunc(func(d *jsontext.Decoder, e *metaEdge) error {
			return readTuple(d, &e.From, &e.To, &e.Kind, &e.Case)
		})))); err != nil {
		return nil, err
	}
	if mu.Version < 1 || mu.Version > metaVersion {
		return nil, errVersion(mu.Version)
	}
	s, err := ParseScheme(mu.Scheme)
	if err != nil {
		return nil, err
	}
	u := &Unit{Source: mu.Source, Scheme: s, InMemory: mu.Mem, Promoted: mu.Promoted, Simplified: mu.Simplified}
	for _, mf := range mu.Funcs {
		f := &cfg.Func{Name: mf.Name, File: mf.File, Line: mf.Line, ReturnsTwice: mf.Setjmp}
		for _, mb := range mf.Blocks {
			b := f.AddBlock(mb.Label)
			b.Start, b.End = cfg.Pos(mb.Start), cfg.Pos(mb.End)
			b.Lines, b.Instrs, b.Calls = mb.Lines, mb.Instrs, mb.Calls
		}
		for _, me := range mf.Edges {
			if me.From < 0 || me.From >= len(f.Blocks) || me.To < 0 || me.To >= len(f.Blocks) {
				return nil, fmt.Errorf("edge %v", me)
			}
			k, err := cfg.ParseEdgeKind(me.Kind)
			if err != nil {
				return nil, err
			}
			f.AddEdge(f.Blocks[me.From], f.Blocks[me.To], k, me.Case)
		}
		if err := f.Check(); err != nil {
			return nil, err
		}
		p := &FuncPlan{Func: f, Scheme: s, Fallback: mf.Fallback, Shared: mf.Shared, Exits: mf.Exits, EntryFromCalls: mf.Entry == "calls"}
		if mf.Scheme != "" {
			if p.Scheme, err = ParseScheme(mf.Scheme); err != nil {
				return nil, err
			}
		}
		for _, b := range mf.Exits {
			if b < 0 || b >= len(f.Blocks) {
				return nil, fmt.Errorf("exit %d", b)
			}
		}
		for _, mc := range mf.Counters {
			if mc[0] >= len(f.Blocks) || mc[1] >= len(f.Edges) || (mc[0] < 0) == (mc[1] < 0) {
				return nil, fmt.Errorf("counter %v", mc)
			}
			p.Counters = append(p.Counters, Counter{Block: mc[0], Edge: mc[1], Place: Place(mc[2])})
		}
		u.Funcs = append(u.Funcs, p)
	}
	return u, nil
}

// readTuple reads a JSON array whose elements are, in order, a string or an integer
// as fields says (*string, *int).
func readTuple(d *jsontext.Decoder, fields ...any) error {
	if t, err := d.ReadToken(); err != nil {
		return err
	} else if t.Kind() != '[' {
		return fmt.Errorf("want an array, got %v", t)
	}
	for _, f := range fields {
		t, err := d.ReadToken()
		if err != nil {
			return err
		}
		switch f := f.(type) {
		case *string:
			if t.Kind() != '"' {
				return fmt.Errorf("want a string, got %v", t)
			}
			*f = t.String()
		case *int:
			if t.Kind() != '0' {
				return fmt.Errorf("want a number, got %v", t)
			}
			*f = int(t.Int())
		}
	}
	if t, err := d.ReadToken(); err != nil {
		return err
	} else if t.Kind() != ']' {
		return fmt.Errorf("want the end of an array, got %v", t)
	}
	return nil
}

// richUnit is a unit whose functions use every field of the metadata.
func richUnit(r *rand.Rand, n int) *Unit {
	u := &Unit{Source: `dir/x "1".c`, Scheme: Edges, Promoted: true, Simplified: true}
	for i := range n {
		f := randomFunc(r)
		f.Name = fmt.Sprintf("f%d", i)
		f.File, f.Line = "x.c", 10*i+1
		f.ReturnsTwice = i%5 == 0
		for j, b := range f.Blocks {
			b.Start = cfg.Pos{File: "x.c", Line: 10*i + j, Col: j}
			b.End = cfg.Pos{File: "h\\é.h", Line: 10*i + j + 1, Col: 2 * j}
			if j%2 == 0 {
				b.Lines = []int{10*i + j, 10*i + j + 1}
			}
			if j%3 == 0 {
				b.Calls = []string{"g", "_ZN2ns1hEv"}
			}
			b.Instrs = j + 1
		}
		s := Edges
		if i%4 == 1 {
			s = Blocks
		}
		p := PlanFunc(f, s)
		if i%7 == 3 {
			p.Fallback = "a reason \"quoted\""
		}
		p.Shared = i%6 == 2
		u.Funcs = append(u.Funcs, p)
	}
	return u
}

// TestDecodeMatchesReference decodes blobs with Decode and with the reflection-based
// reference and wants the same units: generated units using every field, and
// hand-written JSON with escapes, nulls, unknown fields and another field order.
func TestDecodeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var inputs [][]byte
	for _, n := range []int{0, 1, 3, 200} {
		blob, err := richUnit(r, n).Encode()
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, blob)
	}
	inputs = append(inputs,
		[]byte(`{"v":1,"src":"a.c","scheme":"edges","funcs":null}`),
		[]byte(`{"funcs":[{"name":"m","file":"a.c","line":2,"blocks":[{"l":"entry","s":["a\u00e9.c",2,1],"e":["a.c",3,0],"n":1,"future":{"x":[1]}}],"edges":null,"counters":[[0,-1,0]]}],"scheme":"edges","v":1,"later":true}`),
		[]byte(`{"v":1,"src":"a.c","scheme":"blocks","funcs":[{"name":"m","blocks":[{"l":"a","s":["",0,0],"e":["",0,0],"n":2},{"l":"b","s":["",0,0],"e":["",0,0],"n":1}],"edges":[[0,1,"unconditional",""]],"counters":[[0,-1,0],[1,-1,0]],"exits":[1],"setjmp":true,"shared":false,"scheme":"blocks"}]}`),
	)
	for k, blob := range inputs {
		js := blob
		if blob[0] != '{' {
			var err error
			if js, err = inflate(blob); err != nil {
				t.Fatal(err)
			}
		}
		want, err := decodeReference(js)
		if err != nil {
			t.Fatalf("input %d: reference: %v", k, err)
		}
		got, err := Decode(blob)
		if err != nil {
			t.Fatalf("input %d: %v", k, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input %d: Decode and the reference differ", k)
		}
	}
}

// TestDecodeErrors: damaged metadata is an error naming it, never a panic or a unit.
func TestDecodeErrors(t *testing.T) {
	ok := `{"v":1,"scheme":"edges","funcs":[{"name":"m","blocks":[{"l":"a","s":["",0,0],"e":["",0,0],"n":1}],"edges":null,"counters":[[0,-1,0]]}]}`
	if _, err := Decode([]byte(ok)); err != nil {
		t.Fatalf("the valid blob: %v", err)
	}
	for _, c := range []struct{ js, want string }{
		{ok[:len(ok)-3], "corrupt fragprof metadata"},
		{strings.Replace(ok, `"n":1`, `"n":1.5`, 1), "want an integer"},
		{strings.Replace(ok, `"n":1`, `"n":"1"`, 1), "want an integer"},
		{strings.Replace(ok, `"l":"a"`, `"l":1`, 1), "want a string"},
		{strings.Replace(ok, `"edges":null`, `"edges":[[0,5,"goto",""]]`, 1), "edge"},
		{strings.Replace(ok, `"edges":null`, `"edges":[[0,0,"sideways",""]]`, 1), "edge kind"},
		{strings.Replace(ok, `[[0,-1,0]]`, `[[0,0,0]]`, 1), "counter"},
		{strings.Replace(ok, `"name":"m",`, `"name":"m","exits":[7],`, 1), "exit block 7"},
		{strings.Replace(ok, `"scheme":"edges"`, `"scheme":"spiral"`, 1), "scheme"},
		{strings.Replace(ok, `"v":1`, `"v":5`, 1), "version 5"},
		{`[1]`, "corrupt fragprof metadata"},
		{ok + `{}`, "data after the unit"},
		{`{"v":1,"scheme":"edges","funcs":[7]}`, "corrupt fragprof metadata"},
	} {
		if _, err := Decode([]byte(c.js)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s) = %v, want an error with %q", c.js, err, c.want)
		}
	}
}

// TestDecodeChecksum: a compressed blob whose checksum does not match is refused,
// though its JSON reads whole.
func TestDecodeChecksum(t *testing.T) {
	blob, err := richUnit(rand.New(rand.NewPCG(1, 2)), 2).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(blob); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(blob)
	bad[len(bad)-1] ^= 1 // the last byte of the Adler-32 checksum
	if _, err := Decode(bad); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("Decode of a blob with a wrong checksum: %v", err)
	}
}

// FuzzDecode: Decode never panics, and where both decode, Decode gives the unit the
// reference gives.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	blob, err := richUnit(r, 3).Encode()
	if err != nil {
		f.Fatal(err)
	}
	js, err := inflate(blob)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	f.Add([]byte(`{"v":1,"scheme":"edges","funcs":[{"name":"m","blocks":[{"l":"a","s":["",0,0],"e":["",0,0],"n":1}],"counters":[[0,-1,0]]}]}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		if len(js) == 0 || js[0] != '{' {
			return // compressed: the inflater's business
		}
		got, err := Decode(js)
		want, werr := decodeReference(js)
		if err != nil || werr != nil {
			return
		}
		// Compared by their blobs: an empty list ("ln":[], which Encode never
		// writes) is nil for Decode and empty for the reference.
		g, err := got.Encode()
		if err != nil {
			t.Fatal(err)
		}
		w, err := want.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(g, w) {
			t.Errorf("Decode and the reference differ on %s", js)
		}
	})
}

// BenchmarkDecode decodes the blob of a unit of 3,000 functions (sqlite3.c has 2,600).
func BenchmarkDecode(b *testing.B) {
	blob, err := richUnit(rand.New(rand.NewPCG(9, 10)), 3000).Encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(blob)))
	for b.Loop() {
		if _, err := Decode(blob); err != nil {
			b.Fatal(err)
		}
	}
}

// inflate returns a compressed blob's JSON.
func inflate(blob []byte) ([]byte, error) {
	z, err := zlib.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	_, err = out.ReadFrom(z)
	return out.Bytes(), err
}
