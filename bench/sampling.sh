#!/bin/sh
# sampling.sh: benchmark of the in-process sampler at its default settings.
#
# For each program: (1) the exact graph of a short workload (fragprof sample --exact,
# ptrace), then RUNS sampled runs of it (the default sampler: in process, defaults)
# and the similarity of the Bursts hot CFG to the exact one (hotcfg --compare);
# (2) the cost on a long workload: PAIRS sampled runs alternating with PAIRS plain
# runs in one invocation (--measure-overhead): the ratios of the total CPU time
# (user+sys of the process tree) and of the total wall time, sampled over plain, with
# 95% confidence intervals (delta method), and the sampler's own estimate of its share; (3) the
# share of the hot blocks (those holding 90% of the sampled PCs) that have a
# function name. Programs: Debian's gzip, bzip2, xz, sqlite3 and lua5.4, and two
# programs built by 'fragprof cc'. One table row per program; raw outputs in $OUT.
#
# Each row also has the bursts per short run, the sampler's own estimate of the
# similarity (sample's "estimated similarity", docs/sampling.md) and the CPU-time
# ratio of SPAIRS short runs sampled against as many plain ones (the sampler's whole
# cost on runs shorter than a tick, its start included), with the sampler's own
# estimate of its share on them (its bursts, its reading of the mappings, and its
# start measured on true(1)).
#
# Last, the same for sqlite3 and lua5.4 with --task-clock, a threaded program
# (hardware breakpoints) at the defaults and held by --overhead 5%, and the ptrace
# sampler on gzip held by --overhead 5%; then a second
# table: each program's short workload sampled with --until-similarity 90% (at most
# MAXRUNS runs; UNTILS times, a row each): the runs and bursts it took, its estimate
# and the true similarity.
#
# Usage: [FRAGPROF=path] [OUT=dir] [ONLY="gzip sqlite3 ..."] [SPAIRS=100] [MAXRUNS=60000] [UNTILS=1]
#        bench/sampling.sh [RUNS [PAIRS]]   (defaults 600, 9)
# ONLY restricts both tables to the rows whose name (first word) it lists.
set -eu
RUNS=${1:-600}
PAIRS=${2:-9}
SPAIRS=${SPAIRS:-100}
MAXRUNS=${MAXRUNS:-60000}
UNTILS=${UNTILS:-1}
ONLY=${ONLY:-}
# wanted NAME: whether the row NAME is to be run (ONLY empty: all).
wanted() {
	[ -z "$ONLY" ] && return 0
	case " $ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/fragprof-bench-sampling.XXXXXX)}
FP=${FRAGPROF:-$OUT/fragprof}
[ -n "${FRAGPROF:-}" ] || (cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)
# Two programs built by fragprof (instrumented with counters, as users run them).
(cd "$OUT" && "$FP" cc -O2 -g -o "$OUT/sortsum" "$ROOT/examples/hot/sortsum.c" &&
	"$FP" cc -O2 -g -o "$OUT/calls" "$ROOT/examples/hot/calls.c")
# Deterministic inputs: Debian's license texts (base-files).
L=/usr/share/common-licenses
cat $L/GPL-3 $L/GPL-2 $L/LGPL-2.1 $L/Apache-2.0 $L/GFDL-1.3 > "$OUT/text.txt"
head -c 60000 "$OUT/text.txt" > "$OUT/in60k.txt"
head -c 20000 "$OUT/text.txt" > "$OUT/in20k.txt"
: > "$OUT/long.txt"
while [ "$(wc -c < "$OUT/long.txt")" -lt 8000000 ]; do cat "$OUT/text.txt" >> "$OUT/long.txt"; done
sql() {
	cat <<SQL
create table t(a integer, b text);
with recursive c(x) as (select 1 union all select x+1 from c where x < $1)
insert into t select x, hex(x*7919) from c;
create index tb on t(b);
select count(*), sum(a), max(b) from t where a % 3 = 1;
select b, count(*) from t group by substr(b, 1, 2) order by 2 desc limit 3;
SQL
}
sql 300 > "$OUT/q.sql"
sql 600000 > "$OUT/qlong.sql"
lua() {
	cat <<LUA
local t, s = {}, 0
for i = 1, $1 do t[#t + 1] = string.format("%d:%x", i, i * 7919) end
table.sort(t)
for i, v in ipairs(t) do s = (s + #v * i) % 1000003 end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
print(s, fib($2))
LUA
}
lua 2000 12 > "$OUT/s.lua"
lua 300000 27 > "$OUT/slong.lua"

simjson() {
	awk -F'[:,]' '/"similarity"/{s=$2} /"weighted"/{w=$2} END{printf "%.1f%% (weighted %.1f%%)", 100*s, 100*w}' "$1"
}

# selfshare LOG: the sampler's own figure of its share in a sample log: measured by the
# runs it left plain when it thinned them, else its estimate (bursts, mappings, start).
selfshare() {
	m=$(sed -n 's/.*: \([0-9.]*%\) of the runs.*(measured).*/\1/p' "$1")
	[ -n "$m" ] && { echo "$m (measured)"; return; }
	sed -n 's/.*: \([0-9.]*%\) of the runs.*(estimate).*/\1/p' "$1"
}

# name | short stdin | long stdin | short args | long args [| extra sample flags]
# (args: the command, split on spaces)
bench() {
	name=$1; sin=$2; lin=$3; sargs=$4; largs=$5; flags=${6:-}
	wanted "${name%% *}" || return 0
	exact=$OUT/${name%% *}.exact
	# shellcheck disable=SC2086
	[ -f "$exact" ] || "$FP" sample --exact -o "$exact" -- $sargs < "$sin" > /dev/null 2> "$exact.log"
	name=$(echo "$name" | tr ' ' '_')
	# shellcheck disable=SC2086
	"$FP" sample $flags --repeat "$RUNS" -o "$OUT/$name.batches" -- $sargs < "$sin" > /dev/null 2> "$OUT/$name.sample.log"
	"$FP" hotcfg "$OUT/$name.batches" --compare "$exact" --json > "$OUT/$name.cmp.json"
	# shellcheck disable=SC2086
	"$FP" sample $flags --repeat "$SPAIRS" --measure-overhead -o "$OUT/$name.shortov.batches" -- $sargs < "$sin" > /dev/null 2> "$OUT/$name.shortov.log"
	# shellcheck disable=SC2086
	"$FP" sample $flags --repeat "$PAIRS" --measure-overhead -o "$OUT/$name.long.batches" -- $largs < "$lin" > /dev/null 2> "$OUT/$name.long.log"
	"$FP" hotcfg "$OUT/$name.long.batches" --top 100000 > "$OUT/$name.top"
	insns=$(sed -n 's/.*--exact: \([0-9]*\) instructions.*/\1/p' "$exact.log")
	batches=$(sed -n 's/^fragprof sample: \([0-9]*\) batches.*/\1/p' "$OUT/$name.sample.log")
	est=$(sed -n 's/^fragprof sample: estimated similarity \([0-9.]*%\).*/\1/p' "$OUT/$name.sample.log")
	scpu=$(sed -n 's/.*CPU time (user+sys, process tree) sampled\/unsampled \([0-9.]* \[[0-9., ]*\]\).*/\1/p' "$OUT/$name.shortov.log")
	cpu=$(sed -n 's/.*CPU time (user+sys, process tree) sampled\/unsampled \([0-9.]* \[[0-9., ]*\]\).*/\1/p' "$OUT/$name.long.log")
	wall=$(sed -n 's/.*wall time sampled\/unsampled \([0-9.]* \[[0-9., ]*\]\).*/\1/p' "$OUT/$name.long.log")
	self=$(selfshare "$OUT/$name.long.log")
	sself=$(selfshare "$OUT/$name.shortov.log")
	perburst=$(sed -n 's/.*(\([0-9]*\) µs\( CPU\)\{0,1\} per burst).*/\1/p' "$OUT/$name.long.log")
	# Hot blocks: those holding 90% of the sampled PCs; named: not "[module]+offset".
	named=$(awk '/^# Blocks/{on=1; next} /^# Edges/{on=0} on && $1 ~ /%$/ {
			if (cum < 90) { n++; if ($4 !~ /^\[/) k++ } cum += $1 + 0 }
			END { printf "%d of %d", k, n }' "$OUT/$name.top")
	printf '| %s | %s | %s (%s a run) | %s | %s | %s | %s | %s | %s | %s | %s µs | %s |\n' "$name${flags:+ $flags}" "$insns" "$batches" \
		"$(awk -v b="$batches" -v r="$RUNS" 'BEGIN{printf "%.2f", b/r}')" "$(simjson "$OUT/$name.cmp.json")" "${est:-–}" "$scpu" "$sself" \
		"$cpu" "$wall" "$self" "$perburst" "$named"
}

# until NAME STDIN ARGS: the short workload sampled with --until-similarity 90%, UNTILS
# times (one row each: the stop is a random event).
until_row() {
	name=$1; sin=$2; sargs=$3
	wanted "$name" || return 0
	for i in $(seq "$UNTILS"); do
		u=$OUT/$name.until$([ "$i" = 1 ] || echo "$i")
		# shellcheck disable=SC2086
		"$FP" sample --until-similarity 90% --repeat "$MAXRUNS" -o "$u.batches" -- $sargs < "$sin" > /dev/null 2> "$u.log"
		"$FP" hotcfg "$u.batches" --compare "$OUT/$name.exact" --json > "$u.cmp.json"
		runs=$(sed -n 's/^fragprof sample: [0-9]* batches.* in \([0-9]*\) run(s).*/\1/p' "$u.log")
		batches=$(sed -n 's/^fragprof sample: \([0-9]*\) batches.*/\1/p' "$u.log")
		est=$(sed -n 's/^fragprof sample: estimated similarity \([0-9.]*%\).*/\1/p' "$u.log")
		self=$(selfshare "$u.log")
		printf '| %s | %s | %s | %s | %s | %s |\n' "$name" "$runs" "$batches" "$est" "$(simjson "$u.cmp.json")" "$self"
	done
}

echo "| program | instructions (short run, exact) | bursts ($RUNS short runs) | similarity to exact | estimated similarity | CPU time ratio, short runs (ratio of totals [95% CI], $SPAIRS pairs) | self-reported share, short runs | CPU time ratio, long run (ratio of totals [95% CI], $PAIRS pairs) | wall time ratio | self-reported share | CPU per burst | hot blocks named |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
bench gzip "$OUT/in60k.txt" "$OUT/long.txt" "gzip -9 -c" "gzip -9 -c"
bench bzip2 "$OUT/in60k.txt" "$OUT/long.txt" "bzip2 -c" "bzip2 -c"
bench xz "$OUT/in20k.txt" "$OUT/long.txt" "xz -c" "xz -c"
bench sqlite3 "$OUT/q.sql" "$OUT/qlong.sql" "sqlite3 :memory:" "sqlite3 :memory:"
bench lua5.4 /dev/null /dev/null "lua5.4 $OUT/s.lua" "lua5.4 $OUT/slong.lua"
bench sortsum /dev/null /dev/null "$OUT/sortsum 1500" "$OUT/sortsum 60000"
bench calls /dev/null /dev/null "$OUT/calls 200000" "$OUT/calls 400000000"
# Short runs with perf's task clock (high-resolution expiry): more bursts per run.
bench "sqlite3 task" "$OUT/q.sql" "$OUT/qlong.sql" "sqlite3 :memory:" "sqlite3 :memory:" --task-clock
bench "lua5.4 task" /dev/null /dev/null "lua5.4 $OUT/s.lua" "lua5.4 $OUT/slong.lua" --task-clock
# A threaded program (bursts stop at hardware breakpoints), also held by --overhead 5%, and the
# ptrace sampler held by --overhead 5% on the long gzip run, for comparison.
wanted threads && gcc -O2 -g -pthread -o "$OUT/threads" "$ROOT/examples/hot/threads.c"
bench threads /dev/null /dev/null "$OUT/threads 300000" "$OUT/threads 300000000"
bench "threads ov" /dev/null /dev/null "$OUT/threads 300000" "$OUT/threads 300000000" "--overhead 5%"
bench "gzip ptrace" "$OUT/in60k.txt" "$OUT/long.txt" "gzip -9 -c" "gzip -9 -c" "--sampler ptrace --overhead 5%"
echo
echo "| program | runs (--until-similarity 90%, at most $MAXRUNS) | bursts | estimated similarity | similarity to exact | self-reported share |"
echo "|---|---|---|---|---|---|"
until_row gzip "$OUT/in60k.txt" "gzip -9 -c"
until_row bzip2 "$OUT/in60k.txt" "bzip2 -c"
until_row xz "$OUT/in20k.txt" "xz -c"
until_row sqlite3 "$OUT/q.sql" "sqlite3 :memory:"
until_row lua5.4 /dev/null "lua5.4 $OUT/s.lua"
until_row sortsum /dev/null "$OUT/sortsum 1500"
until_row calls /dev/null "$OUT/calls 200000"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
echo "raw outputs in $OUT"
