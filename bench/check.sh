#!/bin/sh
# check.sh: how fragprof model check does on changed builds of the examples.
#
# bench/check.sh [PROGRAMS]   (default: matmul brusselator solver)
#
# Per example of examples/predict, three builds with `fragprof cc`, each a copy of
# the source under the same file name with every line where it was (so that the
# checkpoints are the model's):
#   base    the example unchanged;
#   slow    one loop body given about 10% more work: a volatile loop appended to
#           a line of the body (sed below; SLOW_<prog> overrides its length);
#   branch  one branch condition changed (a loop bound, a tolerance).
# In ROUNDS rounds (10), one after the other, each round traces TRAIN (10) base
# trials (seed 1: the training runs), then CHECK (10) base trials and the same
# CHECK trials of the slow build (seed 2: the runs checked) — trace
# --first-rep r, so that the training runs and the runs checked are spread
# over the same minutes of the machine, as in a CI job that traces the base
# commit and the change side by side. Then a model is built from the training
# runs (--holdout 0), and `model check --gamma GAMMA` (0.9) is run on
#   - the base runs: the share flagged is the false-alarm rate (at most 1 − γ);
#   - the slow runs: the share flagged, and the share that names the slowed
#     arc as a time deviation;
#   - BRANCH (10) runs of the branch build: the share that names the changed
#     checkpoint's rule as broken.
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
PROGRAMS=${*:-matmul brusselator solver}
FP=$OUT/fragprof
(cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)

# Per program: its inputs and stdin, the line and text of the slowdown, the
# slowed arc, the changed line (sed), and the checkpoint whose rule it breaks.
setup() {
	case $1 in
	matmul)
		INPUTS='n = uniform_int(60, 160)'; STDIN='{n}\n'
		SLOW_LINE=34; SLOW_WORK="for (volatile long v = 0; v < n / ${SLOW_matmul:-9}; v++) ;"
		SLOW_ARC='row → row'
		BRANCH_SED='28s/i < n;/i < n - 1;/'; BRANCH_NODE=row ;;
	brusselator)
		INPUTS='K = uniform_int(8, 24)'; STDIN='{K}\n'
		SLOW_LINE=47; SLOW_WORK="for (volatile int v = 0; v < ${SLOW_brusselator:-2800}; v++) ;"
		SLOW_ARC='row → row'
		BRANCH_SED='42s/i < K;/i + 1 < K;/'; BRANCH_NODE=row ;;
	solver)
		INPUTS='n = uniform_int(20000, 60000)
w = uniform(0.3, 1.7)'; STDIN='{n} {w:%.17g}\n'
		SLOW_LINE=42; SLOW_WORK="for (volatile long v = 0; v < n / ${SLOW_solver:-10}; v++) ;"
		SLOW_ARC='iter → iter'
		BRANCH_SED='38s/fabs(e) < TOL/fabs(e) < 1e-8/'; BRANCH_NODE=iter ;;
	*) echo "check.sh: no setup for $1" >&2; exit 2 ;;
	esac
}

# trace BUILD SEED TRIALS ROUND DIR
trace() {
	"$FP" trace --binary "$W/$1/$P" --input "$INPUTS" --stdin "$STDIN" --clock thread \
		--seed "$2" --trials "$3" --repeat 1 --first-rep "$4" -o "$W/$5" 2>>"$W/trace.log"
}

# count JSON JQ-FILTER: the runs of a model check report that satisfy the filter.
count() { jq "[.runs[] | select($2)] | length" "$1"; }

echo "| program | training runs | unchanged runs flagged | slowdown | slowed runs flagged | slowed arc named | branch runs with the rule named |"
echo "|---|---|---|---|---|---|---|"
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
		trace base 1 "$TRAIN" $r train
		trace base 2 "$CHECK" $r same
		trace slow 2 "$CHECK" $r slow
		r=$((r + 1))
	done
	[ -n "${REUSE:-}" ] || trace branch 2 "$BRANCH" 0 branch
	"$FP" model build "$W/train" -o "$W/$P.model" --holdout 0 2>"$W/build.log"
	for set in same slow branch; do
		"$FP" model check "$W/$P.model" "$W/$set" --gamma "$GAMMA" --json >"$W/$set.json" || true
	done
	n_same=$(jq '.runs | length' "$W/same.json")
	fa=$(count "$W/same.json" '.deviations | length > 0')
	n_slow=$(jq '.runs | length' "$W/slow.json")
	caught=$(count "$W/slow.json" '.deviations | length > 0')
	from=${SLOW_ARC% → *}; to=${SLOW_ARC#* → }
	named=$(count "$W/slow.json" "any(.deviations[]; .kind == \"time\" and .from == \"$from\" and .to == \"$to\")")
	ratio=$(jq "[.runs[].deviations[] | select(.kind == \"time\" and .from == \"$from\" and .to == \"$to\") | .ratio] | if length > 0 then (add / length * 1000 | round / 1000) else \"–\" end" "$W/slow.json")
	# The slowdown as measured: the median over the slow runs of the slowed
	# arc's time against the model's (model check's ratio), over the same for
	# the unchanged runs.
	arcmed="[.runs[].times[] | select(.from == \"$from\" and .to == \"$to\") | .ratio] | sort | .[length / 2 | floor]"
	slowdown=$(jq -n --slurpfile a "$W/same.json" --slurpfile b "$W/slow.json" "((\$b[0] | $arcmed) / (\$a[0] | $arcmed)) * 1000 | round / 1000")
	n_branch=$(jq '.runs | length' "$W/branch.json")
	rule=$(count "$W/branch.json" "any(.deviations[]; .kind == \"rule\" and .from == \"$BRANCH_NODE\")")
	runs=$(jq .training.runs "$W/$P.model")
	echo "| $P | $runs | $fa/$n_same | ${slowdown}× ($SLOW_ARC) | $caught/$n_slow | $named/$n_slow (mean ratio flagged $ratio) | $rule/$n_branch ($BRANCH_NODE) |"
done
echo
echo "γ = $GAMMA; traces, models and reports in $OUT"
