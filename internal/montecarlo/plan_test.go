package montecarlo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fragprof/fragprof/internal/dist"
	"github.com/fragprof/fragprof/internal/stats"
	"github.com/fragprof/fragprof/internal/stopping"
)

// planRule is the clt rule at ±1 % with no population.
func planRule(t *testing.T) stopping.Rule {
	th := stats.DefaultThresholds
	th.RelEps, th.Eps = 0.01, 0
	r, err := stopping.New("clt", th)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// freeModel returns a model of one continuous input: no finite population.
func freeModel(t *testing.T) *dist.Model {
	m, err := dist.Parse("x = uniform(0, 1)")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// rowsModel returns a model drawing one of n rows without replacement, and
// nothing else at random: a finite population of n.
func rowsModel(t *testing.T, n int) *dist.Model {
	var b strings.Builder
	b.WriteString("v\n")
	for i := range n {
		fmt.Fprintf(&b, "%d\n", i)
	}
	path := filepath.Join(t.TempDir(), "rows.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := dist.Parse(fmt.Sprintf("r = rows(%q)", path))
	if err != nil {
		t.Fatal(err)
	}
	if got := m.FinitePopulation(); got != n {
		t.Fatalf("rows model: a finite population of %d, want %d", got, n)
	}
	return m
}

// TestShardTrialsBelow: a shard's trials below N, by hand: of 13 trials, shard
// 1/3 has 1, 4, 7, 10; in units of 4, shard 0/2 has units 0 and 2 (8 trials) and
// shard 1/2 unit 1 and trial 12 of unit 3 (5).
func TestShardTrialsBelow(t *testing.T) {
	for _, c := range []struct{ n, i, k, m, want uint64 }{
		{13, 1, 3, 1, 4}, {13, 1, 3, 4, 4}, {13, 0, 2, 4, 8}, {13, 1, 2, 4, 5}, {3, 5, 8, 1, 0},
	} {
		if got := shardTrialsBelow(c.n, c.i, c.k, c.m); got != c.want {
			t.Errorf("shardTrialsBelow(%d, %d, %d, %d) = %d, want %d", c.n, c.i, c.k, c.m, got, c.want)
		}
	}
}

// TestPlanConfig: the engine's configuration of each kind of run: a sampling run
// keeps its rule and budget; on a finite population of 100 the rule holds N and
// the budget stops at N, a shard's at its last trial below N (whole units); a
// task's share runs every one of its trials from First, its rule left to the
// coordinator; an exhaustive run runs every member, a shard its own, and a
// shard with none is an *EmptyShardError.
func TestPlanConfig(t *testing.T) {
	rule, free, rows := planRule(t), freeModel(t), rowsModel(t, 100)
	base := Plan{Rule: rule, MaxTrials: 1000, Jobs: 3, MaxFailRate: 0.1, Only: []string{"f"}, Unit: 1}
	for _, c := range []struct {
		name      string
		plan      func(p *Plan)
		maxTrials uint64
		pop       uint64 // the population the rule holds, and Config's second result
		first     uint64
		exhaust   bool
	}{
		{"sampling", func(p *Plan) { p.Model = free }, 1000, 0, 0, false},
		{"finite", func(p *Plan) { p.Model = rows }, 100, 100, 0, false},
		{"finite, small budget", func(p *Plan) { p.Model, p.MaxTrials = rows, 40 }, 40, 100, 0, false},
		{"finite, no budget", func(p *Plan) { p.Model, p.MaxTrials = rows, 0 }, 100, 100, 0, false},
		{"finite shard", func(p *Plan) { p.Model, p.Shard, p.Shards = rows, 1, 3 }, 33, 100, 0, false},
		{"finite shard of units", func(p *Plan) { p.Model, p.Shard, p.Shards, p.Unit = rows, 1, 2, 16 }, 48, 100, 0, false},
		{"task share", func(p *Plan) { p.Model, p.First, p.Share, p.Shard, p.Shards = rows, 64, 7, 1, 4 }, 7, 0, 64, true},
		{"exhaustive", func(p *Plan) { p.Model, p.Members, p.MaxTrials = rows, 100, 1_000_000 }, 100, 100, 0, true},
		{"exhaustive shard", func(p *Plan) { p.Model, p.Members, p.Shard, p.Shards = rows, 100, 3, 8 }, 13, 100, 0, true},
	} {
		p := base
		c.plan(&p)
		cfg, pop, err := p.Config(nil)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if cfg.MaxTrials != c.maxTrials || pop != c.pop || cfg.Rule.Thresholds().Population != c.pop || cfg.First != c.first || cfg.Exhaust != c.exhaust {
			t.Errorf("%s: budget %d, population %d (rule's %d), first %d, exhaust %v; want %d, %d, %d, %v",
				c.name, cfg.MaxTrials, pop, cfg.Rule.Thresholds().Population, cfg.First, cfg.Exhaust, c.maxTrials, c.pop, c.first, c.exhaust)
		}
		if cfg.Jobs != 3 || cfg.MaxFailRate != 0.1 || fmt.Sprint(cfg.Only) != "[f]" || cfg.Unit != uint64(p.Unit) ||
			cfg.Shard != p.Shard || cfg.Shards != p.Shards || cfg.Rule.Name() != "clt" || cfg.Strata != nil {
			t.Errorf("%s: settings not passed on: %+v", c.name, cfg)
		}
	}
	p := base
	p.Model, p.Members, p.Shard, p.Shards = rows, 100, 100, 128
	_, _, err := p.Config(nil)
	want := "--exhaustive --shard 100/128: the population's 100 members leave this shard none"
	if es := (*EmptyShardError)(nil); !errors.As(err, &es) || err.Error() != want {
		t.Errorf("exhaustive shard past N: %v, want %s", err, want)
	}
}

// TestPlanConfigStrata: a stratified population's schedule draws the trials and
// the stratified rule judges them, each stratum finite (the rows are the only
// thing drawn); a task keeps the schedule but leaves the judging to its
// coordinator; with Latin hypercube units the units judge, and the schedule is
// not the engine's.
func TestPlanConfigStrata(t *testing.T) {
	m, _ := strataModel(t, "proportional")
	base := Plan{Rule: planRule(t), MaxTrials: 1000, Jobs: 1, Unit: 1, Model: m, Strata: m.Strata()}
	cfg, pop, err := base.Config(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Strata != base.Strata.Schedule || cfg.StrataRule == nil || cfg.StrataRule.Infinite || pop != 166 || cfg.MaxTrials != 166 {
		t.Errorf("whole run: strata %v, rule %v, population %d, budget %d", cfg.Strata, cfg.StrataRule, pop, cfg.MaxTrials)
	}
	task := base
	task.First, task.Share = 32, 16
	if cfg, _, err = task.Config(nil); err != nil || cfg.Strata != base.Strata.Schedule || cfg.StrataRule != nil {
		t.Errorf("task: strata %v, rule %v, %v", cfg.Strata, cfg.StrataRule, err)
	}
	units := base
	units.Unit = 16
	if cfg, _, err = units.Config(nil); err != nil || cfg.Strata != nil || cfg.StrataRule != nil || cfg.Unit != 16 {
		t.Errorf("units: strata %v, rule %v, unit %d, %v", cfg.Strata, cfg.StrataRule, cfg.Unit, err)
	}
}

// TestPlanCoordinator: a cluster's coordinator judges a finite population with
// its size in the rule and a budget of at most N; an exhaustive run's budget is
// its members; a sampling run keeps its rule and budget.
func TestPlanCoordinator(t *testing.T) {
	rule, free, rows := planRule(t), freeModel(t), rowsModel(t, 50)
	for _, c := range []struct {
		name           string
		plan           Plan
		maxTrials, pop uint64
	}{
		{"sampling", Plan{Rule: rule, MaxTrials: 1000, Model: free}, 1000, 0},
		{"finite", Plan{Rule: rule, MaxTrials: 1000, Model: rows}, 50, 50},
		{"finite, small budget", Plan{Rule: rule, MaxTrials: 20, Model: rows}, 20, 50},
		{"exhaustive", Plan{Rule: rule, MaxTrials: 20, Model: rows, Members: 50}, 50, 50},
	} {
		r, n, err := c.plan.Coordinator()
		if err != nil || n != c.maxTrials || r.Thresholds().Population != c.pop || r.Name() != "clt" {
			t.Errorf("%s: budget %d, population %d, %v; want %d, %d", c.name, n, r.Thresholds().Population, err, c.maxTrials, c.pop)
		}
	}
}

// TestPlanSettle: the result of a plan's run gets the strata's names and sizes,
// and a shard's end says the rule judged it alone.
func TestPlanSettle(t *testing.T) {
	m, _ := strataModel(t, "proportional")
	p := Plan{Strata: m.Strata()}
	res := &Result{Stopped: "every block decided"}
	p.Settle(res, Config{Shard: 1, Shards: 2}, 0, false)
	if fmt.Sprint(res.StrataNames, res.StrataSizes) != "[class = small class = mid class = rare] [120 40 6]" ||
		res.Stopped != "shard 1/2: every block decided (the stopping rule judged this shard alone)" {
		t.Errorf("settled: %v %v, %q", res.StrataNames, res.StrataSizes, res.Stopped)
	}
}

// TestPrepareStrata: the pilot is the stratified rule's, whatever it was; Neyman's allocation
// refuses a run spread over machines and Latin hypercube units asked for, and
// leaves units not asked for; proportional allocation keeps units asked for, but
// on a finite population leaves the default's.
func TestPrepareStrata(t *testing.T) {
	for _, c := range []struct {
		alloc       string
		unit        int
		designGiven bool
		spread      string
		want        int
		err         string
	}{
		{"neyman", 16, false, "", 1, ""},
		{"neyman", 1, true, "", 1, ""},
		{"neyman", 1, false, "--shard", 0, "input r: alloc = neyman plans each round of trials from the counts of all the trials before it, which one machine holds: not with --shard ("},
		{"neyman", 16, false, "--engine slurm", 0, "not with --engine slurm ("},
		{"neyman", 8, true, "", 0, "--design latin:8 and input r's alloc = neyman: the units are judged on their sums"},
		{"proportional", 16, false, "", 1, ""},
		{"proportional", 8, true, "", 8, ""},
		{"proportional", 1, false, "--trial-range", 1, ""},
	} {
		m, _ := strataModel(t, c.alloc)
		st := m.Strata()
		st.Schedule.SetPilot(3) // PrepareStrata sets the stratified rule's
		unit, err := PrepareStrata(st, m, c.unit, fmt.Sprintf("latin:%d", c.unit), c.designGiven, c.spread)
		name := fmt.Sprintf("%s unit %d given %v spread %q", c.alloc, c.unit, c.designGiven, c.spread)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want an error with %q", name, err, c.err)
		case c.err == "" && (err != nil || unit != c.want):
			t.Errorf("%s: unit %d, %v; want %d", name, unit, err, c.want)
		}
		pilot := min(120, stopping.PilotDraws) + min(40, stopping.PilotDraws) + min(6, stopping.PilotDraws)
		if got := st.Schedule.RoundStart(1); got != uint64(pilot) {
			t.Errorf("%s: the pilot ends at trial %d, want %d", name, got, pilot)
		}
	}
}

// TestNameItems: the first n failures' reasons name the population item their
// trial drew (its row), the others are left as they are, and without a
// population nothing is added.
func TestNameItems(t *testing.T) {
	rows := rowsModel(t, 10)
	fails := []Failure{{Trial: 2, Reason: "crashed"}, {Trial: 5, Reason: "timed out"}, {Trial: 7, Reason: "exit 1"}}
	p := &Program{Inputs: &dist.File{Model: rows}}
	p.NameItems(fails, 2)
	for k, f := range fails[:2] {
		in, err := p.TrialInputs(f.Trial)
		if err != nil || in.Items == "" {
			t.Fatalf("trial %d: items %q, %v", f.Trial, in.Items, err)
		}
		if want := []string{"crashed", "timed out"}[k] + " [" + in.Items + "]"; f.Reason != want {
			t.Errorf("failure %d: %q, want %q", k, f.Reason, want)
		}
	}
	if fails[2].Reason != "exit 1" {
		t.Errorf("failure past n: %q", fails[2].Reason)
	}
	free := freeModel(t)
	other := []Failure{{Trial: 1, Reason: "crashed"}}
	(&Program{Inputs: &dist.File{Model: free}}).NameItems(other, 10)
	if other[0].Reason != "crashed" {
		t.Errorf("no population: %q", other[0].Reason)
	}
}

// TestDesignUnit: the design's unit; the default's units only where they apply
// (not for the FreqSys rules, the time-uniform rules or a cluster's trials);
// units asked for where they do not apply, and designs that do not parse, are
// refused with the reason.
func TestDesignUnit(t *testing.T) {
	for _, c := range []struct {
		design  string
		given   bool
		rule    string
		cluster bool
		want    int
		err     string
	}{
		{"latin", false, "clt", false, 16, ""},
		{"latin:8", true, "clt", false, 8, ""},
		{"latin:4096", true, "clt", false, 4096, ""},
		{"independent", true, "clt", false, 1, ""},
		{"latin", false, "anytime", false, 1, ""},
		{"latin", false, "bernstein", false, 1, ""},
		{"latin", true, "anytime", false, 16, ""},
		{"latin", false, "freqsys-signed", false, 1, ""},
		{"latin", false, "clt", true, 1, ""},
		{"independent", true, "freqsys-absolute", true, 1, ""},
		{"latin", true, "freqsys-absolute", false, 0, "--design latin: the FreqSys rules reproduce the paper, whose trials are independent"},
		{"latin:4", true, "clt", true, 0, "--design latin:4 runs on --engine local only: a cluster's rounds merge per-trial distributions, not the units' sums"},
		{"latin:1", true, "clt", false, 0, `--design "latin:1": want latin:M with a unit of 2 ≤ M ≤ 4096 trials, e.g. latin:16`},
		{"latin:4097", true, "clt", false, 0, `--design "latin:4097": want latin:M`},
		{"lhs", true, "clt", false, 0, `--design "lhs": want independent, latin or latin:M`},
	} {
		unit, err := DesignUnit(c.design, c.given, c.rule, c.cluster)
		name := fmt.Sprintf("%s given %v rule %s cluster %v", c.design, c.given, c.rule, c.cluster)
		switch {
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s: %v, want an error %q", name, err, c.err)
		case c.err == "" && (err != nil || unit != c.want):
			t.Errorf("%s: unit %d, %v; want %d", name, unit, err, c.want)
		}
	}
}
