#!/bin/sh
# bursty.sh: the floor of bursty tracing's cost, against the in-process sampler.
#
# Bursty tracing (Arnold & Ryder 2001; Hirzel & Chilimbi 2001) runs the original
# code with a countdown check at every function entry and loop back edge; when the
# countdown reaches zero it jumps into an instrumented copy for a burst. The checks
# run all the time, so their cost alone is a lower bound of the technique's.
# bench/burstcheck builds each program three ways from fragprof's IR (no checks;
# checks at function entries and outermost loop headers; checks at every loop
# header, Arnold–Ryder's placement) and this script times each against plain
# clang -O2 with farm-bench (A/B pairs, CPU time, median [min, max] of PAIRS pairs).
# The last column is the in-process sampler (fragprof sample, the default settings)
# on the plain build, PAIRS sampled runs alternated with PAIRS plain ones
# (--measure-overhead: CPU-time ratio [95% CI]).
#
# Programs: the two fragprof-built programs of bench/sampling.sh (examples/hot), the
# CPU kernels of bench/overhead.sh, and csmith programs (bench/csmith_loop.c, ROUNDS
# scaled so that the plain build takes about 0.3 s).
#
# Usage: [CLANG=clang] [OUT=dir] [SEEDS="9 40 56 67 79"] bench/bursty.sh [PAIRS]   (default 11)
set -eu
PAIRS=${1:-11}
CLANG=${CLANG:-clang}
SEEDS=${SEEDS:-9 40 56 67 79}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fragprof-bench-bursty.XXXXXX")}
(cd "$ROOT" && go build -o "$OUT/burstcheck" ./bench/burstcheck && go build -o "$OUT/fragprof" ./cmd/fragprof)
echo "bursty.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg), $CLANG, $PAIRS pairs; raw outputs in $OUT" >&2

# ratio A B: farm-bench's A/B CPU-time ratio, "median [min, max]".
ratio() {
	farm-bench -n "$PAIRS" --timeout 600 --vs "$2" -- $1 2>/dev/null |
		awk '$1 == "A/B" && $2 == "cpu" { printf "%.3f [%.3f, %.3f]", $4, $3, $5 }'
}

# row NAME "ARGS" SRC [CFLAGS]: build, check the outputs agree, time.
row() {
	name=$1 args=$2 src=$3 cflags=${4:-}
	b=$OUT/$name
	# shellcheck disable=SC2086
	"$CLANG" -O2 -w $cflags -o "$b.plain" "$src" -lm
	checks=
	for lv in none outer all; do
		"$OUT/burstcheck" -clang "$CLANG" -level "$lv" -cflags "-w $cflags" -o "$b.$lv" "$src" -lm 2> "$b.$lv.log"
		checks="$checks $(sed -n 's/.*: \([0-9]*\) checks.*/\1/p' "$b.$lv.log")"
	done
	# shellcheck disable=SC2086
	want=$("$b.plain" $args | cksum)
	for lv in none outer all; do
		# shellcheck disable=SC2086
		[ "$("$b.$lv" $args | cksum)" = "$want" ] || { echo "bursty.sh: $name: the $lv build prints other output" >&2; return 0; }
	done
	set -- $checks
	r_none=$(ratio "$b.none $args" "$b.plain $args")
	r_outer=$(ratio "$b.outer $args" "$b.plain $args")
	r_all=$(ratio "$b.all $args" "$b.plain $args")
	# shellcheck disable=SC2086
	"$OUT/fragprof" sample --repeat "$PAIRS" --measure-overhead -o "$b.batches" -- "$b.plain" $args > /dev/null 2> "$b.sample.log"
	samp=$(sed -n 's/.*CPU time (user+sys, process tree) sampled\/unsampled \([0-9.]* \[[0-9., ]*\]\).*/\1/p' "$b.sample.log")
	printf '| %s | %s | %s | %s / %s | %s | %s | %s |\n' "$name" "$args" "$r_none" "$2" "$3" "$r_outer" "$r_all" "${samp:-–}"
}

echo "| program | args | IR path, no checks | checks (outer / all) | outermost loops + entries | every loop header + entries | in-process sampler |"
echo "|---|---|---|---|---|---|---|"
row sortsum 60000 "$ROOT/examples/hot/sortsum.c"
row calls 100000000 "$ROOT/examples/hot/calls.c"
row hash 128 "$ROOT/bench/kernels/hash.c"
row interp 400000 "$ROOT/bench/kernels/interp.c"
row matmul 1000 "$ROOT/bench/kernels/matmul.c"
row sort 4000000 "$ROOT/bench/kernels/sort.c"
for seed in $SEEDS; do
	c=$OUT/cs$seed.c
	[ -f "$c" ] || csmith --seed "$seed" -o "$c"
	cf="-I/usr/include/csmith -DCSMITH_SRC=\"$c\""
	"$CLANG" -O2 -w -I/usr/include/csmith "-DCSMITH_SRC=\"$c\"" -DROUNDS=100000 "$ROOT/bench/csmith_loop.c" -o "$OUT/cal$seed"
	t=$( { /usr/bin/time -f '%U %S' timeout 10 "$OUT/cal$seed" > /dev/null; } 2>&1 | tail -1 | awk '{ print $1 + $2 }')
	rounds=$(awk -v t="$t" 'BEGIN { if (t < 0.001) t = 0.001; r = int(100000 * 0.3 / t); if (r > 10000000) r = 10000000; if (r < 1) r = 1; print r }')
	row "csmith$seed" "" "$ROOT/bench/csmith_loop.c" "$cf -DROUNDS=$rounds"
done
