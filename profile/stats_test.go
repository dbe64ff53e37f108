package profile

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/cfg"
	"github.com/fragprof/fragprof/internal/stats"
)

// trialRuns returns the per-trial counts of n Monte Carlo trials of testProgram:
// sum and helper take one random walk each, leaf runs a wide random number of
// times (up to spread; above MaxExact distinct values its distribution turns into
// buckets).
func trialRuns(seed int64, n int, spread int64) [][]cfg.Counts {
	rng := rand.New(rand.NewSource(seed))
	out := make([][]cfg.Counts, n)
	for t := range out {
		p := testProgram()
		walk(p, rng, 1)
		for i, f := range p.Program.Funcs {
			if f.Name == "leaf" {
				p.Counts[i].Blocks[0] = uint64(rng.Int63n(spread))
			}
		}
		out[t] = p.Counts
	}
	return out
}

// statsProfile folds the given trials into a profile with counts and statistics,
// as `fragprof freq --profile` does.
func statsProfile(trials [][]cfg.Counts) *Profile {
	p := testProgram()
	p.Runs = len(trials)
	dists := make([][]*stats.CountDist, len(p.Program.Funcs))
	for i, f := range p.Program.Funcs {
		p.Counts = append(p.Counts, cfg.NewCounts(f))
		for range f.Blocks {
			dists[i] = append(dists[i], &stats.CountDist{})
		}
	}
	for _, tr := range trials {
		for i := range p.Program.Funcs {
			for b, v := range tr[i].Blocks {
				p.Counts[i].Blocks[b] += v
				dists[i][b].Add(v)
			}
			for e, v := range tr[i].Edges {
				p.Counts[i].Edges[e] += v
			}
		}
	}
	p.Stats = make([][]Dist, len(dists))
	for i := range dists {
		for _, d := range dists[i] {
			p.Stats[i] = append(p.Stats[i], *d.Clone())
		}
	}
	return p
}

func TestStatsGoldenAndRoundTrip(t *testing.T) {
	p := statsProfile(trialRuns(1, 6, 40))
	data := encode(t, p)
	golden(t, "stats.fpp", data)
	golden(t, "stats.txt", []byte(p.String()))
	for _, p := range []*Profile{p, statsProfile(trialRuns(2, 3000, 1<<40))} {
		a := encode(t, p)
		q, err := Parse(bytes.NewReader(a))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(q.Stats, p.Stats) || !reflect.DeepEqual(q.Counts, p.Counts) {
			t.Fatalf("parse(write(p)) changed the statistics")
		}
		if b := encode(t, q); !bytes.Equal(a, b) {
			t.Fatalf("parse → write changed the file")
		}
	}
	// The wide case really has buckets.
	q := statsProfile(trialRuns(2, 3000, 1<<40))
	for i, f := range q.Program.Funcs {
		if f.Name == "leaf" && len(q.Stats[i][0].Buckets) == 0 {
			t.Fatalf("leaf's distribution of 3000 wide counts is not bucketed")
		}
	}
}

// TestStatsShardsMergeExactly: trials split into interleaved shards, merged in any
// order and grouping, give the bits of one profile of all the trials, for exact
// tables and for buckets.
func TestStatsShardsMergeExactly(t *testing.T) {
	for _, spread := range []int64{30, 1 << 20, 1 << 50} {
		trials := trialRuns(5, 4000, spread)
		whole := encode(t, statsProfile(trials))
		for _, k := range []int{2, 3} {
			shards := make([]*Profile, k)
			for s := range shards {
				var part [][]cfg.Counts
				for i := s; i < len(trials); i += k {
					part = append(part, trials[i])
				}
				shards[s] = statsProfile(part)
			}
			// Reversed order, and a two-step grouping.
			rev := append([]*Profile(nil), shards...)
			for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
				rev[i], rev[j] = rev[j], rev[i]
			}
			m1, err := Merge(rev)
			if err != nil {
				t.Fatal(err)
			}
			m2, err := Merge(shards[1:])
			if err != nil {
				t.Fatal(err)
			}
			if m2, err = Merge([]*Profile{m2, shards[0]}); err != nil {
				t.Fatal(err)
			}
			for _, m := range []*Profile{m1, m2} {
				if got := encode(t, m); !bytes.Equal(got, whole) {
					t.Fatalf("spread %d, %d shards: merged profile differs from the whole run", spread, k)
				}
			}
		}
	}
}

