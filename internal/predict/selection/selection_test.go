package selection

import (
	"math"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/trace"
)

// law is a predictor whose candidates predict the true time t(n) = n² of the one
// input n, each off by a factor of its own: scale[c], times odd[c] where n is odd
// (so that a candidate's errors can vary between points), times far[c] at inputs
// beyond the training range (n > maxN: how its fit extrapolates). It stands for a
// model fitted from some training points; these tests are about the selection's
// arithmetic and rules, which see models only through their predictions.
type law struct {
	scale, odd, far map[string]float64
	maxN            float64
}

func truth(n float64) float64 { return n * n }

func (l law) Candidates(in []float64, maxSteps int64) (map[string]float64, error) {
	n := in[0]
	out := map[string]float64{}
	for _, c := range Candidates {
		s, ok := l.scale[c]
		if !ok {
			continue // not available for these traces
		}
		if f, ok := l.odd[c]; ok && int(n)%2 == 1 {
			s *= f
		}
		if f, ok := l.far[c]; ok && n > l.maxN {
			s *= f
		}
		out[c] = s * truth(n)
	}
	return out, nil
}

func (l law) ExtrapolationFactor(in []float64) float64 { return math.Max(1, in[0]/l.maxN) }

// points returns n = 10, 11, …, 10+k-1 with their true times.
func points(k int) []Point {
	var pts []Point
	for i := 0; i < k; i++ {
		n := float64(10 + i)
		pts = append(pts, Point{Inputs: []float64{n}, Times: []float64{truth(n)}, Median: truth(n)})
	}
	return pts
}

