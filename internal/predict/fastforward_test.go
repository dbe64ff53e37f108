package predict

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/trace"
)

// TestClampedSum checks the closed-form sum of max(0, P(j)) against adding
// the terms one by one, for random polynomials of degree 0 to 3 (seeded),
// many of them negative over part of the range.
func TestClampedSum(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 3000; trial++ {
		deg := trial % 4
		p := float64(r.IntN(200))
		q := p + float64(r.IntN(400))
		// roots inside the range make P change sign there
		c := []float64{r.NormFloat64() * 100}
		for d := 0; d < deg; d++ {
			root := p + r.Float64()*(q-p+20) - 10
			c = polyMulLinearTest(c, -root, 1)
		}
		c[0] += r.NormFloat64() * 10
		want, scale := 0.0, 0.0
		for j := p; j < q; j++ {
			v := horner(c, j)
			want += math.Max(0, v)
			scale += math.Abs(v)
		}
		got := clampedSum(c, p, q)
		if math.Abs(got-want) > 1e-9*math.Max(scale, 1e-300) && got != want {
			t.Fatalf("P = %v over [%v, %v): closed form %.17g, term by term %.17g", c, p, q, got, want)
		}
	}
	// far from the origin: the Taylor shift keeps the sum exact
	c := []float64{-3e8, 3, 1e-9}
	p, q := 1e8+1, 1e8+1001
	want := 0.0
	for j := p; j < q; j++ {
		want += math.Max(0, horner(c, j))
	}
	if got := clampedSum(c, p, q); math.Abs(got-want) > 1e-9*want {
		t.Errorf("far range: closed form %.17g, term by term %.17g", got, want)
	}
}

func polyMulLinearTest(p []float64, a, b float64) []float64 {
	out := make([]float64, len(p)+1)
	for m, v := range p {
		out[m] += v * a
		out[m+1] += v * b
	}
	return out
}

