// This file implements stratified populations: file("glob"; strata = dir),
// file("glob"; strata = size(…)) and rows("file.csv"; strata = COLUMN), with
// alloc = proportional or neyman, and the schedule that assigns each trial
// to a stratum.

package dist

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Allocation says how the trials of a stratified population are shared among
// its strata.
type Allocation uint8

const (
	// Proportional gives stratum h a share N_h/N of the trials (W. G. Cochran,
	// "Sampling Techniques", 3rd ed., Wiley 1977, §5.3).
	Proportional Allocation = iota
	// Neyman gives stratum h a share N_h·S_h/Σ N_k·S_k, which minimises the
	// variance of the stratified mean for a given number of trials (J. Neyman,
	// J. Roy. Statist. Soc. 97(4), 1934; Cochran 1977, §5.5, Theorem 5.6), S_h
	// estimated from the trials of earlier rounds (Schedule).
	Neyman
)

// String returns "proportional" or "neyman".
func (a Allocation) String() string {
	if a == Neyman {
		return "neyman"
	}
	return "proportional"
}

// Strata describes the stratified population input of a Model.
type Strata struct {
	Input string // the input's name
	Key   string // the key as written: "dir", "size(1000, 100000)", a column's name
	Alloc Allocation
	Names []string // each stratum's name: a directory, a size class, a column's value
	Sizes []uint64 // each stratum's number of items N_h
	// Schedule assigns the trials to the strata; the model's draws read it.
	Schedule *Schedule
}

// stratified is a population's division into strata.
type stratified struct {
	key     string
	alloc   Allocation
	names   []string
	members [][]int32 // the items of each stratum, in the population's order
	sched   *Schedule
}

// Strata returns the model's stratified population, nil if it has none.
func (m *Model) Strata() *Strata {
	for k, g := range m.gens {
		p := popOf(g)
		if p == nil || p.strata == nil {
			continue
		}
		st := p.strata
		return &Strata{Input: m.Inputs[k].Name, Key: st.key, Alloc: st.alloc, Names: st.names,
			Sizes: st.sched.sizes, Schedule: st.sched}
	}
	return nil
}

// SetPilot sets the number of trials every stratum takes (or all its items, if
// fewer) before the allocation shares the others; the schedule must not have
// been read yet. The default is DefaultPilot.
func (s *Schedule) SetPilot(n uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pilot = max(n, 1)
}

// DefaultPilot is the pilot of a new Schedule: every stratum's first trials,
// before its standard deviation is read (package stopping judges a stratum from
// as many).
const DefaultPilot = 10

// A Schedule assigns trial i of a stratified population to a stratum h and to
// the k-th draw from it. Trials 0 … N−1 are cut into rounds: round 0 is the
// pilot, every stratum's first min(pilot, N_h) trials, and round r + 1 starts
// where round r ends and holds max(⌈b_r/4⌉, H) trials (b_r the trials before
// it, H the strata). Within a round each trial goes, in turn, to a stratum not
// yet drawn whole whose pilot is not complete (the first such), else to the one
// furthest below its share of the trials so far and this one, (n + 1)·w_h − n_h
// (the first of equals): w_h = N_h/N under Proportional; under Neyman,
// w_h ∝ N_h·max(S_h, S̄/2), S̄ = Σ N_k·S_k / N, with the S_h given for the
// round by Plan from the trials of the rounds before it, and proportional
// shares in round 0 or when every S_h is 0. So trial i's stratum depends on the
// sizes, i and, under Neyman, on the counts of trials of earlier rounds only:
// a round is drawn once the ones before it are complete, and the same seed
// gives the same trials on any number of workers. Trial i ≥ N is trial
// i mod N of epoch ⌊i/N⌋: its stratum is the same, its draw k + ⌊i/N⌋·N_h.
type Schedule struct {
	sizes []uint64
	total uint64
	alloc Allocation

	mu     sync.Mutex
	pilot  uint64
	hs     []uint16             // the stratum of trials 0 … len(hs)−1
	ks     []uint32             // their draws within the stratum
	n      []uint64             // draws per stratum in hs
	starts []uint64             // starts[r] is the first trial of round r
	shares [][]float64          // the shares w_h of each planned round
	pinned map[uint64][2]uint64 // trials given their stratum and draw by Pin
}

// NewSchedule returns the schedule of strata of the given sizes (each ≥ 1).
func NewSchedule(sizes []uint64, a Allocation) *Schedule {
	s := &Schedule{sizes: sizes, alloc: a, pilot: DefaultPilot, n: make([]uint64, len(sizes))}
	for _, n := range sizes {
		s.total += n
	}
	return s
}

// Sizes returns the strata's sizes N_h.
func (s *Schedule) Sizes() []uint64 { return s.sizes }

