#!/bin/sh
# metalayer.sh: what asking a model in the program is for, measured
# (docs/predict.md, "In the program", "What it is for, measured").
#
# bench/metalayer.sh [query|threads] [CELLS [REPS [KMAX]]]   (CELLS 1000000, REPS 3, KMAX 800)
#   Traces examples/predict/brusselator.c (K ∈ {1, 2, 3, 4, 6, 8, 16, 32}, 24
#   trials, thread CPU time), builds its model and compiles it into two programs
#   (both by default; "query" or "threads" runs one):
#   - bench/metalayer/query_cost.c: the cost of a query (one transition, the
#     region row → end, Amdahl's decision) at K = 1, 100 and 800, the model
#     compiled in and loaded from its .fpm, against a plain function call in
#     the same run;
#   - examples/predict/brusselator_threads.c: a mix of sweeps of the grid, K
#     from 1 to KMAX, each decade of K about CELLS cells (ΣK²) and so about the
#     same time — many small sweeps, few large — seed 1, each run serially, on 2
#     threads and as fp_model_chooser says (the program's own measured times
#     per octave of the model's time; the choice's and the record's time
#     counted), REPS times interleaved; the totals against the oracle (the
#     faster of serial and parallel for each sweep), by decade of K and in all,
#     and the model's choices timed by the same sweeps' measurements
#     (model_paired). About 5 minutes on a quiet 2-core machine with the
#     defaults (the sweeps about 4, each decade about 9 s serially).
#   FRAGPROF (./fragprof) is the binary used, CC (cc) the compiler.
set -eu
PART=all
case "${1:-}" in
query | threads) PART=$1 && shift ;;
esac
CELLS=${1:-1000000}
REPS=${2:-3}
KMAX=${3:-800}
FP=${FRAGPROF:-./fragprof}
CC=${CC:-cc}
if ! [ -x "$FP" ]; then
	echo "metalayer.sh: no fragprof at $FP: run 'make build' first or set FRAGPROF" >&2
	exit 2
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$FP" trace examples/predict/brusselator.c --input 'K = choice(1,2,3,4,6,8,16,32)' --stdin '{K}\n' \
	--trials 24 --clock thread -o "$OUT/traces" 2>/dev/null
"$FP" model build "$OUT/traces" -o "$OUT/bru.model" 2>/dev/null
"$FP" model compile "$OUT/bru.model" -o "$OUT/bru_model.c" --name bru 2>/dev/null
"$FP" model compile "$OUT/bru.model" -o "$OUT/bru.fpm" 2>/dev/null
"$FP" model lib -d "$OUT/fpmodel" 2>/dev/null
for prog in bench/metalayer/query_cost.c examples/predict/brusselator_threads.c; do
	"$CC" -O2 -I "$OUT/fpmodel" "$prog" "$OUT/bru_model.c" "$OUT/fpmodel/libfragprof_model.a" -lm -pthread \
		-o "$OUT/$(basename "$prog" .c)"
done
if [ "$PART" != threads ]; then
	echo "== the cost of a query"
	for K in 1 100 800; do
		echo "K = $K"
		"$OUT/query_cost" "$OUT/bru.fpm" "$K" 2000
	done
fi
if [ "$PART" != query ]; then
	echo "== the Brusselator on 2 threads or not, as the model's chooser says"
	"$OUT/brusselator_threads" "$CELLS" 1 "$REPS" "$KMAX"
fi
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
