// This file implements the composition of times over any control-flow graph by an
// absorbing Markov chain: expected visits from the fundamental matrix, the mean and
// the variance of the time to absorption from its first and second moments.

package timing

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/fragprof/fragprof/cfg"
)

// A Chain is one call of a function seen as an absorbing Markov chain: the transient
// states are its blocks that ran, control moves along edge e out of block i with
// probability count(e)/count(i) (the profile's edge probabilities), and leaves the
// function (absorption) with the rest, 1 − Σ_j Q_ij: a return, or an exit() in a
// call. Each visit of state i takes an independent time with the moments of Times[i].
type Chain struct {
	Func   *cfg.Func
	States []*cfg.Block // the transient states; States[0] is the entry
	Q      *mat.Dense   // Q[i][j]: probability of going from States[i] to States[j]
	Absorb []float64    // probability of leaving the function from States[i]
	Times  []Part       // time of one visit of States[i]
}

// NewChain builds the chain of f from its summed counts c and the time of each block.
// Blocks that never ran are left out; f must have been called.
func NewChain(f *cfg.Func, c cfg.Counts, blockTime func(b *cfg.Block) Part) (*Chain, error) {
	if len(c.Blocks) != len(f.Blocks) || len(c.Edges) != len(f.Edges) {
		return nil, fmt.Errorf("markov: counts do not fit function %s", f.Name)
	}
	if c.Blocks[0] == 0 {
		return nil, fmt.Errorf("markov: function %s was never called", f.Name)
	}
	idx := map[int]int{}
	ch := &Chain{Func: f}
	for _, b := range f.Blocks {
		if c.Blocks[b.ID] > 0 {
			idx[b.ID] = len(ch.States)
			ch.States = append(ch.States, b)
		}
	}
	n := len(ch.States)
	ch.Q = mat.NewDense(n, n, nil)
	ch.Absorb = make([]float64, n)
	ch.Times = make([]Part, n)
	for i, b := range ch.States {
		out := 0.0
		for _, e := range b.Succs {
			if c.Edges[e.ID] == 0 {
				continue
			}
			p := float64(c.Edges[e.ID]) / float64(c.Blocks[b.ID])
			j, ok := idx[e.To.ID]
			if !ok {
				return nil, fmt.Errorf("markov: %s: edge %s taken into a block that never ran", f.Name, e)
			}
			ch.Q.Set(i, j, ch.Q.At(i, j)+p)
			out += p
		}
		if out > 1+1e-12 {
			return nil, fmt.Errorf("markov: %s: block %s left %g times per entry", f.Name, b.Label, out)
		}
		ch.Absorb[i] = math.Max(0, 1-out)
		ch.Times[i] = blockTime(b)
	}
	return ch, nil
}

// MarkovResult is the time of one call from the chain.
type MarkovResult struct {
	// Part has the mean E[T] and variance Var[T] of the time to absorption from the
	// entry, the shortest path's time as Min, and as Max the longest path's time, or
	// +Inf when a cycle can repeat (Cyclic).
	Part   Part
	Cyclic bool
	// Visits[i] is the expected number of visits of States[i] per call: row 0 of the
	// fundamental matrix N = (I − Q)⁻¹.
	Visits []float64
}

