package profile

import (
	"bytes"
	"errors"
	"flag"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sumFunc builds a function with a loop, a switch with two cases to one block, and
// source positions: entry → cond; cond → body | end; body: switch (default → latch,
// case 1 → c1, case 2 → c1); c1 → latch; latch → cond; end returns.
func sumFunc(name, file string) *cfg.Func {
	f := &cfg.Func{Name: name, File: file, Line: 3}
	pos := func(l int) cfg.Pos { return cfg.Pos{File: file, Line: l, Col: 5} }
	labels := []string{"entry", "for.cond", "for.body", "sw.bb", "for.inc", "for.end"}
	for i, l := range labels {
		b := f.AddBlock(l)
		b.Start, b.End = pos(4+i), pos(4+i)
		b.Lines = []int{4 + i, 5 + i}
		b.Instrs = 3 + i
	}
	B := f.Blocks
	B[1].Cond = cfg.GeZero
	B[3].Traits = cfg.HasCall | cfg.MayNotReturn
	B[3].Calls = []string{"leaf", "printf", "leaf"}
	B[5].Traits = cfg.Returns
	f.AddEdge(B[0], B[1], cfg.Unconditional, "")
	f.AddEdge(B[1], B[2], cfg.True, "")
	f.AddEdge(B[1], B[5], cfg.False, "")
	f.AddEdge(B[2], B[4], cfg.Default, "")
	f.AddEdge(B[2], B[3], cfg.Case, "1")
	f.AddEdge(B[2], B[3], cfg.Case, "-2")
	f.AddEdge(B[3], B[4], cfg.Unconditional, "")
	f.AddEdge(B[4], B[1], cfg.Unconditional, "")
	return f
}

// leafFunc is a function of one block.
func leafFunc(name, file string) *cfg.Func {
	f := &cfg.Func{Name: name, File: file, Line: 20}
	b := f.AddBlock("entry")
	b.Traits = cfg.Returns
	return f
}

// walk adds n random runs of every function of p to its counts: each run starts at
// the entry and follows a random out-edge until a block without successors, so the
// counts conserve flow exactly.
func walk(p *Profile, rng *rand.Rand, n int) {
	if p.Counts == nil {
		for _, f := range p.Program.Funcs {
			p.Counts = append(p.Counts, cfg.NewCounts(f))
		}
	}
	for i, f := range p.Program.Funcs {
		c := p.Counts[i]
		for r := 0; r < n; r++ {
			b := f.Entry()
			for steps := 0; ; steps++ {
				c.Blocks[b.ID]++
				if len(b.Succs) == 0 {
					break
				}
				e := b.Succs[rng.Intn(len(b.Succs))]
				if steps > 50 && len(b.Succs) > 1 {
					e = b.Succs[len(b.Succs)-1] // leave loops eventually
				}
				c.Edges[e.ID]++
				b = e.To
			}
		}
	}
	p.Runs += n
}

func testProgram() *Profile {
	p := &Profile{Program: &cfg.Program{Funcs: []*cfg.Func{sumFunc("sum", "a.c"), leafFunc("leaf", "a.c"), sumFunc("helper", "b.c")}}, Counters: 7}
	p.Program.SortFuncs()
	return p
}

func encode(t *testing.T, p *Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n%s", name, lineDiff(string(want), string(got)))
	}
}

// lineDiff prints the first differing lines, or the first differing byte of binary data.
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + itoa(i+1) + ":\n- " + quoteBin(w) + "\n+ " + quoteBin(g)
		}
	}
	return "(same lines)"
}

func quoteBin(s string) string {
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.ToValidUTF8(s, "?")
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestGolden(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(1)), 5)
	data := encode(t, p)
	golden(t, "small.fpp", data)
	golden(t, "small.txt", []byte(p.String()))
	// The golden file parses back to the same profile.
	want, err := os.ReadFile(filepath.Join("testdata", "small.fpp"))
	if err != nil {
		t.Fatal(err)
	}
	q, err := Parse(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if q.String() != p.String() {
		t.Errorf("golden file parses to\n%s\nwant\n%s", q, p)
	}
}

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		p    func() *Profile
	}{
		{"structure only", func() *Profile { return testProgram() }},
		{"counts", func() *Profile {
			p := testProgram()
			walk(p, rand.New(rand.NewSource(2)), 40)
			return p
		}},
		{"extra ancillary section", func() *Profile {
			p := testProgram()
			walk(p, rand.New(rand.NewSource(3)), 3)
			p.Extra = []Section{{Type: 99, Flags: 0, Data: []byte("future stats")}}
			return p
		}},
		{"no functions", func() *Profile { return &Profile{Program: &cfg.Program{}, Runs: 2} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p()
			a := encode(t, p)
			q, err := Parse(bytes.NewReader(a))
			if err != nil {
				t.Fatal(err)
			}
			b := encode(t, q)
			if !bytes.Equal(a, b) {
				t.Fatalf("parse → write changed the file: %d bytes → %d bytes", len(a), len(b))
			}
			if p.String() != q.String() {
				t.Errorf("parse(write(p)) =\n%s\nwant\n%s", q, p)
			}
			if !reflect.DeepEqual(p.Counts, q.Counts) {
				t.Errorf("counts differ: %v vs %v", q.Counts, p.Counts)
			}
		})
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "run.fpp")
	p := testProgram()
	walk(p, rand.New(rand.NewSource(4)), 2)
	if err := p.WriteFile(name); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries after WriteFile, want only the profile", len(entries))
	}
	q, err := ParseFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if q.Runs != 2 {
		t.Errorf("runs = %d, want 2", q.Runs)
	}
}

