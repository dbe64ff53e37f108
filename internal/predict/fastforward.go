// This file is the interpreter's fast-forward of loops. A self loop — a node
// whose rule sends control back to itself — is not stepped through when one
// iteration changes the state only by constant steps: the node's counter by 1,
// each variable its self arc records by a copy of itself or a shift by a
// constant (i := i + 1), or by a copy or shift of a feature that itself moves
// by a constant step (i := #row − 1). Along such a loop every feature is an
// affine function of the iteration j, so every condition of the node's rule is
// one too, and the iterations up to the first j at which a condition may change
// are all decided alike; the self arc's time, a polynomial in the features
// (regress.Formula.Polynomial), is a polynomial in j there, and its sum over the
// iterations is a sum of powers of j: Σ_{j<n} j^m in closed form (Faulhaber's
// formulas; Graham, Knuth & Patashnik, Concrete Mathematics, 2nd ed., §2.5 and
// §6.5), the time's clamp at 0 honoured by summing only where the polynomial is
// non-negative. So a query costs the same for K = 10 and K = 10⁸.
//
// The result equals stepping to rounding: the features that move are whole
// numbers below 2⁵³ (they count exactly both ways), conditions on them are
// intervals and equalities (whose changes fall at the bounds), and a loop whose
// time is no such polynomial (a GMDH network of a moving feature, a power of
// non-integer exponent) is stepped.

package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/fragprof/fragprof/internal/predict/graph"
	"github.com/fragprof/fragprof/internal/predict/regress"
)

// ffInfo says whether and how a node's self loop can be fast-forwarded.
type ffInfo struct {
	self int  // the self arc, or -1
	ok   bool // the loop moves by constant steps (delta)
	// delta[f] is feature f's change in one iteration of the self arc, once
	// the arc has been taken (0 for the features it does not move).
	delta []float64
	// moving lists the features with delta ≠ 0.
	moving []int
	// conds are the node's conditions: the rule's, then its trip rule's.
	conds []*graph.Cond
}

// prepareFastForward finds the nodes whose self loop the interpreter may skip
// through: the self arc neither resets the counter nor has a loop body; each
// variable it records is a constant, or a copy or shift of a feature whose
// own step per iteration is constant; its time is a polynomial of degree at
// most 3 in the features that move; and every condition of the rule on a
// moving feature is made of intervals and equalities of an expression affine
// in them (a difference, or a ratio whose divisor does not move).
func (m *Model) prepareFastForward() {
	sp := m.space
	F := sp.Len()
	m.ff = make([]ffInfo, len(m.Nodes))
	for n := range m.Nodes {
		ff := &m.ff[n]
		ff.self = -1
		for _, ai := range m.outArcs[n] {
			if m.Arcs[ai].To == n {
				ff.self = ai
			}
		}
		if ff.self < 0 {
			continue
		}
		a := &m.Arcs[ff.self]
		ff.ok = !a.Resets && a.Body == nil
		ff.delta = make([]float64, F)
		ci := sp.CounterIndex(n)
		ff.delta[ci] = 1
		// A recorded variable's step: the step of what it copies or shifts.
		// Its source's step must itself be constant from the first iteration
		// on: the counter, an input or a variable the arc does not record
		// (step 0), or the variable itself.
		target := make([]int, len(a.Data))
		for k, d := range a.Data {
			target[k] = sp.VarIndex(slices.Index(m.Vars, d.Var))
		}
		for k, d := range a.Data {
			f := &d.Formula
			switch f.Kind {
			case regress.Const:
				continue
			case regress.Copy, regress.Shift:
			default:
				ff.ok = false
				continue
			}
			src, found := sp.Index(f.Vars[0])
			if !found {
				ff.ok = false
				continue
			}
			switch {
			case src == target[k] && f.Kind == regress.Shift:
				ff.delta[src] = f.Value
			case src == target[k], src == ci:
				ff.delta[target[k]] = ff.delta[src]
			case slices.Contains(target, src):
				// Another recorded variable: constant steps only when it
				// shifts or copies itself.
				j := slices.Index(target, src)
				g := &a.Data[j].Formula
				if (g.Kind == regress.Shift || g.Kind == regress.Copy) && g.Vars[0] == a.Data[j].Var {
					if g.Kind == regress.Shift {
						ff.delta[target[k]] = g.Value
					}
				} else {
					ff.ok = false
				}
			default:
				// an input, another node's counter, a variable not recorded: fixed
			}
		}
		moving := make([]bool, F)
		for f, d := range ff.delta {
			if d != 0 {
				moving[f] = true
				ff.moving = append(ff.moving, f)
				// Whole steps: the features count exactly both ways.
				ff.ok = ff.ok && d == math.Trunc(d) && !math.IsInf(d, 0)
			}
		}
		ff.ok = ff.ok && a.Time.Polynomial(moving)
		r := &m.Rules[n]
		for k := range r.Conds {
			ff.conds = append(ff.conds, &r.Conds[k])
		}
		if r.Trip != nil {
			for k := range r.Trip.Conds {
				ff.conds = append(ff.conds, &r.Trip.Conds[k])
			}
		}
		for _, c := range ff.conds {
			ea, eb := c.Expr.Features()
			moves := moving[ea] || eb >= 0 && moving[eb]
			if !moves {
				continue
			}
			if c.Expr.Ratio && moving[eb] {
				ff.ok = false
			}
			for _, p := range c.Pieces {
				ff.ok = ff.ok && (p.Kind == graph.Interval || p.Kind == graph.Equal)
			}
		}
	}
}