// Solve computes the time to absorption from the entry. With A = I − Q,
// m_i = E[X_i] and v_i = Var[X_i] the time of one visit of state i, and T_i the time
// from entering i to absorption, first-step analysis gives
//
//	E[T_i]  = m_i + Σ_j Q_ij E[T_j]                      ⇒  t = A⁻¹ m
//	E[T_i²] = E[X_i²] + 2 m_i Σ_j Q_ij t_j + Σ_j Q_ij E[T_j²]
//	                                                     ⇒  s = A⁻¹ (v + m∘m + 2 m∘(Q t))
//	Var[T]  = s_0 − t_0²
//
// (Kemeny & Snell, "Finite Markov Chains", 1960, ch. 3, for the visits; the second
// moment is the reward version of their variance formula). The expected visits are
// the solution x of Aᵀ x = e_0. The squared standard error of E[T] is
// Σ_j x_j²·SE2_j: the block means' errors, the probabilities taken as exact. The
// chain needs every state to reach absorption (I − Q invertible).
func (ch *Chain) Solve() (MarkovResult, error) {
	n := len(ch.States)
	a := mat.NewDense(n, n, nil)
	a.Sub(eye(n), ch.Q)
	var lu mat.LU
	lu.Factorize(a)
	if lu.Det() == 0 || lu.Cond() > 1e14 {
		return MarkovResult{}, fmt.Errorf("markov: %s: some blocks never reach a return (I − Q is singular)", ch.Func.Name)
	}
	m := mat.NewVecDense(n, nil)
	for i, p := range ch.Times {
		m.SetVec(i, p.Mean)
	}
	var t mat.VecDense
	if err := lu.SolveVecTo(&t, false, m); err != nil {
		return MarkovResult{}, fmt.Errorf("markov: %s: %v", ch.Func.Name, err)
	}
	var qt mat.VecDense
	qt.MulVec(ch.Q, &t)
	b := mat.NewVecDense(n, nil)
	for i, p := range ch.Times {
		b.SetVec(i, p.Var+p.Mean*p.Mean+2*p.Mean*qt.AtVec(i))
	}
	var s mat.VecDense
	if err := lu.SolveVecTo(&s, false, b); err != nil {
		return MarkovResult{}, fmt.Errorf("markov: %s: %v", ch.Func.Name, err)
	}
	e0 := mat.NewVecDense(n, nil)
	e0.SetVec(0, 1)
	var x mat.VecDense
	if err := lu.SolveVecTo(&x, true, e0); err != nil {
		return MarkovResult{}, fmt.Errorf("markov: %s: %v", ch.Func.Name, err)
	}
	r := MarkovResult{Visits: make([]float64, n)}
	r.Part.Mean = t.AtVec(0)
	r.Part.Var = math.Max(0, s.AtVec(0)-r.Part.Mean*r.Part.Mean)
	r.Part.Normal = true
	for j := range n {
		r.Visits[j] = x.AtVec(j)
		r.Part.SE2 += r.Visits[j] * r.Visits[j] * ch.Times[j].SE2
		r.Part.Normal = r.Part.Normal && ch.Times[j].Normal
	}
	r.Part.Min = ch.shortest()
	r.Part.Max, r.Cyclic = ch.longest()
	return r, nil
}

func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

// shortest returns the least total of the visits' minima over the paths from the
// entry to an absorption (Bellman–Ford; the weights are not negative).
func (ch *Chain) shortest() float64 {
	n := len(ch.States)
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Inf(1)
	}
	d[0] = ch.Times[0].Min
	for range n {
		changed := false
		for i := range n {
			if math.IsInf(d[i], 1) {
				continue
			}
			for j := range n {
				if ch.Q.At(i, j) > 0 && d[i]+ch.Times[j].Min < d[j] {
					d[j] = d[i] + ch.Times[j].Min
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	best := math.Inf(1)
	for i := range n {
		if ch.Absorb[i] > 0 {
			best = math.Min(best, d[i])
		}
	}
	return best
}

// longest returns the largest total of the visits' maxima over the paths from the
// entry to an absorption, or +Inf and true when a cycle can repeat.
func (ch *Chain) longest() (float64, bool) {
	n := len(ch.States)
	const (
		white = iota
		grey
		black
	)
	color := make([]int, n)
	memo := make([]float64, n)
	cyclic := false
	var visit func(i int) float64
	visit = func(i int) float64 {
		if color[i] == black {
			return memo[i]
		}
		if color[i] == grey {
			cyclic = true
			return math.Inf(1)
		}
		color[i] = grey
		best := math.Inf(-1)
		if ch.Absorb[i] > 0 {
			best = 0
		}
		for j := range n {
			if ch.Q.At(i, j) > 0 {
				best = math.Max(best, visit(j))
			}
		}
		color[i] = black
		memo[i] = ch.Times[i].Max + best
		return memo[i]
	}
	v := visit(0)
	if cyclic {
		return math.Inf(1), true
	}
	return v, false
}
