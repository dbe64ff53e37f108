#!/usr/bin/env bash
# overhead.sh: the run-time cost of fragprof's block counters, against its peers
# measured in the same run on the same programs.
#
# For every program it builds, at -O2:
#   clang         plain clang (Debian's default, clang 14)
#   fragprof      fragprof cc (the same clang, instrumented; counts dumped at exit)
#   gcc           plain gcc
#   gcc-cov       gcc --coverage (arc counters; .gcda merged at exit)
#   clang-pgo     clang -fprofile-instr-generate (LLVM's counters; .profraw at exit)
#   fragprof-vol  FRAGPROF_VOLATILE=1 fragprof cc (volatile increments: every count in
#                 memory at every moment, what count --timeout and --continuous build)
#   fragprof-cont the fragprof-vol build run in continuous mode (FRAGPROF_CONTINUOUS=1:
#                 the counters in the mapped dump file)
# and times them with hyperfine. It prints one markdown table: the median wall time
# of one run of each build, and the ratios fragprof/clang, gcc-cov/gcc,
# clang-pgo/clang, fragprof-vol/fragprof and fragprof-cont/fragprof of the wall time
# and of the CPU time (user + system).
#
# C++ programs (examples/*.cpp and bench/cxx_work.cpp, CPU-bound: virtual calls,
# templates, STL containers, an exception per 64 rounds) are built the same way with
# clang++, fragprof c++, g++ and g++ --coverage.
#
# Programs: every examples/*.c (with the stdin and args their header comments name;
# they run in about a millisecond, so their ratios show the cost of process
# start-up and of writing the counts at exit, not of counting),
# and the CPU-bound csmith programs listed in CSMITH below, each wrapped by
# bench/csmith_loop.c so that its func_1 runs ROUNDS times (a csmith program alone
# ends within milliseconds or never). Every build must print what clang's prints.
#
# Usage: bench/overhead.sh [-r RUNS] [-c] [-p PROGRAM.c|PROGRAM.cpp ...]
#   -r RUNS   hyperfine's --runs for each build (default 15)
#   -c        the csmith programs only
#   -p        these programs only (no csmith)
#   FRAGPROF_BENCH_KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=15
only=()
csmith_only=
while [ $# -gt 0 ]; do
	case "$1" in
	-r) runs=$2; shift 2 ;;
	-c) csmith_only=1; shift ;;
	-p) shift; while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do only+=("$1"); shift; done ;;
	*) echo "usage: bench/overhead.sh [-r RUNS] [-c] [-p PROGRAM.c ...]" >&2; exit 2 ;;
	esac
done

scripts/deps.sh
command -v hyperfine >/dev/null 2>&1 || scripts/deps.sh hyperfine

work=$(mktemp -d /tmp/fragprof-overhead.XXXXXX)
if [ -z "${FRAGPROF_BENCH_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "overhead.sh: work directory $work" >&2
fi
go build -o "$work/fragprof" ./cmd/fragprof

# CSMITH are csmith programs (csmith 2.3.0 with its default size limits, 45 to 130
# KB of C) as SEED:ROUNDS: bench/csmith_loop.c calls the program's func_1 ROUNDS
# times, which takes 0.2 s to 0.5 s at clang -O2 on a 2-core AMD EPYC, nearly all
# of it in the generated code (perf: func_1 and its callees 89-99%). Chosen by
# scanning seeds 1-110 with 10^6 rounds: most programs' func_1 soon does next to
# nothing, some never end; these five do steady work, and their repeated calls
# stay free of undefined behaviour (clang -fsanitize=address,undefined at these
# rounds; seeds 2 and 56 were dropped for a null and a misaligned load).
read -r -a CSMITH <<< "${FRAGPROF_BENCH_CSMITH:-9:400000 40:500000 92:2000000 97:3000000 15:3000000}"
# EXAMPLE_REPS: the examples run in about a millisecond, below what hyperfine can
# time through a shell, so each timing runs one EXAMPLE_REPS times in a row.
EXAMPLE_REPS=${FRAGPROF_BENCH_EXAMPLE_REPS:-100}

# header KEY FILE: the value of a "// KEY: value" header comment.
header() { sed -n "s|^// $1: *||p" "$2" | head -1; }

# build NAME SRC... : builds the five variants of one program into $work/NAME.*
build() {
	local name=$1; shift
	local cflags=(-w -I/usr/include/csmith -I runtime/c)
	local clang=clang fp=cc gcc=gcc
	case "$1" in *.cpp) clang=clang++ fp=c++ gcc=g++ ;; esac
	$clang -O2 "${cflags[@]}" "$@" -o "$work/$name.clang" -lm
	"$work/fragprof" $fp -O2 "${cflags[@]}" "$@" -o "$work/$name.fragprof" -lm
	$gcc -O2 "${cflags[@]}" "$@" -o "$work/$name.gcc" -lm
	$gcc --coverage -O2 "${cflags[@]}" "$@" -o "$work/$name.gcc-cov" -lm
	$clang -fprofile-instr-generate -O2 "${cflags[@]}" "$@" -o "$work/$name.clang-pgo" -lm
	FRAGPROF_VOLATILE=1 "$work/fragprof" $fp -O2 "${cflags[@]}" "$@" -o "$work/$name.fragprof-vol" -lm
	cp "$work/$name.fragprof-vol" "$work/$name.fragprof-cont"
}

