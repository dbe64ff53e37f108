package predict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCheckJointAlpha: the joint level against values worked by hand. Ten
// training runs with a test (R = 10), γ = 0.8: j = ⌊0.2 · 11⌋ − 1 = 1, so α*
// lies just below the second smallest m_r. At a point the runs not at one are left
// out; with the speed its p-value joins each run's minimum.
func TestCheckJointAlpha(t *testing.T) {
	nan := math.NaN()
	c := &CheckCalibration{}
	for _, r := range []struct {
		formula, tests []float64
		speed          float64
	}{
		{[]float64{0.5, 0.3}, []float64{0.6, 0.3}, 0.05},
		{[]float64{0.1, 0.9}, []float64{0.2, 0.9}, 0.9},
		{[]float64{0.7, nan}, []float64{0.7, nan}, 0.9},
		{[]float64{0.4, 0.2}, []float64{0.4, 0.25}, 0.9},
		{[]float64{0.8, 0.6}, []float64{0.8, 0.6}, 0.9},
		{[]float64{0.9, 0.7}, nil, 0.9},
		{[]float64{0.6, 0.8}, []float64{0.6, 0.8}, 0.9},
		{[]float64{0.3, 0.4}, []float64{0.35, 0.4}, 0.9},
		{[]float64{0.2, 0.5}, []float64{0.5, 0.5}, 0.9},
		{[]float64{nan, nan}, []float64{nan, nan}, 0},
		{[]float64{0.95, 0.95}, []float64{0.95, 0.95}, 0.95},
		{[]float64{0.95, 0.95}, []float64{0.95, 0.95}, 0.95},
	} {
		c.Joint = append(c.Joint, JointRun{AtPoint: r.tests != nil, Tests: r.tests, Formula: r.formula, Speed: r.speed})
	}
	// Against the formulas: m = 0.3 0.1 0.7 0.2 0.6 0.7 0.6 0.3 0.2 0.95
	// 0.95 (one run has none): sorted 0.1 0.2 0.2 …, α* below 0.2.
	check := func(what string, atPoint, speed bool, want float64, wantOK bool) {
		t.Helper()
		a, ok := c.jointAlpha(atPoint, speed, 0.8)
		if ok != wantOK || (ok && (a >= want || a < math.Nextafter(want, 0))) {
			t.Errorf("%s: α* %v (%v), want just below %v (%v)", what, a, ok, want, wantOK)
		}
	}
	check("formulas", false, false, 0.2, true)
	// At a point (the sixth run is not at one): 0.3 0.2 0.7 0.25 0.6 0.35
	// 0.5 0.95 0.95 and the run of none: R = 10 again, sorted 0.2 0.25 …, α*
	// below 0.25.
	check("at a point", true, false, 0.25, true)
	// The speed's p-value 0.05 is the first run's minimum now: 0.05 0.1 0.2 …
	check("formulas and speed", false, true, 0.1, true)
	// Too few runs to flag at 1 − γ = 0.05: (R + 1)·0.05 < 1; and fewer
	// than MinCheckRuns.
	if _, ok := c.jointAlpha(false, false, 0.95); ok {
		t.Error("γ = 0.95 over 9 runs: a level, want none")
	}
	if _, ok := (&CheckCalibration{}).jointAlpha(false, false, 0.9); ok {
		t.Error("no joint calibration: a level, want none")
	}
	c.Joint = c.Joint[:9]
	if _, ok := c.jointAlpha(false, false, 0.5); ok {
		t.Error("8 runs with a test: a level, want none")
	}
	if p := (&Spread{Devs: []float64{0.1, 0.2, 0.3}}).trainingP(0.2); math.Abs(p-0.5) > 1e-12 {
		t.Errorf("training p of 0.2 among 0.1 0.2 0.3: %v, want 2/4", p)
	}
}

