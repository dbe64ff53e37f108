#!/bin/sh
# jacobi.sh: replacing exchanged data by the model's extrapolation, measured
# (docs/predict.md, "What it is for, measured").
#
# bench/jacobi.sh [H [W [S [REPS]]]]   (40, 200, 500, 7)
#   Traces examples/predict/jacobi_blocks.c (30 runs: H ∈ [16, 48], W ∈ [64,
#   256], S ∈ [200, 600], every exchange made, thread CPU time), builds its
#   model, compiles it into the program and runs `jacobi_blocks compare H W S
#   REPS 0 16 8 4 2`: the 2H × W grid in two blocks (two threads, rows
#   exchanged through pipes) with every k-th exchange replaced by the model's
#   extrapolation and, as the peer, by the last row received; each final field
#   against the serial run of the whole grid, each time (median of REPS,
#   interleaved) against the run with every exchange made.
#   FRAGPROF (./fragprof) is the binary used, CC (cc) the compiler.
set -eu
H=${1:-40}
W=${2:-200}
S=${3:-500}
REPS=${4:-7}
FP=${FRAGPROF:-./fragprof}
CC=${CC:-cc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$FP" trace examples/predict/jacobi_blocks.c --input 'H = uniform_int(16, 48)' --input 'W = uniform_int(64, 256)' \
	--input 'S = uniform_int(200, 600)' --stdin '{H} {W} {S}\n' --trials 30 --clock thread -o "$OUT/traces" 2>/dev/null
"$FP" model build "$OUT/traces" -o "$OUT/jacobi.model" 2>/dev/null
"$FP" model compile "$OUT/jacobi.model" -o "$OUT/jacobi_model.c" --name jacobi 2>/dev/null
"$FP" model lib -d "$OUT/fpmodel" 2>/dev/null
"$CC" -O2 -I "$OUT/fpmodel" -I runtime/c examples/predict/jacobi_blocks.c "$OUT/jacobi_model.c" \
	"$OUT/fpmodel/libfragprof_model.a" -lm -pthread -o "$OUT/jacobi"
echo "== two blocks, every k-th exchange replaced (k = 0: none)"
"$OUT/jacobi" compare "$H" "$W" "$S" "$REPS" 0 16 8 4 2
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
