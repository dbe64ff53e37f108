#!/usr/bin/env bash
# overhead.sh: the run-time cost of fragprof's counters, against its peers measured
# in the same run on the same programs, at -O2 and at -O0.
#
# Every program is built six ways at each optimisation level:
#   clang      plain clang (FRAGPROF_CLANG or Debian's default clang, 14)
#   fragprof   fragprof cc with the same clang (chord counters, promoted out of loops
#              above -O0; counts written at exit to $FRAGPROF_OUT)
#   simple     the same with FRAGPROF_SIMPLIFIED=1: the counters of the CFG that
#              LLVM's early simplification leaves (docs/edge-profiling.md)
#   gcc        plain gcc
#   gcov       gcc --coverage (arc counters; .gcda merged at exit)
#   irpgo      clang -fprofile-generate (LLVM's IR PGO counters, which LLVM promotes
#              out of loops; .profraw at exit)
# and the six are run in turn, run by run, RUNS rounds (bench/interleave.c starts
# them without a shell, so that a change of load hits all of them alike and a
# millisecond run is not measured inside a shell's fork), each round from fresh
# copies of the binaries (see measure: where their pages land moves a run's time
# by up to 2× here). Each cell is the median
# over the runs of the CPU time (user + system, the kernel's accounting of the
# child) of one run; ratios are each instrumented build's CPU time over its
# own compiler's plain build: fragprof/clang, simple/clang, gcov/gcc, irpgo/clang. Geometric-mean
# rows close each group. Every build must print what the plain clang build prints; a
# program whose builds disagree (undefined behaviour in a csmith program) is skipped
# and named.
#
# Programs:
#   csmith    csmith programs (csmith's default limits) wrapped by bench/csmith_loop.c,
#             which calls func_1 ROUNDS times; seeds are taken in order from 1, keeping
#             the first NSEEDS whose plain clang build runs 0.2 s to 5 s after ROUNDS
#             is scaled from a calibration run of 10^5 rounds at that level (most
#             csmith programs' func_1 soon does next to nothing — below 10 ms for
#             10^5 rounds they are left out — and some never end)
#   kernels   bench/kernels/*.c: sorts, matrix products, a bytecode interpreter,
#             hashing (each sized to run a fraction of a second); bench/cxx_work.cpp
#             (C++: virtual calls, templates, STL containers, exceptions), built with
#             clang++, fragprof c++, g++ and g++ --coverage; each run RUNS × 3 times
#             (KERNEL_REPS; over 5 runs, matmul's 24 ms runs of its two fragprof
#             builds measured 0.72 and 1.34 of the plain build's)
#   examples  examples/*.c and *.cpp with the stdin and args of their header comments; they run
#             in about a millisecond, so each is run RUNS × EXAMPLE_REPS (100) times
#             and their ratios show the fixed cost of a run (start-up, writing counts)
# With -v, two more builds of every program: fragprof-vol (FRAGPROF_VOLATILE=1:
# volatile increments, every count in memory at every moment, what count --timeout
# and --continuous build) and the same run in continuous mode (FRAGPROF_CONTINUOUS=1,
# the counters in the mapped dump file), in a table of their ratios to fragprof.
# And bench/kernels/threads.c, two threads, counted with fragprof's atomic counters
# (FRAGPROF_ATOMIC=1) and without: the row gives both ratios and atomic/non-atomic.
#
# Usage: bench/overhead.sh [-q] [-v] [-n NSEEDS] [-s "SEEDS"] [-r RUNS] [-O "LEVELS"]
#   -q        quick mode: 5 csmith seeds, 3 rounds, -O2 only (about a tenth of the time)
#   -v        also the volatile build and continuous mode
#   -n        csmith seeds to keep (default 20)
#   -s SEEDS  exactly these csmith seeds (their ROUNDS still calibrated), instead of
#             the first NSEEDS that qualify: which seeds qualify depends on timings
#             near the thresholds, so two runs' geometric means can cover different
#             programs; each level's seeds are printed to stderr ("csmith seeds at
#             LEVEL: ...") for a later run to repeat
#   -r        rounds (default 5)
#   -O        optimisation levels (default "-O2 -O0")
#   -g GROUPS the groups to run (default "examples kernels csmith threads")
#   -t FILE   only print the tables of the results file of a kept run
#             (FRAGPROF_BENCH_KEEP=1 keeps $work/results.txt)
# Work files go to a fresh directory under $TMPDIR (default /tmp), removed at the end
# unless FRAGPROF_BENCH_KEEP=1. The load average is printed before and after: the
# machine may be shared, and only ratios measured side by side mean anything.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

