#!/bin/sh
# sample.sh: benchmark of the sampler and the hot-CFG builders.
#
# For each program and workload: the exact graph (fragprof sample --exact), then
# REPEAT sampled runs (--interval INTERVAL --burst BURST) alternating with REPEAT
# unsampled runs of the same workload in the same invocation (--measure-overhead),
# then GFCGaussiano's 144-point sweep, configuration #45 and the Bursts builder
# (observed edges only, and with the edges the code implies) against the exact graph.
# From the same batches: the number of batches the Bursts builder needs for 90%
# similarity (the first N, N doubling from 50) and, from the sampler's own measured
# time per burst c, the program run time that many bursts need at OVERHEAD
# (N·c/OVERHEAD: at that share a run affords OVERHEAD/c bursts per second). Last, a
# long run (gzip -c of LONG MB, 3 runs each way) with --overhead OVERHEAD checks that
# the adaptive interval holds the wall-time ratio. Prints one table row per program;
# the raw outputs stay in $OUT.
#
# Usage: [FRAGPROF=path] [OUT=dir] bench/sample.sh [REPEAT [INTERVAL [OVERHEAD [LONG]]]]
#        (defaults 200, 200us, 0.05, 20)
set -eu
REPEAT=${1:-200}
INTERVAL=${2:-200us}
OVERHEAD=${3:-0.05}
LONG=${4:-20}
BURST=25
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/fragprof-bench-sample.XXXXXX)}
# FRAGPROF names an already built fragprof; by default the tree's is built.
FP=${FRAGPROF:-$OUT/fragprof}
[ -n "${FRAGPROF:-}" ] || (cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)
for p in loop calls sortsum; do
	gcc -O2 -g -o "$OUT/$p" "$ROOT/examples/hot/$p.c"
done
# Deterministic inputs: Debian's license texts (base-files), concatenated.
L=/usr/share/common-licenses
cat $L/GPL-3 $L/GPL-2 $L/LGPL-2.1 $L/Apache-2.0 $L/GFDL-1.3 > "$OUT/text.txt"
head -c 60000 "$OUT/text.txt" > "$OUT/in60k.txt"
head -c 20000 "$OUT/text.txt" > "$OUT/in20k.txt"
cat > "$OUT/q.sql" <<'SQL'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x < 300)
insert into t select x, hex(x*7919) from c;
select count(*), sum(a), max(b) from t where a % 3 = 1;
SQL

# simjson FILE: the similarity/precision pair of a --json comparison, as percentages.
simjson() {
	awk -F'[:,]' '/"similarity"/{s=$2} /"precision"/{p=$2} END{printf "%.1f%% / %.1f%%", 100*s, 100*p}' "$1"
}

# name | stdin file | command...
bench() {
	name=$1; input=$2; shift 2
	"$FP" sample --exact -o "$OUT/$name.exact" -- "$@" < "$input" > /dev/null 2> "$OUT/$name.exact.log"
	"$FP" sample --interval "$INTERVAL" --burst "$BURST" --repeat "$REPEAT" --measure-overhead \
		-o "$OUT/$name.batches" -- "$@" < "$input" > /dev/null 2> "$OUT/$name.sample.log"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --sweep > "$OUT/$name.sweep"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --json --infer=false > "$OUT/$name.observed.json"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --json > "$OUT/$name.bursts.json"
	insns=$(sed -n 's/.*--exact: \([0-9]*\) instructions.*/\1/p' "$OUT/$name.exact.log")
	ovh=$(sed -n 's/.*overhead: .* = \([0-9.]*\) .*/\1/p' "$OUT/$name.sample.log")
	cost=$(sed -n 's/.*(\([0-9]*\) µs per burst).*/\1/p' "$OUT/$name.sample.log")
	best=$(awk '$1=="best"{print $7; exit}' "$OUT/$name.sweep")
	def=$(awk '$1=="default"{print $7 " / " $8}' "$OUT/$name.sweep")
	share=$(sed -n 's/.*sampled \([0-9.]*%\) of instructions.*/\1/p' "$OUT/$name.sweep")
	batches=$(sed -n 's/^\([0-9]*\) batches.*/\1/p' "$OUT/$name.sweep")
	# Batches needed for 90%: the first N, N doubling from 50.
	need="> $batches"
	n=50
	while [ "$n" -lt "$batches" ]; do
		s=$("$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --json --first "$n" |
			awk -F'[:,]' '/"similarity"/{print ($2 >= 0.9) ? "yes" : "no"}')
		if [ "$s" = yes ]; then need="≤ $n"; break; fi
		n=$((n * 2))
	done
	if [ "$need" = "> $batches" ] && awk -F'[:,]' '/"similarity"/{exit !($2 >= 0.9)}' "$OUT/$name.bursts.json"; then
		need="≤ $batches"
	fi
	n=${need#* }
	runtime=$(awk -v n="$n" -v c="$cost" -v o="$OVERHEAD" 'BEGIN{printf "%.1f s", n*c/1e6/o}')
	case $need in ">"*) runtime="> $runtime";; esac
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s µs | %s |\n' "$name" "$insns" "$batches" "$share" "$best" "$def" \
		"$(simjson "$OUT/$name.observed.json")" "$(simjson "$OUT/$name.bursts.json")" "$need" "$ovh" "$cost" "$runtime"
}

echo "| program | instructions (exact) | batches | share sampled | GFC best of 144 (sim.) | GFC #45 (sim. / prec.) | Bursts, observed (sim. / prec.) | Bursts + inferred (sim. / prec.) | batches for 90% (inferred) | overhead at $INTERVAL (wall ratio) | sampler time per burst | run time for 90% at $OVERHEAD |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
bench loop /dev/null "$OUT/loop" 2000
bench calls /dev/null "$OUT/calls" 200000
bench sortsum /dev/null "$OUT/sortsum" 1500
bench gzip "$OUT/in60k.txt" gzip -c
bench bzip2 "$OUT/in20k.txt" bzip2 -c
bench xz "$OUT/in20k.txt" xz -c
bench sqlite3 "$OUT/q.sql" sqlite3 :memory:
# The adaptive interval on a long run.
: > "$OUT/long.txt"
while [ "$(wc -c < "$OUT/long.txt")" -lt $((LONG * 1000000)) ]; do
	cat "$OUT/text.txt" >> "$OUT/long.txt"
done
"$FP" sample --overhead "$OVERHEAD" --repeat 3 --measure-overhead -o "$OUT/long.batches" -- gzip -c \
	< "$OUT/long.txt" > /dev/null 2> "$OUT/long.sample.log"
echo
echo "long run: gzip -c of $(wc -c < "$OUT/long.txt") bytes, --overhead $OVERHEAD:"
grep -E 'batches|sampler time|overhead:' "$OUT/long.sample.log" | sed 's/^fragprof sample: /  /'
echo "raw outputs in $OUT"
