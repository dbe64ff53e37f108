package timing

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/stats"
)

// record builds a type-1 payload as runtime/c/timing.c writes it (docs/timing.md).
func record(timer Timer, npt, overhead float64, frags map[string][]uint64, order []string) []byte {
	le := binary.LittleEndian
	p := []byte("FPTM")
	p = le.AppendUint32(p, 1)
	p = le.AppendUint32(p, uint32(timer))
	p = le.AppendUint32(p, FlagInvariantTSC)
	p = le.AppendUint64(p, math.Float64bits(npt))
	p = le.AppendUint64(p, math.Float64bits(5e6))
	p = le.AppendUint64(p, math.Float64bits(overhead))
	p = le.AppendUint64(p, math.Float64bits(overhead-1))
	p = le.AppendUint32(p, 2001)
	p = le.AppendUint32(p, uint32(len(order)))
	for _, name := range order {
		ticks := frags[name]
		p = le.AppendUint32(p, uint32(len(name)))
		p = le.AppendUint32(p, uint32(len(ticks)))
		p = le.AppendUint32(p, 0)
		p = le.AppendUint32(p, 0)
		p = le.AppendUint32(p, 0)
		p = le.AppendUint32(p, 0)
		p = append(p, name...)
		for len(p)%8 != 0 {
			p = append(p, 0)
		}
		for _, t := range ticks {
			p = le.AppendUint64(p, t)
		}
	}
	return p
}

func frame(typ uint32, payload []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	return append(b, payload...)
}

func TestParseExtra(t *testing.T) {
	p := record(TSC, 0.5, 40, map[string][]uint64{"func:f": {100, 200}, "region:abcdefghi": {7}}, []string{"func:f", "region:abcdefghi"})
	data := append(frame(2, []byte("a trace")), frame(RecordType, p)...)
	recs, err := ParseExtra(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Timer != TSC || r.NsPerTick != 0.5 || r.Overhead != 40 || r.OverheadReps != 2001 || r.Flags != FlagInvariantTSC {
		t.Errorf("header: %+v", r)
	}
	if len(r.Frags) != 2 || r.Frags[0].Name != "func:f" || r.Frags[1].Name != "region:abcdefghi" ||
		len(r.Frags[0].Ticks) != 2 || r.Frags[0].Ticks[1] != 200 || r.Frags[1].Ticks[0] != 7 {
		t.Errorf("fragments: %+v", r.Frags)
	}
	for _, bad := range []struct {
		data []byte
		msg  string
	}{
		{data[:len(data)-3], "claims"},
		{frame(RecordType, p[:len(p)-8]), "exceed the record"},
		{frame(RecordType, append(append([]byte{}, p...), 0, 0, 0, 0, 0, 0, 0, 0)), "bytes left"},
		{frame(RecordType, []byte("FPTX0000")), "not a timing record"},
		{data[:5], "truncated record header"},
	} {
		if _, err := ParseExtra(bad.data); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("bad data: error %v, want %q", err, bad.msg)
		}
	}
}

