// This file builds the execution journal: the traces replayed over the transition
// graph with the activation counters of every node (the metalayer article's internal state
// variables), giving, for every transition, the state where it started (inputs,
// recorded variables, counters), its time, and the values recorded where it ended.

package graph

import (
	"fmt"
	"math"

	"github.com/fragprof/fragprof/internal/trace"
)

// FeatureKind says what a feature of the state is.
type FeatureKind uint8

// The kinds of features.
const (
	InputFeature   FeatureKind = iota // an input of the run, drawn by fragprof trace: "$K"
	VarFeature                        // the last recorded value of a variable: "err"
	CounterFeature                    // the activation counter of a node: "#inner"
)

var featureKindNames = [...]string{"input", "variable", "counter"}

func (k FeatureKind) String() string { return featureKindNames[k] }

// A Space names the features of the state, laid out as inputs, then variables, then
// one counter per node.
type Space struct {
	Inputs []string
	Vars   []string
	Nodes  []string
}

// Len returns the number of features.
func (s *Space) Len() int { return len(s.Inputs) + len(s.Vars) + len(s.Nodes) }

// VarIndex returns the feature index of variable k.
func (s *Space) VarIndex(k int) int { return len(s.Inputs) + k }

// CounterIndex returns the feature index of node n's counter.
func (s *Space) CounterIndex(n int) int { return len(s.Inputs) + len(s.Vars) + n }

// Kind returns the kind of feature i.
func (s *Space) Kind(i int) FeatureKind {
	switch {
	case i < len(s.Inputs):
		return InputFeature
	case i < len(s.Inputs)+len(s.Vars):
		return VarFeature
	}
	return CounterFeature
}

// Name returns how rules and formulas print feature i: "$K" for an input, the
// variable's own name, "#node" for a counter.
func (s *Space) Name(i int) string {
	switch s.Kind(i) {
	case InputFeature:
		return "$" + s.Inputs[i]
	case VarFeature:
		return s.Vars[i-len(s.Inputs)]
	}
	return "#" + s.Nodes[i-len(s.Inputs)-len(s.Vars)]
}

// Index returns the feature a printed name refers to.
func (s *Space) Index(name string) (int, bool) {
	for i := 0; i < s.Len(); i++ {
		if s.Name(i) == name {
			return i, true
		}
	}
	return 0, false
}

// A Journal is the execution journal of a set of traces.
type Journal struct {
	Space *Space
	Graph *Graph
	// Rows[n] are the transitions out of node n (none for END).
	Rows []*Rows
	// Episodes[n] are the visits of a loop header n that has an arc to itself: each
	// a run of consecutive activations entered from outside; nil for other nodes.
	Episodes []*Episodes
	Runs     []RunSummary
	// Group[r] is the input point of run r: runs of one trial repeated (fragprof
	// trace --repeat) share it, every other run has its own. Cross-validation folds
	// keep a point's runs together, so that a formula is never checked on a
	// repetition of an input it was fitted on.
	Group []int32
	// Boundary reports whether rows were sampled (some arc had more than MaxRows).
	Sampled bool
}

// Rows holds the transitions out of one node, as columns.
//
// A hot arc's transitions are sampled: every s-th (Weight s, an unbiased sample
// standing for s transitions) plus every transition whose arc differs from that of
// the previous or the next visit of the node in the same run (Weight 0 unless also
// sampled). The latter keep the places where control changes — the last iteration
// of a loop — which the rules need and a plain sample would mostly miss.
type Rows struct {
	Arc    []int32   // arc ID
	Dt     []float64 // ns from this checkpoint to the next
	Run    []int32   // index of the trace in Journal.Runs
	Weight []float64
	// Boundary marks the rows whose arc differs from the previous or the next
	// visit's.
	Boundary []bool
	X        [][]float64 // X[f][r]: feature f of the state at the node
	Next     [][]float64 // Next[v][r]: variable v as recorded at the target, NaN if not recorded there
}

// Len returns the number of rows.
func (r *Rows) Len() int { return len(r.Arc) }

// Episodes holds the loop episodes of one header.
type Episodes struct {
	X      [][]float64 // X[f][e]: the state at the episode's first activation
	T      []float64   // its number of activations (trip count)
	Run    []int32
	Weight []float64
}

// Len returns the number of episodes.
func (e *Episodes) Len() int { return len(e.T) }

// A RunSummary is what one trace says about its run as a whole.
type RunSummary struct {
	Name   string
	Trial  uint64
	Inputs []float64 // by Space.Inputs; NaN when the trace lacks one
	TimeNs float64   // first checkpoint to last
	Final  []float64 // the last recorded value of every variable (NaN if never)
	Events int64
	// OverheadNs is the runtime's estimate of one checkpoint's cost.
	OverheadNs float64
}

