#!/usr/bin/env bash
# edges.sh: edge profiling against its peers, every figure a ratio from the
# same run on the same machine.
#
# 1. Overhead. For every program, at -O2, it builds
#      clang            plain clang (Debian's default)
#      chords           fragprof cc, --counters chords (the default)
#      edges            fragprof cc, --counters edges
#      blocks           fragprof cc, --counters blocks
#      clang-instr      clang -fprofile-instr-generate (LLVM's counters, .profraw at exit)
#      gcc              plain gcc
#      gcc-cov          gcc --coverage (.gcda at exit)
#    and times them in interleaved rounds (every build once per round, RUNS rounds
#    after one warm-up round), keeping each build's fastest run: on a shared machine
#    load comes and goes, and interleaving exposes every build to the same load.
#    Ratios: chords/edges/blocks/clang-instr to clang, gcc-cov to gcc.
# 2. Counters: chords and blocks counter counts per program (fragprof cfg --format json).
# 3. PGO: plain clang -O2, fragprof pgo, and clang's own PGO
#    (-fprofile-instr-generate, llvm-profdata merge, -fprofile-instr-use), each
#    trained on the same training input and timed on the same (different) test input.
#
# Programs: examples/pgo/interp.c (a bytecode interpreter where layout matters; two
# bytecode programs), and CPU-bound csmith programs: csmith's default options, the
# program's main run ROUNDS times in a row by bench/csmith_loop.c.
#
# Usage: bench/edges.sh [-r RUNS]     (default 10)
# Prints markdown tables on stdout; FRAGPROF_BENCH_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=10
while [ $# -gt 0 ]; do
	case "$1" in
	-r) runs=$2; shift 2 ;;
	*) echo "usage: bench/edges.sh [-r RUNS]" >&2; exit 2 ;;
	esac
done
command -v csmith >/dev/null || scripts/deps.sh
command -v llvm-profdata >/dev/null || { echo "edges.sh: llvm-profdata is missing (Debian: apt-get install llvm)" >&2; exit 1; }