# run V: how the loop runs build V (fragprof-cont in continuous mode).
run() {
	if [ "$1" = fragprof-cont ]; then echo "FRAGPROF_CONTINUOUS=1 "; fi
}

# measure NAME STDIN ARGS REPS: checks that the five builds print the same, times
# REPS runs in a row of each and prints a table row with the time of one run.
measure() {
	local name=$1 stdin=$2 args=$3 reps=$4
	local csv="$work/$name.csv"
	printf '%s' "$stdin" > "$work/$name.stdin"
	local want got
	# shellcheck disable=SC2086 # ARGS are split at spaces, as the header says
	want=$("$work/$name.clang" $args < "$work/$name.stdin" 2>&1 | cksum) || true
	for v in fragprof gcc gcc-cov clang-pgo fragprof-vol fragprof-cont; do
		# shellcheck disable=SC2086
		got=$(FRAGPROF_OUT="$work/$name.fpd" LLVM_PROFILE_FILE="$work/$name.profraw" \
			FRAGPROF_CONTINUOUS=$([ $v = fragprof-cont ] && echo 1) \
			"$work/$name.$v" $args < "$work/$name.stdin" 2>&1 | cksum) || true
		if [ "$got" != "$want" ]; then
			echo "overhead.sh: $name: the $v build prints other output than clang's" >&2
			exit 1
		fi
	done
	local cmds=()
	for v in clang fragprof gcc gcc-cov clang-pgo fragprof-vol fragprof-cont; do
		cmds+=("-n" "$v" "for i in \$(seq $reps); do $(run $v)$work/$name.$v $args < $work/$name.stdin > /dev/null 2>&1; done")
	done
	FRAGPROF_OUT="$work/$name.fpd" LLVM_PROFILE_FILE="$work/$name.profraw" \
		hyperfine -i --style basic --warmup 2 --runs "$runs" --export-csv "$csv" "${cmds[@]}" > /dev/null
	# Columns: command,mean,stddev,median,user,system,min,max (seconds). The wall
	# time is the median; the CPU time (user + system, the shell loop included) is
	# the mean, and grows less than the wall time when other processes load the
	# machine.
	awk -F, -v name="$name" -v reps="$reps" '
		NR > 1 { wall[$1] = $4 / reps; cpu[$1] = ($5 + $6) / reps }
		function r(a, b) { return b > 0 ? sprintf("%.2f / %.2f", wall[a] / wall[b], cpu[a] / cpu[b]) : "-" }
		END {
			printf "| %s | %.2f | %.2f | **%s** | %.2f | %.2f | **%s** | %.2f | **%s** | %.2f | **%s** | %.2f | **%s** |\n", name,
				1000*wall["clang"], 1000*wall["fragprof"], r("fragprof", "clang"),
				1000*wall["gcc"], 1000*wall["gcc-cov"], r("gcc-cov", "gcc"),
				1000*wall["clang-pgo"], r("clang-pgo", "clang"),
				1000*wall["fragprof-vol"], r("fragprof-vol", "fragprof"),
				1000*wall["fragprof-cont"], r("fragprof-cont", "fragprof")
		}' "$csv"
}

echo "| program | clang -O2 (ms) | fragprof (ms) | fragprof / clang (wall / CPU) | gcc -O2 (ms) | gcc --coverage (ms) | gcov / gcc (wall / CPU) | clang -fprofile-instr-generate (ms) | instr-gen / clang (wall / CPU) | fragprof volatile (ms) | volatile / fragprof (wall / CPU) | continuous (ms) | continuous / fragprof (wall / CPU) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"

programs=("${only[@]}")
if [ ${#programs[@]} -eq 0 ] && [ -z "$csmith_only" ]; then
	programs=(examples/*.c examples/*.cpp bench/cxx_work.cpp)
fi
for src in "${programs[@]}"; do
	[ -f "$src" ] || continue
	name=$(basename "$src")
	name=${name%.*}
	build "$name" "$src"
	stdin=$(header stdin "$src")
	[ -n "$stdin" ] && stdin="$stdin"$'\n'
	reps=$EXAMPLE_REPS
	[ "$src" = bench/cxx_work.cpp ] && reps=1
	measure "$name" "$stdin" "$(header args "$src")" "$reps"
done

if [ ${#only[@]} -eq 0 ]; then
	for sr in "${CSMITH[@]}"; do
		seed=${sr%%:*} rounds=${sr##*:}
		src="$work/csmith$seed.c"
		csmith --seed "$seed" -o "$src"
		build "csmith$seed" bench/csmith_loop.c "-DCSMITH_SRC=\"$src\"" -DROUNDS="$rounds"
		measure "csmith$seed" "" "" 1
	done
fi