// JournalOptions bound the journal's size.
type JournalOptions struct {
	MaxRows     int // sampled rows per arc (0: 20000)
	MaxEpisodes int // sampled episodes per header (0: 20000)
}

// InputPoints numbers the input points of traces: a trace of repetition 0 (every
// trace not made with --repeat) starts a point; a later repetition of the same
// trial (same seed and trial number) joins its point, or starts one when the first
// is missing. point[i] is trace i's; points are numbered from 0 in order of first
// appearance.
func InputPoints(traces []*trace.Trace) []int {
	type key struct{ seed, trial uint64 }
	first := map[key]int{}
	point := make([]int, len(traces))
	n := 0
	for i, t := range traces {
		k := key{t.Header.Seed, t.Header.Trial}
		if p, ok := first[k]; ok && t.Header.Rep > 0 {
			point[i] = p
			continue
		}
		point[i] = n
		if _, ok := first[k]; !ok || t.Header.Rep == 0 {
			first[k] = n
		}
		n++
	}
	return point
}

// NewSpace returns the feature space of traces over g: the numeric inputs in the
// order of the first trace's header, the variables in node order, the nodes. Inputs
// that a trace's header names as drawn anew in each repetition (Header.Vary: the
// seed of random data) are not features: the model predicts its expectation over
// them.
func NewSpace(g *Graph, traces []*trace.Trace) *Space {
	s := &Space{}
	vary := map[string]bool{}
	for _, t := range traces {
		for _, v := range t.Header.Vary {
			vary[v] = true
		}
	}
	for _, t := range traces {
		for _, in := range t.Header.Inputs {
			if !vary[in.Name] && !contains(s.Inputs, in.Name) {
				s.Inputs = append(s.Inputs, in.Name)
			}
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Vars {
			if !contains(s.Vars, v) {
				s.Vars = append(s.Vars, v)
			}
		}
		s.Nodes = append(s.Nodes, n.Name)
	}
	return s
}

// BuildJournal replays traces over g.
func BuildJournal(g *Graph, traces []*trace.Trace, opt JournalOptions) (*Journal, error) {
	if opt.MaxRows <= 0 {
		opt.MaxRows = 20000
	}
	if opt.MaxEpisodes <= 0 {
		opt.MaxEpisodes = 20000
	}
	sp := NewSpace(g, traces)
	F, V := sp.Len(), len(sp.Vars)
	groups := InputPoints(traces)
	j := &Journal{Space: sp, Graph: g, Rows: make([]*Rows, len(g.Nodes)), Episodes: make([]*Episodes, len(g.Nodes))}
	for _, n := range g.Nodes {
		if n.ID == End {
			continue
		}
		j.Rows[n.ID] = &Rows{X: make([][]float64, F), Next: make([][]float64, V)}
		if n.Header {
			for _, a := range n.Out {
				if a.Self() {
					j.Episodes[n.ID] = &Episodes{X: make([][]float64, F)}
				}
			}
		}
	}
	// Sampling strides.
	stride := make([]int64, len(g.Arcs))
	for _, a := range g.Arcs {
		stride[a.ID] = 1
		if a.Count > int64(opt.MaxRows) {
			stride[a.ID] = (a.Count + int64(opt.MaxRows) - 1) / int64(opt.MaxRows)
			j.Sampled = true
		}
	}
	epStride := make([]int64, len(g.Nodes))
	for _, n := range g.Nodes {
		var entries int64
		for _, a := range n.In {
			if !a.Self() {
				entries += a.Count
			}
		}
		epStride[n.ID] = max(1, (entries+int64(opt.MaxEpisodes)-1)/int64(opt.MaxEpisodes))
	}
	seen := make([]int64, len(g.Arcs))    // transitions so far per arc
	epSeen := make([]int64, len(g.Nodes)) // episodes so far per node
	arcOf := map[[2]int]*Arc{}
	for _, a := range g.Arcs {
		arcOf[[2]int{a.From.ID, a.To.ID}] = a
	}
	nodeOf := map[string]int{}
	for _, n := range g.Nodes {
		nodeOf[n.Name] = n.ID
	}
	varOf := map[string]int{}
	for k, v := range sp.Vars {
		varOf[v] = k
	}
	type pendingRow struct {
		ok       bool
		arc      int
		dt       float64
		x        []float64
		next     []float64
		boundary bool // the arc differs from the previous visit's
		stride   bool
	}
	pending := make([]pendingRow, len(g.Nodes))
	for i := range pending {
		pending[i].x = make([]float64, F)
		pending[i].next = make([]float64, V)
	}
	commit := func(n, run int, p *pendingRow, nextArc int) {
		if !p.ok {
			return
		}
		boundary := p.boundary || p.arc != nextArc
		if !p.stride && !boundary {
			return
		}
		r := j.Rows[n]
		r.Arc = append(r.Arc, int32(p.arc))
		r.Dt = append(r.Dt, p.dt)
		r.Run = append(r.Run, int32(run))
		w := 0.0
		if p.stride {
			w = float64(stride[p.arc])
		}
		r.Weight = append(r.Weight, w)
		r.Boundary = append(r.Boundary, boundary)
		for f := range r.X {
			r.X[f] = append(r.X[f], p.x[f])
		}
		for v := range r.Next {
			r.Next[v] = append(r.Next[v], p.next[v])
		}
	}
	state := make([]float64, F)
	type episode struct {
		on    bool
		keep  bool
		x     []float64
		count float64
	}
	eps := make([]episode, len(g.Nodes))
	for i := range eps {
		eps[i].x = make([]float64, F)
	}
	for ti, t := range traces {
		th := t.Main()
		if th == nil || th.Len() == 0 {
			continue
		}
		run := len(j.Runs)
		rs := RunSummary{Name: t.Name, Trial: t.Header.Trial, Inputs: make([]float64, len(sp.Inputs)),
			Final: make([]float64, V), Events: int64(th.Len()), OverheadNs: t.OverheadNs}
		for k := range rs.Inputs {
			v, ok := t.Input(sp.Inputs[k])
			if !ok {
				v = math.NaN()
			}
			rs.Inputs[k] = v
		}
		for k := range rs.Final {
			rs.Final[k] = math.NaN()
		}
		// The sites' nodes and variable slots.
		siteNode := make([]int, len(t.Sites))
		siteVars := make([][]int, len(t.Sites))
		for i, s := range t.Sites {
			siteNode[i] = nodeOf[s.Name]
			for _, v := range s.Vars {
				siteVars[i] = append(siteVars[i], varOf[v.Name])
			}
		}
		for f := range state {
			state[f] = 0
		}
		copy(state, rs.Inputs)
		for i := range pending {
			pending[i].ok = false
		}
		for i := range eps {
			eps[i].on = false
		}
		state[sp.CounterIndex(Start)] = 1
		cur := Start
		tcur := float64(th.Time[0])
		for k := 0; k <= th.Len(); k++ {
			var nxt int
			var tnext float64
			var vals []float64
			var slots []int
			if k < th.Len() {
				s := th.Site[k]
				nxt = siteNode[s]
				tnext = float64(th.Time[k])
				vals = th.Values(k)
				slots = siteVars[s]
			} else {
				nxt = End
				tnext = float64(th.Time[th.Len()-1])
			}
			a := arcOf[[2]int{cur, nxt}]
			if a == nil {
				return nil, fmt.Errorf("predict: %s: transition %s → %s not in the graph", t.Name, g.Nodes[cur].Name, g.Nodes[nxt].Name)
			}
			// The row of this transition, pending until the node's next visit.
			p := &pending[cur]
			commit(cur, run, p, a.ID)
			prevArc := -1
			if p.ok {
				prevArc = p.arc
			}
			p.ok = true
			p.arc = a.ID
			p.dt = tnext - tcur
			copy(p.x, state)
			for v := range p.next {
				p.next[v] = math.NaN()
			}
			for i, slot := range slots {
				p.next[slot] = vals[i]
			}
			p.boundary = prevArc != a.ID
			p.stride = seen[a.ID]%stride[a.ID] == 0
			seen[a.ID]++
			// Episodes of the loop being left.
			if e := &eps[cur]; e.on && !a.Self() {
				if e.keep {
					ep := j.Episodes[cur]
					for f := range ep.X {
						ep.X[f] = append(ep.X[f], e.x[f])
					}
					ep.T = append(ep.T, e.count)
					ep.Run = append(ep.Run, int32(run))
					ep.Weight = append(ep.Weight, float64(epStride[cur]))
				}
				e.on = false
			}
			// The new state.
			ci := sp.CounterIndex(nxt)
			if a.Resets {
				state[ci] = 0
			}
			state[ci]++
			for i, slot := range slots {
				state[sp.VarIndex(slot)] = vals[i]
				rs.Final[slot] = vals[i]
			}
			if j.Episodes[nxt] != nil {
				e := &eps[nxt]
				if !a.Self() {
					e.on = true
					e.count = 0
					e.keep = epSeen[nxt]%epStride[nxt] == 0
					epSeen[nxt]++
					copy(e.x, state)
				}
				e.count++
			}
			cur, tcur = nxt, tnext
		}
		for n := range pending {
			commit(n, run, &pending[n], -1)
		}
		rs.TimeNs = float64(th.Span())
		j.Runs = append(j.Runs, rs)
		j.Group = append(j.Group, int32(groups[ti]))
	}
	return j, nil
}

// column returns feature f of the rows of node n selected by keep.
func (r *Rows) column(f int, keep []int) []float64 {
	out := make([]float64, len(keep))
	for i, k := range keep {
		out[i] = r.X[f][k]
	}
	return out
}
