// This file tests drawing: reproducibility per (seed, trial), independence
// from order and workers, the per-input streams, and the Sample API.

package dist

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
)

const drawModel = `
n = uniform_int(1, 20)
a = array(n, uniform_int(0, 1e6))
x = normal(0, 1) in [-2, 2]
k = poisson(3)
s = string(uniform_int(0, 8), "abcdef")
c = choice("red", "green", "blue"; 1, 2, 3)
e = empirical("ratios.txt")
m = n
`

// dump returns the values of trial i as text.
func dump(t *testing.T, m *Model, seed, i uint64) string {
	t.Helper()
	s, err := m.Draw(seed, i)
	if err != nil {
		t.Fatal(err)
	}
	return s.String()
}

func TestDrawDeterministic(t *testing.T) {
	m := mustParse(t, drawModel)
	m2 := mustParse(t, drawModel)
	seen := map[string]uint64{}
	for i := range uint64(50) {
		a, b := dump(t, m, 7, i), dump(t, m2, 7, i)
		if a != b {
			t.Fatalf("trial %d differs between two parses:\n%s\n%s", i, a, b)
		}
		if j, ok := seen[a]; ok {
			t.Errorf("trials %d and %d drew the same values:\n%s", j, i, a)
		}
		seen[a] = i
		if dump(t, m, 8, i) == a {
			t.Errorf("seeds 7 and 8 drew the same values in trial %d", i)
		}
	}
}

// TestDrawOrder draws the same trials forwards, backwards and from four
// workers, each with its own Sample, and expects the same values.
func TestDrawOrder(t *testing.T) {
	m := mustParse(t, drawModel)
	const n = 200
	want := make([]string, n)
	for i := range want {
		want[i] = dump(t, m, 11, uint64(i))
	}
	s := m.NewSample()
	for i := n - 1; i >= 0; i-- {
		if err := m.DrawInto(s, 11, uint64(i)); err != nil {
			t.Fatal(err)
		}
		if got := s.String(); got != want[i] {
			t.Fatalf("trial %d drawn backwards into a reused Sample:\n%s\nwant\n%s", i, got, want[i])
		}
	}
	got := make([]string, n)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := m.NewSample()
			for i := w; i < n; i += 4 {
				if err := m.DrawInto(s, 11, uint64(i)); err != nil {
					panic(err)
				}
				got[i] = s.String()
			}
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("trial %d drawn by a worker:\n%s\nwant\n%s", i, got[i], want[i])
		}
	}
}

// TestDrawStreams checks that an input's values do not depend on the
// other inputs: adding, removing and reordering them leaves them alone.
func TestDrawStreams(t *testing.T) {
	a := mustParse(t, "x = normal(0, 1)\nn = uniform_int(1, 10)\nv = array(n, uniform(0, 1))")
	b := mustParse(t, "extra = poisson(100)\nv = array(n, uniform(0, 1))\nn = uniform_int(1, 10)\ny = const(1)\nx = normal(0, 1)")
	for i := range uint64(100) {
		sa, _ := a.Draw(3, i)
		sb, _ := b.Draw(3, i)
		for _, name := range []string{"x", "n", "v"} {
			va, _ := sa.Get(name)
			vb, _ := sb.Get(name)
			if va.String() != vb.String() {
				t.Fatalf("trial %d: %s = %v in one model, %v in the other", i, name, va, vb)
			}
		}
	}
}

// TestDrawLengthStream checks that the elements of an array do not depend
// on how its length is drawn: a longer array extends a shorter one.
func TestDrawLengthStream(t *testing.T) {
	short := mustParse(t, "a = array(uniform_int(0, 5), normal(0, 1))")
	long := mustParse(t, "a = array(uniform_int(10, 20), normal(0, 1))")
	fixed := mustParse(t, "a = array(30, normal(0, 1))")
	for i := range uint64(50) {
		s1, _ := short.Draw(1, i)
		s2, _ := long.Draw(1, i)
		s3, _ := fixed.Draw(1, i)
		x1, x2, x3 := s1.Values[0].Floats, s2.Values[0].Floats, s3.Values[0].Floats
		if fmt.Sprint(x1) != fmt.Sprint(x2[:len(x1)]) || fmt.Sprint(x2) != fmt.Sprint(x3[:len(x2)]) {
			t.Fatalf("trial %d: %v, %v and %v are not prefixes of each other", i, x1, x2, x3)
		}
	}
}

