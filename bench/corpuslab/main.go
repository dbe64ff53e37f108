// Command corpuslab makes the corpora of bench/corpus.sh and measures `fragprof
// freq` on them in the laboratory (package lab).
//
//	corpuslab grammar -grammar G.ebnf -start RULE -maxdepth D -n N -seed S -ext .sql -o DIR
//	    N sentences of a grammar, drawn by fragprof's grammar() input under seed S,
//	    written to DIR/0000.ext, DIR/0001.ext, …
//	corpuslab files -n N -seed S -o DIR ROOT...
//	    N regular files of at most -max-size bytes under the ROOTs (symbolic links
//	    left out), chosen by a shuffle seeded by S of their sorted paths, copied to
//	    DIR/0000-NAME, …
//	corpuslab synth -n N -seed S -max-size B -o DIR
//	    N files generated from seed S (file i from its own stream S, i): of
//	    kinds text, source, records, repetitive, runs, random and mixed, of
//	    log-uniform sizes from 0 to B bytes, written to DIR/00000.KIND, …
//	corpuslab replay -binary PROG -inputs MODEL.toml -r R -seed S [-check FREQ.json] ...
//	    runs PROG once on every member of MODEL's finite population and keeps the
//	    counts, then for each -rel-eps and -share replays freq's procedure (the
//	    same rule, design and draws) R times on them, seeds S, S+1, …, and prints
//	    the coverage of the exact means by the blocks' statements, and the trials.
//	    With -check (one report per precision and share, precision-major), the
//	    replay of seed -check-seed must stop at the trials of that freq --json
//	    report and give every block the same mean and half-width.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/montecarlo"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
	"github.com/fragprof/fragprof/internal/stopping/lab"
)

func main() {
	if len(os.Args) < 2 {
		fail(fmt.Errorf("usage: corpuslab grammar|files|synth|replay [flags]"))
	}
	var err error
	switch os.Args[1] {
	case "grammar":
		err = grammarCorpus(os.Args[2:])
	case "files":
		err = filesCorpus(os.Args[2:])
	case "synth":
		err = synthCorpus(os.Args[2:])
	case "replay":
		err = replay(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want grammar, files, synth or replay)", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "corpuslab:", err)
	os.Exit(1)
}

// grammarCorpus writes n sentences of a grammar, sentence i being trial i's draw
// of grammar(file, start, maxdepth) under the seed.
func grammarCorpus(args []string) error {
	fs := flag.NewFlagSet("grammar", flag.ExitOnError)
	g := fs.String("grammar", "", "the EBNF file")
	start := fs.String("start", "", "the start rule")
	depth := fs.Int("maxdepth", 12, "the grammar's maxdepth")
	n := fs.Int("n", 500, "sentences")
	seed := fs.Uint64("seed", 1, "seed")
	ext := fs.String("ext", ".txt", "file name extension")
	out := fs.String("o", "", "output directory")
	fs.Parse(args)
	abs, err := filepath.Abs(*g)
	if err != nil {
		return err
	}
	m, err := dist.ParseOptions(fmt.Sprintf("x = grammar(%q, %s, %d)", abs, *start, *depth), dist.Options{})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	s := m.NewSample()
	for i := range *n {
		if err := m.DrawInto(s, *seed, uint64(i)); err != nil {
			return fmt.Errorf("sentence %d: %v", i, err)
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("%04d%s", i, *ext)), s.Values[0].Bytes, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// filesCorpus copies n files chosen under the roots by a seeded shuffle.
func filesCorpus(args []string) error {
	fset := flag.NewFlagSet("files", flag.ExitOnError)
	n := fset.Int("n", 1000, "files")
	seed := fset.Uint64("seed", 1, "seed")
	maxSize := fset.Int64("max-size", 1<<20, "largest file, bytes")
	out := fset.String("o", "", "output directory")
	fset.Parse(args)
	var paths []string
	for _, root := range fset.Args() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable directories are left out
			}
			if d.Type().IsRegular() {
				if info, err := d.Info(); err == nil && info.Size() > 0 && info.Size() <= *maxSize {
					paths = append(paths, p)
				}
			}
			return nil
		})
	}
	sort.Strings(paths)
	if len(paths) < *n {
		return fmt.Errorf("%d files under %v, fewer than %d", len(paths), fset.Args(), *n)
	}
	rand.New(rand.NewPCG(*seed, 0x636f72707573)).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	for i, p := range paths[:*n] {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*out, fmt.Sprintf("%04d-%s", i, filepath.Base(p))), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// freqReport is what replay reads of a freq --json report.
type freqReport struct {
	Trials    uint64 `json:"trials"`
	Functions []struct {
		Name   string `json:"name"`
		File   string `json:"file"`
		Blocks []struct {
			Label     string   `json:"label"`
			Mean      float64  `json:"mean"`
			HalfWidth *float64 `json:"halfwidth"`
			State     string   `json:"state"`
		} `json:"blocks"`
	} `json:"functions"`
}