work=$(mktemp -d /tmp/fragprof-edges.XXXXXX)
if [ -z "${FRAGPROF_BENCH_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "edges.sh: work directory $work" >&2
fi
go build -o "$work/fragprof" ./cmd/fragprof
fp=$work/fragprof
export FRAGPROF_CACHE=$work/cache

# name|source|cflags|run args|train args
progs=(
	"interp-collatz|examples/pgo/interp.c||300000 0|20000 0"
	"interp-primes|examples/pgo/interp.c||400000 1|30000 1"
)
# CPU-bound csmith programs: seed:rounds (0.2–1 s at clang -O2 on a 2-core EPYC).
for sr in ${FRAGPROF_EDGES_CSMITH:-1:40000 4:1500 6:20000}; do
	seed=${sr%%:*} rounds=${sr##*:}
	csmith --seed "$seed" -o "$work/cs$seed.c"
	progs+=("csmith$seed|$work/cs$seed.c|-I/usr/include/csmith -w -Dmain=csmith_main|__LOOP__ $rounds|__LOOP__ $rounds")
done

# build NAME SRC CFLAGS KIND OUT
build() {
	local src=$2 cflags=$3 kind=$4 out=$5 loop=()
	if [ -n "${LOOP_ROUNDS:-}" ]; then loop=(bench/csmith_loop.c "-DROUNDS=$LOOP_ROUNDS"); fi
	case $kind in
	clang) clang -O2 $cflags "$src" "${loop[@]}" -o "$out" -lm ;;
	clang-instr) clang -O2 -fprofile-instr-generate $cflags "$src" "${loop[@]}" -o "$out" -lm ;;
	gcc) gcc -O2 $cflags "$src" "${loop[@]}" -o "$out" -lm ;;
	gcc-cov) gcc -O2 --coverage $cflags "$src" "${loop[@]}" -o "$out" -lm ;;
	chords | edges | blocks)
		# csmith_loop.c must not be instrumented (it is the harness): compile it apart.
		local objs=()
		if [ ${#loop[@]} -gt 0 ]; then
			clang -O2 -c bench/csmith_loop.c "-DROUNDS=$LOOP_ROUNDS" -o "$out.loop.o"
			objs=("$out.loop.o")
		fi
		FRAGPROF_COUNTERS=$kind "$fp" cc -O2 $cflags -c "$src" -o "$out.o"
		FRAGPROF_COUNTERS=$kind "$fp" cc "$out.o" "${objs[@]}" -o "$out" -lm ;;
	esac
}

# itime OUT CMD...: runs the commands in interleaved rounds (one warm-up round, then
# $runs) and writes each command's fastest time in seconds, one per line, to OUT.
itime() {
	local out=$1 log
	shift
	log=$(mktemp)
	for ((r = 0; r <= runs; r++)); do
		for ((i = 1; i <= $#; i++)); do
			local st en
			st=$(date +%s%N)
			bash -c "${!i}"
			en=$(date +%s%N)
			[ "$r" -gt 0 ] && echo "$i $((en - st))" >> "$log"
		done
	done
	for ((i = 1; i <= $#; i++)); do
		awk -v i="$i" '$1 == i { if (m == "" || $2 < m) m = $2 } END { printf "%.4f\n", m / 1e9 }' "$log"
	done > "$out"
	rm -f "$log"
}
pick() { sed -n "$(($2 + 1))p" "$1"; }

kinds=(clang chords edges blocks clang-instr gcc gcc-cov)
echo "## Overhead at -O2 (fastest of $runs interleaved runs; ratio to the plain build of the same compiler)"
echo
echo "| program | clang s | chords | edges | blocks | clang -fprofile-instr-generate | gcc s | gcc --coverage |"
echo "|---|---|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
	IFS='|' read -r name src cflags args train <<<"$p"
	LOOP_ROUNDS=""
	if [ "${args%% *}" = "__LOOP__" ]; then LOOP_ROUNDS=${args##* }; args=""; fi
	d=$work/$name
	mkdir -p "$d"
	cmds=()
	for k in "${kinds[@]}"; do
		build "$name" "$src" "$cflags" "$k" "$d/$k"
		# Each run writes its counts as a real run would; the files are discarded.
		cmds+=("cd $d && FRAGPROF_OUT=$d/$k.fpd LLVM_PROFILE_FILE=$d/$k.profraw ./$k $args > /dev/null")
	done
	itime "$d/t.txt" "${cmds[@]}"
	t=()
	for i in "${!kinds[@]}"; do t+=("$(pick "$d/t.txt" "$i")"); done
	r() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
	printf '| %s | %.3f | %s | %s | %s | %s | %.3f | %s |\n' "$name" "${t[0]}" "$(r "${t[1]}" "${t[0]}")" "$(r "${t[2]}" "${t[0]}")" \
		"$(r "${t[3]}" "${t[0]}")" "$(r "${t[4]}" "${t[0]}")" "${t[5]}" "$(r "${t[6]}" "${t[5]}")"
done

echo
echo "## Counters placed (static)"
echo
echo "| program | chords | edges | blocks | chords/blocks |"
echo "|---|---|---|---|---|"
for p in "${progs[@]}"; do
	IFS='|' read -r name src cflags args train <<<"$p"
	n=()
	for k in chords edges blocks; do
		n+=("$("$fp" cfg --counters "$k" --cflags "$cflags" --format json "$src" | python3 -c 'import json,sys; print(json.load(sys.stdin)["counters"])')")
	done
	printf '| %s | %d | %d | %d | %s |\n' "$name" "${n[0]}" "${n[1]}" "${n[2]}" "$(awk -v a="${n[0]}" -v b="${n[2]}" 'BEGIN { printf "%.2f", a / b }')"
done

echo
echo "## PGO at -O2 (fastest of $runs interleaved runs; trained on one input, timed on another)"
echo
echo "| program | train input | test input | clang -O2 s | fragprof pgo | clang PGO |"
echo "|---|---|---|---|---|---|"
for p in "${progs[@]}"; do
	IFS='|' read -r name src cflags args train <<<"$p"
	LOOP_ROUNDS=""
	if [ "${args%% *}" = "__LOOP__" ]; then LOOP_ROUNDS=${args##* }; args="" train=""; fi
	d=$work/$name
	extra=() pflags=$cflags
	if [ -n "$LOOP_ROUNDS" ]; then extra=(bench/csmith_loop.c) pflags="$cflags -DROUNDS=$LOOP_ROUNDS"; fi
	# fragprof: count the training run (chords), then compile with the profile. The
	# harness csmith_loop.c is not in the profile: pgo reports it missing.
	"$fp" count --binary "$d/chords" --profile "$d/train.fpp" -o /dev/null -- $train > /dev/null
	"$fp" pgo --cflags "$pflags" "$src" "${extra[@]}" --profile "$d/train.fpp" -o "$d/fp-pgo" 2> "$d/pgo.log"
	# clang: instrument, train, merge, use.
	(cd "$d" && LLVM_PROFILE_FILE=$d/train.profraw ./clang-instr $train > /dev/null)
	llvm-profdata merge -o "$d/train.profdata" "$d/train.profraw"
	clang -O2 -fprofile-instr-use="$d/train.profdata" $pflags "$src" "${extra[@]}" -o "$d/clang-pgo" -lm 2>/dev/null
	itime "$d/p.txt" "$d/clang $args > /dev/null" "$d/fp-pgo $args > /dev/null" "$d/clang-pgo $args > /dev/null"
	t=("$(pick "$d/p.txt" 0)" "$(pick "$d/p.txt" 1)" "$(pick "$d/p.txt" 2)")
	printf '| %s | %s | %s | %.3f | %s | %s |\n' "$name" "${train:-same}" "${args:-same}" "${t[0]}" \
		"$(awk -v a="${t[1]}" -v b="${t[0]}" 'BEGIN { printf "%.3f (%+.1f%%)", a / b, 100 * (b - a) / a }')" \
		"$(awk -v a="${t[2]}" -v b="${t[0]}" 'BEGIN { printf "%.3f (%+.1f%%)", a / b, 100 * (b - a) / a }')"
done
echo
echo "Ratios are run time over the plain build's: below 1 is faster. For PGO the"
echo "percentage is the speed-up over plain clang -O2."