func TestMergeStatsWithout(t *testing.T) {
	withStats := statsProfile(trialRuns(3, 50, 100))
	plain := testProgram()
	walk(plain, rand.New(rand.NewSource(4)), 7)
	m, err := Merge([]*Profile{withStats, plain})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats != nil {
		t.Errorf("merge with a profile without statistics kept statistics")
	}
	if m.Runs != 57 || m.Counts[0].Blocks[0] != withStats.Counts[0].Blocks[0]+plain.Counts[0].Blocks[0] {
		t.Errorf("counts not summed: runs %d", m.Runs)
	}
	encode(t, m)
	if _, _, err := MergeWith([]*Profile{withStats, withStats}, MergeOptions{Weights: []uint64{1, 2}}); !errors.Is(err, ErrWeightedStats) {
		t.Errorf("weighted merge of statistics: %v, want ErrWeightedStats", err)
	}
	if _, _, err := MergeWith([]*Profile{withStats, plain}, MergeOptions{Weights: []uint64{1, 3}}); err != nil {
		t.Errorf("weight on the profile without statistics: %v", err)
	}
	m, _, err = MergeWith([]*Profile{withStats, withStats}, MergeOptions{Weights: []uint64{1, 1}})
	if err != nil || m.Stats == nil || m.Stats[0][0].N() != 100 {
		t.Errorf("unit weights: %v", err)
	}
}

// statsSection returns the offset and length of the statistics section of data.
func statsSection(t *testing.T, data []byte) (int, int) {
	n := int(le.Uint32(data[24:]))
	for i := 0; i < n; i++ {
		e := data[headerSize+secEntry*i:]
		if le.Uint32(e) == SecStats {
			return int(le.Uint64(e[8:])), int(le.Uint64(e[16:]))
		}
	}
	t.Fatal("no statistics section")
	return 0, 0
}

func resum(data []byte) []byte {
	le.PutUint32(data[28:], 0)
	le.PutUint32(data[28:], crc32Sum(data))
	return data
}

func TestStatsCorrupt(t *testing.T) {
	good := encode(t, statsProfile(trialRuns(6, 40, 1<<30)))
	off, n := statsSection(t, good)
	cases := []struct {
		name string
		edit func(b []byte)
		want string
	}{
		{"version", func(b []byte) { le.PutUint16(b[off:], 9) }, "encoding version 9"},
		{"function count", func(b []byte) { le.PutUint32(b[off+4:], 7) }, "7 functions"},
		{"block count", func(b []byte) { b[off+8] = 99 }, "distributions for"},
		{"form", func(b []byte) { b[off+9] = 5 }, "unknown distribution form"},
		{"huge table", func(b []byte) { b[off+10] = 0xff; b[off+11] = 0x7f }, "exact values"},
		{"trailing", func(b []byte) { b[off+n-1] ^= 0x40 }, "statistics section"},
		{"sum", func(b []byte) { b[off+12]++ }, "statistics section"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), good...)
			tc.edit(b)
			_, err := Parse(bytes.NewReader(resum(b)))
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "statistics section") {
				t.Fatalf("error %v, want a FormatError naming the statistics section and %q", err, tc.want)
			}
		})
	}
	// Without the checksum fixed, the checksum catches it first.
	b := append([]byte(nil), good...)
	b[off+12]++
	if _, err := Parse(bytes.NewReader(b)); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("corrupted statistics with a stale checksum: %v", err)
	}
}
