#!/bin/sh
# check.sh: how fragprof model check does on changed builds of the examples.
#
# bench/check.sh [PROGRAMS]   (default: heat kmeans frames matmul brusselator solver)
#
# Per example of examples/predict, three builds with `fragprof cc`, each a copy of
# the source under the same file name with every line where it was (so that the
# checkpoints are the model's):
#   base    the example unchanged;
#   slow    one loop body given 10% more time: a chain of dependent
#           multiply-adds on a volatile double appended to a line of the
#           body (sed below), its length proportional to the body's work
#           (n², n, W², n², K multiply-adds over a divisor, or K times a
#           factor, per program; SLOW_<prog> overrides it). The slowed arc is
#           the loop body: one iteration of matmul's and brusselator's row
#           loop (the chain after the row's inner loop), of solver's
#           iteration, or one phase of heat's, kmeans' and frames' time-step
#           loop (the sweep, the assignment, the edge filter: the chain after
#           the phase's loop nest). The defaults aim the slowed arc's time
#           at 1.10× the base build's at the median over pairs of runs at the
#           same inputs (thread clock, loaded 2-core AMD EPYC VM: each set
#           from the pairs of two calibration runs and one bench run, pooled;
#           at a load of 11–17 one run's median moves by about ±0.03), and every
#           run of the bench measures it again (bench/arcratio: the median of
#           the slowed arc's time in a slow run over the same arc's in the
#           base run of the same trial and round, with its quartiles and the
#           arc's share of the run) and marks it when outside 1.10 ± 0.02;
#   branch  one branch condition changed (a loop bound, a tolerance).
# heat, kmeans and frames spend their time in two or three phases of a loop, each
# between its own checkpoints, and the slowed one is one of them; matmul,
# brusselator and solver spend 94–99% of theirs on one arc, which model check
# can only test alone.
# In ROUNDS rounds (10), one after the other, each round traces TRAIN (10) base
# trials (seed 1: the training runs), CHECK (10) base trials and the same
# CHECK trials of the slow build (seed CHECK_SEED, 2: the runs checked, at
# other inputs than the training runs; CHECK_SEED=1 checks at the training
# runs' inputs, as a CI job that traces base and change alike would, where
# model check's point test takes over) — trace --first i --trials 1
# --first-rep r, trial by trial: trial i of the three sets one after the
# other, in an order that turns with i and r, so that the training runs and
# the runs checked see the same states of the machine, as in a CI job that
# traces the base commit and the change side by side (a load that rises
# between a round's training runs and its runs checked otherwise makes them
# not exchangeable, and the false alarms exceed 1 − γ). Then a model is built from the training
# runs (--holdout 0), and `model check --gamma GAMMA` (0.9) is run on
#   - the base runs: the share flagged is the false-alarm rate (at most 1 − γ;
#     with the binomial tail of that count at rate 1 − γ, bench/binomtail);
#   - the slow runs: the share flagged, the share that names the slowed arc as
#     a time deviation (slower), and the share that names another arc's time;
#   - BRANCH (10) runs of the branch build: the share that names the changed
#     checkpoint's rule as broken.
# Each "new / alone" pair puts the time test of model check (each arc against
# the rest of its run, where it has one) beside the test of each arc's time
# alone against the training runs' (its p-value alone_p, at (1 − γ)/k over the
# k arcs), on the same runs and the same model: the peer.
# --clock thread throughout. Prints Markdown; the traces and reports stay in $OUT.
# REUSE=1 OUT=DIR builds the models and checks again from the traces a run
# left in DIR (the builds are redone, the traces kept): a change to model
# build or check measured on the same runs.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fragprof-bench-check.XXXXXX")}
ROUNDS=${ROUNDS:-10}
TRAIN=${TRAIN:-10}
CHECK=${CHECK:-10}
BRANCH=${BRANCH:-10}
GAMMA=${GAMMA:-0.9}
CHECK_SEED=${CHECK_SEED:-2}
PROGRAMS=${*:-heat kmeans frames matmul brusselator solver}
FP=$OUT/fragprof
(cd "$ROOT" && go build -o "$FP" ./cmd/fragprof && go build -o "$OUT/arcratio" ./bench/arcratio && go build -o "$OUT/binomtail" ./bench/binomtail)

# chain N: the C statement of the slowdown, N steps of a dependent chain.
chain() { echo "{ volatile double z = 1; for (long q = 0; q < $1; q++) z = z * 0.999 + 0.001; }"; }

# Per program: its inputs and stdin, the line and text of the slowdown, the
# slowed arc, the changed line (sed), and the checkpoint whose rule it breaks.
setup() {
	case $1 in
	heat)
		INPUTS='n = uniform_int(40, 100)
