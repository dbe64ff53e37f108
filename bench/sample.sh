#!/bin/sh
# sample.sh: benchmark of the sampler and the hot-CFG builders (issue 6).
#
# For each program and workload: the exact graph (fragprof sample --exact), then
# REPEAT sampled runs alternating with unsampled runs of the same workload in the same
# invocation (--measure-overhead), then GFCGaussiano's 144-point sweep, configuration
# #45 and the Bursts builder against the exact graph. Prints one table row per
# program; the raw outputs stay in $OUT.
#
# Usage: bench/sample.sh [REPEAT [INTERVAL]]    (defaults 200, 200us)
set -eu
REPEAT=${1:-200}
INTERVAL=${2:-200us}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/fragprof-bench-sample.XXXXXX)}
FP="$OUT/fragprof"
(cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)
for p in loop calls sortsum; do
	gcc -O2 -g -o "$OUT/$p" "$ROOT/examples/hot/$p.c"
done
# Deterministic inputs: fragprof's own Go sources, concatenated.
cat "$ROOT"/hotcfg/*.go "$ROOT"/internal/sample/*.go > "$OUT/src.txt"
head -c 60000 "$OUT/src.txt" > "$OUT/in60k.txt"
head -c 20000 "$OUT/src.txt" > "$OUT/in20k.txt"
cat > "$OUT/q.sql" <<'SQL'
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x < 300)
insert into t select x, hex(x*7919) from c;
select count(*), sum(a), max(b) from t where a % 3 = 1;
SQL

# name | stdin file | command...
bench() {
	name=$1; input=$2; shift 2
	"$FP" sample --exact -o "$OUT/$name.exact" -- "$@" < "$input" > /dev/null 2> "$OUT/$name.exact.log"
	"$FP" sample --interval "$INTERVAL" --repeat "$REPEAT" --measure-overhead -o "$OUT/$name.batches" -- "$@" \
		< "$input" > /dev/null 2> "$OUT/$name.sample.log"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --sweep > "$OUT/$name.sweep"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$OUT/$name.exact" --json > "$OUT/$name.bursts.json"
	insns=$(sed -n 's/.*--exact: \([0-9]*\) instructions.*/\1/p' "$OUT/$name.exact.log")
	ovh=$(sed -n 's/.*overhead: .* = \([0-9.]*\) .*/\1/p' "$OUT/$name.sample.log")
	best=$(awk '$1=="best"{print $7; exit}' "$OUT/$name.sweep")
	def=$(awk '$1=="default"{print $7 "/" $8}' "$OUT/$name.sweep")
	bur=$(awk '$1=="bursts"{print $7 "/" $8}' "$OUT/$name.sweep")
	share=$(sed -n 's/.*sampled \([0-9.]*%\) of instructions.*/\1/p' "$OUT/$name.sweep")
	batches=$(sed -n 's/^\([0-9]*\) batches.*/\1/p' "$OUT/$name.sweep")
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$insns" "$batches" "$share" "$best" "$def" "$bur" "$ovh"
}

echo "| program | instructions (exact) | batches | share sampled | GFC best of 144 (sim.) | GFC #45 (sim./prec.) | Bursts (sim./prec.) | overhead (wall ratio) |"
echo "|---|---|---|---|---|---|---|---|"
bench loop /dev/null "$OUT/loop" 2000
bench calls /dev/null "$OUT/calls" 200000
bench sortsum /dev/null "$OUT/sortsum" 1500
bench gzip "$OUT/in60k.txt" gzip -c
bench bzip2 "$OUT/in20k.txt" bzip2 -c
bench xz "$OUT/in20k.txt" xz -c
bench sqlite3 "$OUT/q.sql" sqlite3 :memory:
echo "raw outputs in $OUT"
