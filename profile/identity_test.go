package profile

import (
	"bytes"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
)

// TestIdentityRoundTrip: the identity is written and read back, and the program hash
// is stored and checked.
func TestIdentityRoundTrip(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(3)), 2)
	p.Identity = Identity{Name: "prog.c util.c", BuildID: "5f1e0c"}
	q := mustParse(t, encode(t, p))
	if q.Identity != p.Identity {
		t.Errorf("identity %+v after round trip, want %+v", q.Identity, p.Identity)
	}
	if q.Hash() != p.Hash() {
		t.Errorf("hash %016x after round trip, want %016x", q.Hash(), p.Hash())
	}
	if d := q.Describe(); !strings.HasPrefix(d, "prog.c util.c (program ") {
		t.Errorf("Describe = %q", d)
	}
	// An edited function changes the hash.
	r := testProgram()
	r.Program.Funcs[0].Blocks[0].Label = "renamed" // labels are not part of the checksum
	if r.Hash() != testProgram().Hash() {
		t.Errorf("a label changed the program hash")
	}
	r.Program.Funcs[0].Name = "other"
	if r.Hash() == testProgram().Hash() {
		t.Errorf("a renamed function kept the program hash")
	}
}

// TestIdentityOldFile: a file of format 1.0 (no identity section) still parses; its
// identity is empty and its hash computed from its functions.
func TestIdentityOldFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "small-v1.0.fpp"))
	if err != nil {
		t.Fatal(err)
	}
	if minor := le.Uint16(data[10:]); minor != 0 {
		t.Fatalf("small-v1.0.fpp has minor version %d", minor)
	}
	p := mustParse(t, data)
	if p.Identity != (Identity{}) {
		t.Errorf("identity %+v, want none", p.Identity)
	}
	q := testProgram()
	if p.Hash() != q.Hash() {
		t.Errorf("hash %016x, want %016x (the functions' hash)", p.Hash(), q.Hash())
	}
	if !strings.HasPrefix(p.Describe(), "program ") {
		t.Errorf("Describe = %q", p.Describe())
	}
}

// TestIdentityHashChecked: a stored hash that is not the functions' is refused.
func TestIdentityHashChecked(t *testing.T) {
	p := testProgram()
	p.Identity = Identity{Name: "x.c"}
	data := encode(t, p)
	i := bytes.Index(data, p.encodeIdentity())
	if i < 0 {
		t.Fatal("identity section not found")
	}
	data[i] ^= 1
	le.PutUint32(data[28:], 0)
	le.PutUint32(data[28:], crc32Sum(data))
	if _, err := Parse(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "program hash") {
		t.Errorf("Parse of a wrong stored hash: %v", err)
	}
}

// TestMergeDifferentPrograms: profiles that share no function are refused naming
// both programs, unless Force; versions of one program go to the per-function check.
func TestMergeDifferentPrograms(t *testing.T) {
	a := testProgram()
	a.Identity = Identity{Name: "a.c"}
	b := &Profile{Program: &cfg.Program{Funcs: []*cfg.Func{leafFunc("main", "b.c")}}, Runs: 1,
		Counts: []cfg.Counts{{Blocks: []uint64{1}, Edges: []uint64{}}}, Identity: Identity{Name: "b.c"}}
	_, _, err := MergeWith([]*Profile{a, b}, MergeOptions{})
	var pm *ProgramMismatchError
	if !errors.As(err, &pm) || !strings.Contains(err.Error(), "a.c (program") || !strings.Contains(err.Error(), "b.c (program") {
		t.Fatalf("merge of different programs: %v", err)
	}
	if !DifferentPrograms(a, b) || DifferentPrograms(a, a) {
		t.Errorf("DifferentPrograms wrong")
	}
	m, _, err := MergeWith([]*Profile{a, b}, MergeOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if m.Identity.Name != "a.c + b.c" {
		t.Errorf("forced merge named %q, want %q", m.Identity.Name, "a.c + b.c")
	}
	// An edited version of a (one function's CFG differs) is the same program.
	c := testProgram()
	walk(c, rand.New(rand.NewSource(2)), 1)
	c.Program.Funcs[0] = leafFunc(c.Program.Funcs[0].Name, c.Program.Funcs[0].File)
	c.Counts[0] = cfg.Counts{Blocks: []uint64{c.Counts[0].Blocks[0]}, Edges: []uint64{}}
	if DifferentPrograms(a, c) {
		t.Errorf("an edited program counted as a different program")
	}
	var mm *MismatchError
	if _, _, err := MergeWith([]*Profile{a, c}, MergeOptions{}); !errors.As(err, &mm) {
		t.Errorf("merge of an edited program: %v, want a MismatchError", err)
	}
}

// TestIdentityInputs: the populations a run drew from are written and read back,
// absent they leave the section as before, and merging runs on different
// populations is refused (a changed corpus) unless forced.
func TestIdentityInputs(t *testing.T) {
	p := testProgram()
	walk(p, rand.New(rand.NewSource(3)), 2)
	p.Identity = Identity{Name: "prog.c", BuildID: "5f1e0c"}
	without := encode(t, p)
	p.Identity.Inputs = "f: population of 4 items of \"corpus/*.sql\", drawn without replacement, sha256 ab12"
	q := mustParse(t, encode(t, p))
	if q.Identity != p.Identity {
		t.Fatalf("identity %+v after round trip, want %+v", q.Identity, p.Identity)
	}
	if r := mustParse(t, without); r.Identity.Inputs != "" || r.Identity.Name != "prog.c" {
		t.Errorf("identity without inputs read as %+v", r.Identity)
	}
	other := testProgram()
	walk(other, rand.New(rand.NewSource(4)), 2)
	other.Identity = p.Identity
	other.Identity.Inputs = strings.Replace(p.Identity.Inputs, "ab12", "cd34", 1)
	_, _, err := MergeWith([]*Profile{p, other}, MergeOptions{})
	var im *InputsMismatchError
	if !errors.As(err, &im) || !strings.Contains(err.Error(), "sha256 ab12") || !strings.Contains(err.Error(), "sha256 cd34") {
		t.Fatalf("merge of runs on different populations: %v", err)
	}
	m, _, err := MergeWith([]*Profile{p, other}, MergeOptions{Force: true})
	if err != nil || m.Identity.Inputs != "" {
		t.Fatalf("forced merge: %v, inputs %q; want merged with the inputs unknown", err, m.Identity.Inputs)
	}
	other.Identity.Inputs = p.Identity.Inputs
	if m, _, err := MergeWith([]*Profile{p, other}, MergeOptions{}); err != nil || m.Identity.Inputs != p.Identity.Inputs {
		t.Fatalf("merge on one population: %v, inputs %q", err, m.Identity.Inputs)
	}
}
