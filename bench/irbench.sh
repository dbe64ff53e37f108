#!/usr/bin/env bash
# irbench.sh: throughput of fragprof's IR step (read + instrument + write).
#
#  1. go test -bench on a large generated module (internal/llvmir/bench_test.go:
#     1500 functions of loops, if/else chains, switches, && ||, ?:, goto), with the
#     IR of clang 14 and of clang 16; MB/s are of input IR.
#  2. bench/irbench on the largest program of the oracle's csmith corpus
#     (internal/oracle/testdata/csmith-seeds.txt) and on one large csmith program
#     (csmith's default size limits, seed 35: 400 KB of C): the wall and CPU time
#     of the IR step, and the wall time of the whole instrumented build against
#     clang -O2 alone.
#
# Usage: bench/irbench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh

work=$(mktemp -d /tmp/fragprof-irbench.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "## go test -bench (generated module)"
go test -tags integration -run '^$' -bench . -benchtime 5x -count 1 ./internal/llvmir/ | grep -E '^(Benchmark|cpu:)'

opts=(--max-funcs 4 --max-block-depth 3 --max-expr-complexity 6 --max-array-dim 2 --max-array-len-per-dim 6)
largest="" size=0
for seed in $(sed 's/#.*//' internal/oracle/testdata/csmith-seeds.txt); do
	csmith --seed "$seed" "${opts[@]}" -o "$work/corpus$seed.c"
	s=$(wc -c < "$work/corpus$seed.c")
	if [ "$s" -gt "$size" ]; then largest=$work/corpus$seed.c size=$s; fi
done
csmith --seed 35 -o "$work/large35.c"
echo
echo "## bench/irbench (largest corpus program: $(basename "$largest"), $size bytes of C; large35.c: csmith defaults, seed 35, $(wc -c < "$work/large35.c") bytes)"
for clang in clang-14 clang-16; do
	go run ./bench/irbench -clang "$clang" -I /usr/include/csmith "$largest" "$work/large35.c" | if [ "$clang" = clang-14 ]; then cat; else tail -n +3; fi
done
