#!/bin/sh
# metalayer.sh: what asking a model in the program is for, measured
# (docs/predict.md, "In the program", "What it is for, measured").
#
# bench/metalayer.sh [CALLS [REPS [KMAX]]]   (CALLS 24, REPS 3, KMAX 800)
#   Traces examples/predict/brusselator.c (K ∈ {1, 2, 3, 4, 6, 8, 16, 32}, 24
#   trials, thread CPU time), builds its model and compiles it into two programs:
#   - bench/metalayer/query_cost.c: the cost of a query (one transition, the
#     region row → end, Amdahl's decision) at K = 1, 100 and 800, the model
#     compiled in and loaded from its .fpm, against a plain function call in
#     the same run;
#   - examples/predict/brusselator_threads.c: CALLS sweeps of the grid, K from 1
#     to KMAX (seed 1), each run serially, on 2 threads and as the model says
#     (fp_model_amdahl_now: P(2) the expected start cost under the load now),
#     REPS times interleaved; the totals against the oracle (the faster of
#     serial and parallel for each sweep), and the model's choices timed by
#     the same sweeps' measurements (model_paired).
#   FRAGPROF (./fragprof) is the binary used, CC (cc) the compiler.
set -eu
CALLS=${1:-24}
REPS=${2:-3}
KMAX=${3:-800}
FP=${FRAGPROF:-./fragprof}
CC=${CC:-cc}
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
echo "== the cost of a query"
for K in 1 100 800; do
	echo "K = $K"
	"$OUT/query_cost" "$OUT/bru.fpm" "$K" 2000
done
echo "== the Brusselator on 2 threads or not, as the model says"
"$OUT/brusselator_threads" "$CALLS" 1 "$REPS" "$KMAX"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
