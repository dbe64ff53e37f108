// Package pgo feeds a profile back to the compiler, closing ORC's loop (its annotation
// step, docs/methods.md): it writes the counts into LLVM IR as the metadata that clang's
// own -fprofile-instr-use produces — !prof branch_weights on every branch
// that ran, !prof function_entry_count on every function, and the ProfileSummary
// module flag that tells LLVM's profile-guided passes (block placement, inlining,
// hot/cold splitting, loop unrolling) which counts are hot.
//
// A function is annotated only when the profile holds a function of the same name
// and source file whose CFG checksum equals that of the IR being compiled; every
// other function is left without profile metadata and reported (Report), so a stale
// profile is never applied to code it does not describe.
package pgo

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/llvmir"
	"github.com/fragprof/fragprof/profile"
)

// Status says what Annotate did with a function.
type Status uint8

// The statuses.
const (
	Applied  Status = iota // counts written
	NeverRun               // in the profile with zero calls: entry count 0 (cold), no branch weights
	Missing                // not in the profile: left alone
	Stale                  // in the profile with another CFG checksum: left alone
)

var statusNames = [...]string{"applied", "never run", "missing", "stale"}

func (s Status) String() string { return statusNames[s] }

// A FuncReport is what happened to one function of the module.
type FuncReport struct {
	Name     string
	File     string
	Status   Status
	Branches int    // branches given weights
	Calls    uint64 // the entry count written
	Why      string // for Missing and Stale
	// ByName is set when the profile's function has the same name in a file named
	// differently (matched by name alone).
	ByName bool
}

// A Report lists every function definition of a module in file order.
type Report struct {
	Funcs []FuncReport
}

// ErrOtherProgram is Build's error when the profile is of another program: it holds
// none of the functions of the sources (OtherProgram).
var ErrOtherProgram = errors.New("the profile holds none of the program's functions")

// OtherProgram tells whether the profile is of another program: it holds none of
// the functions of reports — each is Missing, or Stale and matched by name alone (a
// main of another file). Functions Stale under their own name and file are of this
// program, changed; merge and diff judge profiles the same way
// (profile.DifferentPrograms).
func OtherProgram(reports []*Report) bool {
	n := 0
	for _, r := range reports {
		for _, f := range r.Funcs {
			if f.Status != Missing && !(f.Status == Stale && f.ByName) {
				return false
			}
			n++
		}
	}
	return n > 0
}

// Count returns how many functions have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, f := range r.Funcs {
		if f.Status == s {
			n++
		}
	}
	return n
}

// Annotate writes the profile's counts into m as text edits (m.Bytes() gives the
// annotated module). It never changes code, only adds metadata.
func Annotate(m *llvmir.Module, p *profile.Profile) (*Report, error) {
	if !p.HasCounts() {
		return nil, fmt.Errorf("the profile has no counts (it holds only a CFG)")
	}
	byKey := map[[2]string]int{}
	byName := map[string][]int{}
	for i, f := range p.Program.Funcs {
		byKey[[2]string{f.Name, f.File}] = i
		byName[f.Name] = append(byName[f.Name], i)
	}
	r := &Report{}
	var entries []uint64 // entry counts of the annotated functions
	var internal []uint64
	var all []uint64
	for _, f := range m.Funcs {
		if strings.Contains(m.Lines[f.Line], " available_externally ") {
			continue // a copy of a library function (atoi from glibc's headers), never profiled
		}
		g := m.CFG(f)
		fr := FuncReport{Name: g.Name, File: g.File}
		i, ok := byKey[[2]string{g.Name, g.File}]
		if !ok && len(byName[g.Name]) == 1 {
			// The same function compiled from a file named differently (a relative
			// path against an absolute one): the checksum still decides.
			i, ok = byName[g.Name][0], true
			fr.ByName = true
		}
		switch {
		case !ok:
			fr.Status, fr.Why = Missing, "not in the profile"
		case p.Program.Funcs[i].Checksum() != g.Checksum():
			pf := p.Program.Funcs[i]
			fr.Status = Stale
			fr.Why = fmt.Sprintf("its CFG changed since profiling (%d blocks and %d edges now, %d and %d in the profile)",
				len(g.Blocks), len(g.Edges), len(pf.Blocks), len(pf.Edges))
		default:
			c := p.Counts[i]
			fr.Calls = c.Calls()
			fr.Status = Applied
			if fr.Calls == 0 {
				fr.Status = NeverRun
			}
			fr.Branches = annotateFunc(m, f, g, c)
			entries = append(entries, c.Calls())
			all = append(all, c.Blocks...)
			internal = append(internal, c.Blocks[1:]...)
		}
		r.Funcs = append(r.Funcs, fr)
	}
	if len(entries) > 0 {
		if err := addSummary(m, entries, internal, all); err != nil {
			return r, err
		}
	}
	return r, nil
}

