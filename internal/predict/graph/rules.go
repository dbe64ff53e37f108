// This file learns the transition rules of a node from the journal: which arc is
// taken from a state. It follows the metalayer article's Kora-style search (docs/methods.md): pick
// the variable with the largest discriminativity d = α·P + β·|D| — P the journal
// rows of an arc whose values of the variable occur on no other arc, D those
// distinct values — cover D with template predicates (intervals and thresholds,
// single values, arithmetic and geometric progressions, disjunctions of these),
// drop the rows covered, and repeat; when nothing discriminates, fall back to a
// probabilistic residual rule from the observed counts.
//
// Two things differ from the paper, both for rules that generalise to new inputs.
// The conditions form an ordered decision list (evaluated first to last, the rest
// "otherwise"), so a later condition need only separate the rows earlier ones left.
// And a condition must survive validation: conditions are learnt on four runs in
// five and checked on the fifth; one that fires wrongly there (a chance
// regularity of random data) is banned and the search redone. Before the
// probabilistic residual, a loop header's trip count is tried as a regression on
// the state where the loop starts (a "trip rule"), which keeps a data-dependent loop's
// expected length as a function of the inputs (insertion sort's inner loop: ≈ i/2).

package graph

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/predict/regress"
	"github.com/fragprof/fragprof/internal/stats"
)

// RuleOptions tune the rule search.
type RuleOptions struct {
	Alpha, Beta float64 // weights of rows and of distinct values in d (β > α, the article's advice): 1, 2
	MinSupport  int     // rows a predicate must cover (2)
	MaxPieces   int     // predicates in one condition's disjunction (4)
	MaxConds    int     // conditions per node (16)
	// MaxWrong is the share of a condition's firings on the validation runs that may
	// go to another arc, and the share of another arc's validation rows it may take,
	// before it is banned (0.05).
	MaxWrong float64
	// MinTripR2 is the cross-validated R² a trip-count regression needs to be used
	// instead of the probabilistic residual (0.05: any real dependence on the state).
	MinTripR2 float64
	MaxRows   int // rows of a node used by the search (30000), sampled evenly beyond
}

// DefaultRuleOptions are the defaults of model build.
var DefaultRuleOptions = RuleOptions{Alpha: 1, Beta: 2, MinSupport: 2, MaxPieces: 4, MaxConds: 16,
	MaxWrong: 0.05, MinTripR2: 0.05, MaxRows: 30000}

// An Expr is a feature of the state, the difference of two, A − B, or with Ratio
// their quotient A / B: a loop that doubles w until it reaches n continues while
// w / $n < 0.5 at its header, which no difference w − $n separates over several n.
type Expr struct {
	A     string `json:"a"`
	B     string `json:"b,omitempty"`
	Ratio bool   `json:"ratio,omitempty"`

	ai, bi int
}

func (e Expr) String() string {
	switch {
	case e.B == "":
		return e.A
	case e.Ratio:
		return e.A + " / " + e.B
	}
	return e.A + " − " + e.B
}

// Compile resolves the expression's features in sp.
func (e *Expr) Compile(sp *Space) error {
	var ok bool
	if e.ai, ok = sp.Index(e.A); !ok {
		return fmt.Errorf("rule uses %q, which the model does not define", e.A)
	}
	e.bi = -1
	if e.B != "" {
		if e.bi, ok = sp.Index(e.B); !ok {
			return fmt.Errorf("rule uses %q, which the model does not define", e.B)
		}
	}
	return nil
}

// Features returns the positions of A and B in the state (after Compile); b is −1
// when the expression has no B.
func (e *Expr) Features() (a, b int) { return e.ai, e.bi }

func (e *Expr) eval(state []float64) float64 {
	switch {
	case e.bi < 0:
		return state[e.ai]
	case e.Ratio:
		return state[e.ai] / state[e.bi] // B = 0: ±Inf or NaN, which no bound holds
	}
	return state[e.ai] - state[e.bi]
}

// PieceKind is the kind of a template predicate.
type PieceKind uint8

// The template predicates.
const (
	Interval PieceKind = iota // Lo ≤ x ≤ Hi, either end open-ended: a threshold or a range
	Equal                     // x = Value
	Arith                     // x ≡ Value (mod Step): a member of an arithmetic progression
	Geom                      // x = Value·Step^k for an integer k: of a geometric progression
)

