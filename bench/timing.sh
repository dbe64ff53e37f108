#!/usr/bin/env bash
# bench/timing.sh: the figures of docs/performance.md, "Timing".
#
#   1. every timer's resolution and cost of a read (fragprof timers);
#   2. whole-program timing: `fragprof time --fragment program` against hyperfine on
#      the same binary and the same command, in the same run, both intervals shown;
#   3. the lab exercise: schemes A, B and C, computed against measured.
#
# Usage: bench/timing.sh [REPS]      (default 200, a multiple of 10; needs clang, hyperfine, jq)
# hyperfine: apt-get install -y hyperfine. Prints Markdown on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-200}
for tool in hyperfine jq; do
	command -v "$tool" >/dev/null || { echo "bench/timing.sh: $tool is needed (apt-get install -y $tool)" >&2; exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/fragprof" ./cmd/fragprof
FP="$TMP/fragprof"

echo "### Timers"
echo
echo '```'
"$FP" timers
echo '```'
echo

# The same binary for both tools: built once by fragprof cc. Modes D and G use no
# fragment, so the runtime writes nothing at exit under either tool.
"$FP" cc -O2 examples/lab.c -o "$TMP/lab"
CHUNKS=10
PER=$((REPS / CHUNKS))
echo "### Whole program: fragprof time --fragment program vs hyperfine"
echo
echo "$REPS runs each, in $CHUNKS alternating chunks of $PER (each tool drops one warm-up run"
echo "per chunk; the tool that goes first alternates); both tools' pooled samples go through"
echo "fragprof's protocol (bench/timingcmp). Times in ms."
echo
echo "| command | fragprof: mean ± Δ | fragprof: median [95%] | fragprof: min | hyperfine: mean ± Δ | hyperfine: median [95%] | hyperfine: min | hyperfine's own mean ± σ | means agree | medians agree (difference) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for mode in "D 7" "G 7" "A 7"; do
	set -- $mode
	fps=() hfs=()
	for k in $(seq 1 $CHUNKS); do
		# Which tool goes first alternates, so that a drifting load favours neither.
		if ((k % 2)); then
			"$FP" time --binary "$TMP/lab" --fragment program --arg "$1" --arg "$2" --reps $((PER + 1)) --json -o "$TMP/fp$k.json" 2>/dev/null
			hyperfine -N --warmup 1 --runs "$PER" --export-json "$TMP/hf$k.json" "$TMP/lab $1 $2" >/dev/null 2>&1
		else
			hyperfine -N --warmup 1 --runs "$PER" --export-json "$TMP/hf$k.json" "$TMP/lab $1 $2" >/dev/null 2>&1
			"$FP" time --binary "$TMP/lab" --fragment program --arg "$1" --arg "$2" --reps $((PER + 1)) --json -o "$TMP/fp$k.json" 2>/dev/null
		fi
		fps+=("$TMP/fp$k.json")
		hfs+=("$TMP/hf$k.json")
	done
	go run ./bench/timingcmp -label "lab $1 $2" -fragprof "$(IFS=,; echo "${fps[*]}")" -hyperfine "$(IFS=,; echo "${hfs[*]}")"
done
echo

echo "### The lab exercise: computed vs measured ($REPS repetitions per scheme)"
echo
echo "| scheme | expression | computed (reduction) | Markov chain | measured | difference | cut | within |"
echo "|---|---|---|---|---|---|---|---|"
for s in A B C; do
	"$FP" compose examples/lab.c --scheme "$s" --reps "$REPS" --json -o "$TMP/c.json" 2>/dev/null
	jq -r '"| \(.scheme) | `\(.expr)` | \(.computed_ns / 1e3 | round) µs ± \(.computed_halfwidth_ns / 1e3 | round) | \(.markov.mean_ns / 1e3 | round) µs (σ \(.markov.stddev_ns / 1e3 | round)) | \(.measured_ns / 1e3 | round) µs ± \(.measured_halfwidth_ns / 1e3 | round) | \(.rel_diff * 1000 | round / 10)% | \(.measured_total.cut) of \(.measured_total.cut + .measured_total.n) | \(.within) |"' "$TMP/c.json"
done