T = uniform_int(20, 60)'; STDIN='{n} {T}\n'
		SLOW_LINE=36; SLOW_WORK=$(chain "n * n / ${SLOW_heat:-40}")
		SLOW_ARC='sweep → residual'
		BRANCH_SED='31s/t < T;/t + 1 < T;/'; BRANCH_NODE=residual ;;
	kmeans)
		INPUTS='n = uniform_int(2000, 6000)
T = uniform_int(10, 30)
s = uniform_int(1, 1000000)'; STDIN='{n} {T} {s}\n'
		SLOW_LINE=55; SLOW_WORK=$(chain "n / ${SLOW_kmeans:-14}")
		SLOW_ARC='assign → update'
		BRANCH_SED='44s/t < T;/t + 1 < T;/'; BRANCH_NODE=update ;;
	frames)
		INPUTS='W = uniform_int(48, 128)
F = uniform_int(8, 24)'; STDIN='{W} {F}\n'
		SLOW_LINE=52; SLOW_WORK=$(chain "W * W / ${SLOW_frames:-17}")
		SLOW_ARC='edges → histogram'
		BRANCH_SED='32s/f < F;/f + 1 < F;/'; BRANCH_NODE=histogram ;;
	matmul)
		INPUTS='n = uniform_int(60, 160)'; STDIN='{n}\n'
		SLOW_LINE=35; SLOW_WORK=$(chain "n * n / ${SLOW_matmul:-64}")
		SLOW_ARC='row → row'
		BRANCH_SED='28s/i < n;/i < n - 1;/'; BRANCH_NODE=row ;;
	brusselator)
		INPUTS='K = uniform_int(8, 24)'; STDIN='{K}\n'
		SLOW_LINE=48; SLOW_WORK=$(chain "K * ${SLOW_brusselator:-275}")
		SLOW_ARC='row → row'
		BRANCH_SED='42s/i < K;/i + 1 < K;/'; BRANCH_NODE=row ;;
	solver)
		INPUTS='n = uniform_int(20000, 60000)
w = uniform(0.3, 1.7)'; STDIN='{n} {w:%.17g}\n'
		SLOW_LINE=42; SLOW_WORK=$(chain "n / ${SLOW_solver:-125}")
		SLOW_ARC='iter → iter'
		BRANCH_SED='38s/fabs(e) < TOL/fabs(e) < 1e-8/'; BRANCH_NODE=iter ;;
	*) echo "check.sh: no setup for $1" >&2; exit 2 ;;
	esac
}

# trace BUILD SEED FIRST TRIALS ROUND DIR
trace() {
	"$FP" trace --binary "$W/$1/$P" --input "$INPUTS" --stdin "$STDIN" --clock thread \
		--seed "$2" --first "$3" --trials "$4" --repeat 1 --first-rep "$5" -o "$W/$6" 2>>"$W/trace.log"
}

# count JSON JQ-FILTER: the runs of a model check report that satisfy the filter.
count() { jq "[.runs[] | select($2)] | length" "$1"; }

# The jq definitions over a model check report: oldflag(a) says whether a time
# entry is flagged by the test of the arc alone at level a; old(γ) whether the
# run is flagged by that test (or by a transition, rule or run deviation).
JQDEF='def a1(g): (1 - g) / ([.times[]] | length);
def oldflag(a): (if .relative then .alone_p else .p end) <= a;
def old(g): a1(g) as $a | any(.deviations[]; .kind != "time" and .kind != "speed") or any(.times[]; oldflag($a));'

# count JSON JQ-FILTER: the runs of a model check report that satisfy the filter.
count() { jq "$JQDEF [.runs[] | select($2)] | length" "$1"; }