// TestCorruption: every kind of damage is detected and reported as a FormatError.
func TestCorruption(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(5)), 10)
	good := encode(t, p)
	fix := func(b []byte) []byte { // recompute the checksum, to reach the deeper checks
		le.PutUint32(b[28:], 0)
		le.PutUint32(b[28:], crcOf(b))
		return b
	}
	cases := []struct {
		name, want string
		damage     func([]byte) []byte
	}{
		{"flipped bit", "checksum mismatch", func(b []byte) []byte { b[len(b)/2] ^= 4; return b }},
		{"truncated", "truncated", func(b []byte) []byte { return b[:len(b)-8] }},
		{"extended", "longer than", func(b []byte) []byte { return append(b, b...) }},
		{"not a profile", "bad magic", func(b []byte) []byte {
			return []byte("FPDUMP\x00\x01 and more bytes to fill a header....................................")
		}},
		{"future major version", "format version 2", func(b []byte) []byte { le.PutUint16(b[8:], 2); return fix(b) }},
		{"unknown critical section", "critical section of unknown type", func(b []byte) []byte {
			le.PutUint32(b[headerSize:], 77)
			return fix(b)
		}},
		{"count breaking flow", "in-edges sum", func(b []byte) []byte {
			// The last 8 bytes of the counts are the last edge count of the last
			// function.
			cs := section(t, b, SecCounts)
			le.PutUint64(cs[len(cs)-8:], le.Uint64(cs[len(cs)-8:])+1)
			return fix(b)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.damage(append([]byte(nil), good...))
			_, err := Parse(bytes.NewReader(b))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a FormatError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestMergeSums(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	a, b := testProgram(), testProgram()
	walk(a, rng, 10)
	walk(b, rng, 7)
	m, _, err := MergeWith([]*Profile{a, b}, MergeOptions{Weights: []uint64{2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Runs != 2*10+3*7 {
		t.Errorf("runs = %d, want %d", m.Runs, 2*10+3*7)
	}
	if m.Counters != 7 {
		t.Errorf("counters = %d, want 7 (all sources agree)", m.Counters)
	}
	for i := range m.Counts {
		for k := range m.Counts[i].Blocks {
			if want := 2*a.Counts[i].Blocks[k] + 3*b.Counts[i].Blocks[k]; m.Counts[i].Blocks[k] != want {
				t.Fatalf("function %s block %d: %d, want %d", m.Program.Funcs[i].Name, k, m.Counts[i].Blocks[k], want)
			}
		}
	}
	if err := m.Check(cfg.Conserved); err != nil {
		t.Error(err)
	}
	// A function present in one source only is kept.
	c := &Profile{Program: &cfg.Program{Funcs: []*cfg.Func{leafFunc("only", "c.c")}}, Runs: 1, Counters: 1,
		Counts: []cfg.Counts{{Blocks: []uint64{5}, Edges: []uint64{}}}}
	if _, err := Merge([]*Profile{a, c}); err == nil {
		t.Errorf("merging profiles that share no function succeeded; want a ProgramMismatchError")
	}
	m2, _, err := MergeWith([]*Profile{a, c}, MergeOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m2.Program.Funcs) != 4 || m2.Counters != 0 {
		t.Errorf("merged %d functions with counters=%d, want 4 and 0 (sources disagree)", len(m2.Program.Funcs), m2.Counters)
	}
}

// TestMergeAlgebra: merging is commutative and associative, byte for byte.
func TestMergeAlgebra(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var ps []*Profile
	for i := 0; i < 3; i++ {
		p := testProgram()
		walk(p, rng, 3+i*4)
		ps = append(ps, p)
	}
	extra := &Profile{Program: &cfg.Program{Funcs: []*cfg.Func{leafFunc("solo", "z.c")}}, Runs: 1,
		Counts: []cfg.Counts{{Blocks: []uint64{9}, Edges: []uint64{}}}}
	ps = append(ps, extra)
	merge := func(xs ...*Profile) *Profile {
		t.Helper()
		m, _, err := MergeWith(xs, MergeOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ps[0].Identity = Identity{Name: "a.c", BuildID: "0a"}
	ps[1].Identity = Identity{Name: "b.c", BuildID: "0a"}
	a, b, c, d := ps[0], ps[1], ps[2], ps[3]
	want := encode(t, merge(a, b, c, d))
	for name, got := range map[string]*Profile{
		"(ab)(cd)":   merge(merge(a, b), merge(c, d)),
		"a(b(cd))":   merge(a, merge(b, merge(c, d))),
		"((ab)c)d":   merge(merge(merge(a, b), c), d),
		"dcba":       merge(d, c, b, a),
		"(ca)(db)":   merge(merge(c, a), merge(d, b)),
		"b(d(a c))":  merge(b, merge(d, merge(a, c))),
		"reparsed a": merge(mustParse(t, encode(t, a)), b, c, d),
	} {
		if !bytes.Equal(encode(t, got), want) {
			t.Errorf("%s differs from abcd:\n%s\nwant\n%s", name, got, merge(a, b, c, d))
		}
	}
}

func mustParse(t *testing.T, b []byte) *Profile {
	t.Helper()
	p, err := Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMergeMismatch(t *testing.T) {
	a, b := testProgram(), testProgram()
	walk(a, rand.New(rand.NewSource(8)), 2)
	walk(b, rand.New(rand.NewSource(9)), 2)
	// The program changed: helper gained an edge.
	for i, f := range b.Program.Funcs {
		if f.Name == "helper" {
			g := sumFunc("helper", "b.c")
			g.AddEdge(g.Blocks[5], g.Blocks[1], cfg.Unconditional, "")
			b.Program.Funcs[i] = g
			b.Counts[i] = cfg.NewCounts(g)
		}
	}
	_, err := Merge([]*Profile{a, b})
	var me *MismatchError
	if !errors.As(err, &me) || me.Func != "helper" || me.A != 0 || me.B != 1 {
		t.Fatalf("Merge = %v, want a MismatchError for helper between sources 0 and 1", err)
	}
	m, skipped, err := MergeWith([]*Profile{a, b}, MergeOptions{SkipMismatched: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(skipped) != 1 || skipped[0].Func != "helper" {
		t.Errorf("skipped %v, want helper", skipped)
	}
	if m.Program.Func("helper") != nil || m.Program.Func("sum") == nil {
		t.Errorf("merged functions %v: want sum and leaf without helper", funcNames(m))
	}
	if _, _, err := MergeWith([]*Profile{a, b}, MergeOptions{Weights: []uint64{1}}); err == nil {
		t.Error("one weight for two profiles accepted")
	}
	if _, _, err := MergeWith([]*Profile{a}, MergeOptions{Weights: []uint64{0}}); err == nil {
		t.Error("weight 0 accepted")
	}
}

func TestMergeOverflow(t *testing.T) {
	a := &Profile{Program: &cfg.Program{Funcs: []*cfg.Func{leafFunc("hot", "h.c")}}, Runs: 1,
		Counts: []cfg.Counts{{Blocks: []uint64{1 << 62}, Edges: []uint64{}}}}
	if _, _, err := MergeWith([]*Profile{a, a}, MergeOptions{Weights: []uint64{4, 1}}); err == nil || !strings.Contains(err.Error(), "hot") {
		t.Errorf("overflow: %v, want an error naming hot", err)
	}
}

func funcNames(p *Profile) []string {
	var out []string
	for _, f := range p.Program.Funcs {
		out = append(out, f.Name)
	}
	return out
}

// section returns the body of the section of type typ in the encoded profile b (a
// slice of b).
func section(t *testing.T, b []byte, typ uint32) []byte {
	t.Helper()
	n := int(le.Uint32(b[24:]))
	for i := 0; i < n; i++ {
		e := b[headerSize+secEntry*i:]
		if le.Uint32(e) == typ {
			off, l := le.Uint64(e[8:]), le.Uint64(e[16:])
			return b[off : off+l]
		}
	}
	t.Fatalf("no section of type %d", typ)
	return nil
}

func crcOf(b []byte) uint32 {
	var c bytes.Buffer
	c.Write(b)
	return crc32Sum(c.Bytes())
}
