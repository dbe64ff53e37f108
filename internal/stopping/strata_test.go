package stopping

import (
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
)

// TestStratifiedMean checks the stratified mean, variance and degrees of freedom
// against values worked by hand: stratum A of 10 items with draws {1, 3} (ȳ = 2,
// s² = 2), stratum B of 30 with {4, 6, 8} (ȳ = 6, s² = 4). W = (1/4, 3/4):
// ȳ_st = 0.5 + 4.5 = 5; v = (1/16)(2/2)(1 − 1/5) + (9/16)(4/3)(1 − 1/10) = 0.05 +
// 0.675 = 0.725; g = (0.025, 0.16875), ν = 0.725²/(0.025²·4/1 + 0.16875²·16/2) =
// 0.525625/0.2303125 = 2.282225.
func TestStratifiedMean(t *testing.T) {
	strata := []Stratum{{Size: 10, S: summaryOf(1, 3)}, {Size: 30, S: summaryOf(4, 6, 8)}}
	mean, v, df := stratifiedMean(strata, nil, true)
	if math.Abs(mean-5) > 1e-12 || math.Abs(v-0.725) > 1e-12 || math.Abs(df-2.282225) > 1e-6 {
		t.Errorf("stratifiedMean = %v, %v, %v; want 5, 0.725, 2.282225", mean, v, df)
	}
	// A stratum drawn whole adds no variance.
	strata[0] = Stratum{Size: 2, S: summaryOf(1, 3)}
	if _, v, _ := stratifiedMean(strata, nil, true); math.Abs(v-(30.0/32)*(30.0/32)*(4.0/3)*0.9) > 1e-12 {
		t.Errorf("with A drawn whole: v = %v", v)
	}
}

// TestStratifiedDecide: a block whose strata are all drawn whole is exact, its
// mean the population's, ± 0; without the correction (Infinite) it is judged.
func TestStratifiedDecide(t *testing.T) {
	a := summaryOf(0, 100, 0, 100, 0, 100, 0, 100, 0, 100)
	b := summaryOf(4, 6, 8, 4, 6, 8, 4, 6, 8, 6)
	whole := []Stratum{{Size: 10, S: a}, {Size: 10, S: b}}
	r, _ := NewStratified(stats.DefaultThresholds)
	if d := r.Decide(whole); d.State != stats.Exact || d.HalfWidth != 0 || math.Abs(d.Mean-(50+6)/2.0) > 1e-12 {
		t.Errorf("all drawn whole: %v %v ± %v, want exact 28 ± 0", d.State, d.Mean, d.HalfWidth)
	}
	r.Infinite = true
	if d := r.Decide(whole); d.State == stats.Exact || !(d.HalfWidth > 0) {
		t.Errorf("infinite strata: %v ± %v, want a positive half-width", d.State, d.HalfWidth)
	}
}

// finiteWorld is a finite population of per-trial counts in strata.
type finiteWorld struct {
	name   string
	counts [][]uint64 // [stratum][item]
}

// finiteWorlds are the laboratory's finite populations, seeded: "skewed", 400
// files whose count is ⌊e^X⌋, X ~ N(1, 0.8²), stratified by size class (the
// quartiles); "rare-class", 360 files of counts 10–16 and a class (a directory)
// of 40 of count 40; "rare-8", 392 files of counts 10–16 and a class of 8 of
// count 400, which a simple random sample often stops before drawing.
func finiteWorlds() []finiteWorld {
	rng := rand.New(rand.NewPCG(1, 2))
	var skewed []uint64
	for range 400 {
		skewed = append(skewed, uint64(math.Floor(math.Exp(1+0.8*rng.NormFloat64()))))
	}
	sort.Slice(skewed, func(a, b int) bool { return skewed[a] < skewed[b] })
	var quart [][]uint64
	for q := range 4 {
		quart = append(quart, skewed[q*100:(q+1)*100])
	}
	classes := func(n, k int, big uint64) [][]uint64 {
		var small, large []uint64
		for i := range n {
			small = append(small, uint64(10+i%7))
		}
		for range k {
			large = append(large, big)
		}
		return [][]uint64{small, large}
	}
	return []finiteWorld{{"skewed", quart}, {"rare-class", classes(360, 40, 40)}, {"rare-8", classes(392, 8, 400)}}
}

// coverageRun is one design's result on one world: coverage and mean trials.
type coverageRun struct {
	coverage, trials float64
}