// Alloc returns the schedule's allocation.
func (s *Schedule) Alloc() Allocation { return s.alloc }

// RoundStart returns the first trial of round r (N when the rounds end before).
func (s *Schedule) RoundStart(r int) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.roundStart(r)
}

func (s *Schedule) roundStart(r int) uint64 {
	for len(s.starts) <= r+1 {
		k := len(s.starts)
		switch k {
		case 0:
			s.starts = append(s.starts, 0)
		case 1:
			var p uint64
			for _, n := range s.sizes {
				p += min(n, s.pilot)
			}
			s.starts = append(s.starts, min(p, s.total))
		default:
			b := s.starts[k-1]
			s.starts = append(s.starts, min(s.total, b+max((b+3)/4, uint64(len(s.sizes)))))
		}
	}
	return s.starts[r]
}

// Planned returns the number of rounds whose trials have their strata: all of
// them under Proportional, under Neyman round 0 and those Plan gave.
func (s *Schedule) Planned() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc == Proportional {
		return math.MaxInt
	}
	return 1 + len(s.shares)
}

// Plan gives round r (r ≥ 1, the next round not planned) of a Neyman schedule
// the strata's standard deviations S_h, estimated from the trials of rounds
// 0 … r−1. Planning a round again, or another schedule's, does nothing.
func (s *Schedule) Plan(r int, sd []float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.alloc != Neyman || r < 1 || r != 1+len(s.shares) {
		if s.alloc == Neyman && r > 1+len(s.shares) {
			return fmt.Errorf("dist: round %d planned before round %d", r, 1+len(s.shares))
		}
		return nil
	}
	if len(sd) != len(s.sizes) {
		return fmt.Errorf("dist: %d standard deviations for %d strata", len(sd), len(s.sizes))
	}
	s.shares = append(s.shares, neymanShares(s.sizes, s.total, sd))
	return nil
}

// neymanShares returns the shares N_h·max(S_h, S̄/2), or nil (proportional)
// when every S_h is 0.
func neymanShares(sizes []uint64, total uint64, sd []float64) []float64 {
	var avg float64
	for h, n := range sizes {
		avg += float64(n) * sd[h] / float64(total)
	}
	if !(avg > 0) || math.IsInf(avg, 0) {
		return nil
	}
	w := make([]float64, len(sizes))
	var sum float64
	for h, n := range sizes {
		w[h] = float64(n) * max(sd[h], avg/2)
		sum += w[h]
	}
	for h := range w {
		w[h] /= sum
	}
	return w
}

// Stratum returns trial i's stratum h and its draw k from it (0 for the
// stratum's first trial). It fails for a trial of a Neyman round not yet
// planned (and not pinned).
func (s *Schedule) Stratum(i uint64) (h int, k uint64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pinned[i]; ok {
		return int(p[0]), p[1], nil
	}
	return s.stratum(i)
}

func (s *Schedule) stratum(i uint64) (h int, k uint64, err error) {
	epoch, j := i/s.total, i%s.total
	for uint64(len(s.hs)) <= j {
		if err := s.extend(); err != nil {
			return 0, 0, fmt.Errorf("dist: trial %d: %v", i, err)
		}
	}
	h = int(s.hs[j])
	return h, uint64(s.ks[j]) + epoch*s.sizes[h], nil
}

// Pin gives trial i stratum h and draw k, as the run that planned its round
// gave them (TrialID names them): a trial of a Neyman round is the k-th draw
// from stratum h, whose member depends only on the seed, h and k, and whose
// other inputs depend only on the seed and i, so pinned it draws what it drew
// in that run without the trials before it. A trial whose stratum the schedule
// knows (a proportional one, or one of Neyman's pilot) must be given the same.
func (s *Schedule) Pin(i uint64, h int, k uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < 0 || h >= len(s.sizes) {
		return fmt.Errorf("trial %d: stratum %d: the population has strata 0 to %d", i, h, len(s.sizes)-1)
	}
	if gh, gk, err := s.stratum(i); err == nil {
		if gh != h || gk != k {
			return fmt.Errorf("trial %d is draw %d of stratum %d, not draw %d of stratum %d", i, gk, gh, k, h)
		}
		return nil
	}
	if s.pinned == nil {
		s.pinned = map[uint64][2]uint64{}
	}
	s.pinned[i] = [2]uint64{uint64(h), k}
	return nil
}

// TrialID names trial i for a replay: "i" when its stratum follows from i
// alone (proportional allocation, Neyman's pilot), else "i:h:k", its stratum h
// and draw k (Pin), once its round is planned.
func (s *Schedule) TrialID(i uint64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := strconv.FormatUint(i, 10)
	if s.alloc != Neyman || i%s.total < s.roundStart(1) {
		return id
	}
	h, k, err := s.stratum(i)
	if p, ok := s.pinned[i]; ok {
		h, k, err = int(p[0]), p[1], nil
	}
	if err != nil {
		return id
	}
	return fmt.Sprintf("%s:%d:%d", id, h, k)
}

