// This file implements the identity of a profile's program: the hash of its
// functions' CFGs, the name the user gave it and its binary's build-id (the identity
// section, type 7), and the test that two profiles describe different programs.

package profile

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
)

// SecIdentity is the section type of the program's identity (ancillary).
const SecIdentity = 7

// An Identity names the program a profile was taken from. Its hash is not stored
// here: it is always computed from the functions (Profile.Hash), so a profile written
// before the identity section existed (format 1.0) still has one.
type Identity struct {
	// Name is what the user named: the C files given to fragprof, or the path of the
	// binary given with --binary. Empty when unknown (a 1.0 file).
	Name string
	// BuildID is the GNU build-id of the instrumented binary, in hex; empty when the
	// binary had none or the profile did not come from a binary.
	BuildID string
	// Inputs names the finite populations the runs drew their inputs from (a
	// corpus, a file of recorded rows or lines), one line each with the
	// population's digest, as `fragprof freq` writes them; empty when none.
	// Merge refuses sources whose Inputs differ: the corpus changed between them.
	Inputs string
}

// Hash returns the program hash: FNV-1a (64 bits) over the name, source file and CFG
// checksum (cfg.Func.Checksum) of every function, in the profile's order (source
// order). Two builds of the same sources with the same CFGs have the same hash
// whatever the optimisation level; an edited function changes it.
func (p *Profile) Hash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, f := range p.Program.Funcs {
		h.Write([]byte(f.Name))
		h.Write([]byte{0})
		h.Write([]byte(f.File))
		h.Write([]byte{0})
		le.PutUint64(b[:], f.Checksum())
		h.Write(b[:])
	}
	return h.Sum64()
}

// Describe names p's program for messages: "prog.c (program 1a2b3c4d5e6f7a8b)".
func (p *Profile) Describe() string {
	s := fmt.Sprintf("program %016x", p.Hash())
	if p.Identity.Name != "" {
		s = p.Identity.Name + " (" + s + ")"
	}
	return s
}

// DifferentPrograms reports whether a and b are profiles of different programs:
// their hashes differ and they share no function (by name and source file). Two
// versions of one program share functions; their differences are found function by
// function (MismatchError).
func DifferentPrograms(a, b *Profile) bool {
	if a.Hash() == b.Hash() {
		return false
	}
	in := map[funcKey]bool{}
	for _, f := range a.Program.Funcs {
		in[funcKey{f.Name, f.File}] = true
	}
	for _, f := range b.Program.Funcs {
		if in[funcKey{f.Name, f.File}] {
			return false
		}
	}
	return true
}

// A ProgramMismatchError is two sources of a merge that are profiles of different
// programs (DifferentPrograms). A and B index the sources.
type ProgramMismatchError struct {
	A, B         int
	DescA, DescB string
}

// describeInputs names an Identity.Inputs for a message.
func describeInputs(s string) string {
	if s == "" {
		return "no recorded population"
	}
	return "[" + strings.ReplaceAll(s, "\n", "; ") + "]"
}

// An InputsMismatchError is two sources of a merge whose runs drew from different
// populations (Identity.Inputs): a corpus or a file of records changed between them.
type InputsMismatchError struct {
	A, B             int
	InputsA, InputsB string
}

func (e *InputsMismatchError) Error() string {
	return fmt.Sprintf("source %d drew its inputs from %s and source %d from %s: the population changed between the runs", e.A, e.InputsA, e.B, e.InputsB)
}

func (e *ProgramMismatchError) Error() string {
	return fmt.Sprintf("source %d is a profile of %s and source %d of %s: they share no function", e.A, e.DescA, e.B, e.DescB)
}

// mergeIdentity combines the identities of merged sources: a name, build-id or
// inputs is kept when every source agrees; differing names (a forced merge of different
// programs) are joined with " + " in sorted order, so that merging stays commutative
// and associative; differing build-ids become unknown.
func mergeIdentity(srcs []*Profile) Identity {
	id := srcs[0].Identity
	seen := map[string]bool{}
	for _, p := range srcs {
		if p.Identity.BuildID != id.BuildID {
			id.BuildID = ""
		}
		if p.Identity.Inputs != srcs[0].Identity.Inputs {
			id.Inputs = ""
		}
		if p.Identity.Name != "" {
			for _, n := range strings.Split(p.Identity.Name, " + ") {
				seen[n] = true
			}
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	id.Name = strings.Join(names, " + ")
	return id
}

// encodeIdentity is the identity section: the program hash (u64, for readers that do
// not compute it; Parse checks it), then the name, the build-id and, when not empty,
// the inputs, each a uvarint length and its bytes.
func (p *Profile) encodeIdentity() []byte {
	b := le.AppendUint64(nil, p.Hash())
	strs := []string{p.Identity.Name, p.Identity.BuildID}
	if p.Identity.Inputs != "" {
		strs = append(strs, p.Identity.Inputs)
	}
	for _, s := range strs {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// parseIdentity reads the identity section at offset off into p; the functions must
// be read already.
func (p *Profile) parseIdentity(data []byte, off int) error {
	if len(data) < 8 {
		return bad(off, "identity section too short")
	}
	if h := le.Uint64(data); h != p.Hash() {
		return bad(off, "identity section's program hash %016x is not the functions' hash %016x", h, p.Hash())
	}
	at := 8
	var strs [3]string
	for i := range strs {
		if i == 2 && at == len(data) {
			break // no inputs
		}
		n, k := binary.Uvarint(data[at:])
		if k <= 0 || n > uint64(len(data)-at-k) {
			return bad(off+at, "identity section: string %d truncated", i)
		}
		at += k
		strs[i] = string(data[at : at+int(n)])
		at += int(n)
	}
	p.Identity = Identity{Name: strs[0], BuildID: strs[1], Inputs: strs[2]}
	return nil
}

// ReadBuildID returns the GNU build-id of the ELF file path in hex, or "" when the
// file has none or is not ELF.
func ReadBuildID(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	d, err := s.Data()
	// An ELF note: namesz, descsz, type (4 bytes each), the name padded to 4, the
	// descriptor.
	if err != nil || len(d) < 16 {
		return ""
	}
	namesz, descsz := f.ByteOrder.Uint32(d[0:]), f.ByteOrder.Uint32(d[4:])
	start := 12 + (uint64(namesz)+3)&^3
	if start+uint64(descsz) > uint64(len(d)) {
		return ""
	}
	return hex.EncodeToString(d[start : start+uint64(descsz)])
}