func replay(args []string) error {
	fs := flag.NewFlagSet("replay", flag.ExitOnError)
	binary := fs.String("binary", "", "the program, built by fragprof cc")
	inputs := fs.String("inputs", "", "the model file: one finite population")
	r := fs.Int("r", 200, "replications")
	seed := fs.Uint64("seed", 1, "the first replication's seed")
	relEps := fs.String("rel-eps", "0.05", "comma-separated values of freq's --rel-eps, each replayed on every share")
	gamma := fs.Float64("gamma", 0.95, "freq's --gamma")
	shares := fs.String("share", "0.1", "comma-separated shares: for each, freq's --ignore-rare SHARE, judged on the blocks that run in at least SHARE of the members")
	design := fs.Int("unit", 16, "freq's design: Latin hypercube units of this many trials (1: independent)")
	check := fs.String("check", "", "comma-separated freq --json reports, one per share (or none), of the same program, inputs and rule to compare the replay with")
	checkSeed := fs.Uint64("check-seed", 1, "the seed of the -check reports")
	exhaustive := fs.String("exhaustive", "", "a freq --json report of the exhaustive run, whose means must be the recorded ones")
	cpuProfile := fs.String("cpuprofile", "", "write the replications' CPU profile to this file")
	ruleName := fs.String("rule", stopping.Default, "the rule replayed (the laboratory's clt-wide-fpc: the default with its fallback corrected too; -check needs freq's own)")
	fs.Parse(args)
	shareList, err := parseFloats(*shares)
	if err != nil {
		return err
	}
	relList, err := parseFloats(*relEps)
	if err != nil {
		return err
	}
	var checks []string
	if *check != "" {
		if checks = strings.Split(*check, ","); len(checks) != len(relList)*len(shareList) {
			return fmt.Errorf("%d -check reports for %d precisions × %d shares", len(checks), len(relList), len(shareList))
		}
	}
	file, err := dist.ParseFile(*inputs)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "corpuslab")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := filepath.Abs(*binary)
	if err != nil {
		return err
	}
	p := &montecarlo.Program{Binary: bin, Inputs: file, Isolation: montecarlo.Fork, Timeout: 10 * time.Second,
		CountNonZero: true, Dir: dir, Unit: *design}
	ctx := context.Background()
	t0 := time.Now()
	c, err := lab.Record(ctx, p, runtime.NumCPU())
	if err != nil {
		return err
	}
	n := uint64(len(c.Members))
	fmt.Printf("  recorded %d members in %.1fs: %d functions\n", n, time.Since(t0).Seconds(), len(c.Prog.Funcs))
	if *exhaustive != "" {
		if err := compareExhaustive(c, *exhaustive); err != nil {
			return err
		}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	for k := range len(relList) * len(shareList) {
		rel, share := relList[k/len(shareList)], shareList[k%len(shareList)]
		th := stats.DefaultThresholds
		th.Eps, th.RelEps, th.Gamma, th.IgnoreRare = 0, rel, *gamma, share
		rule, err := stopping.New(*ruleName, th)
		if err != nil {
			return err
		}
		if rule, err = lab.PopulationRule(rule, n); err != nil {
			return err
		}
		fmt.Printf("  -- --rel-eps %g --ignore-rare %g, judged on the blocks that run in >= %g of the members:\n", rel, share, share)
		if checks != nil {
			q := *p
			q.Seed = *checkSeed
			res, err := c.Replay(ctx, &q, rule)
			if err != nil {
				return err
			}
			if err := compare(res, checks[k]); err != nil {
				return err
			}
			fmt.Printf("  replay of seed %d: %d trials, every block's mean and half-width as freq's own run (%s)\n", *checkSeed, res.Trials, filepath.Base(checks[k]))
		}
		t1 := time.Now()
		cov, err := c.Coverage(ctx, p, rule, *r, *seed, share)
		if err != nil {
			return err
		}
		printCoverage(cov, share, *gamma, time.Since(t1))
	}
	return nil
}

