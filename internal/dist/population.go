// This file implements finite populations: file("glob"), lines("file") and
// rows("file.csv"), whose every trial draws one item of a finite set.

package dist

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// A population input draws one of its N items per trial. Equally likely items
// are drawn without replacement: trial i takes item π_e(i mod N) of the
// permutation π_e of epoch e = ⌊i/N⌋, a Fisher–Yates shuffle (math/rand/v2
// Shuffle) of 0 … N−1 driven by the stream of (seed, e, key ^ popKey). So
// trials 0 … N−1 are a simple random sample without replacement of the whole
// population, any n consecutive trials of one epoch are a simple random sample
// of size n, trial i's item depends on (seed, i) and the model only, and shards
// that run disjoint trial numbers draw disjoint items. Weighted items
// (file(…; weight = size)) are drawn independently, with replacement, with
// probability proportional to their weight.

// popKey is xored into an input's stream key to make the key of the stream its
// permutations are drawn from.
var popKey = mix(streamKey("#population"))

// population is the draw of one of n items.
type population struct {
	n   int
	cum []float64 // cumulative weights; nil: equally likely, without replacement
	// digest is the SHA-256 of the items (names, sizes and contents), hex.
	digest string
	source string // the pattern or file name, for messages
	// strata, when not nil, divides the items into strata drawn by a
	// Schedule (strata.go).
	strata *stratified
}

// Population describes a finite-population input of a Model.
type Population struct {
	Input string // the input's name
	Size  int    // the number of items N
	// Weighted is true when items are drawn with replacement, with unequal
	// probabilities; otherwise they are drawn without replacement.
	Weighted bool
	// Digest is the SHA-256 of the items, in hex: the same population gives the
	// same digest on every run, and a changed file changes it.
	Digest string
	Source string // the glob pattern or file name, as written
}

// Populations returns the model's finite-population inputs in definition order.
func (m *Model) Populations() []Population {
	var ps []Population
	for k, g := range m.gens {
		if p := popOf(g); p != nil {
			ps = append(ps, Population{Input: m.Inputs[k].Name, Size: p.n, Weighted: p.cum != nil, Digest: p.digest, Source: p.source})
		}
	}
	return ps
}

// FinitePopulation returns N when every trial's values are one item of a
// population of N items drawn without replacement, everything else being
// constant or read from that item: then the mean over trials 0 … N−1 is the
// population's mean exactly, and an interval may use the finite-population
// correction. It returns 0 otherwise.
func (m *Model) FinitePopulation() int {
	p, err := m.Exhaustive()
	if err != nil {
		return 0
	}
	return p.Size
}

// Exhaustive returns the population whose every item --exhaustive runs once:
// the model's one population drawn without replacement, every other input
// constant or read from its item (a column of its rows, a copy). Then trials
// 0 … N−1 run each item exactly once, and the mean over them is the
// population's mean. Otherwise it returns an error that names the input in the
// way: no population at all, a weighted one (drawn with replacement), a second
// population, or an input drawn anew in every trial (continuous, on infinitely
// many values, or random among a few).
func (m *Model) Exhaustive() (Population, error) {
	pops := m.Populations()
	if len(pops) == 0 {
		return Population{}, fmt.Errorf("the inputs have no finite population to run through: name one with file(\"glob\"), lines(\"file\") or rows(\"file.csv\")")
	}
	if len(pops) > 1 {
		return Population{}, fmt.Errorf("inputs %s and %s are two populations: each trial draws one item of every population, so there is no one list of members to run through", pops[0].Input, pops[1].Input)
	}
	p := pops[0]
	if p.Weighted {
		return Population{}, fmt.Errorf("input %s draws its %d items with replacement, weighted by size: running each once gives the unweighted mean; drop '; weight = size'", p.Input, p.Size)
	}
	for k, g := range m.gens {
		in := m.Inputs[k]
		what := ""
		switch g := g.(type) {
		case *columnGen, aliasGen, *fileGen, *linesGen, *rowGen:
			continue
		case scalarGen:
			lo, hi := g.d.support()
			switch {
			case lo == hi:
				continue
			case g.d.kind() == KindFloat:
				what = "a continuous input"
			case math.IsInf(hi-lo, 0):
				what = "an input on infinitely many values"
			default:
				what = "a random input"
			}
		case *stringChoiceGen:
			if len(g.vals) == 1 {
				continue
			}
			what = "a random input"
		case *grammarGen:
			what = "a grammar: an input on infinitely many values"
		default:
			what = "a random input"
		}
		return Population{}, fmt.Errorf("input %s = %s is %s besides the population %s: a run through the %d members would still draw it at random, and its means would not be exact; make it a constant, or a column of the rows() file", in.Name, in.Dist, what, p.Input, p.Size)
	}
	return p, nil
}

func popOf(g gen) *population {
	switch g := g.(type) {
	case *fileGen:
		return &g.pop
	case *linesGen:
		return &g.pop
	case *rowGen:
		return &g.pop
	}
	return nil
}

