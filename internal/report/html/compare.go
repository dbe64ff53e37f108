// This file implements the comparison mode: the differences of every block from a
// base result, and the blocks that moved most.

package html

import (
	"fmt"
	"math"
	"sort"
)

// MaxMoves is how many blocks the comparison table lists.
const MaxMoves = 20

// Base describes the result a page is compared with.
type Base struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
	// Missing lists the functions of the base that the page does not have.
	Missing []string `json:"missing"`
	// Moves are the blocks whose per-run value changed most: largest |Δ| first, at
	// most MaxMoves, none with Δ = 0.
	Moves []Move `json:"moves"`
	// Legend is the diverging scale of the relative change r = Δ / max(|a|, |b|):
	// Value is r and Heat its place on the scale, sign(r)·√|r|.
	Legend []Stop `json:"legend"`
}

// A Diff is a block's difference from the base, per run.
type Diff struct {
	Base  float64  `json:"base"`
	Value float64  `json:"value"`
	Delta float64  `json:"delta"` // Value − Base
	Rel   *float64 `json:"rel"`   // Delta / Base; null when Base is 0
	// HalfWidth is the half-width of the difference's interval, √(h₁² + h₂²) with h
	// the half-widths of the two values (0 for an exact count), when both are known.
	HalfWidth *float64 `json:"halfwidth,omitempty"`
	// Significant reports |Delta| > HalfWidth (for exact values, Delta ≠ 0); false
	// when HalfWidth is unknown. Colour marks significant differences, and every
	// difference when HalfWidth is unknown.
	Significant bool   `json:"significant"`
	Color       string `json:"color"`
}

// A Move is one row of the table of the blocks that moved most.
type Move struct {
	Ref   string `json:"ref"`
	Func  string `json:"function"`
	Label string `json:"label"`
	Line  int    `json:"line"`
	Diff
}

// SharesFunction tells whether p and base hold a function of the same name and
// source file: results of one program do, whatever changed between them.
func (p *Page) SharesFunction(base *Page) bool {
	type key struct{ name, file string }
	in := map[key]bool{}
	for _, f := range base.Funcs {
		in[key{f.Name, f.File}] = true
	}
	for _, f := range p.Funcs {
		if in[key{f.Name, f.File}] {
			return true
		}
	}
	return false
}

// CompareWith compares p, read from file, with base, read from baseFile (Compare,
// base titled by its file's name), when they are results of one program
// (SharesFunction); else it changes nothing and says so, naming the two files.
func (p *Page) CompareWith(base *Page, baseFile, file string) error {
	if !p.SharesFunction(base) {
		return fmt.Errorf("--base %s is a result of another program than %s: they share no function; compare two results of the same program", baseFile, file)
	}
	p.Compare(base, baseFile)
	return nil
}

// Compare adds base's values to p: a Diff on every block of the functions that both
// have with the same CFG (same blocks and edges), and the table of moves. Count
// pages are compared per run. title names the base in the page.
func (p *Page) Compare(base *Page, title string) {
	if title == "" {
		title = base.Title
	}
	b := &Base{Title: title, Kind: base.Kind, Missing: []string{}, Moves: []Move{}}
	for _, r := range []float64{-1, -0.25, 0, 0.25, 1} {
		b.Legend = append(b.Legend, Stop{Heat: math.Copysign(math.Sqrt(math.Abs(r)), r), Value: r, Color: diffColor(r)})
	}
	type key struct{ name, file string }
	index := map[key]*Func{}
	for _, f := range base.Funcs {
		index[key{f.Name, f.File}] = f
	}
	used := map[key]bool{}
	var moves []Move
	for _, f := range p.Funcs {
		k := key{f.Name, f.File}
		bf := index[k]
		used[k] = true
		switch {
		case bf == nil:
			f.Compare = "not in base"
			continue
		case !sameGraph(f, bf):
			f.Compare = "CFG differs"
			continue
		}
		f.Compare = "both"
		for i, blk := range f.Blocks {
			d := diff(p, blk, base, bf.Blocks[i])
			if d == nil {
				continue
			}
			blk.Diff = d
			if d.Delta != 0 {
				line := 0
				if len(blk.Lines) > 0 {
					line = blk.Lines[0]
				}
				if _, l, ok := splitPos(blk.Start); ok {
					line = l
				}
				moves = append(moves, Move{Ref: blk.Ref, Func: f.Name, Label: blk.Label, Line: line, Diff: *d})
			}
		}
	}
	for _, f := range base.Funcs {
		if !used[key{f.Name, f.File}] {
			b.Missing = append(b.Missing, f.Name)
		}
	}
	sort.SliceStable(moves, func(i, j int) bool {
		return math.Abs(moves[i].Delta) > math.Abs(moves[j].Delta)
	})
	if len(moves) > MaxMoves {
		moves = moves[:MaxMoves]
	}
	b.Moves = append(b.Moves, moves...)
	p.Base = b
	p.fact("base", title)
}

// sameGraph reports whether two functions have the same blocks and edges.
func sameGraph(a, b *Func) bool {
	if len(a.Blocks) != len(b.Blocks) || len(a.Edges) != len(b.Edges) {
		return false
	}
	for i, e := range a.Edges {
		o := b.Edges[i]
		if e.From != o.From || e.To != o.To || e.Kind != o.Kind || e.Case != o.Case {
			return false
		}
	}
	return true
}

// perRun returns a block's value per run and the half-width of that value: 0 for an
// exact count, nil when unknown.
func perRun(p *Page, b *Block) (float64, *float64, bool) {
	if b.Value == nil {
		return 0, nil, false
	}
	v := *b.Value
	switch p.Kind {
	case KindCount:
		zero := 0.0
		return v / float64(max(p.Runs, 1)), &zero, true
	case KindFreq:
		if b.State == "constant" {
			zero := 0.0
			return v, &zero, true
		}
		return v, b.HalfWidth, true
	}
	return v, nil, true
}

func diff(p *Page, b *Block, base *Page, bb *Block) *Diff {
	v, hv, ok1 := perRun(p, b)
	w, hw, ok2 := perRun(base, bb)
	if !ok1 || !ok2 {
		return nil
	}
	d := &Diff{Base: round4(w), Value: round4(v), Delta: round4(v - w)}
	if w != 0 {
		r := round4((v - w) / w)
		d.Rel = &r
	}
	if hv != nil && hw != nil {
		h := round4(math.Hypot(*hv, *hw))
		d.HalfWidth = &h
		d.Significant = math.Abs(v-w) > h
	}
	switch {
	case v == w, d.HalfWidth != nil && !d.Significant:
		d.Color = sameColor
	default:
		d.Color = diffColor((v - w) / math.Max(math.Abs(v), math.Abs(w)))
	}
	return d
}

// String prints a difference for people: "+1.2 (+15%)".
func (d *Diff) String() string {
	s := fmt.Sprintf("%+g", round4(d.Delta))
	if d.Rel != nil {
		s += fmt.Sprintf(" (%+.3g%%)", 100**d.Rel)
	}
	return s
}