// TestFill checks the protocol's bookkeeping on repetitions made by hand: the
// warm-up is dropped by repetition (all its samples), the overhead subtracted is the
// median over processes, samples are grouped by repetition, failed repetitions are
// left out, and the statistics are those of internal/stats on exactly the kept
// values.
func TestFill(t *testing.T) {
	mk := func(ovh float64, f, g []uint64) rep {
		p := record(Monotonic, 1, ovh, map[string][]uint64{"func:f": f, "region:g": g}, []string{"func:f", "region:g"})
		r, err := ParseRecord(p)
		if err != nil {
			t.Fatal(err)
		}
		return rep{records: []*Record{r}}
	}
	reps := []rep{
		mk(10, []uint64{1000, 1000}, []uint64{50}), // warm-up
		mk(20, []uint64{120, 130}, []uint64{70}),
		{failure: "killed by signal SIGSEGV"},
		mk(30, []uint64{140}, nil),
		mk(20, []uint64{125, 135, 145}, []uint64{80}),
	}
	c := Config{Fragments: []Fragment{{FuncFrag, "f"}, {RegionFrag, "g"}, {RegionFrag, "never"}}, Warmup: 1,
		Stats: stats.TimingOptions{TailK: -1, Confidence: 0.95, Alpha: 0.05}}
	res := &Result{}
	if err := res.fill(c, reps); err != nil {
		t.Fatal(err)
	}
	if res.OverheadNs != 20 { // median of 10, 20, 30, 20
		t.Errorf("overhead %g, want 20", res.OverheadNs)
	}
	f := res.Frag("func:f")
	want := []float64{100, 110, 120, 105, 115, 125}
	if len(f.Samples) != len(want) {
		t.Fatalf("func:f samples %v, want %v", f.Samples, want)
	}
	for i := range want {
		if f.Samples[i] != want[i] {
			t.Errorf("func:f samples %v, want %v", f.Samples, want)
			break
		}
	}
	if len(f.Warmup) != 2 || f.Warmup[0] != 980 {
		t.Errorf("func:f warm-up %v, want [980 980]", f.Warmup)
	}
	if f.ByRep[2] != nil {
		t.Errorf("the failed repetition has samples %v", f.ByRep[2])
	}
	if got := f.PerRep(1); got != 2 { // 6 samples over 3 good repetitions after the warm-up
		t.Errorf("per repetition %g, want 2", got)
	}
	// Mean 112.5; s² = Σ(x − 112.5)²/5 = 437.5/5 = 87.5.
	if f.Summary.N != 6 || f.Summary.Mean != 112.5 || math.Abs(f.Summary.StdDev-math.Sqrt(87.5)) > 1e-12 {
		t.Errorf("summary N %d mean %g s %g", f.Summary.N, f.Summary.Mean, f.Summary.StdDev)
	}
	// N for ±1 %: 1.959964² · 87.5 / (0.01² · 112.5²) = 336.13 / 1.2656 = 265.6 → 266.
	if f.NeededN != 266 {
		t.Errorf("needed N %g, want 266", f.NeededN)
	}
	if g := res.Frag("region:g"); g.Summary.N != 2 || g.Summary.Mean != 55 {
		t.Errorf("region:g: N %d mean %g, want 2 samples of mean 55", g.Summary.N, g.Summary.Mean)
	}
	if n := res.Frag("region:never"); n.Summary.N != 0 {
		t.Errorf("region:never has %d samples", n.Summary.N)
	}
}

func TestParseFragment(t *testing.T) {
	for in, want := range map[string]Fragment{
		"program": {Kind: ProgramFrag}, "func:main": {FuncFrag, "main"}, "region:a:b": {RegionFrag, "a:b"},
	} {
		got, err := ParseFragment(in)
		if err != nil || got != want || got.String() != in {
			t.Errorf("ParseFragment(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "func:", "main", "block:x", "Program"} {
		if _, err := ParseFragment(bad); err == nil {
			t.Errorf("ParseFragment(%q) succeeded", bad)
		}
	}
}

// TestParseFragments: the fragments in the order first named, each once; none
// named, or a bad one, is an error naming --fragment.
func TestParseFragments(t *testing.T) {
	got, err := ParseFragments([]string{"func:f", "program", "func:f", "region:r", "program"})
	want := []Fragment{{FuncFrag, "f"}, {Kind: ProgramFrag}, {RegionFrag, "r"}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("fragment %d: %v, want %v", i, got[i], want[i])
		}
	}
	if _, err := ParseFragments(nil); err == nil || err.Error() != "name at least one --fragment (func:NAME, region:NAME or program)" {
		t.Errorf("none: %v", err)
	}
	if _, err := ParseFragments([]string{"func:f", "block:3"}); err == nil || err.Error() != `--fragment: fragment "block:3": want func:NAME, region:NAME or program` {
		t.Errorf("a bad one: %v", err)
	}
}

// TestNeverRan: the first fragment without a sample is named with the repetitions
// run; none when every fragment ran.
func TestNeverRan(t *testing.T) {
	ran := &FragResult{Fragment: Fragment{FuncFrag, "f"}, Summary: stats.TimingSummary{N: 3}}
	idle := &FragResult{Fragment: Fragment{RegionFrag, "cold"}}
	r := &Result{Reps: 12, Frags: []*FragResult{ran}}
	if err := r.NeverRan(); err != nil {
		t.Errorf("every fragment ran: %v", err)
	}
	r.Frags = append(r.Frags, idle, &FragResult{Fragment: Fragment{FuncFrag, "g"}})
	err := r.NeverRan()
	if err == nil || !strings.HasPrefix(err.Error(), "fragment region:cold never ran in 12 repetitions") {
		t.Errorf("a region never reached: %v", err)
	}
}