// permCache is a Sample's copy of the permutation of one input's epoch.
type permCache struct {
	ok          bool
	seed, epoch uint64
	perm        []int32
}

// index returns the item of the current trial (see above); it fails for a
// stratified population whose trial is not scheduled yet (Schedule.Stratum).
func (p *population) index(s *Sample) (int, error) {
	if p.cum != nil {
		u := s.rng.Float64() * p.cum[len(p.cum)-1]
		return min(sort.Search(len(p.cum), func(i int) bool { return p.cum[i] > u }), p.n-1), nil
	}
	if p.strata != nil {
		return p.strataIndex(s)
	}
	n := uint64(p.n)
	epoch, k := s.Trial/n, s.Trial%n
	if s.perms == nil {
		s.perms = make([]permCache, len(s.model.Inputs))
	}
	c := &s.perms[s.cur]
	if !c.ok || c.seed != s.Seed || c.epoch != epoch {
		c.perm = resize(c.perm, p.n)
		for i := range c.perm {
			c.perm[i] = int32(i)
		}
		seedStream(&s.subPCG, s.Seed, epoch, s.key^popKey)
		s.subRng.Shuffle(p.n, func(a, b int) { c.perm[a], c.perm[b] = c.perm[b], c.perm[a] })
		c.ok, c.seed, c.epoch = true, s.Seed, epoch
	}
	return int(c.perm[k]), nil
}

// resolve returns path taken from the directory of the text that names it.
func (c *compiler) resolve(path string) string {
	if !filepath.IsAbs(path) && c.org.dir != "" {
		return filepath.Join(c.org.dir, path)
	}
	return path
}

// quotedArg returns x's only argument, a quoted file name or pattern.
func (c *compiler) quotedArg(x *call, example string) (*strLit, *Error) {
	s, ok := x.args[0].(*strLit)
	if !ok {
		return nil, c.errAt(x.args[0].exprPos(), "for example "+example, "%s needs a quoted file name, got %s", x.name, describe(x.args[0]))
	}
	return s, nil
}

// fileGen draws file("glob"): one of the matching files. Its value is a string,
// the file's contents, read at each draw; Int holds the file's index, from
// which templates take the path, name and size.
type fileGen struct {
	pop   population
	paths []string // absolute, sorted
}

func (g *fileGen) kind() Kind { return KindString }

func (g *fileGen) draw(s *Sample, v *Value) error {
	i, err := g.pop.index(s)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(g.paths[i])
	if err != nil {
		return fmt.Errorf("dist: trial %d: input %s: file %s: %v (the corpus changed since the model was read?)", s.Trial, s.model.Inputs[s.cur].Name, g.paths[i], unwrapPath(err))
	}
	v.Int = int64(i)
	v.Bytes = append(v.Bytes[:0], data...)
	return nil
}

// file compiles file("glob" [; weight = size]).
func (c *compiler) file(x *call) (compiled, *Error) {
	s, err := c.quotedArg(x, `file("corpus/**/*.sql")`)
	if err != nil {
		return compiled{}, err
	}
	weighted := false
	var strataOpt *option
	for _, o := range x.weights {
		opt, ok := o.(*option)
		if !ok || opt.name != "weight" && opt.name != "strata" && opt.name != "alloc" {
			return compiled{}, c.errAt(o.exprPos(), "write file(\"glob\"; weight = size) or file(\"glob\"; strata = dir, alloc = neyman)", "file takes only the options weight = size, strata and alloc, got %s", describe(o))
		}
		switch opt.name {
		case "weight":
			if r, ok := opt.x.(*nameRef); !ok || r.name != "size" {
				return compiled{}, c.errAt(opt.x.exprPos(), "", "file weight must be size, got %s", describe(opt.x))
			}
			weighted = true
		case "strata":
			strataOpt = opt
		}
	}
	if weighted && strataOpt != nil {
		return compiled{}, c.errAt(strataOpt.p, "", "file with weight = size draws with replacement: it takes no strata")
	}
	pattern := c.resolve(s.val)
	paths, gerr := glob(pattern)
	if errors.Is(gerr, fs.ErrNotExist) {
		return compiled{}, c.errAt(s.p, "", "file pattern %s matches no file: its directory does not exist", strconv.Quote(s.val))
	}
	if gerr != nil {
		return compiled{}, c.errAt(s.p, "", "file %s: %v", strconv.Quote(s.val), gerr)
	}
	if len(paths) == 0 {
		return compiled{}, c.errAt(s.p, "check the pattern and the directory it is taken from", "file pattern %s matches no file", strconv.Quote(s.val))
	}
	g := &fileGen{paths: paths, pop: population{n: len(paths), source: s.val}}
	h := sha256.New()
	var total float64
	sizes := make([]int64, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return compiled{}, c.errAt(s.p, "", "file %s: %v", strconv.Quote(s.val), err)
		}
		sizes[i] = int64(len(data))
		sum := sha256.Sum256(data)
		fmt.Fprintf(h, "%s\x00%d\x00%x\n", filepath.Base(p), len(data), sum)
		if weighted {
			total += float64(len(data))
			g.pop.cum = append(g.pop.cum, total)
		}
	}
	if weighted && total == 0 {
		return compiled{}, c.errAt(s.p, "", "file %s: weight = size, but every matching file is empty", strconv.Quote(s.val))
	}
	g.pop.digest = hex.EncodeToString(h.Sum(nil))
	st, err := c.strataOptions(x, `file("glob"; strata = dir, alloc = neyman)`, func(opt *option) (*stratified, *Error) {
		return c.fileStrata(opt, paths, sizes)
	})
	if err != nil {
		return compiled{}, err
	}
	g.pop.strata = st
	return compiled{g: g}, nil
}