var pieceKindNames = [...]string{"interval", "equal", "arith", "geom"}

func (k PieceKind) String() string { return pieceKindNames[k] }

// MarshalText writes the kind's name.
func (k PieceKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *PieceKind) UnmarshalText(b []byte) error {
	for i, n := range pieceKindNames {
		if n == string(b) {
			*k = PieceKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown predicate kind %q", b)
}

// A Piece is one template predicate.
type Piece struct {
	Kind    PieceKind `json:"kind"`
	Lo      *float64  `json:"lo,omitempty"` // Interval: nil is −∞
	Hi      *float64  `json:"hi,omitempty"` // Interval: nil is +∞
	Value   float64   `json:"value,omitempty"`
	Step    float64   `json:"step,omitempty"`
	Support int       `json:"support"` // journal rows it covered when learnt
}

func (p *Piece) match(x float64) bool {
	switch p.Kind {
	case Interval:
		return (p.Lo == nil || x >= *p.Lo) && (p.Hi == nil || x <= *p.Hi)
	case Equal:
		return x == p.Value
	case Arith:
		if x != math.Trunc(x) {
			return false
		}
		return math.Mod(math.Mod(x-p.Value, p.Step)+p.Step, p.Step) == 0
	case Geom:
		if x == 0 || (x > 0) != (p.Value > 0) {
			return false
		}
		k := math.Log(x/p.Value) / math.Log(p.Step)
		return math.Abs(k-math.Round(k)) < 1e-9
	}
	return false
}

// A Cond sends control along Arc when Expr satisfies one of its pieces.
type Cond struct {
	Arc     int     `json:"arc"`
	Expr    Expr    `json:"expr"`
	Pieces  []Piece `json:"pieces"`
	Integer bool    `json:"integer,omitempty"` // Expr took only whole values (for printing)
}

// Match reports whether the condition holds in state (after Compile).
func (c *Cond) Match(state []float64) bool {
	x := c.Expr.eval(state)
	for i := range c.Pieces {
		if c.Pieces[i].match(x) {
			return true
		}
	}
	return false
}

// A Share is an arc's probability in a probabilistic choice, from the journal's
// counts (M_fs in the metalayer article).
type Share struct {
	Arc   int     `json:"arc"`
	P     float64 `json:"p"`
	Count float64 `json:"count"`
}

// A Trip is a loop header's trip rule: on entering the loop from outside, the number
// of activations T = Count(state) is computed; control stays on the self arc while
// the header's counter is below T, then leaves by the first of Conds that holds,
// else by Exit (one arc, or several at random).
type Trip struct {
	Arc   int              `json:"arc"`
	Count *regress.Formula `json:"count"`
	Conds []Cond           `json:"exit_conds,omitempty"`
	Exit  []Share          `json:"exit"`
}

// A Rule is a node's decision list: the first condition that holds picks the arc;
// then the trip rule, if any; then the residual — one arc ("otherwise") or several
// chosen at random with their shares.
type Rule struct {
	Node     int     `json:"node"`
	Conds    []Cond  `json:"conds,omitempty"`
	Trip     *Trip   `json:"trip,omitempty"`
	Residual []Share `json:"residual,omitempty"`
}

// Probabilistic reports whether the rule may choose at random.
func (r *Rule) Probabilistic() bool {
	if r.Trip != nil {
		return len(r.Trip.Exit) > 1
	}
	return len(r.Residual) > 1
}

// ---- the search ------------------------------------------------------------------

// ruleSearch holds one node's rows and candidate expressions.
type ruleSearch struct {
	j     *Journal
	opt   RuleOptions
	sp    *Space
	node  *Node
	rows  []int   // journal row indices used
	arc   []int   // local arc index of each used row
	run   []int32 // run of each used row
	arcs  []*Arc  // the node's out-arcs; local index = position
	exprs []Expr
	cols  [][]float64 // per expr, values over used rows
	perm  [][]int32   // per expr, used rows sorted by value
	ints  []bool      // per expr, whole values only
	// multiRun is set when the rows come from several runs: a predicate must then
	// hold rows of at least two, or it describes one run, not the program.
	multiRun bool
	share    []float64 // per arc: its share of the rows in use
}

type banKey struct {
	arc  int
	expr int
}

// LearnRule learns node n's rule from the journal.
func LearnRule(j *Journal, n *Node, opt RuleOptions, fit regress.FitOptions) Rule {
	rule := Rule{Node: n.ID}
	if len(n.Out) == 0 {
		return rule
	}
	if len(n.Out) == 1 {
		rule.Residual = []Share{{Arc: n.Out[0].ID, P: 1, Count: float64(n.Out[0].Count)}}
		return rule
	}
	s := newRuleSearch(j, n, opt)
	all := make([]bool, len(s.rows))
	for i := range all {
		all[i] = true
	}
	conds, remaining := s.learn(all)
	rule.Conds, rule.Residual = s.residual(conds, remaining, -1)
	if len(rule.Residual) < 2 {
		return rule
	}
	// A loop whose continuation no variable decides: its trip count as a regression,
	// and a decision list of its own for the way out.
	self := -1
	for k, a := range s.arcs {
		if a.Self() {
			self = k
		}
	}
	selfLeft := false
	for _, sh := range rule.Residual {
		selfLeft = selfLeft || sh.Arc == s.arcs[max(self, 0)].ID && self >= 0
	}
	if !selfLeft || j.Episodes[n.ID] == nil || j.Episodes[n.ID].Len() < 4 {
		return rule
	}
	f, ok := fitTrip(j, n, fit, opt)
	if !ok {
		return rule
	}
	exits := make([]bool, len(s.rows))
	for i := range exits {
		exits[i] = remaining[i] && s.arc[i] != self
	}
	exitConds, exitLeft := s.learn(exits)
	ec, shares := s.residual(exitConds, exitLeft, self)
	rule.Trip = &Trip{Arc: s.arcs[self].ID, Count: f, Conds: ec, Exit: shares}
	rule.Residual = nil
	return rule
}

// learn runs the search on the rows in mask, with validation: conditions are learnt
// on four runs in five and checked on the fifth; a condition that fires wrongly
// there is banned and the search redone (up to 4 times). The final search uses
// every row of mask, with the bans. It returns the conditions and the rows left.
func (s *ruleSearch) learn(mask []bool) ([]Cond, []bool) {
	runs := map[int32]int{}
	for i, r := range s.run {
		if _, ok := runs[r]; !ok && mask[i] {
			runs[r] = len(runs)
		}
	}
	banned := map[banKey]bool{}
	if len(runs) >= 5 {
		train := make([]bool, len(s.rows))
		valid := make([]bool, len(s.rows))
		for i, r := range s.run {
			train[i] = mask[i] && runs[r]%5 != 4
			valid[i] = mask[i] && runs[r]%5 == 4
		}
		// Validation rows per arc, to judge a condition by the share of another
		// arc's rows it takes as well as by its own precision: a condition of a
		// frequent arc that takes the rare exits of a loop is wrong only once per
		// run, but wrong every time that matters.
		perArc := make([]int, len(s.arcs))
		for i := range s.rows {
			if valid[i] {
				perArc[s.arc[i]]++
			}
		}
		for round := 0; round < 4; round++ {
			conds, _ := s.induce(train, banned)
			bad := false
			taken := make([]bool, len(s.rows))
			for _, c := range conds {
				fired, wrong := 0, 0
				stolen := make([]int, len(s.arcs))
				ei := s.exprIndex(c.Expr)
				for i := range s.rows {
					if !valid[i] || taken[i] || !matchPieces(c.Pieces, s.cols[ei][i]) {
						continue
					}
					taken[i] = true
					fired++
					if s.arcs[s.arc[i]].ID != c.Arc {
						wrong++
						stolen[s.arc[i]]++
					}
				}
				// A single wrong row is forgiven: a threshold learnt on four fifths of
				// the runs may fall a hair short of the fifth's boundary value.
				steals := false
				for a, n := range stolen {
					if n > 1 && float64(n) > s.opt.MaxWrong*float64(perArc[a]) {
						steals = true
					}
				}
				if wrong > 1 && float64(wrong) > s.opt.MaxWrong*float64(fired) || steals {
					banned[banKey{s.localArc(c.Arc), ei}] = true
					bad = true
				}
			}
			if !bad {
				break
			}
		}
	}
	return s.induce(mask, banned)
}

// residual turns what the conditions leave into the rule's residual: one arc (the
// default, "otherwise"), or the shares of the arcs left. When the conditions cover
// every row, the last condition's arc becomes the default. Arc exclude (a local
// index, or -1) is never the default.
func (s *ruleSearch) residual(conds []Cond, remaining []bool, exclude int) ([]Cond, []Share) {
	r := s.j.Rows[s.node.ID]
	weight := make([]float64, len(s.arcs))
	count := make([]float64, len(s.arcs))
	for i, ri := range s.rows {
		if remaining[i] {
			weight[s.arc[i]] += r.Weight[ri]
			count[s.arc[i]]++
		}
	}
	var left []int
	for k := range s.arcs {
		if count[k] > 0 {
			left = append(left, k)
		}
	}
	switch {
	case len(left) == 0 && len(conds) > 0:
		last := conds[len(conds)-1]
		return conds[:len(conds)-1], []Share{{Arc: last.Arc, P: 1, Count: float64(s.arcs[s.localArc(last.Arc)].Count)}}
	case len(left) == 0:
		for k, a := range s.arcs {
			if k != exclude {
				return conds, []Share{{Arc: a.ID, P: 1}}
			}
		}
	case len(left) == 1:
		return conds, []Share{{Arc: s.arcs[left[0]].ID, P: 1, Count: count[left[0]]}}
	}
	// Shares of the journal's unbiased sample (weights: a sampled row stands for
	// its stride); plain counts when only boundary rows are left.
	var tot float64
	w := make([]float64, len(left))
	for i, k := range left {
		w[i] = weight[k]
		tot += w[i]
	}
	if tot == 0 {
		for i, k := range left {
			w[i] = count[k]
			tot += w[i]
		}
	}
	var out []Share
	for i, k := range left {
		out = append(out, Share{Arc: s.arcs[k].ID, P: w[i] / tot, Count: w[i]})
	}
	return conds, out
}

// fitTrip fits the trip count of n's loop on the state where it starts, and accepts
// it when its cross-validated R² reaches MinTripR2.
func fitTrip(j *Journal, n *Node, fit regress.FitOptions, opt RuleOptions) (*regress.Formula, bool) {
	ep := j.Episodes[n.ID]
	p := &regress.Problem{Y: ep.T, Run: make([]int32, len(ep.Run)), Nonneg: true}
	for i, r := range ep.Run {
		p.Run[i] = j.Group[r] // folds keep an input point's repetitions together
	}
	for f := 0; f < j.Space.Len(); f++ {
		if f == j.Space.CounterIndex(n.ID) {
			continue // 1 at the start of every episode
		}
		p.Cols = append(p.Cols, ep.X[f])
		p.Names = append(p.Names, j.Space.Name(f))
	}
	fit.Family = regress.PolyFamily
	f := regress.FitFormula(p, fit, true)
	if f.Kind != regress.Poly && f.Kind != regress.GMDH {
		return &f, true // exact: constant, a copy or a shift of a feature
	}
	_, sd := stats.MeanSD(ep.T)
	if sd == 0 {
		return nil, false
	}
	r2 := 1 - (f.Fit.CVRMSE*f.Fit.CVRMSE)/(sd*sd)
	return &f, r2 >= opt.MinTripR2
}

func newRuleSearch(j *Journal, n *Node, opt RuleOptions) *ruleSearch {
	r := j.Rows[n.ID]
	s := &ruleSearch{j: j, opt: opt, sp: j.Space, node: n, arcs: n.Out}
	total := r.Len()
	if total > opt.MaxRows {
		// Keep every row whose arc is not the node's most frequent one (the rare
		// exits) and every boundary row (where the arc changes), and an even sample
		// of the rest.
		freq := map[int32]int{}
		for _, a := range r.Arc {
			freq[a]++
		}
		var top int32
		for a, c := range freq {
			if c > freq[top] || (c == freq[top] && a < top) {
				top = a
			}
		}
		rest := total - freq[top]
		budget := max(opt.MaxRows-rest, opt.MaxRows/4)
		k := 0
		for i := 0; i < total; i++ {
			if r.Arc[i] != top || r.Boundary[i] {
				s.rows = append(s.rows, i)
				continue
			}
			if int64(k)*int64(budget)/int64(freq[top]) != int64(k+1)*int64(budget)/int64(freq[top]) {
				s.rows = append(s.rows, i)
			}
			k++
		}
	} else {
		for i := 0; i < total; i++ {
			s.rows = append(s.rows, i)
		}
	}
	local := map[int]int{}
	for k, a := range n.Out {
		local[a.ID] = k
	}
	for _, i := range s.rows {
		s.arc = append(s.arc, local[int(r.Arc[i])])
		s.run = append(s.run, r.Run[i])
		s.multiRun = s.multiRun || r.Run[i] != r.Run[s.rows[0]]
	}
	// Candidate expressions: the features that vary, the node's own counter minus
	// each input and variable, and the differences of inputs and variables.
	sp := j.Space
	varies := func(f int) bool {
		col := r.X[f]
		for _, i := range s.rows {
			if col[i] != col[s.rows[0]] {
				return true
			}
		}
		return false
	}
	var base, numeric []int
	for f := 0; f < sp.Len(); f++ {
		if varies(f) {
			base = append(base, f)
			if sp.Kind(f) != CounterFeature {
				numeric = append(numeric, f)
			}
		}
	}
	add := func(e Expr, col []float64) {
		s.exprs = append(s.exprs, e)
		s.cols = append(s.cols, col)
	}
	for _, f := range base {
		add(Expr{A: sp.Name(f)}, r.column(f, s.rows))
	}
	// Counters minus inputs and variables: "#step − $N" (the node's own loop),
	// "#L − $n" (an enclosing loop's).
	for c := 0; c < len(sp.Nodes); c++ {
		ci := sp.CounterIndex(c)
		if !varies(ci) {
			continue
		}
		for f := 0; f < sp.Len(); f++ {
			if sp.Kind(f) == CounterFeature {
				continue
			}
			col := make([]float64, len(s.rows))
			for i, ri := range s.rows {
				col[i] = r.X[ci][ri] - r.X[f][ri]
			}
			add(Expr{A: sp.Name(ci), B: sp.Name(f)}, col)
		}
	}
	const maxPairs = 200
	pairs := 0
	for a := 0; a < len(numeric) && pairs < maxPairs; a++ {
		for b := a + 1; b < len(numeric) && pairs < maxPairs; b++ {
			fa, fb := numeric[a], numeric[b]
			if sp.Kind(fa) == InputFeature && sp.Kind(fb) == InputFeature {
				continue // constant within a run: no loop can depend on it alone
			}
			col := make([]float64, len(s.rows))
			for i, ri := range s.rows {
				col[i] = r.X[fa][ri] - r.X[fb][ri]
			}
			// Order the difference so that a variable comes first: "j − i", "i − $n".
			if sp.Kind(fa) == InputFeature {
				for i := range col {
					col[i] = -col[i]
				}
				fa, fb = fb, fa
			}
			add(Expr{A: sp.Name(fa), B: sp.Name(fb)}, col)
			pairs++
			// And their ratio, when both are positive in every row.
			ratio := make([]float64, len(s.rows))
			for i, ri := range s.rows {
				if a, b := r.X[fa][ri], r.X[fb][ri]; a > 0 && b > 0 && !math.IsInf(a, 0) && !math.IsInf(b, 0) {
					ratio[i] = a / b
				} else {
					ratio = nil
					break
				}
			}
			if ratio != nil {
				add(Expr{A: sp.Name(fa), B: sp.Name(fb), Ratio: true}, ratio)
				pairs++
			}
		}
	}
	for _, col := range s.cols {
		p := make([]int32, len(col))
		for i := range p {
			p[i] = int32(i)
		}
		sort.SliceStable(p, func(x, y int) bool { return col[p[x]] < col[p[y]] })
		s.perm = append(s.perm, p)
		whole := true
		for _, v := range col {
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				whole = false
				break
			}
		}
		s.ints = append(s.ints, whole)
	}
	return s
}

func (s *ruleSearch) localArc(id int) int {
	for k, a := range s.arcs {
		if a.ID == id {
			return k
		}
	}
	return -1
}

func (s *ruleSearch) exprIndex(e Expr) int {
	for i, x := range s.exprs {
		if x.A == e.A && x.B == e.B && x.Ratio == e.Ratio {
			return i
		}
	}
	return -1
}

// group is a distinct value of an expression among the rows considered, with the
// rows of each arc that have it.
type group struct {
	v      float64
	counts []int32
	pure   int   // the only arc with rows here, or -1
	first  int   // index in perm of its first row
	run    int32 // the run of its first row
	multi  bool  // rows of several runs have it
}

// groups returns the distinct values of expression e over the rows in use.
func (s *ruleSearch) groups(e int, use []bool, buf []group, counts []int32) ([]group, []int32) {
	k := len(s.arcs)
	buf = buf[:0]
	counts = counts[:0]
	col := s.cols[e]
	for pi, ri := range s.perm[e] {
		if !use[ri] {
			continue
		}
		v := col[ri]
		if len(buf) == 0 || buf[len(buf)-1].v != v {
			start := len(counts)
			for x := 0; x < k; x++ {
				counts = append(counts, 0)
			}
			buf = append(buf, group{v: v, pure: -2, first: pi, counts: counts[start : start+k], run: s.run[ri]})
		}
		g := &buf[len(buf)-1]
		g.counts[s.arc[ri]]++
		if s.run[ri] != g.run {
			g.multi = true
		}
	}
	// counts may have moved while growing: re-slice.
	for i := range buf {
		buf[i].counts = counts[i*k : (i+1)*k]
		buf[i].pure = -1
		n := 0
		for a, c := range buf[i].counts {
			if c > 0 {
				n++
				buf[i].pure = a
			}
		}
		if n != 1 {
			buf[i].pure = -1
		}
	}
	return buf, counts
}

// induce runs the greedy search on the rows in use and returns the conditions and
// the rows no condition covers.
func (s *ruleSearch) induce(in []bool, banned map[banKey]bool) ([]Cond, []bool) {
	use := append([]bool(nil), in...)
	var conds []Cond
	var gbuf []group
	var cbuf []int32
	for len(conds) < s.opt.MaxConds {
		present := map[int]bool{}
		for i, u := range use {
			if u {
				present[s.arc[i]] = true
			}
		}
		if len(present) < 2 {
			break
		}
		s.share = make([]float64, len(s.arcs))
		tot := 0.0
		for i, u := range use {
			if u {
				s.share[s.arc[i]]++
				tot++
			}
		}
		for a := range s.share {
			s.share[a] /= tot
		}
		// Discriminativity of each expression for each arc, d = α·P + β·|D|, counted
		// on what its cover (the template predicates, at most MaxPieces of them)
		// actually holds: a continuous variable whose values are all distinct has
		// every value "pure" but needs a predicate per value, and generalises to
		// nothing; "#step < $N" holds every row of the arc in one threshold. |D|
		// counts the values seen at least twice: the article's distinct values are
		// evidence of a rule when they recur (in several runs), not when every
		// row brings a new one.
		bestD, bestE, bestA := 0.0, -1, -1
		var bestPieces []Piece
		for e := range s.exprs {
			gbuf, cbuf = s.groups(e, use, gbuf, cbuf)
			P := make([]float64, len(s.arcs))
			for _, g := range gbuf {
				if g.pure >= 0 {
					P[g.pure] += float64(g.counts[g.pure])
				}
			}
			for a := range s.arcs {
				if banned[banKey{a, e}] || P[a] < float64(s.opt.MinSupport) {
					continue
				}
				// An upper bound first: the cover holds at most P rows and D values.
				if s.opt.Alpha*P[a]+s.opt.Beta*P[a] <= bestD {
					continue
				}
				pieces := s.cover(gbuf, a, s.ints[e], s.exprs[e].Ratio)
				var pc, dc float64
				for _, g := range gbuf {
					if g.pure == a && matchPieces(pieces, g.v) {
						pc += float64(g.counts[a])
						if g.counts[a] >= 2 {
							dc++
						}
					}
				}
				if d := s.opt.Alpha*pc + s.opt.Beta*dc; d > bestD {
					bestD, bestE, bestA, bestPieces = d, e, a, pieces
				}
			}
		}
		if bestE < 0 {
			break
		}
		pieces := bestPieces
		if len(pieces) == 0 {
			banned[banKey{bestA, bestE}] = true
			continue
		}
		c := Cond{Arc: s.arcs[bestA].ID, Expr: s.exprs[bestE], Pieces: pieces, Integer: s.ints[bestE]}
		covered := 0
		for i := range use {
			if use[i] && s.arc[i] == bestA && matchPieces(pieces, s.cols[bestE][i]) {
				use[i] = false
				covered++
			}
		}
		if covered == 0 {
			banned[banKey{bestA, bestE}] = true
			continue
		}
		conds = append(conds, c)
	}
	return conds, use
}

func matchPieces(ps []Piece, x float64) bool {
	for i := range ps {
		if ps[i].match(x) {
			return true
		}
	}
	return false
}

// cover returns the template predicates that cover the values pure to arc a (seen
// only on a's rows) and none of the others: one interval per maximal run of such
// values in sorted order, its ends half-way to the neighbouring values (on a log
// scale when both are positive and an order of magnitude apart); a single bounded
// value as an equality; or, when the runs are many, one arithmetic or geometric
// progression that holds them all and no other value.
func (s *ruleSearch) cover(gs []group, a int, integer, ratio bool) []Piece {
	type run struct {
		lo, hi  int // group indices
		support int
		multi   bool // rows of several runs
	}
	var runs []run
	for i := 0; i < len(gs); i++ {
		if gs[i].pure != a {
			continue
		}
		r := run{lo: i}
		for i < len(gs) && gs[i].pure == a {
			r.support += int(gs[i].counts[a])
			r.multi = r.multi || gs[i].multi || gs[i].run != gs[r.lo].run
			i++
		}
		r.hi = i - 1
		runs = append(runs, r)
	}
	if len(runs) == 0 {
		return nil
	}
	mid := func(x, y float64) float64 {
		if ratio {
			if f, ok := simplestFraction(x, y, 16); ok {
				return f
			}
		}
		if !integer && x > 0 && y > 0 && y/x > 10 {
			return math.Sqrt(x * y)
		}
		if !integer && x < 0 && y < 0 && x/y > 10 {
			return -math.Sqrt(x * y)
		}
		return x + (y-x)/2
	}
	if len(runs) >= 2 && integer {
		var D, U []float64
		total := 0
		multi := false
		for _, g := range gs {
			if g.pure == a {
				D = append(D, g.v)
				total += int(g.counts[a])
				multi = multi || g.multi || g.run != gs[runs[0].lo].run
			} else {
				U = append(U, g.v)
			}
		}
		if p, ok := progression(D, U); ok && (multi || !s.multiRun) && s.significant(a, float64(total), len(gs)*len(s.exprs)) {
			p.Support = total
			return []Piece{p}
		}
	}
	var pieces []Piece
	for _, r := range runs {
		if r.support < s.opt.MinSupport || s.multiRun && !r.multi {
			continue // too little evidence, or evidence from one run only
		}
		if !s.significant(a, float64(r.support), len(gs)*len(s.exprs)) {
			continue
		}
		p := Piece{Kind: Interval, Support: r.support}
		if r.lo > 0 {
			lo := mid(gs[r.lo-1].v, gs[r.lo].v)
			p.Lo = &lo
		}
		if r.hi < len(gs)-1 {
			hi := mid(gs[r.hi].v, gs[r.hi+1].v)
			p.Hi = &hi
		}
		if r.lo == r.hi && p.Lo != nil && p.Hi != nil {
			p = Piece{Kind: Equal, Value: gs[r.lo].v, Support: r.support}
		}
		pieces = append(pieces, p)
	}
	sort.SliceStable(pieces, func(i, j int) bool { return pieces[i].Support > pieces[j].Support })
	if len(pieces) > s.opt.MaxPieces {
		pieces = pieces[:s.opt.MaxPieces]
	}
	return pieces
}

// simplestFraction returns the fraction p/q of the smallest q ≤ maxQ (the
// smallest p among those) with x < p/q ≤ y, for 0 ≤ x < y: the bound a ratio
// threshold snaps to — a loop that runs while 2·w < n separates w / n at 1/2, and
// the midpoint of the nearest values seen on either side (0.48 in one training
// set) would end one pass early for the n whose last w lies in between.
func simplestFraction(x, y float64, maxQ int) (float64, bool) {
	if !(x >= 0 && y > x) {
		return 0, false
	}
	for q := 1; q <= maxQ; q++ {
		p := math.Floor(x*float64(q)) + 1 // the smallest p with p/q > x
		if f := p / float64(q); f <= y {
			return f, true
		}
	}
	return 0, false
}

// significant tests a predicate of arc a that holds c journal rows, all of arc a.
// Were the arc taken regardless of the value, each row in use would be of arc a
// with its share p among them, and c rows in a row of arc a would come with
// probability p^c. The predicate is kept when that is below 1e-6 divided by the
// number of predicates the search could have tried (Bonferroni: −c·ln p ≥ 13.8 +
// ln tests, tests = distinct values × expressions). It keeps a loop's exit test and
// its continuation (hundreds of rows), and drops "#inner = 662 → inner" (a value
// where by chance no exit happened), the single rows a continuous variable makes
// "pure", and the runs of one arc that random choices leave among thousands of
// distinct values. The shares are those of the journal's rows as sampled, which is
// the population the test draws from.
func (s *ruleSearch) significant(a int, c float64, tests int) bool {
	p := s.share[a]
	if p <= 0 || p >= 1 {
		return true
	}
	return -c*math.Log(p) >= 13.8+math.Log(float64(max(1, tests)))
}

// progression finds an arithmetic (x ≡ r mod step, step ≥ 2) or geometric
// (x = b·q^k, q > 1) progression holding every value of D (at least 3) and no value
// of U.
func progression(D, U []float64) (Piece, bool) {
	if len(D) < 3 {
		return Piece{}, false
	}
	m := D[0]
	step := 0.0
	for _, v := range D[1:] {
		step = gcd(step, v-m)
	}
	if step >= 2 {
		p := Piece{Kind: Arith, Value: math.Mod(math.Mod(m, step)+step, step), Step: step}
		ok := true
		for _, u := range U {
			if p.match(u) {
				ok = false
				break
			}
		}
		if ok {
			return p, true
		}
	}
	if D[0] > 0 {
		q := D[1] / D[0]
		if q > 1 {
			p := Piece{Kind: Geom, Value: D[0], Step: q}
			ok := true
			for _, v := range D {
				ok = ok && p.match(v)
			}
			for _, u := range U {
				if ok && p.match(u) {
					ok = false
				}
			}
			if ok {
				return p, true
			}
		}
	}
	return Piece{}, false
}

func gcd(a, b float64) float64 {
	a, b = math.Abs(a), math.Abs(b)
	for b > 0.5 {
		a, b = b, math.Mod(a, b)
	}
	return a
}

// ---- printing ---------------------------------------------------------------------

// String prints a condition: "#inner ≤ $n", "err ≥ 1e-10 or err ≤ −1e-10".
func (c *Cond) String() string {
	var parts []string
	for _, p := range c.Pieces {
		parts = append(parts, p.format(c.Expr, c.Integer))
	}
	return strings.Join(parts, " or ")
}

func (p *Piece) format(e Expr, integer bool) string {
	num := func(x float64) string {
		if integer {
			return fmt.Sprintf("%.0f", x)
		}
		return fmt.Sprintf("%.4g", x)
	}
	// cmp prints e op k, moving B to the right: "A ≤ B + 2".
	cmp := func(op string, k float64) string {
		if e.B == "" || e.Ratio {
			return e.String() + " " + op + " " + num(k)
		}
		if integer {
			switch {
			case op == "≤" && k == -1:
				return e.A + " < " + e.B
			case op == "≥" && k == 1:
				return e.A + " > " + e.B
			}
		}
		switch {
		case k == 0:
			return e.A + " " + op + " " + e.B
		case k < 0:
			return e.A + " " + op + " " + e.B + " − " + num(-k)
		}
		return e.A + " " + op + " " + e.B + " + " + num(k)
	}
	switch p.Kind {
	case Interval:
		var lo, hi float64
		hasLo, hasHi := p.Lo != nil, p.Hi != nil
		if hasLo {
			lo = *p.Lo
		}
		if hasHi {
			hi = *p.Hi
		}
		if integer {
			lo, hi = math.Ceil(lo), math.Floor(hi)
		}
		switch {
		case hasLo && hasHi && lo == hi && integer:
			return cmp("=", lo)
		case hasLo && hasHi:
			return cmp("≥", lo) + " and " + cmp("≤", hi)
		case hasLo:
			return cmp("≥", lo)
		case hasHi:
			return cmp("≤", hi)
		}
		return "true"
	case Equal:
		return cmp("=", p.Value)
	case Arith:
		return fmt.Sprintf("%s ≡ %s (mod %s)", exprParen(e), num(p.Value), num(p.Step))
	case Geom:
		return fmt.Sprintf("%s = %s·%s^k", exprParen(e), num(p.Value), num(p.Step))
	}
	return "?"
}

func exprParen(e Expr) string {
	if e.B == "" {
		return e.A
	}
	return "(" + e.String() + ")"
}