nseeds=20
seeds=
runs=5
levels="-O2 -O0"
extra=()
groups="examples kernels csmith threads"
table=
while [ $# -gt 0 ]; do
	case "$1" in
	-q) nseeds=5; runs=3; levels="-O2"; shift ;;
	-v) extra=(vol cont); shift ;;
	-g) groups=$2; shift 2 ;;
	-t) table=$2; shift 2 ;;
	-n) nseeds=$2; shift 2 ;;
	-s) seeds=$2; shift 2 ;;
	-r) runs=$2; shift 2 ;;
	-O) levels=$2; shift 2 ;;
	*) echo "usage: bench/overhead.sh [-q] [-v] [-n NSEEDS] [-s \"SEEDS\"] [-r RUNS] [-O \"LEVELS\"]" >&2; exit 2 ;;
	esac
done

# want GROUP: is GROUP among those to run?
want() { case " $groups " in *" $1 "*) return 0 ;; esac; return 1; }

if [ -z "$table" ]; then
scripts/deps.sh >/dev/null
CLANG=${FRAGPROF_CLANG:-clang}
export FRAGPROF_CLANG=$CLANG
EXAMPLE_REPS=${FRAGPROF_BENCH_EXAMPLE_REPS:-100}
KERNEL_REPS=${FRAGPROF_BENCH_KERNEL_REPS:-3}

work=$(mktemp -d "${TMPDIR:-/tmp}/fragprof-overhead.XXXXXX")
if [ -z "${FRAGPROF_BENCH_KEEP:-}" ]; then
	trap 'rm -rf "$work"' EXIT
else
	echo "overhead.sh: work directory $work" >&2
fi
go build -o "$work/fragprof" ./cmd/fragprof
cc -O2 -o "$work/interleave" bench/interleave.c

# header KEY FILE: the value of a "// KEY: value" header comment.
header() { sed -n "s|^// $1: *||p" "$2" | head -1; }