// glob returns the regular files (or symbolic links to them) that match
// pattern, sorted: '*', '?' and '[…]' match within one path element as in
// filepath.Match, and an element "**" matches any number of directories, none
// included (symbolic links to directories are not followed).
func glob(pattern string) ([]string, error) {
	abs, err := filepath.Abs(pattern)
	if err != nil {
		return nil, err
	}
	elems := strings.Split(filepath.ToSlash(abs), "/")
	root := "/"
	i := 1
	for i < len(elems)-1 && !strings.ContainsAny(elems[i], "*?[\\") {
		root = filepath.Join(root, elems[i])
		i++
	}
	rest := elems[i:]
	for _, e := range rest {
		if _, err := filepath.Match(e, ""); err != nil {
			return nil, fmt.Errorf("bad pattern element %q: %v", e, err)
		}
	}
	var out []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if matchElems(rest, strings.Split(filepath.ToSlash(rel), "/")) {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// matchElems matches path elements against pattern elements, "**" matching
// zero or more elements.
func matchElems(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for k := 0; k <= len(name); k++ {
			if matchElems(pat[1:], name[k:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, _ := filepath.Match(pat[0], name[0])
	return ok && matchElems(pat[1:], name[1:])
}

// linesGen draws lines("file"): one line of the file, a string without its
// newline.
type linesGen struct {
	pop   population
	lines [][]byte
}

func (g *linesGen) kind() Kind { return KindString }

func (g *linesGen) draw(s *Sample, v *Value) error {
	i, err := g.pop.index(s)
	if err != nil {
		return err
	}
	v.Int = int64(i)
	v.Bytes = append(v.Bytes[:0], g.lines[i]...)
	return nil
}

// readData reads a data file named by argument s, with its digest.
func (c *compiler) readData(x *call, s *strLit) ([]byte, string, *Error) {
	data, err := os.ReadFile(c.resolve(s.val))
	if err != nil {
		return nil, "", c.errAt(s.p, "", "%s: cannot read %s: %v", x.name, strconv.Quote(s.val), unwrapPath(err))
	}
	sum := sha256.Sum256(data)
	return data, hex.EncodeToString(sum[:]), nil
}

// lines compiles lines("file"): every line of the file, blank ones included; a
// final newline does not start another line, and a "\r" before a newline is
// dropped.
func (c *compiler) lines(x *call) (compiled, *Error) {
	s, err := c.quotedArg(x, `lines("queries.txt")`)
	if err != nil {
		return compiled{}, err
	}
	data, digest, err := c.readData(x, s)
	if err != nil {
		return compiled{}, err
	}
	text := strings.TrimSuffix(string(data), "\n")
	if len(data) == 0 {
		return compiled{}, c.errAt(s.p, "", "lines file %s is empty", strconv.Quote(s.val))
	}
	g := &linesGen{}
	for _, l := range strings.Split(text, "\n") {
		g.lines = append(g.lines, []byte(strings.TrimSuffix(l, "\r")))
	}
	g.pop = population{n: len(g.lines), digest: digest, source: s.val}
	return compiled{g: g}, nil
}

// Items describes the population items s holds, one "name = item" per
// population input, separated by "; ": a file's path, a line's number and
// file, a row's number and file. It is "" when the model has no population.
// It names the file or record behind a trial, for a failure's report.
func (s *Sample) Items() string {
	var parts []string
	for k, g := range s.model.gens {
		v := s.Values[k]
		name := s.model.Inputs[k].Name
		switch g := g.(type) {
		case *fileGen:
			parts = append(parts, sprintf("%s = file %q", name, g.paths[v.Int]))
		case *linesGen:
			parts = append(parts, sprintf("%s = line %d of %q", name, v.Int+1, g.pop.source))
		case *rowGen:
			parts = append(parts, sprintf("%s = row %d of %q (line %d)", name, v.Int, g.pop.source, v.Int+1))
		}
	}
	return strings.Join(parts, "; ")
}