// skip returns how many more times node n's self arc is taken in a row, the
// arc having just been taken: up to the first iteration at which a condition
// of the rule, or the trip count, may change the decision. When the decision
// is a random choice of the residual rule (self with probability p), the
// number of further self choices is drawn from its geometric distribution;
// force then says that the choice after them must leave the loop. It returns
// 0 when the loop cannot be skipped here (a moving feature that is not a whole
// number, a time that is no polynomial along the iterations), and the self
// arc's time along them as a polynomial in the iteration (before the clamp
// and the calibration).
func (m *Model) skip(n int, state, trip []float64, rng *rand.Rand) (k float64, force bool, time []float64, err error) {
	ff := &m.ff[n]
	for _, f := range ff.moving {
		if x := state[f]; x != math.Trunc(x) || math.Abs(x) > MaxInput {
			return 0, false, nil, nil
		}
	}
	ci := m.space.CounterIndex(n)
	next := math.Inf(1) // the first iteration whose decision may differ
	consider := func(j float64) {
		if j > 0 && j < next {
			next = j
		}
	}
	for _, cond := range ff.conds {
		ea, eb := cond.Expr.Features()
		var e0, slope float64 // the expression at iteration j: e0 + slope·j
		switch {
		case eb < 0:
			e0, slope = state[ea], ff.delta[ea]
		case cond.Expr.Ratio:
			e0, slope = state[ea]/state[eb], ff.delta[ea]/state[eb]
		default:
			e0, slope = state[ea]-state[eb], ff.delta[ea]-ff.delta[eb]
		}
		if slope == 0 {
			continue
		}
		for _, pc := range cond.Pieces {
			var bounds []float64
			switch pc.Kind {
			case graph.Interval:
				if pc.Lo != nil {
					bounds = append(bounds, *pc.Lo)
				}
				if pc.Hi != nil {
					bounds = append(bounds, *pc.Hi)
				}
			case graph.Equal:
				bounds = append(bounds, pc.Value)
			}
			for _, b := range bounds {
				x := (b - e0) / slope // the iteration at which the expression equals b
				consider(math.Floor(x))
				consider(math.Floor(x) + 1)
				consider(math.Ceil(x))
			}
		}
	}
	if m.Rules[n].Trip != nil {
		consider(trip[n] - state[ci])
	}
	// Decisions at iterations 0, 1, …, next−1 are alike.
	if arc, det := m.decideDet(n, state, trip); det {
		if arc != ff.self {
			return 0, false, nil, nil
		}
		if math.IsInf(next, 1) {
			return 0, false, nil, fmt.Errorf("%w: node %s loops on itself for ever (no rule ever leaves it)", ErrNoEnd, m.Nodes[n].Name)
		}
		k = next
	} else {
		p := 0.0
		for _, s := range m.Rules[n].Residual {
			if s.Arc == ff.self {
				p = s.P
			}
		}
		if p == 0 {
			return 0, false, nil, nil
		}
		g := math.Floor(math.Log(1-rng.Float64()) / math.Log(p)) // self choices before the first exit
		if k, force = next, false; g < next {
			k, force = g, true
		}
	}
	if k <= 0 {
		return 0, force, nil, nil
	}
	for _, f := range ff.moving {
		if math.Abs(state[f])+k*math.Abs(ff.delta[f]) > MaxInput {
			return 0, false, nil, fmt.Errorf("%w: node %s's loop would run %.4g more times, counting %s beyond 2^53, where numbers no longer count one by one", ErrNoEnd, m.Nodes[n].Name, k, m.space.Name(f))
		}
	}
	time, ok := m.Arcs[ff.self].Time.Along(state, ff.delta, k)
	if !ok {
		return 0, false, nil, nil
	}
	return k, force, time, nil
}