// simple runs the default rule on simple random samples of the whole population,
// reps times, and returns its coverage of the mean and its mean trials.
func simpleCoverage(t *testing.T, w finiteWorld, th stats.Thresholds, reps int, rng *rand.Rand) coverageRun {
	var pop []uint64
	for _, c := range w.counts {
		pop = append(pop, c...)
	}
	mean := 0.0
	for _, x := range pop {
		mean += float64(x)
	}
	mean /= float64(len(pop))
	th.Population = uint64(len(pop))
	r, err := New("clt", th)
	if err != nil {
		t.Fatal(err)
	}
	covered, trials := 0, 0
	for range reps {
		dec, n := drawWithoutReplacement(r, pop, rng)
		if math.Abs(dec.Mean-mean) <= dec.HalfWidth+1e-9 {
			covered++
		}
		trials += n
	}
	return coverageRun{float64(covered) / float64(reps), float64(trials) / float64(reps)}
}

// stratifiedCoverage runs the stratified rule with allocation a, each stratum
// drawn without replacement in the order of dist.Schedule (Neyman's rounds
// planned from the draws of the rounds before, as freq plans them), reps times.
func stratifiedCoverage(t *testing.T, w finiteWorld, th stats.Thresholds, a dist.Allocation, reps int, rng *rand.Rand) coverageRun {
	r, err := NewStratified(th)
	if err != nil {
		t.Fatal(err)
	}
	var N float64
	mean := 0.0
	sizes := make([]uint64, len(w.counts))
	for h, c := range w.counts {
		for _, x := range c {
			mean += float64(x)
		}
		N += float64(len(c))
		sizes[h] = uint64(len(c))
	}
	mean /= N
	covered, trials := 0, 0
	for range reps {
		sched := dist.NewSchedule(sizes, a)
		sched.SetPilot(PilotDraws)
		perms := make([][]int, len(w.counts))
		dists := make([]stats.CountDist, len(w.counts))
		strata := make([]Stratum, len(w.counts))
		for h, c := range w.counts {
			perms[h] = rng.Perm(len(c))
			strata[h].Size = uint64(len(c))
		}
		round := 1
		for n := 1; ; n++ {
			if i := uint64(n - 1); a == dist.Neyman && i == sched.RoundStart(round) {
				if err := sched.Plan(round, NeymanSD(strata)); err != nil {
					t.Fatal(err)
				}
				round++
			}
			h, k, err := sched.Stratum(uint64(n - 1))
			if err != nil {
				t.Fatal(err)
			}
			dists[h].Add(w.counts[h][perms[h][k]])
			strata[h].S = dists[h].Summary()
			if dec := r.Decide(strata); dec.State == stats.Converged || dec.State == stats.Exact {
				if math.Abs(dec.Mean-mean) <= dec.HalfWidth+1e-9 {
					covered++
				}
				trials += n
				break
			}
		}
	}
	return coverageRun{float64(covered) / float64(reps), float64(trials) / float64(reps)}
}

// TestFiniteCoverageStrata is the laboratory of finite populations: on each world
// of finiteWorlds, R runs (1,000; FRAGPROF_FINITE_REPS sets another R) of the
// default rule on simple random samples and of the stratified rule under
// proportional and Neyman allocation (in dist.Schedule's rounds), each to its
// stopping point at ±8 % and γ = 0.95. Both allocations must cover the mean at
// least γ − 0.01 of the time on every world, and so must the simple design on
// the worlds where its sample can see the rare class (not on rare-8, where it
// stops before drawing any of the 8 in about half the runs: no rule that judges
// from the sample covers a class it has not drawn). The figures (logged with R
// and the binomial standard deviation √(γ(1 − γ)/R), and printed by
// bench/finite.sh) are those of docs/inputs.md and docs/performance.md.
func TestFiniteCoverageStrata(t *testing.T) {
	reps := 1000
	if r, err := strconv.Atoi(os.Getenv("FRAGPROF_FINITE_REPS")); err == nil && r > 0 {
		reps = r
	}
	th := stats.DefaultThresholds
	th.RelEps, th.Eps = 0.08, 0
	for _, w := range finiteWorlds() {
		rng := rand.New(rand.NewPCG(3, 4))
		s := simpleCoverage(t, w, th, reps, rng)
		p := stratifiedCoverage(t, w, th, dist.Proportional, reps, rng)
		ny := stratifiedCoverage(t, w, th, dist.Neyman, reps, rng)
		t.Logf("%-10s simple: coverage %.3f, %.0f trials; proportional: %.3f, %.0f; Neyman: %.3f, %.0f; R = %d, sd %.4f",
			w.name, s.coverage, s.trials, p.coverage, p.trials, ny.coverage, ny.trials, reps, math.Sqrt(th.Gamma*(1-th.Gamma)/float64(reps)))
		for _, c := range []struct {
			name string
			r    coverageRun
		}{{"proportional", p}, {"Neyman", ny}, {"simple", s}} {
			if c.name == "simple" && w.name == "rare-8" {
				continue
			}
			if c.r.coverage < th.Gamma-0.01 {
				t.Errorf("%s, %s: coverage %.3f < γ − 0.01", w.name, c.name, c.r.coverage)
			}
		}
	}
}
