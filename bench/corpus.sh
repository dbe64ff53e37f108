#!/usr/bin/env bash
# bench/corpus.sh: fragprof freq on three real programs over real corpora (finite
# populations, docs/inputs.md), against the exhaustive run of every member.
#   sqlite  the SQLite amalgamation (scripts/sqlite.sh) with a small shell
#           (bench/corpus/sqlite_shell.c), built by fragprof cc, over SQL scripts
#           drawn from bench/corpus/sql.ebnf (CREATE TABLE, INSERT, SELECT, JOIN,
#           GROUP BY, CREATE INDEX, ...) and written once into a corpus directory;
#   lua     Lua 5.4.4 (scripts/lua.sh) built by make CC="fragprof cc", over Lua
#           scripts drawn from bench/corpus/lua.ebnf;
#   bzip2   bzip2 1.0.8 (scripts/bzip2.sh) built by make CC="fragprof cc",
#           compressing files generated from the seed (bench/corpuslab synth:
#           prose, C-like source, binary records, repeated motifs, runs of one
#           byte, random bytes and files mixing them, of log-uniform sizes from 0
#           to 16 KB) with bzip2 -c FILE.
# For each: the exhaustive run (freq until n = N: every member once, every block
# exact), then for each precision REL of RELS and SHARE of SHARES freq at
# --rel-eps REL with --ignore-rare SHARE (the blocks that run in fewer than SHARE
# of the inputs do not hold the run), with the trials it used as a share of the
# corpus and both wall times; then the laboratory (bench/corpuslab, package lab):
# every member's counts recorded once, freq's procedure replayed R times per REL
# and SHARE with other seeds on
# them, the coverage of the exact means by the statements of the blocks that run
# in at least SHARE of the members (all at once and per block, with binomial
# sd's), and a check that the replay of freq's seed stops where freq stopped with
# the same estimates, and that the recorded means are the exhaustive run's.
#
# How large a corpus must be for the figures to mean something: on a corpus of
# fewer members than freq needs draws, freq runs to n = N, where every block is
# exact and the coverage is 1 by construction. A block of mean μ and standard
# deviation σ over the members needs about n0 = (2.24·σ/(REL·μ))² draws (2.24:
# the default rule's quantile at 1 − α/2), n0/(1 + n0/N) without replacement
# (the t interval's and, for a block that runs at most once per input, the exact
# hypergeometric interval's finite-population correction; a skewed count is
# judged by the wider confidence sequence, without it). The bench prints n0 for
# the blocks of each SHARE from the exhaustive run, and n0/(1 + n0/N).
# The laboratory's cost: a replication runs freq's engine over the recorded
# counts, judging the blocks at every trial, about 4 s of CPU on SQLite (40,970
# blocks, 500 trials) against 0.3 s on bzip2 (300 files), so R = 200 at one
# precision is some 800 s of CPU on SQLite. Replication k has seed 1000 + k: the
# runs `corpuslab replay -r 25 -seed $((1000 + 25*j))`, j = 0 … 7, are the
# replications of one run of R = 200, cut in parts.
# Usage: bench/corpus.sh [R=200]
#   Environment: RELS ("0.05 0.2"), SHARES ("0.1"), SEED (1), PROGRAMS ("sqlite
#   lua bzip2"), N_SQLITE (500), N_LUA (200), N_BZIP2 (1000). The programs are
#   built once per fragprof binary and build recipe, and kept in
#   $FRAGPROF_CACHE/corpus-bench.
# Every member must give the same counts at every run (no clock, no random seed):
# the laboratory checks that the recorded means are the exhaustive run's.
set -euo pipefail
# Without address-space randomisation (setarch -R, inherited by every program
# started below): Lua's cache of C strings (lstring.c, luaS_new) is indexed by
# the strings' addresses, so under randomisation a member's counts of string
# hashing change from run to run by a few in ten thousand.
if [ -z "${FRAGPROF_CORPUS_NORANDOM:-}" ]; then
	FRAGPROF_CORPUS_NORANDOM=1 exec setarch "$(uname -m)" -R "$0" "$@"
fi
cd "$(dirname "$0")/.."
R=${1:-200}
RELS=${RELS:-0.05 0.2}
SHARES=${SHARES:-0.1}
N_SQLITE=${N_SQLITE:-500}
N_LUA=${N_LUA:-200}
N_BZIP2=${N_BZIP2:-1000}
SEED=${SEED:-1}
PROGRAMS=${PROGRAMS:-sqlite lua bzip2}
make -s build
FP=$PWD/fragprof
# The key: fragprof, the shell and the recipe of build() below.
key=$({ cat "$FP" bench/corpus/sqlite_shell.c; sed -n '/^build() {/,/^}/p' bench/corpus.sh; } | sha256sum | cut -c1-16)
cache=${FRAGPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fragprof}/corpus-bench/$key
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/corpuslab" ./bench/corpuslab
lab=$tmp/corpuslab

build() { # the program $1, built by fragprof into $cache/$1
	[ -x "$cache/$1" ] && return
	local b=$tmp/build-$1
	case $1 in
	sqlite)
		local src
		src=$(scripts/sqlite.sh)
		mkdir -p "$b"
		(cd "$b" && "$FP" cc -O2 -w -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION -I "$src" \
			"$src/sqlite3.c" "$OLDPWD/bench/corpus/sqlite_shell.c" -o sqlite) >&2
		;;
	lua)
		cp -r "$(scripts/lua.sh)" "$b"
		# Lua seeds its string hashes from the time and the addresses of its state
		# (lstate.c, luai_makeseed), so a script's counts (of table look-ups, of
		# pairs) change from run to run: a fixed seed makes every run of a member
		# count the same, which the exhaustive truth needs.
		make -s -C "$b/src" CC="$FP cc" MYCFLAGS="-w '-Dluai_makeseed(L)=0'" linux >&2
		cp "$b/src/lua" "$b/lua"
		;;
	bzip2)
		cp -r "$(scripts/bzip2.sh)" "$b"
		make -s -C "$b" CC="$FP cc" bzip2 >&2
		;;
	esac
	cp "$b/$1" "$cache/$1.part" && mv "$cache/$1.part" "$cache/$1"
}