// advance moves the state k iterations of node n's self loop on.
func (ff *ffInfo) advance(state []float64, k float64) {
	for _, f := range ff.moving {
		state[f] += k * ff.delta[f]
	}
}

// clampedSum returns Σ max(0, P(j)) over the whole numbers j in [p, q), P the
// polynomial of coefficients c (the constant first, degree at most 3): the
// range is cut where P turns (the roots of P′) into pieces on which P is
// monotone, each piece where P changes sign is cut again at the sign change
// (bisection), and each non-negative run of P is summed in closed form
// (polySum).
func clampedSum(c []float64, p, q float64) float64 {
	for len(c) > 1 && c[len(c)-1] == 0 {
		c = c[:len(c)-1]
	}
	if q <= p {
		return 0
	}
	if len(c) == 1 {
		return math.Max(0, c[0]) * (q - p)
	}
	// The turning points: roots of P′ = c1 + 2c2·j + 3c3·j².
	var turns []float64
	var d [3]float64
	for m := 1; m < len(c); m++ {
		d[m-1] = float64(m) * c[m]
	}
	switch {
	case d[2] != 0:
		disc := d[1]*d[1] - 4*d[2]*d[0]
		if disc >= 0 {
			s := math.Sqrt(disc)
			// the numerically stable pair of roots
			qq := -0.5 * (d[1] + math.Copysign(s, d[1]))
			if qq != 0 {
				turns = append(turns, qq/d[2], d[0]/qq)
			} else {
				turns = append(turns, 0)
			}
		}
	case d[1] != 0:
		turns = append(turns, -d[0]/d[1])
	}
	slices.Sort(turns)
	sum := 0.0
	lo := p
	for _, r := range append(turns, q) {
		hi := q // the piece [lo, hi) of whole numbers, P monotone on it
		if r < q {
			hi = math.Floor(r) + 1
		}
		if hi <= lo {
			continue
		}
		sum += monotoneClampedSum(c, lo, hi)
		lo = hi
	}
	return sum
}

// monotoneClampedSum is clampedSum on a range [p, q) where P is monotone.
func monotoneClampedSum(c []float64, p, q float64) float64 {
	first, last := horner(c, p) >= 0, horner(c, q-1) >= 0
	switch {
	case first && last:
		return polySum(c, p, q)
	case !first && !last:
		return 0
	}
	// The sign changes once: find the first j whose sign is last's.
	a, b := p, q-1 // sign(a) = first, sign(b) = last
	for b-a > 1 {
		mid := math.Floor(a + (b-a)/2)
		if (horner(c, mid) >= 0) == first {
			a = mid
		} else {
			b = mid
		}
	}
	if first {
		return polySum(c, p, b)
	}
	return polySum(c, b, q)
}

func horner(c []float64, x float64) float64 {
	y := 0.0
	for m := len(c) - 1; m >= 0; m-- {
		y = y*x + c[m]
	}
	return y
}

// polySum returns Σ P(j) over the whole numbers j in [p, q), P of degree at
// most 3: P is shifted to P(p + i) (Taylor shift, so that no large sums cancel)
// and summed by the power sums Σ_{i<n} i^m: n, n(n−1)/2, (n−1)n(2n−1)/6 and
// (n(n−1)/2)².
func polySum(c []float64, p, q float64) float64 {
	s := slices.Clone(c)
	// Taylor shift by p: repeated synthetic division.
	for k := 0; k < len(s); k++ {
		for m := len(s) - 2; m >= k; m-- {
			s[m] += p * s[m+1]
		}
	}
	n := q - p
	t := n * (n - 1) / 2
	pow := [4]float64{n, t, (n - 1) * n * (2*n - 1) / 6, t * t}
	sum := 0.0
	for m, v := range s {
		sum += v * pow[m]
	}
	return sum
}
