// This file fits the simplest model a user would try: a power law of one input,
// t = a + b·x^k, with the exponent k fitted (not chosen from a fixed set as in the
// normal form of baseline.go).

package regress

import (
	"fmt"
	"math"
	"slices"
)

// A PowerLaw is t = A + B·x^K of one input.
type PowerLaw struct {
	Input  string  `json:"input"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	K      float64 `json:"k"`
	CVMAPE float64 `json:"cv_mape"`
	index  int
}

// Eval predicts from the inputs (by the model's input order).
func (p *PowerLaw) Eval(in []float64) float64 {
	return p.A + p.B*math.Pow(in[p.index], p.K)
}

// String prints "12.3 + 4.56·$n^2.98".
func (p *PowerLaw) String() string {
	sign := "+"
	if p.B < 0 {
		sign = "−"
	}
	return fmt.Sprintf("%s %s %s·$%s^%.3g", fmtNum(p.A), sign, fmtNum(math.Abs(p.B)), p.Input, p.K)
}

// FitPowerLaw fits t = a + b·x^k to y (one value per input point) for every input x
// that is positive and varies, over k ∈ [0.05, 4] in steps of 0.01, by relative
// least squares (a and b linear for a given k), and keeps the input and k of the
// lowest 10-fold cross-validated MAPE, raised by FractionalPenalty for a
// fractional k. It returns nil when no input qualifies.
func FitPowerLaw(names []string, X [][]float64, y []float64) *PowerLaw {
	exps := make([]float64, 0, 396)
	for e := 5; e <= 400; e++ {
		exps = append(exps, float64(e)/100)
	}
	return fitPowerLaw(names, X, y, exps)
}

// FitPowerLawOf is FitPowerLaw over the exponents exps only: FitPowerLawOf(…,
// []float64{1, 2, 3}) for a quantity that is a sum of array sizes, products of
// one size (n doubles, n² matrices, n³ tensors), where over a narrow range an
// offset and a fractional k fit the noise as well and extrapolate far worse.
func FitPowerLawOf(names []string, X [][]float64, y []float64, exps []float64) *PowerLaw {
	return fitPowerLaw(names, X, y, exps)
}

func fitPowerLaw(names []string, X [][]float64, y []float64, exps []float64) *PowerLaw {
	n := len(y)
	if n < 3 {
		return nil
	}
	fold, k := tenFolds(n)
	var best *PowerLaw
	bestScore := math.Inf(1)
	col := make([]float64, n)
	for p := range names {
		lo, hi := math.Inf(1), math.Inf(-1)
		for r := 0; r < n; r++ {
			lo, hi = math.Min(lo, X[r][p]), math.Max(hi, X[r][p])
		}
		if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
			continue
		}
		for _, ex := range exps {
			for r := 0; r < n; r++ {
				col[r] = math.Pow(X[r][p], ex)
			}
			cv, c := cvLinear([][]float64{col}, y, fold, k, true)
			score := cv // penalised as Penalty does: an integer exponent is preferred
			if ex != math.Trunc(ex) {
				score *= 1 + FractionalPenalty
			}
			if score < bestScore {
				bestScore = score
				best = &PowerLaw{Input: names[p], A: c[0], B: c[1], K: ex, CVMAPE: cv, index: p}
			}
		}
	}
	return best
}

// Compile binds the law to the model's inputs.
func (p *PowerLaw) Compile(inputs []string) error {
	p.index = slices.Index(inputs, p.Input)
	if p.index < 0 {
		return fmt.Errorf("power law of unknown input %q", p.Input)
	}
	return nil
}

// tenFolds assigns n points to min(n, 10) cross-validation folds in turn.
func tenFolds(n int) (fold []int, k int) {
	fold = make([]int, n)
	k = min(n, 10)
	for r := range fold {
		fold[r] = r % k
	}
	return fold, k
}
