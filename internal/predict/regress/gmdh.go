// This file fits GMDH, the group method of data handling (Ivakhnenko 1971): layers
// of two-input quadratic neurons, each layer keeping the neurons that do best on a
// validation split (the external criterion), stopping when the criterion no longer
// improves.

package regress

import (
	"math"
	"sort"

	"github.com/fragprof/fragprof/internal/stats"
)

// gmdhMaxLayers and gmdhWidth bound the network: at most 5 layers of the 8 best
// neurons each (the "freedom of choice").
const (
	gmdhMaxLayers = 5
	gmdhWidth     = 8
)

// fitGMDH fits a GMDH network. The inputs are the candidates of the correlation
// ranking, standardised. Rows are split into a training part A and a validation
// part B (by run, one run in three to B); each layer fits every pair of its inputs
// (the previous layer's neurons and the original inputs) on A, and keeps the
// gmdhWidth neurons with the lowest mean square error on B. Layers are added while
// the best error on B drops by at least 0.1%. The chosen network is then refitted,
// neuron by neuron, on all rows.
func fitGMDH(p *Problem, opt FitOptions) Formula {
	full := p.subset(opt.MaxFitRows)
	cands := rankByCorrelation(full.subset(opt.MaxSelectRows), opt.Candidates)
	f := Formula{Kind: GMDH}
	if len(cands) == 0 {
		m := 0.0
		for _, v := range full.Y {
			m += v
		}
		return Formula{Kind: Const, Value: m / float64(full.rows()), Fit: quality(full, func(int) float64 { return m / float64(full.rows()) })}
	}
	n := full.rows()
	net := &Net{}
	z := make([][]float64, len(cands))
	for i, c := range cands {
		f.Vars = append(f.Vars, p.Names[c])
		mu, sd := stats.MeanSD(full.Cols[c])
		if sd == 0 {
			sd = 1
		}
		net.Mu = append(net.Mu, mu)
		net.Sd = append(net.Sd, sd)
		z[i] = make([]float64, n)
		for r, v := range full.Cols[c] {
			z[i][r] = (v - mu) / sd
		}
	}
	net.MuY, net.SdY = stats.MeanSD(full.Y)
	if net.SdY == 0 {
		net.SdY = 1
	}
	ys := make([]float64, n)
	for r, v := range full.Y {
		ys[r] = (v - net.MuY) / net.SdY
	}
	fold, _ := folds(full.Run, 3)
	inB := make([]bool, n)
	for r := range inB {
		inB[r] = fold[r] == 2
	}
	type cand struct {
		nr  Neuron
		err float64
		out []float64
	}
	var prev []cand
	bestErr := math.Inf(1)
	var layers [][]Neuron
	for l := 0; l < gmdhMaxLayers; l++ {
		// Inputs of this layer: the previous layer's outputs, then the original inputs.
		var ins [][]float64
		for _, c := range prev {
			ins = append(ins, c.out)
		}
		ins = append(ins, z...)
		var cs []cand
		for i := 0; i < len(ins); i++ {
			for j := i + 1; j < len(ins); j++ {
				if l > 0 && i >= len(prev) && j >= len(prev) {
					continue // a pair of original inputs was tried in layer 0
				}
				nr, err := fitNeuron(ins[i], ins[j], ys, inB, false)
				nr.In = [2]int{i, j}
				cs = append(cs, cand{nr: nr, err: err})
			}
		}
		if len(ins) == 1 {
			nr, err := fitNeuron(ins[0], ins[0], ys, inB, false)
			cs = append(cs, cand{nr: nr, err: err})
		}
		if len(cs) == 0 {
			break
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].err < cs[b].err })
		if !(cs[0].err < bestErr*(1-1e-3)) {
			break
		}
		bestErr = cs[0].err
		if len(cs) > gmdhWidth {
			cs = cs[:gmdhWidth]
		}
		layer := make([]Neuron, len(cs))
		for k := range cs {
			out := make([]float64, n)
			for r := range out {
				out[r] = cs[k].nr.eval(ins[cs[k].nr.In[0]][r], ins[cs[k].nr.In[1]][r])
			}
			cs[k].out = out
			layer[k] = cs[k].nr
		}
		layers = append(layers, layer)
		prev = cs
		if bestErr < 1e-24 {
			break
		}
	}
	net.Layers, net.Out = pruneNet(layers, 0)
	// Refit on all rows, layer by layer.
	var outs [][]float64
	for l := range net.Layers {
		var ins [][]float64
		ins = append(ins, outs...)
		ins = append(ins, z...)
		next := make([][]float64, len(net.Layers[l]))
		for k := range net.Layers[l] {
			nr := &net.Layers[l][k]
			refit, _ := fitNeuron(ins[nr.In[0]], ins[nr.In[1]], ys, nil, true)
			nr.Coef = refit.Coef
			o := make([]float64, n)
			for r := range o {
				o[r] = nr.eval(ins[nr.In[0]][r], ins[nr.In[1]][r])
			}
			next[k] = o
		}
		outs = next
	}
	f.Net = net
	final := outs[net.Out]
	f.Fit = quality(full, func(r int) float64 { return net.MuY + net.SdY*final[r] })
	f.Fit.CVRMSE = math.Sqrt(bestErr) * net.SdY
	return f
}

