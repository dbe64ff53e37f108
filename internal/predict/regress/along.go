// This file writes a formula along a line of states as a polynomial in the
// step: what the interpreter needs to add up a loop's iterations in closed form.

package regress

import "math"

// MaxAlongDegree is the highest degree in the step that Along gives.
const MaxAlongDegree = 3

// Polynomial reports whether the formula is a polynomial in its variables of
// total degree at most MaxAlongDegree wherever the features marked in moving
// change, given that the others stay fixed: a constant, a copy, a shift, a
// polynomial of that degree in them, a power law of integer exponent up to
// MaxAlongDegree, or any formula that reads none of them (after Compile).
func (f *Formula) Polynomial(moving []bool) bool {
	moves := false
	for _, i := range f.idx {
		moves = moves || moving[i]
	}
	if !moves {
		return true
	}
	switch f.Kind {
	case Const, Copy, Shift:
		return true
	case Power:
		return f.Exp == math.Trunc(f.Exp) && f.Exp >= 0 && f.Exp <= MaxAlongDegree
	case Poly:
		for _, t := range f.Terms {
			d := 0
			for v, e := range t {
				if moving[f.idx[v]] {
					d += e
				}
			}
			if d > MaxAlongDegree {
				return false
			}
		}
		return true
	}
	return false
}

// Along returns the formula at the states state + j·delta, j = 0, 1, …, n − 1,
// as a polynomial in j: its coefficients, the constant first, at most
// MaxAlongDegree + 1 of them. ok is false when no such polynomial gives Eval's
// values there: a formula that is not Polynomial in the features that move, a
// power law whose variable is not of one sign along the line (Eval gives the
// constant where it is not positive), or coefficients that are not finite.
func (f *Formula) Along(state, delta []float64, n float64) (c []float64, ok bool) {
	moving := func(i int) bool { return delta[i] != 0 }
	moves := false
	for _, i := range f.idx {
		moves = moves || moving(i)
	}
	if !moves {
		c = []float64{f.Eval(state)}
		return c, finiteAll(c)
	}
	switch f.Kind {
	case Const:
		c = []float64{f.Value}
	case Copy:
		i := f.idx[0]
		c = []float64{state[i], delta[i]}
	case Shift:
		i := f.idx[0]
		c = []float64{state[i] + f.Value, delta[i]}
	case Power:
		i := f.idx[0]
		x0, d := state[i], delta[i]
		last := x0 + (n-1)*d
		switch {
		case x0 <= 0 && last <= 0:
			c = []float64{f.Value}
		case x0 > 0 && last > 0 && f.Exp == math.Trunc(f.Exp) && f.Exp >= 0 && f.Exp <= MaxAlongDegree:
			c = []float64{f.Coef[0]}
			for e := int(f.Exp); e > 0; e-- {
				c = polyMulLinear(c, x0, d)
			}
			c[0] += f.Value
		default:
			return nil, false
		}
	case Poly:
		c = make([]float64, 1, MaxAlongDegree+1)
		for k, t := range f.Terms {
			p := []float64{f.Coef[k]}
			for v, e := range t {
				i := f.idx[v]
				x0, d := state[i], delta[i]
				for ; e > 0; e-- {
					if d == 0 {
						for m := range p {
							p[m] *= x0
						}
						continue
					}
					p = polyMulLinear(p, x0, d)
				}
			}
			if len(p) > MaxAlongDegree+1 {
				return nil, false
			}
			for len(c) < len(p) {
				c = append(c, 0)
			}
			for m, v := range p {
				c[m] += v
			}
		}
	default:
		return nil, false
	}
	return c, finiteAll(c)
}

// polyMulLinear returns p·(a + b·j), p's coefficients the constant first.
func polyMulLinear(p []float64, a, b float64) []float64 {
	out := make([]float64, len(p)+1)
	for m, v := range p {
		out[m] += v * a
		out[m+1] += v * b
	}
	return out
}

func finiteAll(c []float64) bool {
	for _, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