// selectWith runs Select with the same law for every fold and the final model (or
// final when given).
func selectWith(t *testing.T, k int, fold law, final *law, force string) *Selection {
	t.Helper()
	fold.maxN = 1e9 // a fold's fit: no far factor inside the training range
	fin := fold
	if final != nil {
		fin = *final
	}
	fin.maxN = float64(10 + k - 1)
	fold.maxN = fin.maxN
	sel, err := Select(points(k), func([]*trace.Trace) (Predictor, error) { return fold, nil }, fin, force)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// TestSelectFolds checks the folds and cuts: 5 interpolation folds (or fewer, one
// per inner point) and the extrapolation cuts at a third, a half and three quarters
// of the points, each kept when it leaves at least 3 points to train on and one to
// predict.
func TestSelectFolds(t *testing.T) {
	for _, c := range []struct{ k, folds, cuts int }{
		{5, 3, 2},  // cuts at round(5/3)=2 (too few to train), 3, 4
		{9, 5, 3},  // 3, 5, 7
		{12, 5, 3}, // 4, 6, 9
	} {
		sel := selectWith(t, c.k, law{scale: map[string]float64{CandPower: 1}}, nil, "")
		if sel.Points != c.k || sel.Folds != c.folds || sel.Cuts != c.cuts {
			t.Errorf("%d points: %d points, %d folds, %d cuts; want %d folds, %d cuts", c.k, sel.Points, sel.Folds, sel.Cuts, c.folds, c.cuts)
		}
	}
	// Below 5 points there is no cross-validation, and only the graph may be forced.
	if sel, err := Select(points(4), nil, nil, ""); sel != nil || err != nil {
		t.Errorf("4 points: %v, %v; want nil, nil", sel, err)
	}
	if _, err := Select(points(4), nil, nil, CandPMNF); err == nil {
		t.Errorf("4 points, forced pmnf: no error")
	}
}

// TestSelectScores checks the scores against exact values: a candidate off by a
// constant factor s has every absolute percentage error |s - 1|, a standard error
// of 0, and the same error inside and beyond the range; one off by s at even n and
// s·f at odd n has the mean of the two errors, weighted by how many points of each
// parity were predicted.
func TestSelectScores(t *testing.T) {
	sel := selectWith(t, 9, law{
		scale: map[string]float64{CandPower: 1, CandPMNF: 1.1, CandGraph: 0.8, CandMix: 1.02},
		odd:   map[string]float64{CandMix: 0.96 / 1.02},
	}, nil, "")
	want := map[string]float64{CandPower: 0, CandPMNF: 0.1, CandGraph: 0.2}
	for c, w := range want {
		cs, ok := sel.Score(c)
		if !ok {
			t.Fatalf("no score for %s", c)
		}
		if math.Abs(cs.MAPE-w) > 1e-12 || math.Abs(cs.InterpMAPE-w) > 1e-12 || math.Abs(cs.ExtrapMAPE-w) > 1e-12 ||
			math.Abs(cs.MaxAPE-w) > 1e-12 || cs.SE > 1e-8 { // SE: E[e²] - E[e]² cancels to about 1e-9
			t.Errorf("%s: %+v; want every error %g and SE 0", c, cs, w)
		}
	}
	if _, ok := sel.Score(CandSegmented); ok {
		t.Errorf("segmented scored though no fold predicted it")
	}
	// The mix: 2% off at even n, 4% at odd n. Predicted points: n = 11..17 once
	// each in the interpolation folds (the smallest and largest stay in training),
	// and the cuts at 3, 5 and 7 points predict n = 13..18, 15..18, 17..18.
	var sum, sq float64
	var cnt int
	for _, ns := range [][2]int{{11, 17}, {13, 18}, {15, 18}, {17, 18}} {
		for n := ns[0]; n <= ns[1]; n++ {
			e := 0.02
			if n%2 == 1 {
				e = 0.04
			}
			sum += e
			sq += e * e
			cnt++
		}
	}
	mean := sum / float64(cnt)
	se := math.Sqrt((sq/float64(cnt)-mean*mean)*float64(cnt)/float64(cnt-1)) / math.Sqrt(float64(cnt))
	cs, _ := sel.Score(CandMix)
	if math.Abs(cs.MAPE-mean) > 1e-12 || math.Abs(cs.SE-se) > 1e-12 || math.Abs(cs.MaxAPE-0.04) > 1e-12 {
		t.Errorf("graph+pmnf: MAPE %g SE %g max %g; want %g, %g, 0.04 over %d predictions", cs.MAPE, cs.SE, cs.MaxAPE, mean, se, cnt)
	}
	if sel.Chosen != CandPower {
		t.Errorf("chosen %s, want power (exact and simplest)", sel.Chosen)
	}
	if d, other := sel.Margin(); other != CandMix || math.Abs(d-mean) > 1e-12 {
		t.Errorf("margin %g over %s, want %g over graph+pmnf", d, other, mean)
	}
	if s := sel.Summary(); !strings.Contains(s, "predictor: power") || !strings.Contains(s, "better than the next, graph+pmnf") {
		t.Errorf("summary %q", s)
	}
}

// TestSelectSimplerWithinNoise checks the standard-error rules: a simpler
// candidate whose MAPE is within two standard errors of the best is chosen over it
// (and the summary says so), and one clearly worse is not.
func TestSelectSimplerWithinNoise(t *testing.T) {
	// graph: 2% or 6% off (MAPE 4.1%, SE 0.47 points); power: 4.8% off everywhere.
	noisy := law{
		scale: map[string]float64{CandGraph: 1.02, CandPower: 1.048},
		odd:   map[string]float64{CandGraph: 1.06 / 1.02},
	}
	sel := selectWith(t, 9, noisy, nil, "")
	g, _ := sel.Score(CandGraph)
	p, _ := sel.Score(CandPower)
	if !(p.MAPE > g.MAPE && p.MAPE <= g.MAPE+2*g.SE) {
		t.Fatalf("test set-up: power %g should be within two SE of graph %g ± %g", p.MAPE, g.MAPE, g.SE)
	}
	if sel.Chosen != CandPower || !strings.Contains(sel.Summary(), "the simpler model is kept") {
		t.Errorf("chosen %s (%s); want power, the simpler within noise", sel.Chosen, sel.Summary())
	}
	// power 20% off: clearly worse; the graph is chosen.
	noisy.scale[CandPower] = 1.2
	if sel := selectWith(t, 9, noisy, nil, ""); sel.Chosen != CandGraph {
		t.Errorf("chosen %s; want graph (power 20%% off)", sel.Chosen)
	}
}

// TestSelectUnstable checks the stability rule: a candidate whose final fit
// predicts 4× beyond the range more than StableWithin away from its folds' fits is
// marked unstable with that ratio and passed over for a stable one within two
// standard errors; and where two stable candidates part by more than StableWithin²
// there, the simpler is kept and the reason given, unless it is more than
// MaxApartRatio times as far off in the folds.
func TestSelectUnstable(t *testing.T) {
	// power: exact or 4% off (MAPE about 2%, SE about 0.5 points), but its final fit
	// doubles beyond the range; pmnf: 2.5% off everywhere, within two SE of it.
	odd := map[string]float64{CandPower: 1.04}
	fold := law{scale: map[string]float64{CandPower: 1, CandPMNF: 1.025}, odd: odd}
	final := law{scale: map[string]float64{CandPower: 1, CandPMNF: 1.025}, odd: odd, far: map[string]float64{CandPower: 2}}
	sel := selectWith(t, 9, fold, &final, "")
	p, _ := sel.Score(CandPower)
	if !p.Unstable || math.Abs(p.FarRatio-2) > 1e-9 {
		t.Errorf("power: far ratio %g, unstable %v; want 2, true", p.FarRatio, p.Unstable)
	}
	if m, _ := sel.Score(CandPMNF); m.Unstable || math.Abs(m.FarRatio-1) > 1e-9 {
		t.Errorf("pmnf: far ratio %g, unstable %v; want 1, false", m.FarRatio, m.Unstable)
	}
	if sel.Chosen != CandPMNF {
		t.Errorf("chosen %s; want pmnf (power unstable)", sel.Chosen)
	}
	// graph fits best but its final fit predicts 2× pmnf's at 4× the range (both
	// final and folds alike: stable), and pmnf is beyond two standard errors of it
	// but under twice its error (graph 6% off on every other point, pmnf 3% and
	// 7%): the simpler, pmnf, is kept.
	fold = law{scale: map[string]float64{CandPMNF: 1.03, CandGraph: 1}, odd: map[string]float64{CandPMNF: 1.04, CandGraph: 1.06}}
	fold.far = map[string]float64{CandGraph: 2}
	sel = selectWith(t, 9, fold, &fold, "")
	if sel.Chosen != CandPMNF || !strings.Contains(sel.Apart, "graph and pmnf predict") {
		t.Errorf("chosen %s, apart %q; want pmnf kept as the simpler", sel.Chosen, sel.Apart)
	}
	if sum := sel.Summary(); !strings.Contains(sum, "as they part beyond the range") {
		t.Errorf("summary %q: want the reason", sum)
	}
	// The same parting, but pmnf and power 30% off, ten times the graph's error:
	// no safer beyond the range, and the graph stays (the solver example's power
	// law, at 5× the graph's error, had been kept).
	fold = law{scale: map[string]float64{CandPower: 1.3, CandPMNF: 1.3, CandGraph: 1}, odd: map[string]float64{CandGraph: 1.06}}
	fold.far = map[string]float64{CandGraph: 2}
	sel = selectWith(t, 9, fold, &fold, "")
	if sel.Chosen != CandGraph || sel.Apart != "" {
		t.Errorf("chosen %s, apart %q; want graph, the simpler ones clearly worse", sel.Chosen, sel.Apart)
	}
}

// TestSelectForce checks --predictor: a forced candidate is used whatever the
// scores, an unknown one is an error, and so is one the traces cannot give.
func TestSelectForce(t *testing.T) {
	l := law{scale: map[string]float64{CandPower: 1, CandGraph: 1.3}}
	if sel := selectWith(t, 9, l, nil, CandGraph); sel.Chosen != CandGraph || !strings.Contains(sel.Summary(), "forced") {
		t.Errorf("forced graph: chosen %s (%s)", sel.Chosen, sel.Summary())
	}
	if sel := selectWith(t, 9, l, nil, "auto"); sel.Chosen != CandPower {
		t.Errorf("auto: chosen %s, want power", sel.Chosen)
	}
	for _, bad := range []string{"bogus", CandSegmented} {
		f := l
		f.maxN = 18
		if _, err := Select(points(9), func([]*trace.Trace) (Predictor, error) { return f, nil }, f, bad); err == nil {
			t.Errorf("forced %q: no error", bad)
		}
	}
}
