package profile

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// blockCalls lists the calls of every block of p, per function.
func blockCalls(p *Profile) [][][]string {
	var out [][][]string
	for _, f := range p.Program.Funcs {
		var fc [][]string
		for _, b := range f.Blocks {
			fc = append(fc, b.Calls)
		}
		out = append(out, fc)
	}
	return out
}

// TestCallsRoundTrip: the blocks' calls are written in the calls section and read
// back as they were; a profile without calls has no such section.
func TestCallsRoundTrip(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(11)), 3)
	data := encode(t, p)
	if le.Uint16(data[10:]) != 2 {
		t.Errorf("minor version %d, want 2", le.Uint16(data[10:]))
	}
	q := mustParse(t, data)
	if got, want := blockCalls(q), blockCalls(p); !reflect.DeepEqual(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	if q.Program.Func("sum").Blocks[3].Calls == nil {
		t.Fatal("sum's block 3 lost its calls")
	}
	for _, f := range p.Program.Funcs {
		for _, b := range f.Blocks {
			b.Calls = nil
		}
	}
	if bytes.Contains(encode(t, p), []byte("printf")) {
		t.Errorf("a profile without calls has a calls section")
	}
}

// TestCallsOldFiles: files of formats 1.0 and 1.1 (no calls section) parse as
// before, with no calls.
func TestCallsOldFiles(t *testing.T) {
	for _, name := range []string{"small-v1.0.fpp", "small-v1.1.fpp"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if minor := le.Uint16(data[10:]); int(minor) != int(name[len("small-v1.")]-'0') {
			t.Fatalf("%s has minor version %d", name, minor)
		}
		p := mustParse(t, data)
		for _, f := range p.Program.Funcs {
			for _, b := range f.Blocks {
				if b.Calls != nil {
					t.Errorf("%s: %s block %s has calls %q", name, f.Name, b.Label, b.Calls)
				}
			}
			if f.CallEdges() != nil {
				t.Errorf("%s: %s has call edges", name, f.Name)
			}
		}
		if !p.HasCounts() || len(p.Program.Funcs) != 3 {
			t.Errorf("%s: %d functions, counts %v", name, len(p.Program.Funcs), p.HasCounts())
		}
	}
}

// TestCallsAncillary: a reader that does not know the calls section (seen here as an
// unknown type) reads the file and keeps the section.
func TestCallsAncillary(t *testing.T) {
	p := testProgram()
	data := encode(t, p)
	n := int(le.Uint32(data[24:]))
	found := false
	for i := 0; i < n; i++ {
		e := data[headerSize+secEntry*i:]
		if le.Uint32(e) == SecCalls {
			if le.Uint32(e[4:])&FlagCritical != 0 {
				t.Errorf("the calls section is critical")
			}
			le.PutUint32(e, 98)
			found = true
		}
	}
	if !found {
		t.Fatal("no calls section")
	}
	le.PutUint32(data[28:], 0)
	le.PutUint32(data[28:], crcOf(data))
	q := mustParse(t, data)
	if len(q.Extra) != 1 || q.Extra[0].Type != 98 || q.Program.Func("sum").Blocks[3].Calls != nil {
		t.Errorf("unknown calls section: extra %v, calls %q", q.Extra, q.Program.Func("sum").Blocks[3].Calls)
	}
}

// TestCallsDamage: a calls section that does not fit the functions is refused,
// naming the section.
func TestCallsDamage(t *testing.T) {
	p := testProgram()
	good := encode(t, p)
	cases := []struct {
		name, want string
		damage     func(sec []byte)
	}{
		{"hash", "calls section's program hash", func(sec []byte) { sec[0] ^= 1 }},
		{"block count", "calls section: function", func(sec []byte) {
			// The name table holds "leaf" and "printf"; the first function's block
			// count follows.
			at := 8 + 1 + 1 + len("leaf") + 1 + len("printf")
			sec[at]++
		}},
		{"callee index", "callee index out of range", func(sec []byte) {
			// The last function ends with block 3's calls (0 1 0: leaf, printf,
			// leaf) and blocks 4 and 5 without calls.
			sec[len(sec)-3] = 9
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.damage(section(t, b, SecCalls))
			le.PutUint32(b[28:], 0)
			le.PutUint32(b[28:], crcOf(b))
			_, err := Parse(bytes.NewReader(b))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse = %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// TestCallEdges: call edges group a block's calls by callee, and count block count ×
// sites.
func TestCallEdges(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(12)), 4)
	i := 0
	for p.Program.Funcs[i].Name != "sum" {
		i++
	}
	f, c := p.Program.Funcs[i], p.Counts[i]
	es := f.CallEdges()
	if len(es) != 2 || es[0].Callee != "leaf" || es[0].Sites != 2 || es[1].Callee != "printf" || es[1].Sites != 1 || es[0].Block.ID != 3 {
		t.Fatalf("call edges %+v", es)
	}
	if got, want := es[0].Count(c), 2*c.Blocks[3]; got != want {
		t.Errorf("calls of leaf %d, want %d", got, want)
	}
	big := cfg.Counts{Blocks: make([]uint64, len(f.Blocks))}
	big.Blocks[3] = 1 << 63
	if es[0].Count(big) != ^uint64(0) {
		t.Errorf("overflow not saturated")
	}
}
