// Command coverage runs fragprof's coverage laboratory (internal/stopping/lab) and
// prints, per rule, world and confidence: the empirical coverage of the reported
// statement with its 95 % Clopper–Pearson interval, the mean trials, the oracle (the
// least fixed n covering with probability ≥ γ) and their ratio. bench/coverage.sh
// runs it; see docs/statistics.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/fragprof/fragprof/internal/stopping/lab"
	"github.com/fragprof/fragprof/profile"
)

func main() {
	rules := flag.String("rules", "clt,clt-naive,clt-plain,anytime,bernstein,freqsys-signed,freqsys-absolute", "rules to compare, comma-separated")
	gammas := flag.String("gammas", "0.95", "confidences, comma-separated")
	r := flag.Int("r", 1000, "replications per cell")
	oracleR := flag.Int("oracle-r", 4000, "samples per candidate n of the oracle")
	seed := flag.Uint64("seed", 1, "seed")
	worlds := flag.String("worlds", "", "only worlds whose name contains this")
	prof := flag.String("profile", "", "also resample the blocks of this profile (written by freq --profile)")
	relEps := flag.Float64("rel-eps", 0.03, "relative precision asked of resampled blocks")
	absEps := flag.Float64("eps", 0, "absolute precision asked of resampled blocks (instead of -rel-eps)")
	closed := flag.Bool("closed", true, "include the closed-form worlds")
	skip := flag.Int("skip", 0, "leave out the first N closed-form worlds (to resume a run)")
	heavy := flag.Int("heavy-r", 0, "replications for the costly rules freqsys-absolute and bernstein (0: r/5)")
	designs := flag.Bool("designs", false, "compare the variance-reduction designs (with the first rule) instead")
	nmin := flag.Uint64("nmin", 30, "n_min of the rule (with -designs: in units)")
	only := flag.String("design", "", "with -designs: only designs whose name contains this (and independent draws)")
	flag.Parse()
	if *designs {
		compareDesigns(strings.Split(*rules, ",")[0], *r, *oracleR, *seed, *nmin, *only, *worlds)
		return
	}

	var ws []lab.World
	if *closed {
		ws = lab.Closed()[min(*skip, len(lab.Closed())):]
	}
	if *prof != "" {
		p, err := profile.ParseFile(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for _, w := range resampled(p, *relEps) {
			if *absEps > 0 {
				w.Eps = *absEps
			}
			ws = append(ws, w)
		}
	}
	oracles := map[string]float64{}
	fmt.Printf("%-18s %-30s %5s %7s %8s %17s %10s %9s %6s  %s\n", "rule", "world", "gamma", "eps", "coverage", "95% CI", "trials", "oracle", "ratio", "states")
	for _, g := range strings.Split(*gammas, ",") {
		var gamma float64
		fmt.Sscan(g, &gamma)
		for _, w := range ws {
			if *worlds != "" && !strings.Contains(w.Name, *worlds) {
				continue
			}
			key := fmt.Sprint(w.Name, gamma)
			for _, rule := range strings.Split(*rules, ",") {
				c := lab.Config{R: *r, Seed: *seed, NMin: *nmin}
				if _, ok := oracles[key]; !ok {
					c.OracleR = *oracleR
				}
				if rule == "freqsys-absolute" || rule == "bernstein" {
					c.R = max(100, *r/5) // ≥ 9,017 trials a replication, or many more
					if *heavy > 0 {
						c.R = *heavy
					}
				}
				res, err := lab.Run(rule, w, gamma, c)
				if err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
				if c.OracleR > 0 {
					oracles[key] = res.Oracle
				}
				res.Oracle = oracles[key]
				var st []string
				for k, v := range res.States {
					st = append(st, fmt.Sprintf("%s %d", k, v))
				}
				sort.Strings(st)
				fmt.Printf("%-18s %-30s %5.3g %7.3g %8.3f [%.3f, %.3f] %10.0f %9.0f %6.2f  %s\n", rule, w.Name, gamma, w.Eps,
					res.Coverage, res.CovLo, res.CovHi, res.MeanTrials, res.Oracle, res.Ratio(), strings.Join(st, ", "))
			}
		}
	}
}

// resampled returns the resampling worlds of the profile's blocks that vary and
// hold exact tables.
func resampled(p *profile.Profile, relEps float64) []lab.World {
	var ws []lab.World
	for fi, fs := range p.Stats {
		fn := p.Program.Funcs[fi]
		for b := range fs {
			d := &fs[b]
			s := d.Summary()
			if s.M2 == 0 || !d.Exact() {
				continue
			}
			w, err := lab.FromCountDist(fn.Name+":"+fn.Blocks[b].Label, d, relEps)
			if err == nil {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// compareDesigns prints, per model, the coverage and trials of the rule under each
// design, the trials it saves against independent draws (a ratio > 1: fewer trials
// at equal coverage), and the ratio to the oracle of independent draws.
func compareDesigns(rule string, r, oracleR int, seed, nmin uint64, only, models string) {
	fmt.Printf("%-36s %-20s %8s %17s %8s %8s %7s %6s\n", "model", "design", "coverage", "95% CI", "trials", "saving", "oracle", "ratio")
	for _, m := range lab.Models() {
		if models != "" && !strings.Contains(m.Name, models) {
			continue
		}
		var base, oracle float64
		for _, g := range lab.Designs() {
			if g.M > 1 && !strings.Contains(g.Name, only) {
				continue
			}
			c := lab.Config{R: r, Seed: seed, NMin: nmin}
			if g.M == 1 {
				c.NMin = 30 // independent draws: the default n_min, in trials
				c.OracleR = oracleR
			}
			res, err := lab.RunDesign(rule, g, m, 0.95, c)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			if base == 0 {
				base, oracle = res.Trials, res.Oracle
			}
			rare := ""
			if res.Rare {
				rare = " (rare)"
			}
			fmt.Printf("%-36s %-20s %8.3f [%.3f, %.3f] %8.0f %7.2fx %7.0f %6.2f%s\n", m.Name, g.Name, res.Coverage, res.CovLo, res.CovHi,
				res.Trials, base/res.Trials, oracle, res.Trials/oracle, rare)
		}
	}
}