// rowModel builds the model of a loop like the Brusselator's: an input n,
// checkpoints start, row (recording i = 0, 1, …, n−1) and end. The self arc's
// time is then set to time (a formula of i and $n), every other arc's to 0,
// and the calibration to 1, so that a run's time is exactly
// Σ_{i=0}^{n−2} max(0, time(i)).
func rowModel(t *testing.T, time regress.Formula) *Model {
	t.Helper()
	var traces []*trace.Trace
	for k := 0; k < 12; k++ {
		n := 2 + 3*k
		s := newSynth(uint64(k), "n", n)
		s.point("start", 10, "K", n)
		for i := 0; i < n; i++ {
			s.point("row", int64(1000+100*n), "i", i)
		}
		s.point("end", 10)
		traces = append(traces, s.done())
	}
	m := buildNoHoldout(t, traces)
	m.TimeScale = 1
	m.Selection = nil
	row := m.nodeIndex("row")
	self := -1
	for ai := range m.Arcs {
		a := &m.Arcs[ai]
		a.Body = nil
		a.Time = regress.Formula{Kind: regress.Const}
		if a.From == row && a.To == row {
			self = ai
			a.Time = time
		}
	}
	if self < 0 {
		t.Fatal("no self arc at row")
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// mustSkip fails the test unless row's loop is fast-forwarded.
func mustSkip(t *testing.T, m *Model) {
	t.Helper()
	if !m.ff[m.nodeIndex("row")].ok {
		t.Fatalf("row's loop (%s) is not fast-forwarded", ruleText(m, "row"))
	}
}

// stepped predicts with the fast-forward of loops turned off.
func stepped(t *testing.T, m *Model, in map[string]float64, opt PredictOptions) *Prediction {
	t.Helper()
	saved := make([]bool, len(m.ff))
	for i := range m.ff {
		saved[i], m.ff[i].ok = m.ff[i].ok, false
	}
	defer func() {
		for i := range m.ff {
			m.ff[i].ok = saved[i]
		}
	}()
	p, err := m.Predict(in, opt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func close9(a, b float64) bool {
	return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// TestFastForwardShift checks that a loop whose variable advances by a
// constant step (i := i + 1) and whose time is a polynomial in it — linear,
// quadratic, cubic, negative over part of the loop (clamped to 0), a power
// law of integer exponent — is skipped through (a handful of steps) and
// predicts what stepping through it predicts: the time, the marks inside the
// loop, the final variables, the visits, to a relative 1e-9.
func TestFastForwardShift(t *testing.T) {
	poly := func(vars []string, terms [][]int, coef ...float64) regress.Formula {
		return regress.Formula{Kind: regress.Poly, Vars: vars, Terms: terms, Coef: coef}
	}
	cases := []struct {
		name string
		time regress.Formula
	}{
		{"constant in i", poly([]string{"$n"}, [][]int{{0}, {1}}, -1.25e4, 1.58e4)},
		{"linear in i", poly([]string{"i", "$n"}, [][]int{{0, 0}, {1, 0}, {1, 1}}, 372, -13.8, 0.79)},
		{"quadratic, negative in the middle", poly([]string{"i"}, [][]int{{0}, {1}, {2}}, 2400-100, -100, 1)},
		{"cubic", poly([]string{"i", "$n"}, [][]int{{0, 0}, {3, 0}, {2, 1}, {1, 0}}, 50, 1e-3, -1.2e-3, 7)},
		{"cubic, negative at the end", poly([]string{"i"}, [][]int{{0}, {2}, {3}}, 1e4, 3, -0.04)},
		{"power law", regress.Formula{Kind: regress.Power, Vars: []string{"i"}, Value: 100, Coef: []float64{0.5}, Exp: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := rowModel(t, c.time)
			mustSkip(t, m)
			for _, n := range []float64{1, 2, 3, 57, 150, 1001} {
				in := map[string]float64{"n": n}
				opt := PredictOptions{Marks: []float64{1, 2, 3, 5.5, 40, 100, 700, 1000}}
				fast, err := m.Predict(in, opt)
				if err != nil {
					t.Fatal(err)
				}
				slow := stepped(t, m, in, opt)
				if !close9(fast.TimeNs, slow.TimeNs) || !close9(fast.Events, slow.Events) {
					t.Errorf("n = %v: fast-forward %.17g ns, %v events; stepping %.17g ns, %v events", n, fast.TimeNs, fast.Events, slow.TimeNs, slow.Events)
				}
				for i := range opt.Marks {
					f, s := fast.MarkNs[i], slow.MarkNs[i]
					if !(math.IsNaN(f) && math.IsNaN(s)) && !close9(f, s) {
						t.Errorf("n = %v: mark %v at %.17g ns, stepping %.17g", n, opt.Marks[i], f, s)
					}
				}
				for v, s := range slow.Vars {
					if !close9(fast.Vars[v], s) {
						t.Errorf("n = %v: %s = %v, stepping %v", n, v, fast.Vars[v], s)
					}
				}
				for v, s := range slow.Visits {
					if fast.Visits[v] != s {
						t.Errorf("n = %v: %v visits of %s, stepping %v", n, fast.Visits[v], v, s)
					}
				}
				if n >= 57 && fast.Steps > 10 {
					t.Errorf("n = %v: %d steps (stepping %d): the loop was not skipped", n, fast.Steps, slow.Steps)
				}
			}
		})
	}
}

// TestFastForwardHuge predicts a loop of 10⁸ iterations — a few steps — and
// compares with the exact sum Σ_{i=0}^{K−2} (a + b·i + c·i²), computed in
// integers (math/big) from Faulhaber's formulas.
func TestFastForwardHuge(t *testing.T) {
	m := rowModel(t, regress.Formula{Kind: regress.Poly, Vars: []string{"i"}, Terms: [][]int{{0}, {1}, {2}}, Coef: []float64{700, 3, 2}})
	mustSkip(t, m)
	const K = 100_000_000
	p, err := m.Predict(map[string]float64{"n": K}, PredictOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := big.NewInt(K - 1) // the self arc is taken at i = 0 … K−2
	s1 := new(big.Int).Mul(n, new(big.Int).Sub(n, big.NewInt(1)))
	s1.Rsh(s1, 1) // n(n−1)/2
	s2 := new(big.Int).Mul(new(big.Int).Sub(n, big.NewInt(1)), n)
	s2.Mul(s2, new(big.Int).Sub(new(big.Int).Lsh(n, 1), big.NewInt(1)))
	s2.Div(s2, big.NewInt(6)) // (n−1)n(2n−1)/6
	sum := new(big.Int).Mul(big.NewInt(700), n)
	sum.Add(sum, new(big.Int).Mul(big.NewInt(3), s1))
	sum.Add(sum, new(big.Int).Mul(big.NewInt(2), s2))
	want, _ := new(big.Float).SetInt(sum).Float64()
	if !close9(p.TimeNs, want) {
		t.Errorf("K = 1e8: predicted %.17g ns, exact %.17g", p.TimeNs, want)
	}
	if p.Vars["i"] != K-1 || p.Visits["row"] != K || p.Steps > 10 {
		t.Errorf("K = 1e8: i = %v, %v visits of row, %d steps; want %d, %d and a few steps", p.Vars["i"], p.Visits["row"], p.Steps, K-1, K)
	}
}

// TestFastForwardGuards: a loop of 2⁵³ iterations, the most an input can ask
// for, is skipped through; one the fast-forward cannot take (a time that is no
// polynomial in the loop variable) is stepped, and stopped by MaxSteps with
// ErrNoEnd when too long.
func TestFastForwardGuards(t *testing.T) {
	m := rowModel(t, regress.Formula{Kind: regress.Poly, Vars: []string{"i"}, Terms: [][]int{{0}, {1}}, Coef: []float64{700, 3}})
	mustSkip(t, m)
	p, err := m.Predict(map[string]float64{"n": MaxInput}, PredictOptions{})
	if err != nil || p.Vars["i"] != MaxInput-1 || p.Steps > 10 {
		t.Errorf("n = 2^53: %v, %+v", err, p)
	}
	m = rowModel(t, regress.Formula{Kind: regress.Power, Vars: []string{"i"}, Value: 100, Coef: []float64{0.5}, Exp: 1.5})
	row := m.nodeIndex("row")
	if m.ff[row].ok {
		t.Fatal("a loop whose time is i^1.5 is fast-forwarded")
	}
	_, err = m.Predict(map[string]float64{"n": 1e6}, PredictOptions{MaxSteps: 1000})
	if !errors.Is(err, ErrNoEnd) {
		t.Errorf("n = 1e6 in 1000 steps: %v, want ErrNoEnd", err)
	}
	p, err = m.Predict(map[string]float64{"n": 500}, PredictOptions{})
	if err != nil || p.Steps < 500 {
		t.Errorf("n = 500, stepped: %v, %v steps", err, p)
	}
}