// printCoverage prints what R replications measured: the trials as a share of
// the corpus, the coverage of all judged blocks at once and per block, each with
// its binomial standard deviation √(c(1 − c)/m) over its m trials.
func printCoverage(cov *lab.CorpusResult, share, gamma float64, took time.Duration) {
	r := float64(cov.R)
	fmt.Printf("  %d replications in %.1fs: %d blocks run in >= %g of the %d members\n", cov.R, took.Seconds(), cov.Blocks, share, cov.N)
	fmt.Printf("  trials: mean %.1f = %.1f %% of the corpus (sd %.1f), min %d, max %d\n",
		cov.MeanTrials, 100*cov.MeanTrials/float64(cov.N), cov.TrialsSD, cov.MinTrials, cov.MaxTrials)
	all := float64(cov.AllCovered) / r
	fmt.Printf("  all judged blocks covered at once: %d/%d = %.3f (sd %.3f)\n", cov.AllCovered, cov.R, all, binSD(all, r))
	fmt.Printf("  per block: %.4f (sd %.4f as if independent; Clopper-Pearson [%.4f, %.4f]), gamma %g\n",
		cov.BlockCoverage, binSD(cov.BlockCoverage, r*float64(cov.Blocks)), cov.CovLo, cov.CovHi, gamma)
	// A block's own coverage over R replications has sd √(γ(1 − γ)/R) if it is γ.
	floor := gamma - 2*binSD(gamma, r)
	below, perfect := 0, 0
	for _, k := range cov.PerBlock {
		if float64(k)/r < floor {
			below++
		}
		if k == cov.R {
			perfect++
		}
	}
	fmt.Printf("  blocks covered in every replication: %d of %d; below gamma - 2 sd (%.3f): %d; least covered: %s, %d/%d = %.3f\n",
		perfect, cov.Blocks, floor, below, cov.WorstBlock, cov.WorstCovered, cov.R, float64(cov.WorstCovered)/r)
	states := make([]string, 0, len(cov.States))
	for s := range cov.States {
		states = append(states, s)
	}
	slices.Sort(states)
	fmt.Print("  states:")
	for _, s := range states {
		fmt.Printf(" %s %.1f %%", s, 100*float64(cov.States[s])/float64(cov.R*cov.Blocks))
	}
	fmt.Println()
}

// binSD is the standard deviation √(p(1 − p)/m) of a proportion p over m trials.
func binSD(p, m float64) float64 { return math.Sqrt(p * (1 - p) / m) }

func parseFloats(list string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(list, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", list, err)
		}
		out = append(out, x)
	}
	return out, nil
}

// blockKey names a block in a report: two static functions of different files
// may have the same name.
func blockKey(file, fn, label string) string { return file + ":" + fn + ":" + label }

// compare checks that res is the run a freq --json report describes: the same
// trials, and every block's mean and half-width.
func compare(res *montecarlo.Result, file string) error {
	rep, err := readReport(file)
	if err != nil {
		return err
	}
	if rep.Trials != res.Trials {
		return fmt.Errorf("the replay stopped after %d trials, freq after %d (%s)", res.Trials, rep.Trials, file)
	}
	got := map[string]stats.Decision{}
	for fi, fn := range res.Prog.Funcs {
		for b, bl := range fn.Blocks {
			got[blockKey(fn.File, fn.Name, bl.Label)] = res.Blocks[fi][b].Decision
		}
	}
	k := 0
	for _, fn := range rep.Functions {
		for _, bl := range fn.Blocks {
			d, ok := got[blockKey(fn.File, fn.Name, bl.Label)]
			if !ok {
				return fmt.Errorf("%s:%s of %s is not in the replay", fn.Name, bl.Label, file)
			}
			hw := math.NaN()
			if bl.HalfWidth != nil {
				hw = *bl.HalfWidth
			}
			if !same(d.Mean, bl.Mean) || !same(d.HalfWidth, hw) || d.State.String() != bl.State {
				return fmt.Errorf("%s:%s: the replay gives %v ± %v (%s), freq %v ± %v (%s)", fn.Name, bl.Label, d.Mean, d.HalfWidth, d.State, bl.Mean, hw, bl.State)
			}
			k++
		}
	}
	if k == 0 {
		return fmt.Errorf("%s has no blocks", file)
	}
	return nil
}

// compareExhaustive checks that the means of an exhaustive freq report are the
// recorded members' means.
func compareExhaustive(c *lab.Corpus, file string) error {
	rep, err := readReport(file)
	if err != nil {
		return err
	}
	if rep.Trials != uint64(len(c.Members)) {
		return fmt.Errorf("%s ran %d trials, the corpus has %d members", file, rep.Trials, len(c.Members))
	}
	idx := map[string][2]int{}
	for fi, fn := range c.Prog.Funcs {
		for b, bl := range fn.Blocks {
			idx[blockKey(fn.File, fn.Name, bl.Label)] = [2]int{fi, b}
		}
	}
	for _, fn := range rep.Functions {
		for _, bl := range fn.Blocks {
			at, ok := idx[blockKey(fn.File, fn.Name, bl.Label)]
			if !ok {
				return fmt.Errorf("%s:%s of %s was not recorded", fn.Name, bl.Label, file)
			}
			if w := c.Truth(at[0], at[1]); !same(w.Mean, bl.Mean) {
				return fmt.Errorf("%s:%s: the recorded mean is %v, the exhaustive run's %v", fn.Name, bl.Label, w.Mean, bl.Mean)
			}
		}
	}
	fmt.Printf("  the recorded members' means are the exhaustive run's (%s), block for block\n", filepath.Base(file))
	return nil
}

func readReport(file string) (*freqReport, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var rep freqReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &rep, nil
}

// same compares two figures as a JSON report prints them (shortest form that reads
// back exactly), NaN equal to NaN.
func same(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return strconv.FormatFloat(a, 'g', 12, 64) == strconv.FormatFloat(b, 'g', 12, 64)
}