now() { date +%s.%N; }
echo "== fragprof freq on corpora: --rel-eps each of $RELS, --ignore-rare each of $SHARES, seed $SEED; lab: R = $R ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for prog in $PROGRAMS; do
	t0=$(now)
	build "$prog"
	corpus=$tmp/corpus-$prog
	case $prog in
	sqlite)
		"$lab" grammar -grammar bench/corpus/sql.ebnf -start script -maxdepth 10 -n "$N_SQLITE" -seed "$SEED" -ext .sql -o "$corpus"
		printf 'stdin = "{f:contents}"\n[inputs]\nf = '\''file("%s/*.sql")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="$N_SQLITE SQL scripts of bench/corpus/sql.ebnf on stdin"
		;;
	lua)
		"$lab" grammar -grammar bench/corpus/lua.ebnf -start chunk -maxdepth 10 -n "$N_LUA" -seed "$SEED" -ext .lua -o "$corpus"
		printf 'args = ["{f}"]\n[inputs]\nf = '\''file("%s/*.lua")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="$N_LUA Lua scripts of bench/corpus/lua.ebnf"
		;;
	bzip2)
		"$lab" synth -n "$N_BZIP2" -seed "$SEED" -max-size 16384 -o "$corpus"
		printf 'args = ["-c", "{f}"]\n[inputs]\nf = '\''file("%s/*")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="bzip2 -c on $N_BZIP2 generated files, $(du -sh "$corpus" | cut -f1)"
		;;
	esac
	echo "-- $prog: $what (built and made in $(python3 -c "print('%.0f' % ($(now) - $t0))")s)"
	run() { # $1: the report; the rest: freq's flags. Prints the wall time.
		local out=$1 a
		shift
		a=$(now)
		"$FP" freq --binary "$cache/$prog" --inputs "$tmp/$prog.toml" --json -o "$out" "$@" 2>"$tmp/stderr" || {
			cat "$tmp/stderr" >&2
			exit 1
		}
		python3 -c "print('%.2f' % ($(now) - $a))"
	}
	wex=$(run "$tmp/$prog-ex.json" --rel-eps 1e-9)
	python3 - "$tmp/$prog-ex.json" "$wex" "$RELS" $SHARES <<'PY'
import json, sys
ex = json.load(open(sys.argv[1]))
n = ex['trials']
blocks = sum(len(f['blocks']) for f in ex['functions'])
print('  exhaustive: %5d trials (%s), %d blocks, %.1fs' % (n, ', '.join('%s %d' % kv for kv in sorted(ex['states'].items())), blocks, float(sys.argv[2])))
# The draws with replacement each block of the share needs at ±REL by the
# normal approximation, n0 = (2.24·σ/(REL·μ))² from the exact mean and variance
# (2.24: the default rule's quantile at 1 − α/2), and with the finite-population
# correction n0/(1 + n0/N) (Cochran 1977, §4.4): the least a rule judging by
# the CLT can stop at, before its skewness guard and binomial intervals.
for rel, share in ((float(r), float(s)) for r in sys.argv[3].split() for s in sys.argv[4:]):
    need = sorted(((2.24 / rel) ** 2 * b['variance'] / b['mean'] ** 2, f['name'] + ':' + b['label'])
                  for f in ex['functions'] for b in f['blocks'] if b['ran'] >= share * n and b['mean'] > 0)
    n0, name = need[-1]
    p99 = need[int(0.99 * len(need))][0]
    print('  blocks in >= %g of the members: %d; n0 at ±%g: median %.0f, 99th percentile %.0f (%.0f with the FPC), largest %.0f (%s), = %.0f with the FPC at N = %d' % (
        share, len(need), rel, need[len(need) // 2][0], p99, p99 / (1 + p99 / n), n0, name, n0 / (1 + n0 / n), n))
PY
	checks=
	for rel in $RELS; do
		for share in $SHARES; do
			fr=$tmp/$prog-fr$rel-$share.json
			wfr=$(run "$fr" --rel-eps "$rel" --ignore-rare "$share" --seed "$SEED")
			checks=${checks:+$checks,}$fr
			python3 - "$tmp/$prog-ex.json" "$fr" "$wex" "$wfr" "$rel" "$share" <<'PY'
import json, sys
ex, fr = (json.load(open(f)) for f in sys.argv[1:3])
wex, wfr = float(sys.argv[3]), float(sys.argv[4])
print('  freq --rel-eps %s --ignore-rare %s: %5d trials = %.1f %% of the corpus, %.1fs = %.2fx the exhaustive time (%s)' % (
    sys.argv[5], sys.argv[6], fr['trials'], 100 * fr['trials'] / ex['trials'], wfr, wfr / wex, fr['stopped']))
PY
		done
	done
	"$lab" replay -binary "$cache/$prog" -inputs "$tmp/$prog.toml" -r "$R" -seed 1000 -rel-eps "$(echo $RELS | tr ' ' ,)" \
		-share "$(echo $SHARES | tr ' ' ,)" -check "$checks" -check-seed "$SEED" -exhaustive "$tmp/$prog-ex.json"
done