// TestStreamGolden pins the stream design: changing it changes every value
// users have ever drawn, and must be deliberate.
func TestStreamGolden(t *testing.T) {
	m := mustParse(t, "u = uniform(0, 1)\nk = uniform_int(0, 1000000)\nz = normal(0, 1)")
	var b strings.Builder
	for i := range uint64(3) {
		s, _ := m.Draw(42, i)
		fmt.Fprintf(&b, "%d: %v %v %.6f\n", i, s.Values[0], s.Values[1], s.Values[2].Float)
	}
	const want = "0: 0.10022255760579246 432819 0.739449\n" +
		"1: 0.885013038928828 500148 -0.693297\n" +
		"2: 0.45969277467453706 176772 1.797752\n"
	if got := b.String(); got != want {
		t.Errorf("stream values changed:\n%s\nwant\n%s", got, want)
	}
}

func TestDrawKinds(t *testing.T) {
	m := mustParse(t, drawModel)
	want := map[string]Kind{"n": KindInt, "a": KindIntArray, "x": KindFloat, "k": KindInt, "s": KindString, "c": KindString, "e": KindFloat, "m": KindInt}
	for _, in := range m.Inputs {
		if in.Kind != want[in.Name] {
			t.Errorf("%s: kind %v, want %v", in.Name, in.Kind, want[in.Name])
		}
	}
	s, err := m.Draw(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range s.Values {
		if v.Kind != m.Inputs[k].Kind {
			t.Errorf("%s: value kind %v, input kind %v", m.Inputs[k].Name, v.Kind, m.Inputs[k].Kind)
		}
	}
	n, _ := s.Get("n")
	a, _ := s.Get("a")
	c, _ := s.Get("m")
	if int64(a.Len()) != n.Int || c.Int != n.Int {
		t.Errorf("n = %d, len(a) = %d, m = %d", n.Int, a.Len(), c.Int)
	}
	if _, ok := s.Get("nope"); ok {
		t.Error("Get of an unknown name succeeded")
	}
	if got, want := fmt.Sprint(m.Inputs[1].Deps), "[n]"; got != want {
		t.Errorf("deps of a: %s, want %s", got, want)
	}
}

func TestDrawLengthLimit(t *testing.T) {
	m := mustParse(t, "a = array(poisson(50), 1)")
	m.maxLen = 10
	_, err := m.Draw(1, 0)
	if err == nil || !strings.Contains(err.Error(), "input a: length") {
		t.Errorf("err = %v, want a length error", err)
	}
}

func TestDrawIntoAllocs(t *testing.T) {
	m := mustParse(t, "n = 100\na = array(n, uniform_int(0, 1e6))\nx = normal(0, 1) in [-1, 1]\nk = poisson(20) in [10, 30]\ns = string(10, \"ab\")")
	tmpl, err := ParseTemplate("{n}\n{a}\n{x:%.3f} {k} {s}\n", m, BackslashEscapes)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewSample()
	buf := make([]byte, 0, 4096)
	i := uint64(0)
	allocs := testing.AllocsPerRun(100, func() {
		i++
		if err := m.DrawInto(s, 1, i); err != nil {
			t.Fatal(err)
		}
		buf = tmpl.Append(buf[:0], s)
	})
	if allocs != 0 {
		t.Errorf("DrawInto + Append allocate %v times per trial, want 0", allocs)
	}
}

// TestCanonical checks that Model.String reads back to the same model.
func TestCanonical(t *testing.T) {
	text := drawModel + "f = choice(1.5, 2, 1e3; 1, 1, 2)\ng = 1e6\nh = 2.0\ni = -0x10\nj = uniform(-inf, 0) in [0, 1]\n"
	if _, err := Parse(text); err == nil {
		t.Fatal("uniform(-inf, 0) parsed")
	}
	text = strings.Replace(text, "uniform(-inf, 0)", "exponential(1e-3)", 1)
	m := mustParse(t, text)
	again := mustParse(t, m.String())
	if m.String() != again.String() {
		t.Errorf("canonical form does not read back:\n%s\nthen\n%s", m, again)
	}
	for k := range m.Inputs {
		if m.Inputs[k].Kind != again.Inputs[k].Kind {
			t.Errorf("%s: kind %v, then %v", m.Inputs[k].Name, m.Inputs[k].Kind, again.Inputs[k].Kind)
		}
	}
	for _, line := range []string{"g = 1000000", "h = 2.0", "i = -16", "f = choice(1.5, 2, 1000; 1, 1, 2)"} {
		if !strings.Contains(m.String(), line+"\n") {
			t.Errorf("canonical form lacks %q:\n%s", line, m)
		}
	}
}

func TestWith(t *testing.T) {
	m := mustParse(t, "n = uniform_int(1, 5)\na = array(n, 1)")
	m2, err := m.With("n = 7\nb = string(n, \"x\")", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m2.String(), "n = 7\na = array(n, 1)\nb = string(n, \"x\")\n"; got != want {
		t.Errorf("With:\n%s\nwant\n%s", got, want)
	}
	if got, want := m.String(), "n = uniform_int(1, 5)\na = array(n, 1)\n"; got != want {
		t.Errorf("With changed the original:\n%s", got)
	}
	if _, err := m.With("n = 1\nn = 2", Options{}); err == nil || err.Error() != "duplicate input 'n' at 2:1 (first defined at 1:1)" {
		t.Errorf("With of duplicates: %v", err)
	}
	if _, err := m.With("n = normal(0, 1)", Options{}); err == nil || err.Error() != "array length 'n' must be an integer input, but n is a float at 2:11" {
		t.Errorf("With breaking a dependency: %v", err)
	}
}

// TestStreamIndependence checks that neighbouring streams are
// uncorrelated: consecutive trials, two inputs of one trial, and
// neighbouring seeds. For n pairs of independent uniforms the sample
// correlation has standard error 1/√n, so |r| ≤ 5/√n.
func TestStreamIndependence(t *testing.T) {
	const n = 100000
	m := mustParse(t, "x = uniform(0, 1)\ny = uniform(0, 1)")
	xs, ys, zs := make([]float64, n+1), make([]float64, n+1), make([]float64, n+1)
	s := m.NewSample()
	for i := range xs {
		m.DrawInto(s, 5, uint64(i))
		xs[i], ys[i] = s.Values[0].Float, s.Values[1].Float
		m.DrawInto(s, 6, uint64(i))
		zs[i] = s.Values[0].Float
	}
	r := func(a, b []float64) float64 {
		var ma, mb float64
		for i := range a {
			ma += a[i]
			mb += b[i]
		}
		ma /= float64(len(a))
		mb /= float64(len(b))
		var sab, saa, sbb float64
		for i := range a {
			sab += (a[i] - ma) * (b[i] - mb)
			saa += (a[i] - ma) * (a[i] - ma)
			sbb += (b[i] - mb) * (b[i] - mb)
		}
		return sab / math.Sqrt(saa*sbb)
	}
	limit := 5 / math.Sqrt(n)
	for _, tc := range []struct {
		name string
		a, b []float64
	}{
		{"trial i and i+1", xs[:n], xs[1:]},
		{"x and y of one trial", xs, ys},
		{"seeds 5 and 6", xs, zs},
	} {
		if c := r(tc.a, tc.b); math.Abs(c) > limit {
			t.Errorf("%s: correlation %.4f, want |r| ≤ %.4f", tc.name, c, limit)
		}
	}
}

// TestRedrawInto redraws a nuisance input: it and the inputs that read it change,
// the others keep their values, and the result depends only on (seed, trial).
func TestRedrawInto(t *testing.T) {
	m := mustParse(t, "n = uniform_int(1, 1000)\ns = uniform_int(1, 1e9)\nt = s\na = array(n, uniform(0, 1))\n")
	get := func(s *Sample, name string) string {
		v, _ := s.Get(name)
		return v.String()
	}
	changed := 0
	for i := range uint64(20) {
		s, err := m.Draw(1, i)
		if err != nil {
			t.Fatal(err)
		}
		n0, s0, a0 := get(s, "n"), get(s, "s"), get(s, "a")
		if err := m.RedrawInto(s, 99, i, []string{"s"}); err != nil {
			t.Fatal(err)
		}
		if get(s, "n") != n0 || get(s, "a") != a0 {
			t.Errorf("trial %d: n or a changed when only s was redrawn", i)
		}
		if get(s, "t") != get(s, "s") {
			t.Errorf("trial %d: t = %s does not follow s = %s", i, get(s, "t"), get(s, "s"))
		}
		if get(s, "s") != s0 {
			changed++
		}
		again, _ := m.Draw(1, i)
		if err := m.RedrawInto(again, 99, i, []string{"s"}); err != nil {
			t.Fatal(err)
		}
		if again.String() != s.String() {
			t.Errorf("trial %d: two redraws differ:\n%s\n%s", i, s, again)
		}
	}
	if changed < 19 {
		t.Errorf("s changed in %d of 20 redraws", changed)
	}
	s, _ := m.Draw(1, 0)
	if err := m.RedrawInto(s, 2, 0, []string{"nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown name: %v", err)
	}
}
