package regress

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitTail: the exit arc of a loop whose checkpoint heads its body is its
// body once more and a tail; an exit arc without the body is not.
func TestFitTail(t *testing.T) {
	body := Formula{Kind: Power, Vars: []string{"$n"}, Value: -4000, Coef: []float64{0.92}, Exp: 2}
	exit := func(seed uint64, y func(n float64) float64) *Problem {
		r := rand.New(rand.NewPCG(seed, 21))
		p := &Problem{Names: []string{"$n"}, Cols: make([][]float64, 1), Nonneg: true, PerPoint: true}
		for pt := 0; pt < 16; pt++ {
			n := math.Round(250 + 250*r.Float64())
			for k := 0; k < 5; k++ {
				v := y(n) * (1 + 0.03*r.NormFloat64())
				if n > 470 && k < 2 {
					v *= 1.2 // slow last steps at the top of the range, as in jacobi2d's traces
				}
				p.Cols[0] = append(p.Cols[0], n)
				p.Y = append(p.Y, v)
				p.Run = append(p.Run, int32(pt))
			}
		}
		return p
	}
	for seed := uint64(1); seed <= 5; seed++ {
		p := exit(seed, func(n float64) float64 { return 0.92*n*n - 4000 + 1500 })
		direct := FitTime(p, DefaultFitOptions)
		tail, ok := FitTail(p, &body, &direct)
		if !ok {
			t.Errorf("seed %d: the body and a tail were refused for %s", seed, direct.String())
			continue
		}
		if tail.Kind != Const || math.Abs(tail.Value-1500) > 2000 {
			t.Errorf("seed %d: tail %s, want about 1500", seed, tail.String())
		}
		// At 16 times the range the exit is the body's: within 5%.
		n := 16 * 500.0
		want := 0.92*n*n - 4000 + 1500
		if got := 0.92*n*n - 4000 + tail.Value; math.Abs(got/want-1) > 0.05 {
			t.Errorf("seed %d: %.4g at n = %g, want %.4g", seed, got, n, want)
		}
		// An exit arc that does not run the body (a checkpoint at the bottom of
		// the loop): a few µs whatever n.
		p = exit(seed, func(n float64) float64 { return 3000 + 0.5*n })
		direct = FitTime(p, DefaultFitOptions)
		if tail, ok := FitTail(p, &body, &direct); ok {
			t.Errorf("seed %d: an exit arc of 3000 + 0.5·n taken as the body and %s", seed, tail.String())
		}
	}
}
