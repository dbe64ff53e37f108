// This file fits a power law whose slope changes at a fitted breakpoint: segmented
// regression, for programs whose time per unit of work steps up where their data
// leaves a cache level (a working set that outgrows L2 makes every later element
// cost more, and a single power law bends to average the two regimes).

package regress

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// A Segmented is t = A + B·x^K + C·max(0, x^K − X0^K) of one input x: a power law
// with a change of slope at the breakpoint X0, continuous there — continuous
// segmented (broken-line) regression (V. M. R. Muggeo, "Estimating regression
// models with unknown break-points", Statistics in Medicine 22, 2003), with the
// breakpoint found by a search over the training inputs and the known breakpoints
// (where the working set leaves a cache level) rather than Muggeo's iteration: the
// least-squares breakpoint of a broken line lies between two data points, and the
// training inputs are few. Beyond the training range the last slope, B + C,
// continues.
type Segmented struct {
	Input  string  `json:"input"`
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	C      float64 `json:"c"`
	K      float64 `json:"k"`
	X0     float64 `json:"x0"`
	CVMAPE float64 `json:"cv_mape"`
	// Cache is the cache level whose size the working set reaches at X0 when the
	// breakpoint is a known one (Break), 0 when it is a training input.
	Cache int `json:"cache_level,omitempty"`
	index int
}

// A Break is a known breakpoint of one input: the value X at which the program's
// working set reaches the size of cache level Level.
type Break struct {
	Input string
	X     float64
	Level int
}

// Eval predicts from the inputs (by the model's input order).
func (s *Segmented) Eval(in []float64) float64 {
	u := math.Pow(in[s.index], s.K)
	return s.A + s.B*u + s.C*math.Max(0, u-math.Pow(s.X0, s.K))
}

// String prints "12.3 + 4.56·$n^2 + 7.8·max(0, $n^2 − 362^2)".
func (s *Segmented) String() string {
	return fmt.Sprintf("%s %s %s·$%s^%.3g %s %s·max(0, $%s^%.3g − %s^%.3g)", fmtNum(s.A), signOf(s.B), fmtNum(math.Abs(s.B)),
		s.Input, s.K, signOf(s.C), fmtNum(math.Abs(s.C)), s.Input, s.K, fmtNum(s.X0), s.K)
}

func signOf(x float64) string {
	if x < 0 {
		return "−"
	}
	return "+"
}

// Compile binds the law to the model's inputs.
func (s *Segmented) Compile(inputs []string) error {
	s.index = slices.Index(inputs, s.Input)
	if s.index < 0 {
		return fmt.Errorf("segmented law of unknown input %q", s.Input)
	}
	return nil
}

// MinSegmentPoints is the fewest distinct input values on each side of a
// breakpoint: a slope from fewer is noise.
const MinSegmentPoints = 3

// FitSegmented fits Segmented to y (one value per input point) for every input x
// that is positive and takes at least 2·MinSegmentPoints distinct values: k over
// [0.25, 4] in steps of 0.05, the breakpoint over the distinct values with at
// least MinSegmentPoints on each side (the break falls at a training input, from
// where the hinge column rises) and over the known breaks of x that have at least
// MinSegmentPoints distinct values strictly on each side, A, B and C by relative
// least squares; it keeps the lowest 10-fold cross-validated MAPE (a fractional k
// raised by FractionalPenalty, as FitPowerLaw does). nil when no input qualifies.
func FitSegmented(names []string, X [][]float64, y []float64, known ...Break) *Segmented {
	n := len(y)
	if n < 2*MinSegmentPoints {
		return nil
	}
	fold, k := tenFolds(n)
	var best *Segmented
	bestScore := math.Inf(1)
	col, hinge := make([]float64, n), make([]float64, n)
	for p := range names {
		var vals []float64
		ok := true
		for r := 0; r < n; r++ {
			v := X[r][p]
			if !(v > 0) || math.IsInf(v, 0) {
				ok = false
				break
			}
			vals = append(vals, v)
		}
		if !ok {
			continue
		}
		sort.Float64s(vals)
		distinct := vals[:0:0]
		for i, v := range vals {
			if i == 0 || v != vals[i-1] {
				distinct = append(distinct, v)
			}
		}
		if len(distinct) < 2*MinSegmentPoints {
			continue
		}
		breaks := distinct[MinSegmentPoints-1 : len(distinct)-MinSegmentPoints]
		level := make([]int, len(breaks))
		for _, b := range known {
			if b.Input == names[p] && b.X > distinct[MinSegmentPoints-1] && b.X < distinct[len(distinct)-MinSegmentPoints] {
				breaks = append(breaks[:len(breaks):len(breaks)], b.X)
				level = append(level, b.Level)
			}
		}
		for e := 25; e <= 400; e += 5 {
			ex := float64(e) / 100
			for r := 0; r < n; r++ {
				col[r] = math.Pow(X[r][p], ex)
			}
			for b, x0 := range breaks {
				u0 := math.Pow(x0, ex)
				for r := 0; r < n; r++ {
					hinge[r] = math.Max(0, col[r]-u0)
				}
				cv, c := cvLinear([][]float64{col, hinge}, y, fold, k, true)
				score := cv
				if e%100 != 0 {
					score *= 1 + FractionalPenalty
				}
				if score < bestScore {
					bestScore = score
					best = &Segmented{Input: names[p], A: c[0], B: c[1], C: c[2], K: ex, X0: x0, CVMAPE: cv, Cache: level[b], index: p}
				}
			}
		}
	}
	return best
}
