// This file tests Latin hypercube units: every numeric distribution inverts,
// each unit's values fall one per stratum, and trials stay reproducible one by
// one.

package dist

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestLatinEveryDistribution compiles every numeric scalar distribution, plain
// and restricted, checks that it draws by inversion under a unit, and that the
// mean of 20,000 stratified draws agrees with the mean of 20,000 independent
// ones within 5 standard errors of their difference.
func TestLatinEveryDistribution(t *testing.T) {
	for _, text := range []string{
		"x = uniform(2, 5)", "x = uniform(0, 10) in [3, 4]",
		"x = uniform_int(1, 100)", "x = uniform_int(-50, 50) in [0, 7]",
		"x = normal(3, 2)", "x = normal(0, 1) in [-2, 2]", "x = normal(0, 1) in [3, 9]",
		"x = lognormal(0.5, 0.4)", "x = lognormal(2, 1.5) in [1, 200]",
		"x = exponential(2)", "x = exponential(2) in [1, 3]",
		"x = poisson(4)", "x = poisson(30) in [40, 90]", "x = poisson(3) in [0, 5]",
		"x = binomial(20, 0.3)", "x = binomial(1000, 0.7) in [690, 720]",
		"x = bernoulli(0.3)", "x = bernoulli(0.3) in [1, 1]",
		"x = geometric(0.25)", "x = geometric(0.05) in [3, 30]",
		"x = choice(1, 2, 10; 1, 2, 7)", "x = choice(-1.5, 0.5, 4)", "x = 2.5",
		`x = empirical("sizes.txt")`,
	} {
		m := mustParse(t, text)
		g, ok := m.gens[0].(scalarGen)
		if !ok {
			t.Fatalf("%s: not a scalar", text)
		}
		if _, ok := g.d.(quantiler); !ok {
			t.Errorf("%s: %T does not invert: a unit would not stratify it", text, g.d)
			continue
		}
		const n = 20000
		a, b := drawN(t, text, 3, n), drawUnits(t, text, 4, n, 16)
		ma, va := meanVar(a)
		mb, vb := meanVar(b)
		se := math.Sqrt((va + vb) / n)
		if math.Abs(ma-mb) > 5*se+1e-12 {
			t.Errorf("%s: stratified mean %.6g, independent %.6g: %.1f SE apart", text, mb, ma, math.Abs(ma-mb)/se)
		}
	}
}

func meanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// TestLatinStrata checks the defining property: within each unit of m trials,
// the values of every stratified input fall one in each of the m strata of
// probability 1/m, independently per input.
func TestLatinStrata(t *testing.T) {
	const m = 16
	model := mustParse(t, "u = uniform(0, 1)\nz = normal(5, 2)\nk = uniform_int(0, 31)\na = array(4, uniform(0, 1))")
	s := model.NewSample()
	s.SetUnit(m)
	same := 0
	for unit := range uint64(50) {
		var us, zs, ks []float64
		for k := range uint64(m) {
			if err := model.DrawInto(s, 9, unit*m+k); err != nil {
				t.Fatal(err)
			}
			us = append(us, s.Values[0].Float)
			zs = append(zs, distuv.Normal{Mu: 5, Sigma: 2}.CDF(s.Values[1].Float))
			ks = append(ks, float64(s.Values[2].Int))
		}
		if us[0] < 1.0/m == (zs[0] < 1.0/m) {
			same++
		}
		for name, xs := range map[string][]float64{"uniform": us, "normal": zs} {
			sort.Float64s(xs)
			for k, x := range xs {
				if x < float64(k)/m || x >= float64(k+1)/m {
					t.Fatalf("unit %d, %s: the %d-th smallest value's CDF %g is outside stratum [%d/16, %d/16)", unit, name, k, x, k, k+1)
				}
			}
		}
		// 32 integers in 16 strata: two per stratum, each stratum's pair once.
		sort.Float64s(ks)
		for k, x := range ks {
			if int(x)/2 != k {
				t.Fatalf("unit %d: uniform_int values %v are not one per stratum", unit, ks)
			}
		}
	}
	// The inputs' permutations are independent: how often u and z both fall in
	// their lowest stratum, or both not, is not always.
	if same == 50 {
		t.Errorf("u and z fell in the lowest stratum together in every unit: the permutations are not independent")
	}
}

// TestLatinReproducible draws the trials of two units in a scrambled order with
// a fresh Sample each and expects the values of drawing them in order; a unit of
// 0 or 1 draws as without one.
func TestLatinReproducible(t *testing.T) {
	m := mustParse(t, drawModel)
	in := m.NewSample()
	in.SetUnit(8)
	want := map[uint64]string{}
	for i := range uint64(16) {
		if err := m.DrawInto(in, 5, i); err != nil {
			t.Fatal(err)
		}
		want[i] = in.String()
	}
	for _, i := range []uint64{13, 2, 7, 15, 0, 8, 9, 1} {
		s := m.NewSample()
		s.SetUnit(8)
		if err := m.DrawInto(s, 5, i); err != nil {
			t.Fatal(err)
		}
		if got := s.String(); got != want[i] {
			t.Errorf("trial %d drawn alone:\n%s\nin order:\n%s", i, got, want[i])
		}
	}
	for _, unit := range []int{0, 1} {
		s := m.NewSample()
		s.SetUnit(unit)
		if err := m.DrawInto(s, 5, 3); err != nil {
			t.Fatal(err)
		}
		if got, plain := s.String(), dump(t, m, 5, 3); got != plain {
			t.Errorf("unit %d: trial 3 is\n%s\nwithout a unit\n%s", unit, got, plain)
		}
	}
}
