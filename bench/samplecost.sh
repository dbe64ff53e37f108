#!/bin/sh
# samplecost.sh: what `fragprof sample` costs the whole process tree, against the
# plain run, and what it says it costs.
#
# Two workloads: gzip -9 of a 17 MB text (about 0.65 s of CPU) and work100, about
# 0.1 s of CPU (bench/work100.c). For each, PAIRS pairs of runs in this invocation,
# alternating (the plain run first in odd pairs, second in even ones): the plain
# command, and `fragprof sample -o FILE -- command` at its defaults. Each run's CPU
# time is its whole process tree's, as the kernel accounts it when the command is
# reaped (bench/treecpu.c: wait4 of fragprof, which waits for the program and
# everything else it runs). Prints per workload the ratio of the total CPU times
# (sampled / plain), the median of the pairs' ratios, the same of wall time, and the
# mean of the share fragprof reports ("cost (estimate): ... % over the program's own
# CPU time") beside the measured one, (ratio - 1). The "env" rows run the sampled
# arm with no fragprof process in the tree: the command started with the variables
# `fragprof sample --env -o FILE` prints in its environment, as a shell that
# exported them starts it (treecpu -eNAME=VALUE: no env(1) process); the
# program writes its record at exit, and the self-reported share is the cost line
# `fragprof hotcfg RECORD` prints for each, read after the pairs. Then the floors:
# fragprof's own process start (fragprof --help) and the library's start (sample --
# true).
#
# The start-cost calibration is measured once per machine and cached: a first,
# uncounted `sample` run fills the cache (set XDG_CACHE_HOME to measure from cold).
#
# Usage: [FRAGPROF=path] [OUT=dir] bench/samplecost.sh [PAIRS] (default 10)
set -eu
PAIRS=${1:-10}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/fragprof-bench-samplecost.XXXXXX)}
mkdir -p "$OUT"
FP=${FRAGPROF:-$OUT/fragprof}
[ -n "${FRAGPROF:-}" ] || (cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)
cc -O2 -o "$OUT/treecpu" "$ROOT/bench/treecpu.c"
cc -O2 -o "$OUT/work100" "$ROOT/bench/work100.c"
# A deterministic 17 MB text: Debian's license texts (base-files), numbered and
# repeated (each copy is longer than gzip's 32 KiB window).
L=/usr/share/common-licenses
if [ ! -s "$OUT/text17m.txt" ]; then
	i=0
	while [ "$(stat -c %s "$OUT/text17m.txt" 2>/dev/null || echo 0)" -lt 17000000 ]; do
		i=$((i + 1))
		cat $L/GPL-3 $L/GPL-2 $L/LGPL-2.1 $L/Apache-2.0 | sed "s/^/$i /" >> "$OUT/text17m.txt"
	done
	truncate -s 17000000 "$OUT/text17m.txt"
fi
echo "# $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $PAIRS pairs"
"$FP" sample --probe-host
"$FP" sample -o "$OUT/warm.batches" -- true 2>/dev/null # fills the start-cost cache, uncounted

# The environment `sample --env` prints, one value a line (the export lines eval'd
# in a subshell, whose printf is the shell's own).
ENVVALS=$(eval "$("$FP" sample --env -o "$OUT/env.rec")"; printf '%s\n' "$LD_PRELOAD" "$FRAGPROF_SAMPLE" "$FRAGPROF_SAMPLE_OUT")
ENV_LDP=$(echo "$ENVVALS" | sed -n 1p)
ENV_CONF=$(echo "$ENVVALS" | sed -n 2p)
ENV_OUT=$(echo "$ENVVALS" | sed -n 3p)

# sampled NAME CMD...: one sampled run of CMD, as the row NAME asks.
sampled() {
	name=$1
	shift
	case $name in
	*_env) "$OUT/treecpu" "$OUT/$name.sampled" "-eLD_PRELOAD=$ENV_LDP" "-eFRAGPROF_SAMPLE=$ENV_CONF" "-eFRAGPROF_SAMPLE_OUT=$ENV_OUT.$name" "$@" > /dev/null ;;
	*) "$OUT/treecpu" "$OUT/$name.sampled" "$FP" sample -o "$OUT/$name.batches" -- "$@" > /dev/null 2>> "$OUT/$name.report" ;;
	esac
}

# run NAME CMD...: PAIRS alternated pairs; prints the row. A NAME ending in _env
# samples with the environment of `sample --env`.
run() {
	name=$1
	shift
	: > "$OUT/$name.plain"
	: > "$OUT/$name.sampled"
	: > "$OUT/$name.report"
	rm -f "$ENV_OUT.$name".*
	k=1
	while [ $k -le "$PAIRS" ]; do
		if [ $((k % 2)) = 1 ]; then
			"$OUT/treecpu" "$OUT/$name.plain" "$@" > /dev/null
		fi
		sampled "$name" "$@"
		if [ $((k % 2)) = 0 ]; then
			"$OUT/treecpu" "$OUT/$name.plain" "$@" > /dev/null
		fi
		k=$((k + 1))
	done
	for rec in "$ENV_OUT.$name".*; do
		[ -e "$rec" ] || continue
		"$FP" hotcfg "$rec" 2>> "$OUT/$name.report" > /dev/null
	done
	grep -o '[0-9.]*% over the program' "$OUT/$name.report" | tr -d '%' | cut -d' ' -f1 > "$OUT/$name.share"
	paste "$OUT/$name.sampled" "$OUT/$name.plain" | awk -v name="$name" -v sharef="$OUT/$name.share" '
		function median(a, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		{ n++; sc += $1; pc += $4; sw += $2; pw += $5; rc[n] = $1 / $4; rw[n] = $2 / $5; pcpu[n] = $4 }
		END {
			while ((getline s < sharef) > 0) { m++; share += s }
			printf "| %s | %.3f s | %.3f (median of pairs %.3f) | %.3f (median %.3f) | %.2f%% | %.2f%% |\n",
				name, median(pcpu, n) / 1e6, sc / pc, median(rc, n), sw / pw, median(rw, n), 100 * (sc / pc - 1), m ? share / m : -1
		}'
}

echo "| workload | plain CPU (median) | CPU ratio, whole tree (sampled/plain) | wall ratio | measured share (ratio - 1) | self-reported share (mean) |"
echo "|---|---|---|---|---|---|"
run gzip9_17MB gzip -9 -c "$OUT/text17m.txt"
run gzip9_17MB_env gzip -9 -c "$OUT/text17m.txt"
run work100 "$OUT/work100"
run work100_env "$OUT/work100"

# The floors: what any run of fragprof, and any preloaded run, costs.
: > "$OUT/floor.help"
: > "$OUT/floor.true"
: > "$OUT/floor.sampletrue"
k=1
while [ $k -le "$PAIRS" ]; do
	"$OUT/treecpu" "$OUT/floor.help" "$FP" --help > /dev/null
	"$OUT/treecpu" "$OUT/floor.true" true
	"$OUT/treecpu" "$OUT/floor.sampletrue" "$FP" sample -o "$OUT/true.batches" -- true 2> /dev/null
	k=$((k + 1))
done
for f in help true sampletrue; do
	sort -n "$OUT/floor.$f" | awk -v f="$f" '{ a[NR] = $1 } END { printf "floor %s: median %.1f ms of CPU\n", f, a[int((NR + 1) / 2)] / 1e3 }'
done
echo "# raw data in $OUT"