// annotateFunc adds the entry count to f's definition and branch weights to every
// terminator with two or more successors whose block ran. It returns how many
// branches it annotated.
func annotateFunc(m *llvmir.Module, f *llvmir.Func, g *cfg.Func, c cfg.Counts) int {
	def := m.Text(f.Line)
	if k := strings.LastIndex(def, "{"); k >= 0 && !strings.Contains(def, "!prof") {
		id := m.NewMeta()
		m.Replace(f.Line, strings.TrimRight(def[:k], " ")+fmt.Sprintf(" !prof !%d {", id)+def[k+1:])
		m.Append(fmt.Sprintf("!%d = !{!\"function_entry_count\", i64 %d}", id, c.Calls()))
	}
	n := 0
	for i, b := range f.Blocks {
		gb := g.Blocks[i]
		if len(gb.Succs) < 2 || c.Blocks[i] == 0 {
			continue // clang too omits weights that carry no information
		}
		t := b.Term()
		last := m.Text(t.EndLine)
		if strings.Contains(last, "!prof") {
			continue
		}
		ws := make([]uint64, len(gb.Succs))
		for k, e := range gb.Succs {
			ws[k] = c.Edges[e.ID]
		}
		id := m.NewMeta()
		m.Replace(t.EndLine, last+fmt.Sprintf(", !prof !%d", id))
		m.Append(fmt.Sprintf("!%d = !{!\"branch_weights\"%s}", id, weightList(ws)))
		n++
	}
	return n
}

// weightList scales counts to the 32-bit weights LLVM stores, as clang does
// (CodeGenPGO's scaleBranchWeight): divide by max/2³²+1 and add 1, so that no weight
// is zero and their ratios are kept.
func weightList(ws []uint64) string {
	var max uint64
	for _, w := range ws {
		if w > max {
			max = w
		}
	}
	scale := max/0xffffffff + 1
	var sb strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&sb, ", i32 %d", w/scale+1)
	}
	return sb.String()
}

// cutoffs are LLVM's default detailed-summary cutoffs, in parts per million
// (ProfileSummaryBuilder::DefaultCutoffs).
var cutoffs = []uint64{10000, 100000, 200000, 300000, 400000, 500000, 600000, 700000, 800000,
	900000, 950000, 990000, 999000, 999900, 999990, 999999}

// addSummary adds the ProfileSummary module flag, computed over the block counts of
// the annotated functions as LLVM's ProfileSummaryBuilder does over counters.
func addSummary(m *llvmir.Module, entries, internal, all []uint64) error {
	var total, maxCount, maxInternal, maxFunc uint64
	for _, c := range all {
		total += c
		maxCount = max(maxCount, c)
	}
	for _, c := range internal {
		maxInternal = max(maxInternal, c)
	}
	for _, c := range entries {
		maxFunc = max(maxFunc, c)
	}
	// Distinct counts, hottest first, with how often each occurs.
	freq := map[uint64]uint64{}
	for _, c := range all {
		freq[c]++
	}
	distinct := make([]uint64, 0, len(freq))
	for c := range freq {
		distinct = append(distinct, c)
	}
	sort.Slice(distinct, func(i, j int) bool { return distinct[i] > distinct[j] })
	var detail []string
	var curr, count, seen uint64
	k := 0
	for _, cut := range cutoffs {
		desired := mulDiv(total, cut, 1000000)
		for curr < desired && k < len(distinct) {
			count = distinct[k]
			curr += count * freq[count]
			seen += freq[count]
			k++
		}
		detail = append(detail, fmt.Sprintf("!{i32 %d, i64 %d, i32 %d}", cut, count, seen))
	}
	sum := m.NewMeta()
	m.Append(fmt.Sprintf("!%d = !{i32 1, !\"ProfileSummary\", !{!{!\"ProfileFormat\", !\"InstrProf\"}, "+
		"!{!\"TotalCount\", i64 %d}, !{!\"MaxCount\", i64 %d}, !{!\"MaxInternalCount\", i64 %d}, "+
		"!{!\"MaxFunctionCount\", i64 %d}, !{!\"NumCounts\", i64 %d}, !{!\"NumFunctions\", i64 %d}, "+
		"!{!\"IsPartialProfile\", i64 0}, !{!\"PartialProfileRatio\", double 0.000000e+00}, "+
		"!{!\"DetailedSummary\", !{%s}}}}",
		sum, total, maxCount, maxInternal, maxFunc, len(all), len(entries), strings.Join(detail, ", ")))
	for i, l := range m.Lines {
		if strings.HasPrefix(l, "!llvm.module.flags = !{") {
			t := m.Text(i)
			if strings.Contains(t, "ProfileSummary") {
				return nil
			}
			k := strings.LastIndex(t, "}")
			if k < 0 {
				return fmt.Errorf("cannot read the module flags: %s", t)
			}
			m.Replace(i, t[:k]+fmt.Sprintf(", !%d", sum)+t[k:])
			return nil
		}
	}
	m.Append(fmt.Sprintf("!llvm.module.flags = !{!%d}", sum))
	return nil
}

// mulDiv returns a·b/c without overflow for b ≤ 10⁶.
func mulDiv(a, b, c uint64) uint64 {
	return a/c*b + a%c*b/c
}
