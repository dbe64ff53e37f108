#!/usr/bin/env bash
# instructions.sh: the instructions a fragprof-built program executes against the
# plain build's, counted by valgrind (callgrind's Ir): deterministic, so one run of
# each, and unaffected by the machine's load, unlike bench/overhead.sh's times. It
# is the diagnosis behind the counters' placement (docs/performance.md, "Instructions executed"):
# where time ratios on a shared machine move by ±10 %, instruction ratios show what
# a change of the instrumentation does.
#
# For each csmith seed: bench/csmith_loop.c runs the program's func_1 ROUNDS times
# (default 2000), built with plain clang -O2, with fragprof cc -O2 and with clang's IR
# PGO (-O2 -fprofile-generate, the peer that promotes counters); all must print the
# same checksum. Prints per seed the counts and the two instrumented builds' ratios
# to the plain build, then the geometric means of the ratios.
#
# With -k, the CPU kernels of bench/overhead.sh instead (bench/kernels/*.c but the
# threaded one, and bench/cxx_work.cpp with clang++ and fragprof c++), each run once
# with its default arguments.
#
# FPFLAGS adds flags to the fragprof cc builds only (e.g. "-mllvm -unroll-threshold=300"),
# to measure what a back-end setting does to the instrumented build. fragprof cc's
# environment applies as usual (FRAGPROF_SIMPLIFIED=1: the simplified CFG), and the
# header line names the settings that change its builds.
#
# Usage: bench/instructions.sh [SEED ...]   (default: 12 csmith seeds; docs/performance.md,
#        "Instructions executed", gives the 20 seeds of its run)
#        bench/instructions.sh -k
# Needs valgrind (apt-get install valgrind) and csmith (scripts/deps.sh). Work files go to a
# fresh directory under $TMPDIR (default /tmp), removed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kernels=0
if [ "${1:-}" = -k ]; then
	kernels=1
	shift
fi
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(9 40 56 92 152 174 177 187 249 326 331 352)
ROUNDS=${ROUNDS:-2000}
read -r -a fpflags <<< "${FPFLAGS:-}"
CLANG=${CLANG:-clang}
for tool in valgrind csmith "$CLANG"; do
	command -v "$tool" >/dev/null || { echo "instructions.sh: $tool is needed (apt-get install valgrind; scripts/deps.sh for the others)" >&2; exit 2; }
done
make -s build
work=$(mktemp -d "${TMPDIR:-/tmp}/fragprof-instructions.XXXXXX")
trap 'rm -rf "$work"' EXIT

# instructions BIN: the instructions one run of BIN executes (its output goes to
# $work/out.txt).
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" 2>"$work/vg.txt" >"$work/out.txt"
	sed -n 's/.*refs: *//p' "$work/vg.txt" | tr -d ,
}

settings=${FPFLAGS:+, fragprof cc with $FPFLAGS}
[ "${FRAGPROF_SIMPLIFIED:-}" = 1 ] && settings="$settings, FRAGPROF_SIMPLIFIED=1"
echo "instructions.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), ROUNDS=$ROUNDS, $("$CLANG" --version | head -1)$settings"
export LLVM_PROFILE_FILE=$work/irpgo.profraw
ratios=() pgo=()
# compare NAME PLAIN FRAGPROF IRPGO: a table row, the three builds printing the same.
compare() {
	p=$(instructions "$2")
	cp "$work/out.txt" "$work/plain.out"
	f=$(instructions "$3")
	cp "$work/out.txt" "$work/fp.out"
	g=$(instructions "$4")
	if ! cmp -s "$work/plain.out" "$work/fp.out" || ! cmp -s "$work/plain.out" "$work/out.txt"; then
		echo "| $1 | – | – | – | skipped: the builds print different output | |"
		return
	fi
	r=$(awk -v a="$f" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
	q=$(awk -v a="$g" -v b="$p" 'BEGIN { printf "%.2f", a / b }')
	ratios+=("$r")
	pgo+=("$q")
	echo "| $1 | $p | $f | $g | $r | $q |"
}
# geomean WHAT: the row of the geometric means of both ratios.
geomean() {
	awk -v what="$1" 'NR == FNR { s += log($1); n++; next } { t += log($1) }
		END { if (n) printf "| **geometric mean** (%d %s) | | | | **%.2f** | **%.2f** |\n", n, what, exp(s / n), exp(t / n) }' \
		<(printf '%s\n' "${ratios[@]}") <(printf '%s\n' "${pgo[@]}")
}
if [ "$kernels" = 1 ]; then
	echo "| kernel | plain clang -O2 | fragprof cc -O2 | IR PGO | **fragprof / plain** | **IR PGO / plain** |"
	echo "|---|---:|---:|---:|---:|---:|"
	for src in bench/kernels/*.c bench/cxx_work.cpp; do
		name=$(basename "$src")
		name=${name%.*}
		[ "$name" = threads ] && continue
		cc=$CLANG fp=cc
		case $src in *.cpp) cc=${CLANG/clang/clang++} fp=c++ ;; esac
		"$cc" -O2 "$src" -o "$work/plain-$name" -lm
		"$root/fragprof" "$fp" -O2 ${fpflags[@]+"${fpflags[@]}"} "$src" -o "$work/fp-$name" -lm 2>/dev/null
		"$cc" -O2 -fprofile-generate "$src" -o "$work/pgo-$name" -lm
		compare "$name" "$work/plain-$name" "$work/fp-$name" "$work/pgo-$name"
	done
	geomean kernels
	exit 0
fi
echo "| csmith seed | plain clang -O2 | fragprof cc -O2 | IR PGO | **fragprof / plain** | **IR PGO / plain** |"
echo "|---|---:|---:|---:|---:|---:|"
for s in "${seeds[@]}"; do
	c=$work/cs$s.c
	csmith --seed "$s" -o "$c"
	flags=(-O2 -w -I/usr/include/csmith "-DCSMITH_SRC=\"$c\"" -DROUNDS="$ROUNDS")
	"$CLANG" "${flags[@]}" bench/csmith_loop.c -o "$work/plain$s"
	"$root/fragprof" cc "${flags[@]}" ${fpflags[@]+"${fpflags[@]}"} bench/csmith_loop.c -o "$work/fp$s" 2>/dev/null
	"$CLANG" "${flags[@]}" -fprofile-generate bench/csmith_loop.c -o "$work/pgo$s"
	compare "$s" "$work/plain$s" "$work/fp$s" "$work/pgo$s"
done
geomean seeds
