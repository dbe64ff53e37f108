#!/bin/sh
# choice.sh: choosing an algorithm from a predicted state variable, measured
# (docs/predict.md, "What it is for, measured").
#
# bench/choice.sh [CASES [REPS [SEED]]]   (CASES 30, REPS 9, SEED 1)
#   Traces examples/predict/search_choice.c (90 runs: 45 inputs, n from 2000 to
#   200000, binary or interpolation search, each run twice with keys of three
#   families drawn anew from the seed s, a nuisance input the model leaves out:
#   the choosing program does not know it; thread CPU time), builds its model, compiles it into the program
#   and runs `search_choice choose CASES SEED REPS`: CASES new data sets, each
#   searched by binary search, by interpolation search and as the model's
#   predicted probes say, REPS times interleaved (each way's minimum); the totals against the
#   oracle (the faster search per data set, both measured).
#   FRAGPROF (./fragprof) is the binary used, CC (cc) the compiler.
set -eu
CASES=${1:-30}
REPS=${2:-9}
SEED=${3:-1}
FP=${FRAGPROF:-./fragprof}
CC=${CC:-cc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$FP" trace examples/predict/search_choice.c --input 'n = choice(2000, 5000, 10000, 20000, 50000, 100000, 200000)' \
	--input 's = uniform_int(1, 1000000)' --input 'alg = choice(0, 1)' --stdin '{n} {s} {alg}\n' \
	--trials 45 --repeat 2 --vary s --clock thread -o "$OUT/traces" 2>/dev/null
"$FP" model build "$OUT/traces" -o "$OUT/search.model" 2>/dev/null
"$FP" model compile "$OUT/search.model" -o "$OUT/search_model.c" --name search 2>/dev/null
"$FP" model lib -d "$OUT/fpmodel" 2>/dev/null
"$CC" -O2 -I "$OUT/fpmodel" -I runtime/c examples/predict/search_choice.c "$OUT/search_model.c" \
	"$OUT/fpmodel/libfragprof_model.a" -lm -pthread -o "$OUT/search"
echo "== binary or interpolation search, as the model's predicted probes say"
"$FP" model show "$OUT/search.model" | grep -A1 -E '^  (binary|interp) → (binary|interp)_half' | grep 'probes :='
"$OUT/search" choose "$CASES" "$SEED" "$REPS"
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