// extend assigns the next trial to its stratum.
func (s *Schedule) extend() error {
	n := uint64(len(s.hs))
	r := 0
	for s.roundStart(r+1) <= n {
		r++
	}
	var w []float64
	if s.alloc == Neyman && r > 0 {
		if r > len(s.shares) {
			return fmt.Errorf("its round %d (trials %d to %d) takes its Neyman allocation from the counts of the trials before it, which are not all in", r, s.roundStart(r), s.roundStart(r+1)-1)
		}
		w = s.shares[r-1]
	}
	h := s.next(w)
	s.hs = append(s.hs, uint16(h))
	s.ks = append(s.ks, uint32(s.n[h]))
	s.n[h]++
	return nil
}

// next returns the stratum of the next trial under shares w (nil:
// proportional).
func (s *Schedule) next(w []float64) int {
	var n uint64
	for h, c := range s.n {
		if c < min(s.pilot, s.sizes[h]) {
			return h
		}
		n += c
	}
	best, gap := -1, math.Inf(-1)
	for h, c := range s.n {
		if c >= s.sizes[h] {
			continue
		}
		share := float64(s.sizes[h]) / float64(s.total)
		if w != nil {
			share = w[h]
		}
		if g := share*float64(n+1) - float64(c); g > gap {
			best, gap = h, g
		}
	}
	return best
}

// Counts returns the trials each stratum holds among trials 0 … n−1, as far as
// they are scheduled (the trials past N repeat the first N's strata).
func (s *Schedule) Counts(n uint64) []uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]uint64, len(s.sizes))
	epochs, rest := n/s.total, n%s.total
	for h, size := range s.sizes {
		out[h] = epochs * size
	}
	for j := uint64(0); j < min(rest, uint64(len(s.hs))); j++ {
		out[s.hs[j]]++
	}
	return out
}

// strataOption compiles the options of a population after ';': strata = KEY
// and alloc = proportional|neyman (file also takes weight = size, which
// file reads itself). key turns the key's expression into the strata's names
// and members, with the message of an error at its position.
func (c *compiler) strataOptions(x *call, allowed string, key func(opt *option) (*stratified, *Error)) (*stratified, *Error) {
	var st *stratified
	var alloc *option
	for _, o := range x.weights {
		opt, ok := o.(*option)
		if !ok {
			return nil, c.errAt(o.exprPos(), "write "+allowed, "%s takes options NAME = VALUE after ';', got %s", x.name, describe(o))
		}
		switch opt.name {
		case "weight":
			continue
		case "strata":
			if st != nil {
				return nil, c.errAt(opt.p, "", "%s has two strata options", x.name)
			}
			var err *Error
			if st, err = key(opt); err != nil {
				return nil, err
			}
		case "alloc":
			if alloc != nil {
				return nil, c.errAt(opt.p, "", "%s has two alloc options", x.name)
			}
			alloc = opt
		default:
			return nil, c.errAt(opt.p, "write "+allowed, "%s takes no option '%s'", x.name, opt.name)
		}
	}
	if alloc != nil {
		if st == nil {
			return nil, c.errAt(alloc.p, "alloc shares the trials among strata: add strata = …", "%s has alloc but no strata", x.name)
		}
		r, ok := alloc.x.(*nameRef)
		switch {
		case ok && r.name == "proportional":
			st.alloc = Proportional
		case ok && r.name == "neyman":
			st.alloc = Neyman
		default:
			return nil, c.errAt(alloc.x.exprPos(), "", "alloc must be proportional or neyman, got %s", describe(alloc.x))
		}
	}
	if st != nil {
		sizes := make([]uint64, len(st.members))
		for h, m := range st.members {
			sizes[h] = uint64(len(m))
		}
		st.sched = NewSchedule(sizes, st.alloc)
	}
	return st, nil
}