# build NAME LEVEL SRC... : the six builds of one program, $work/NAME.VARIANT
build() {
	local name=$1 level=$2; shift 2
	local cflags=(-w -I/usr/include/csmith -I "$root/runtime/c")
	# C++ (a .cpp first): clang++, fragprof c++, g++.
	local clang=$CLANG fp=cc gcc=gcc
	case "$1" in *.cpp) clang=${CLANG/clang/clang++} fp=c++ gcc=g++ ;; esac
	(
		cd "$work"
		"$clang" "$level" "${cflags[@]}" "$@" -o "$name.clang" -lm -lpthread
		"$work/fragprof" $fp "$level" "${cflags[@]}" "$@" -o "$name.fragprof" -lm -lpthread
		FRAGPROF_SIMPLIFIED=1 "$work/fragprof" $fp "$level" "${cflags[@]}" "$@" -o "$name.simple" -lm -lpthread
		$gcc "$level" "${cflags[@]}" "$@" -o "$name.gcc" -lm -lpthread
		mkdir -p "$name.gcovdir"
		(cd "$name.gcovdir" && $gcc --coverage "$level" "${cflags[@]}" "$@" -o "../$name.gcov" -lm -lpthread)
		"$clang" -fprofile-generate "$level" "${cflags[@]}" "$@" -o "$name.irpgo" -lm -lpthread
		if [ ${#extra[@]} -gt 0 ]; then
			FRAGPROF_VOLATILE=1 "$work/fragprof" $fp "$level" "${cflags[@]}" "$@" -o "$name.vol" -lm -lpthread
			cp "$name.vol" "$name.cont"
		fi
	) 2> "$work/$name.build.log"
}

# cpu CMD...: the CPU time (user + system, seconds) of a command that succeeds, or
# nothing when it fails (a timeout).
cpu() {
	local TIMEFORMAT='%3U %3S'
	{ time { "$@" > /dev/null 2>&1 && echo ok; }; } > "$work/cpu.ok" 2> "$work/cpu.out" || true
	grep -q ok "$work/cpu.ok" && awk 'NF == 2 { print $1 + $2 }' "$work/cpu.out"
	return 0
}

# same NAME ARGS STDIN VARIANTS...: do the builds print what the clang build prints?
same() {
	local name=$1 args=$2 stdin=$3; shift 3
	local want got v
	# shellcheck disable=SC2086
	want=$(cd "$work" && FRAGPROF_OUT=$name.fpd LLVM_PROFILE_FILE=$name.profraw "./$name.clang" $args < "$stdin" 2>&1 | cksum) || true
	for v in "$@"; do
		# shellcheck disable=SC2086
		got=$(cd "$work" && FRAGPROF_OUT=$name.fpd LLVM_PROFILE_FILE=$name.profraw FRAGPROF_CONTINUOUS=$([ "$v" = cont ] && echo 1) "./$name.$v" $args < "$stdin" 2>&1 | cksum) || true
		[ "$got" = "$want" ] || { echo "$v"; return 1; }
	done
}

# measure NAME LEVEL ARGS STDIN REPS VARIANTS...: times the variants, run by run in
# turn (bench/interleave.c: no shell between the runs, so that a millisecond run is
# not measured inside a shell's fork and exec), RUNS × REPS runs of each, and prints
# "name level variant wall cpu" (the medians over the runs, seconds per run) per
# variant. Each of the RUNS rounds runs its own copy of every build (REPS runs of
# it): where the page cache puts a binary's pages is a setup the median should vary
# over, not one draw every run of a build shares. On this VM two byte-identical
# copies of one build ran 0.28 and 0.57 s, each within ±5 % over minutes
# (csmith40 at -O0, fragprof's build); such
# layout effects are why STABILIZER re-randomises layout (Curtsinger and Berger,
# "STABILIZER: statistically sound performance evaluation", ASPLOS 2013).
measure() {
	local name=$1 level=$2 args=$3 stdin=$4 reps=$5; shift 5
	local v c i cmds=()
	for c in $(seq 1 "$runs"); do
		for v in "$@"; do
			cp "$work/$name.$v" "$work/$name.$v.$c"
			cmds+=("FRAGPROF_OUT=$name.fpd LLVM_PROFILE_FILE=$name.profraw $([ "$v" != cont ] || echo FRAGPROF_CONTINUOUS=1) ./$name.$v.$c $args")
		done
	done
	(cd "$work" && ./interleave "$reps" "$stdin" "${cmds[@]}") > "$work/$name.t"
	for c in $(seq 1 "$runs"); do
		for v in "$@"; do rm -f "$work/$name.$v.$c"; done
	done
	i=0
	for v in "$@"; do
		awk -v i="$i" -v nv=$# '$1 % nv == i { print $2, $3 }' "$work/$name.t" | sort -n -k2 | awk -v n="$name" -v l="$level" -v v="$v" '
			{ w[NR] = $1; c[NR] = $2 }
			END { m = int((NR + 1) / 2); printf "%s %s %s %.6f %.6f\n", n, l, v, w[m], c[m] }'
		i=$((i + 1))
	done
}

results=$work/results.txt
: > "$results"
skipped=()

# one GROUP NAME LEVEL ARGS STDIN REPS SRC...: builds, checks and times one program.
one() {
	local group=$1 name=$2 level=$3 args=$4 stdin=$5 reps=$6; shift 6
	build "$name" "$level" "$@" || { skipped+=("$name $level (build failed: $(tail -1 "$work/$name.build.log"))"); return; }
	local bad
	if ! bad=$(same "$name" "$args" "$stdin" fragprof simple gcc gcov irpgo "${extra[@]+"${extra[@]}"}"); then
		skipped+=("$name $level (the $bad build prints other output)")
		return
	fi
	measure "$name" "$level" "$args" "$stdin" "$reps" clang fragprof simple gcc gcov irpgo "${extra[@]+"${extra[@]}"}" | sed "s/^/$group /" >> "$results"
}

echo "overhead.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
: > "$work/empty.stdin"

for level in $levels; do
	# Examples.
	for src in examples/*.c examples/*.cpp; do
		want examples || break
		name=$(basename "$src")
		name=${name%.*}
		stdin=$work/$name.stdin
		s=$(header stdin "$src")
		if [ -n "$s" ]; then printf '%s\n' "$s" > "$stdin"; else : > "$stdin"; fi
		one examples "$name$level" "$level" "$(header args "$src")" "$stdin" "$EXAMPLE_REPS" "$PWD/$src"
	done
	# Kernels.
	for src in bench/kernels/*.c bench/cxx_work.cpp; do
		want kernels || break
		name=$(basename "$src")
		name=${name%.*}
		[ "$name" = threads ] && continue
		one kernels "k-$name$level" "$level" "" "$work/empty.stdin" "$KERNEL_REPS" "$PWD/$src"
	done
	# csmith programs.
	kept=0
	keptseeds=
	want csmith || nseeds=0
	if [ -n "$seeds" ]; then
		set -- $seeds
		want csmith || set --
	else
		set -- $(seq 1 400)
	fi
	for seed; do
		[ -n "$seeds" ] || [ "$kept" -lt "$nseeds" ] || break
		c=$work/cs$seed.c
		[ -f "$c" ] || csmith --seed "$seed" -o "$c"
		cal=$work/cal$seed
		"$CLANG" "$level" -w -I/usr/include/csmith "-DCSMITH_SRC=\"$c\"" -DROUNDS=100000 bench/csmith_loop.c -o "$cal" 2>/dev/null || continue
		t=$(cpu timeout 5 "$cal")
		# A func_1 that costs next to nothing (plain -O2 deleted its work) or never
		# ends is no benchmark. Else scale ROUNDS so that the plain build takes about
		# 0.3 s.
		[ -n "$t" ] && { [ -n "$seeds" ] || awk -v t="$t" 'BEGIN { exit !(t >= 0.01) }'; } || { [ -z "$seeds" ] || echo "overhead.sh: csmith seed $seed at $level: calibration failed, skipped" >&2; continue; }
		rounds=$(awk -v t="$t" 'BEGIN { r = int(100000 * 0.3 / t); if (r > 10000000) r = 10000000; if (r < 1) r = 1; print r }')
		"$CLANG" "$level" -w -I/usr/include/csmith "-DCSMITH_SRC=\"$c\"" -DROUNDS="$rounds" bench/csmith_loop.c -o "$cal" 2>/dev/null || continue
		t=$(cpu timeout 10 "$cal")
		[ -n "$t" ] || continue
		[ -n "$seeds" ] || awk -v t="$t" 'BEGIN { exit !(t >= 0.2 && t <= 5) }' || continue
		n_before=$(wc -l < "$results")
		one csmith "csmith$seed$level" "$level" "" "$work/empty.stdin" 1 "$PWD/bench/csmith_loop.c" "-DCSMITH_SRC=\"$c\"" -DROUNDS="$rounds"
		[ "$(wc -l < "$results")" -gt "$n_before" ] && kept=$((kept + 1)) && keptseeds="$keptseeds $seed"
	done
	[ -z "$keptseeds" ] || echo "overhead.sh: csmith seeds at $level:$keptseeds" >&2
	# The threaded program, with atomic counters and without.
	name=threads$level
	if want threads && build "$name" "$level" "$PWD/bench/kernels/threads.c"; then
		(cd "$work" && FRAGPROF_ATOMIC=1 "$work/fragprof" cc "$level" "$root/bench/kernels/threads.c" -o "$name.atomic" -lpthread)
		measure "$name" "$level" "" "$work/empty.stdin" 1 clang fragprof atomic | sed "s/^/threads /" >> "$results"
	fi
done

echo "overhead.sh: load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

results_file=$results
else
	results_file=$table
fi

# The table: one row per program and level, then geometric means per group and level.
awk '
	{ g = $1; n = $2; l = $3; v = $4; cpu[n, v] = $6; wall[n, v] = $5; grp[n] = g; lev[n] = l
	  if (!(n in seen)) { seen[n] = 1; order[++k] = n } }
	function r(a, b) { return b > 0 ? a / b : 0 }
	function ms(x) { return sprintf("%.1f", 1000 * x) }
	END {
		print "| program | level | clang (ms) | fragprof (ms) | **fragprof / clang** | fragprof, simplified CFG (ms) | **simplified / clang** | gcc (ms) | gcov (ms) | **gcov / gcc** | IR PGO (ms) | **IR PGO / clang** |"
		print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
		for (i = 1; i <= k; i++) {
			n = order[i]
			if (grp[n] == "threads") continue
			a = r(cpu[n, "fragprof"], cpu[n, "clang"]); s = r(cpu[n, "simple"], cpu[n, "clang"]); b = r(cpu[n, "gcov"], cpu[n, "gcc"]); c = r(cpu[n, "irpgo"], cpu[n, "clang"])
			printf "| %s | %s | %s | %s | %.2f | %s | %.2f | %s | %s | %.2f | %s | %.2f |\n", n, lev[n], ms(cpu[n, "clang"]), ms(cpu[n, "fragprof"]), a, ms(cpu[n, "simple"]), s, ms(cpu[n, "gcc"]), ms(cpu[n, "gcov"]), b, ms(cpu[n, "irpgo"]), c
			key = grp[n] SUBSEP lev[n]
			if (a > 0 && b > 0 && c > 0) {
				la[key] += log(a); lb[key] += log(b); lc[key] += log(c); cnt[key]++
				la["all", lev[n]] += log(a); lb["all", lev[n]] += log(b); lc["all", lev[n]] += log(c); cnt["all", lev[n]]++
			}
			if (s > 0) { # results of runs before the simplified build have none
				ls[key] += log(s); cs[key]++; ls["all", lev[n]] += log(s); cs["all", lev[n]]++
			}
			levels[lev[n]] = 1
		}
		print ""
		print "| geometric mean | level | programs | **fragprof / clang** | **simplified / clang** | **gcov / gcc** | **IR PGO / clang** |"
		print "|---|---|---:|---:|---:|---:|---:|"
		split("examples kernels csmith all", gs, " ")
		for (lv in levels)
			for (j = 1; j <= 4; j++) {
				key = gs[j] SUBSEP lv
				if (cnt[key] > 0)
					printf "| %s | %s | %d | %.2f | %.2f | %.2f | %.2f |\n", gs[j], lv, cnt[key], exp(la[key] / cnt[key]), cs[key] ? exp(ls[key] / cs[key]) : 0, exp(lb[key] / cnt[key]), exp(lc[key] / cnt[key])
			}
		threads = 0
		for (i = 1; i <= k; i++)
			threads += grp[order[i]] == "threads"
		if (threads) {
			print ""
			print "| threaded program | level | clang (ms) | fragprof (ms) | fragprof --atomic (ms) | fragprof / clang | atomic / clang | **atomic / non-atomic** |"
			print "|---|---|---:|---:|---:|---:|---:|---:|"
		}
		for (i = 1; i <= k; i++) {
			n = order[i]
			if (grp[n] != "threads") continue
			printf "| %s | %s | %s | %s | %s | %.2f | %.2f | %.2f |\n", n, lev[n], ms(cpu[n, "clang"]), ms(cpu[n, "fragprof"]), ms(cpu[n, "atomic"]),
				r(cpu[n, "fragprof"], cpu[n, "clang"]), r(cpu[n, "atomic"], cpu[n, "clang"]), r(cpu[n, "atomic"], cpu[n, "fragprof"])
		}
		if (!vol) exit
		print ""
		print "| program | level | fragprof (ms) | volatile (ms) | **volatile / fragprof** | continuous (ms) | **continuous / fragprof** |"
		print "|---|---|---:|---:|---:|---:|---:|"
		for (i = 1; i <= k; i++) {
			n = order[i]
			if (grp[n] == "threads" || !((n, "vol") in cpu)) continue
			printf "| %s | %s | %s | %s | %.2f | %s | %.2f |\n", n, lev[n], ms(cpu[n, "fragprof"]), ms(cpu[n, "vol"]), r(cpu[n, "vol"], cpu[n, "fragprof"]),
				ms(cpu[n, "cont"]), r(cpu[n, "cont"], cpu[n, "fragprof"])
		}
	}' vol=${#extra[@]} "$results_file"
for s in "${skipped[@]+"${skipped[@]}"}"; do
	echo "skipped: $s"
done