// fitNeuron fits Ivakhnenko's quadratic c0 + c1 a + c2 b + c3 ab + c4 a² + c5 b² by
// the normal equations on the rows not in B (all rows when all is set) and returns
// it with its mean square error on B (on all rows when all is set).
func fitNeuron(a, b, y []float64, inB []bool, all bool) (Neuron, float64) {
	var G [36]float64
	var rhs [6]float64
	var row [6]float64
	fill := func(r int) {
		x, z := a[r], b[r]
		row = [6]float64{1, x, z, x * z, x * x, z * z}
	}
	for r := range y {
		if !all && inB[r] {
			continue
		}
		fill(r)
		for i := 0; i < 6; i++ {
			for j := i; j < 6; j++ {
				G[i*6+j] += row[i] * row[j]
			}
			rhs[i] += row[i] * y[r]
		}
	}
	for i := 0; i < 6; i++ {
		for j := 0; j < i; j++ {
			G[i*6+j] = G[j*6+i]
		}
	}
	c := solveSym(G[:], rhs[:], 6)
	var nr Neuron
	copy(nr.Coef[:], c)
	var sse float64
	var cnt int
	for r := range y {
		if !all && !inB[r] {
			continue
		}
		d := nr.eval(a[r], b[r]) - y[r]
		sse += d * d
		cnt++
	}
	if cnt == 0 {
		return nr, math.Inf(1)
	}
	return nr, sse / float64(cnt)
}

// pruneNet keeps only the neurons the output (neuron out of the last layer) depends
// on, renumbering the inputs.
func pruneNet(layers [][]Neuron, out int) ([][]Neuron, int) {
	if len(layers) == 0 {
		return nil, 0
	}
	L := len(layers)
	used := make([][]bool, L)
	for l := range used {
		used[l] = make([]bool, len(layers[l]))
	}
	used[L-1][out] = true
	for l := L - 1; l > 0; l-- {
		for k, nr := range layers[l] {
			if !used[l][k] {
				continue
			}
			for _, in := range nr.In {
				if in < len(layers[l-1]) {
					used[l-1][in] = true
				}
			}
		}
	}
	newIndex := make([][]int, L)
	pruned := make([][]Neuron, L)
	for l := range layers {
		newIndex[l] = make([]int, len(layers[l]))
		for k, nr := range layers[l] {
			if !used[l][k] {
				newIndex[l][k] = -1
				continue
			}
			newIndex[l][k] = len(pruned[l])
			if l > 0 {
				prevOld, prevNew := len(layers[l-1]), len(pruned[l-1])
				for i, in := range nr.In {
					if in < prevOld {
						nr.In[i] = newIndex[l-1][in]
					} else {
						nr.In[i] = in - prevOld + prevNew
					}
				}
			}
			pruned[l] = append(pruned[l], nr)
		}
	}
	return pruned, newIndex[L-1][out]
}
