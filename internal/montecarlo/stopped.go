// This file words the end of a run for its report: what it means for the estimates
// of a shard, of an exhaustive run and of a finite population.

package montecarlo

import "fmt"

// Explain rewrites r.Stopped, why the run of cfg ended, to say what the end means
// for the estimates, first case that applies:
//   - a shard (cfg.Shards > 1) of an exhaustive run over a population of members
//     items (members > 0), not interrupted: which of the members it ran (its
//     cfg.MaxTrials trials Shard, Shard+Shards, ... below members), and that the
//     shards' profiles merged are the exact answer;
//   - any other shard: that the stopping rule judged it alone;
//   - a run over a finite population of population items (> 0) that drew each
//     once and decided every block: the estimates are exact;
//   - such a run in which some trials failed: they are not.
//
// Otherwise r.Stopped is left as it is.
func (r *Result) Explain(cfg Config, members, population uint64, interrupted bool) {
	shard, shards, pop := cfg.Shard, cfg.Shards, population
	switch {
	case members > 0 && shards > 1 && !interrupted:
		r.Stopped = fmt.Sprintf("shard %d/%d of an exhaustive run: %d of the population's %d members (trials %d, %d, ... below %d); the %d shards' profiles merged are the exact answer",
			shard, shards, cfg.MaxTrials, members, shard, shard+shards, members, shards)
	case shards > 1:
		r.Stopped = fmt.Sprintf("shard %d/%d: %s (the stopping rule judged this shard alone)", shard, shards, r.Stopped)
	case pop > 0 && r.Trials == pop && r.Converged:
		what := "every block decided"
		if members > 0 {
			what = "exhaustive run"
		}
		r.Stopped = fmt.Sprintf("%s: each of the population's %d items drawn once, the estimates are exact", what, pop)
	case pop > 0 && len(r.Failures) > 0 && uint64(len(r.Failures))+r.Trials >= pop:
		r.Stopped = fmt.Sprintf("each of the population's %d items drawn once, but %d trials failed: the estimates are of the others, not exact", pop, len(r.Failures))
	}
}