echo "| program | arcs timed: against the rest / alone | training runs | slowed arc's time: slow / base, median [quartiles], its share of the run | slowdown as model check measures it | unchanged runs flagged: new / alone (P(≥ new) at rate 1 − γ) | slowed runs flagged: new / alone | slowed arc named: new / alone | another arc named (slowed runs) | branch runs with the rule named |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for P in $PROGRAMS; do
	setup "$P"
	W=$OUT/$P
	[ -n "${REUSE:-}" ] || rm -rf "$W"
	mkdir -p "$W/base" "$W/slow" "$W/branch"
	src=$ROOT/examples/predict/$P.c
	cp "$src" "$W/base/$P.c"
	sed "${SLOW_LINE}s|\$| $SLOW_WORK|" "$src" >"$W/slow/$P.c"
	sed "$BRANCH_SED" "$src" >"$W/branch/$P.c"
	for b in base slow branch; do
		if cmp -s "$W/$b/$P.c" "$W/base/$P.c" && [ $b != base ]; then
			echo "check.sh: $P: the $b edit changed nothing" >&2; exit 1
		fi
		[ -n "${REUSE:-}" ] || (cd "$W/$b" && "$FP" cc -O2 "$P.c" -o "$P" -lm)
	done
	r=0
	[ -n "${REUSE:-}" ] && r=$ROUNDS
	while [ $r -lt "$ROUNDS" ]; do
		i=0
		while [ $i -lt "$TRAIN" ] || [ $i -lt "$CHECK" ]; do
			for k in 0 1 2; do
				case $(((r + i + k) % 3)) in
				0) [ $i -ge "$TRAIN" ] || trace base 1 $i 1 $r train ;;
				1) [ $i -ge "$CHECK" ] || trace base "$CHECK_SEED" $i 1 $r same ;;
				*) [ $i -ge "$CHECK" ] || trace slow "$CHECK_SEED" $i 1 $r slow ;;
				esac
			done
			i=$((i + 1))
		done
		r=$((r + 1))
	done
	[ -n "${REUSE:-}" ] || trace branch 2 0 "$BRANCH" 0 branch
	"$FP" model build "$W/train" -o "$W/$P.model" --holdout 0 2>"$W/build.log"
	for set in same slow branch; do
		"$FP" model check "$W/$P.model" "$W/$set" --gamma "$GAMMA" --json >"$W/$set.json" || true
	done
	from=${SLOW_ARC% → *}; to=${SLOW_ARC#* → }
	arc=".from == \"$from\" and .to == \"$to\""
	n_same=$(jq '.runs | length' "$W/same.json")
	fa=$(count "$W/same.json" '.deviations | length > 0')
	fa_old=$(count "$W/same.json" "old($GAMMA)")
	n_slow=$(jq '.runs | length' "$W/slow.json")
	caught=$(count "$W/slow.json" '.deviations | length > 0')
	caught_old=$(count "$W/slow.json" "old($GAMMA)")
	named=$(count "$W/slow.json" "any(.deviations[]; .kind == \"time\" and $arc and .ratio > 1)")
	named_old=$(count "$W/slow.json" "a1($GAMMA) as \$a | any(.times[]; $arc and oldflag(\$a) and (if .relative then .alone else .ratio end) > 1)")
	other=$(count "$W/slow.json" "any(.deviations[]; .kind == \"time\" and ($arc | not))")
	rel=$(jq "[.runs[0].times[] | select(.relative)] | length" "$W/same.json")
	alone=$(jq "[.runs[0].times[] | select(.relative | not)] | length" "$W/same.json")
	# The slowdown as measured: the median over the slow runs of the slowed
	# arc's ratio (against the rest of the run where it is so tested), over
	# the same for the unchanged runs. At the training runs' inputs
	# (CHECK_SEED=1) the ratio is the point test's, against the nearest
	# training runs at the same inputs, which a speed state of the machine
	# can absorb: the formula's, of the commit before the point test, is
	# the slowdown.
	arcmed="[.runs[].times[] | select($arc) | .ratio] | sort | .[length / 2 | floor]"
	slowdown=$(jq -n --slurpfile a "$W/same.json" --slurpfile b "$W/slow.json" "((\$b[0] | $arcmed) / (\$a[0] | $arcmed)) * 1000 | round / 1000")
	# The slowdown planted, measured where it was planted: the median over
	# the pairs of runs at the same inputs (same trial, same round) of the
	# slowed arc's time in the slow build over the base build's
	# (bench/arcratio), with its quartiles; outside 1.10 ± 0.02 it is marked.
	set -- $("$OUT/arcratio" -arc "$SLOW_ARC" "$W/same" "$W/slow")
	planted="$1× [$2, $3], share $5"
	awk -v r="$1" 'BEGIN { exit !(r < 1.08 || r > 1.12) }' && planted="$planted, **not 1.10 ± 0.02**"
	n_branch=$(jq '.runs | length' "$W/branch.json")
	rule=$(count "$W/branch.json" "any(.deviations[]; .kind == \"rule\" and .from == \"$BRANCH_NODE\")")
	runs=$(jq .training.runs "$W/$P.model")
	# The false alarms against the promise, at most 1 − γ: the exact binomial
	# tail P(X ≥ fa), X ~ Binomial(n, 1 − γ) (bench/binomtail). A valid level
	# exceeds n·(1 − γ) alarms in about half of all runs of the bench; a tail
	# under 0.05 is evidence that the rate itself is above 1 − γ, and is marked.
	set -- $("$OUT/binomtail" "$fa" "$n_same" "$(awk -v g="$GAMMA" 'BEGIN { print 1 - g }')")
	tail="p = $1"
	awk -v p="$1" 'BEGIN { exit !(p < 0.05) }' && tail="$tail, **above 1 − γ**"
	echo "| $P | $rel / $alone | $runs | $planted | ${slowdown}× ($SLOW_ARC) | $fa / $fa_old of $n_same ($tail) | $caught / $caught_old of $n_slow | $named / $named_old of $n_slow | $other | $rule/$n_branch ($BRANCH_NODE) |"
done
echo
echo "γ = $GAMMA; traces, models and reports in $OUT"
