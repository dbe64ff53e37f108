// Package stats holds the statistics behind fragprof's estimates: how often a block
// runs (the FreqSys Monte Carlo method) and how long a fragment takes (the timing
// guide's measurement protocol); docs/methods.md cites both.
//
// Frequencies. A block's per-trial execution counts are accumulated exactly in a
// [CountDist] (a sorted value→frequency table that coarsens, deterministically and
// with exact integer sums, into log-linear buckets when a block takes too many
// distinct values). Its [CountDist.Summary] gives n, the mean, the central sums M2 and
// M3 and the absolute third central sum Σ|x−μ|³ that the Berry–Esseen check needs.
// Because the accumulated state is exact and canonical, merging shards in any order
// and any grouping gives bit-for-bit the same state, hence the same Summary, as one
// stream. The stopping rules of package stopping (FreqSys's among them) read a Summary
// under [Thresholds] and give a [Decision]: whether the block is [Converged],
// [Constant], [Inadequate] or still [Unconverged], with the trial counts each
// condition needs. [Moments] is the general floating-point
// accumulator (Welford/Pébay) for data that are not counts.
//
// Times. [SummarizeTimes] runs the timing guide's protocol on repeated measurements:
// drop warm-up ([DropWarmup]), cut the preemption tail ([CutTail]), mean, standard
// deviation and standard error, a Shapiro–Wilk normality test ([ShapiroWilk]), the
// confidence interval of the mean ([MeanInterval], Student's t below 30 samples and
// the normal quantile from 30 on, see [Coefficient]) or the guide's range half-width
// when the data are not normal ([RangeHalfWidth]), the median with a distribution-free
// interval ([MedianInterval]), a Sturges histogram ([NewHistogram]) and the sample
// size for a requested relative error ([SampleSizeMean]).
//
// Results follow golang.org/x/perf/benchmath: an [Interval] carries the confidence it
// actually reached and its warnings; thin data is a warning, not a failure.
// Quantiles and distributions come from gonum.org/v1/gonum/stat/distuv.
package stats