// fileStrata divides the files paths (absolute, sorted) of sizes by the key of
// opt: dir, each file's directory; size(b1, …, bk), the size classes [0, b1),
// [b1, b2), …, [bk, ∞) in bytes, the empty ones left out.
func (c *compiler) fileStrata(opt *option, paths []string, sizes []int64) (*stratified, *Error) {
	switch k := opt.x.(type) {
	case *nameRef:
		if k.name != "dir" {
			break
		}
		root := commonDir(paths)
		st := &stratified{key: "dir"}
		index := map[string]int{}
		for i, p := range paths {
			d, _ := filepath.Rel(root, filepath.Dir(p))
			h, ok := index[d]
			if !ok {
				h = len(st.names)
				index[d] = h
				st.names = append(st.names, d)
				st.members = append(st.members, nil)
			}
			st.members[h] = append(st.members[h], int32(i))
		}
		return st, nil
	case *call:
		if k.name != "size" {
			break
		}
		if k.semi != nil || len(k.args) == 0 {
			return nil, c.errAt(k.p, "for example strata = size(4096, 65536)", "size needs the bounds of the size classes in bytes")
		}
		var bounds []int64
		for _, a := range k.args {
			n, ok := a.(*numLit)
			if !ok || !n.isInt || n.i <= 0 || len(bounds) > 0 && n.i <= bounds[len(bounds)-1] {
				return nil, c.errAt(a.exprPos(), "the bounds are whole numbers of bytes, increasing", "size class bound must be an integer above 0 and the bound before it, got %s", describe(a))
			}
			bounds = append(bounds, n.i)
		}
		st := &stratified{key: exprString(k)}
		members := make([][]int32, len(bounds)+1)
		for i, sz := range sizes {
			h := 0
			for h < len(bounds) && sz >= bounds[h] {
				h++
			}
			members[h] = append(members[h], int32(i))
		}
		for h, m := range members {
			if len(m) == 0 {
				continue
			}
			lo, hi := "0", "inf"
			if h > 0 {
				lo = strconv.FormatInt(bounds[h-1], 10)
			}
			if h < len(bounds) {
				hi = strconv.FormatInt(bounds[h], 10)
			}
			st.names = append(st.names, "size in ["+lo+", "+hi+")")
			st.members = append(st.members, m)
		}
		return st, nil
	}
	return nil, c.errAt(opt.x.exprPos(), "write strata = dir or strata = size(BOUND, …)", "file strata must be dir or size(…), got %s", describe(opt.x))
}

// rowStrata divides the rows of t by the values of the column opt names.
func (c *compiler) rowStrata(opt *option, t *table) (*stratified, *Error) {
	r, ok := opt.x.(*nameRef)
	var col *column
	if ok {
		for j := range t.cols {
			if t.cols[j].name == r.name {
				col = &t.cols[j]
			}
		}
	}
	if col == nil {
		var names []string
		for _, cl := range t.cols {
			names = append(names, cl.name)
		}
		hint := "the strata of rows are the values of one of its columns: " + strings.Join(names, ", ")
		if ok {
			hint = didYouMean(r.name, names)
		}
		return nil, c.errAt(opt.x.exprPos(), hint, "rows strata must name a column of the file, got %s", describe(opt.x))
	}
	st := &stratified{key: col.name}
	index := map[string]int{}
	for i := range t.rows {
		var v string
		switch col.kind {
		case KindInt:
			v = strconv.FormatInt(col.ints[i], 10)
		case KindFloat:
			v = strconv.FormatFloat(col.floats[i], 'g', -1, 64)
		default:
			v = string(col.strs[i])
		}
		h, ok := index[v]
		if !ok {
			h = len(st.names)
			index[v] = h
			st.names = append(st.names, col.name+" = "+v)
			st.members = append(st.members, nil)
		}
		st.members[h] = append(st.members[h], int32(i))
	}
	return st, nil
}

// commonDir returns the deepest directory that holds every path.
func commonDir(paths []string) string {
	root := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for !strings.HasPrefix(filepath.Dir(p)+string(filepath.Separator), strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator)) {
			root = filepath.Dir(root)
		}
	}
	return root
}

// strataIndex returns the item of the current trial of a stratified
// population: trial i's stratum h and draw k (Schedule.Stratum), the item
// π_{h,e}(k mod N_h) of stratum h's permutation of epoch e = ⌊k/N_h⌋, a
// Fisher–Yates shuffle driven by the stream of (seed, e, key ^ popKey ^
// mix(h + 1)).
func (p *population) strataIndex(s *Sample) (int, error) {
	st := p.strata
	h, k, err := st.sched.Stratum(s.Trial)
	if err != nil {
		return 0, err
	}
	m := st.members[h]
	nh := uint64(len(m))
	epoch := k / nh
	if s.sperms == nil {
		s.sperms = make([]permCache, len(st.members))
	}
	c := &s.sperms[h]
	if !c.ok || c.seed != s.Seed || c.epoch != epoch {
		c.perm = resize(c.perm, len(m))
		for i := range c.perm {
			c.perm[i] = int32(i)
		}
		seedStream(&s.subPCG, s.Seed, epoch, s.key^popKey^mix(uint64(h)+1))
		s.subRng.Shuffle(len(m), func(a, b int) { c.perm[a], c.perm[b] = c.perm[b], c.perm[a] })
		c.ok, c.seed, c.epoch = true, s.Seed, epoch
	}
	return int(m[c.perm[k%nh]]), nil
}