// jointFalseAlarms draws a training set of R runs of k tests whose
// statistics x are normal with correlation rho between the tests of a run
// (score |x|, the conformal p-values of Spread), calibrates α* on them, and
// returns the share of n new runs of the same distribution flagged at α*
// and at Bonferroni's (1 − γ)/k.
func jointFalseAlarms(rng *rand.Rand, R, k, n int, rho, gamma float64) (joint, bonferroni float64) {
	draw := func() []float64 {
		common := rng.NormFloat64()
		s := make([]float64, k)
		for i := range s {
			s[i] = math.Abs(math.Sqrt(rho)*common + math.Sqrt(1-rho)*rng.NormFloat64())
		}
		return s
	}
	train := make([][]float64, R)
	cols := make([][]float64, k)
	for r := range train {
		train[r] = draw()
		for i, s := range train[r] {
			cols[i] = append(cols[i], s)
		}
	}
	spreads := make([]Spread, k)
	for i := range spreads {
		spreads[i] = scoresSpread(cols[i])
	}
	c := &CheckCalibration{}
	for _, s := range train {
		jr := JointRun{Formula: make(optFloats, k)}
		for i := range s {
			jr.Formula[i] = spreads[i].trainingP(s[i])
		}
		c.Joint = append(c.Joint, jr)
	}
	alpha, ok := c.jointAlpha(false, false, gamma)
	if !ok {
		panic("no joint level")
	}
	var nj, nb int
	for range n {
		minP := 1.0
		for i, s := range draw() {
			minP = math.Min(minP, spreads[i].PValue(s))
		}
		if minP <= alpha {
			nj++
		}
		if minP <= (1-gamma)/float64(k) {
			nb++
		}
	}
	return float64(nj) / float64(n), float64(nb) / float64(n)
}

// TestCheckJointValid: the conformal guarantee of the joint level on
// synthetic runs of a known distribution, exchangeable by construction —
// three tests per run, normal statistics of correlation 0.8 (a machine's
// speed moving every arc of a run) or 0 (independent tests). Over 20
// training sets of 400 runs, each checked by 500 new runs, the share of new
// runs flagged at γ = 0.9 averages at most (j + 1)/(R + 1) = 40/401 ≈ 0.0998
// (binomial and training-set scatter of the mean: about 0.004) and no less
// than 0.08: the level is used, not wasted. Bonferroni's (1 − γ)/3 is valid
// too but, with the tests correlated, flags well under 1 − γ: the joint level
// is what gives the power back.
func TestCheckJointValid(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, rho := range []float64{0.8, 0} {
		var joint, bonf float64
		const sets = 20
		for range sets {
			j, b := jointFalseAlarms(rng, 400, 3, 500, rho, 0.9)
			joint += j / sets
			bonf += b / sets
		}
		t.Logf("correlation %v: unchanged runs flagged %.4f jointly, %.4f by Bonferroni", rho, joint, bonf)
		if joint > 0.1+0.012 || joint < 0.08 {
			t.Errorf("correlation %v: %.4f of unchanged runs flagged at the joint level, want about 0.0998 and at most 0.1 (±0.012)", rho, joint)
		}
		if rho > 0 && bonf > joint-0.02 {
			t.Errorf("correlation %v: Bonferroni flags %.4f, the joint level %.4f: want Bonferroni well under", rho, bonf, joint)
		}
	}
}

// TestCheckMostDeviant: the arc named at a training input point when no
// flagged arc is unusual alone is the one of the smallest p-value; among equal
// p-values, the one less usual alone (bench/check.sh's frames: the slowed arc
// and the one its change moves the other way, both at the smallest p-value of
// 200 training runs, alone 0.0995 and 0.806); the first of equals.
func TestCheckMostDeviant(t *testing.T) {
	for _, c := range []struct {
		flagged   []int
		p, aloneP []float64
		want      int
	}{
		{[]int{4, 7, 9}, []float64{0.04, 0.015, 0.03}, []float64{0.1, 0.9, 0.1}, 7},
		{[]int{4, 7}, []float64{0.005, 0.005}, []float64{0.806, 0.0995}, 7},
		{[]int{4, 7, 9}, []float64{0.005, 0.005, 0.02}, []float64{0.3, 0.3, 0.05}, 4},
		{[]int{3}, []float64{0.05}, []float64{0.5}, 3},
	} {
		if got := mostDeviant(c.flagged, c.p, c.aloneP); got != c.want {
			t.Errorf("arcs %v of p %v, alone %v: named %d, want %d", c.flagged, c.p, c.aloneP, got, c.want)
		}
	}
}
