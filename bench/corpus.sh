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
#           compressing files of every kind and size chosen under /usr/share and
#           /usr/include by a seeded shuffle (bzip2 -c FILE).
# For each: the exhaustive run (freq until n = N: every member once, every block
# exact), then freq at --rel-eps REL with --ignore-rare SHARE (the blocks that run
# in fewer than SHARE of the inputs do not hold the run), with the trials it used
# as a share of the corpus and both wall times; then the laboratory
# (bench/corpuslab, package lab): every member's counts recorded once, freq's
# procedure replayed R times with other seeds on them, the coverage of the exact
# means by the statements of the blocks that run in at least SHARE of the members,
# and a check that the replay of freq's seed stops where freq stopped with the same
# estimates, and that the recorded means are the exhaustive run's.
# Usage: bench/corpus.sh [R=200] [SCALE=1]
#   SCALE multiplies the corpora: 500·SCALE SQL scripts, 200·SCALE Lua scripts,
#   1000·SCALE files. Environment: REL (0.05), SHARE (0.1), SEED (1),
#   PROGRAMS ("sqlite lua bzip2"). The programs are built once per fragprof binary
#   and build recipe, and kept in $FRAGPROF_CACHE/corpus-bench.
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
SCALE=${2:-1}
REL=${REL:-0.05}
SHARE=${SHARE:-0.1}
SEED=${SEED:-1}
PROGRAMS=${PROGRAMS:-sqlite lua bzip2}
make -s build
FP=$PWD/fragprof
key=$(cat "$FP" bench/corpus.sh bench/corpus/sqlite_shell.c | sha256sum | cut -c1-16)
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
echo "== fragprof freq on corpora: --rel-eps $REL, --ignore-rare $SHARE, seed $SEED; lab: R = $R ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
for prog in $PROGRAMS; do
	t0=$(now)
	build "$prog"
	corpus=$tmp/corpus-$prog
	case $prog in
	sqlite)
		"$lab" grammar -grammar bench/corpus/sql.ebnf -start script -maxdepth 10 -n $((500 * SCALE)) -seed "$SEED" -ext .sql -o "$corpus"
		printf 'stdin = "{f:contents}"\n[inputs]\nf = '\''file("%s/*.sql")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="$((500 * SCALE)) SQL scripts of bench/corpus/sql.ebnf on stdin"
		;;
	lua)
		"$lab" grammar -grammar bench/corpus/lua.ebnf -start chunk -maxdepth 10 -n $((200 * SCALE)) -seed "$SEED" -ext .lua -o "$corpus"
		printf 'args = ["{f}"]\n[inputs]\nf = '\''file("%s/*.lua")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="$((200 * SCALE)) Lua scripts of bench/corpus/lua.ebnf"
		;;
	bzip2)
		"$lab" files -n $((1000 * SCALE)) -seed "$SEED" -o "$corpus" /usr/share /usr/include
		printf 'args = ["-c", "{f}"]\n[inputs]\nf = '\''file("%s/*")'\''\n' "$corpus" >"$tmp/$prog.toml"
		what="bzip2 -c on $((1000 * SCALE)) files of /usr/share and /usr/include, $(du -sh "$corpus" | cut -f1)"
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
	wfr=$(run "$tmp/$prog-fr.json" --rel-eps "$REL" --ignore-rare "$SHARE" --seed "$SEED")
	python3 - "$tmp/$prog-ex.json" "$tmp/$prog-fr.json" "$wex" "$wfr" <<'PY'
import json, sys
ex, fr = (json.load(open(f)) for f in sys.argv[1:3])
wex, wfr = float(sys.argv[3]), float(sys.argv[4])
n = ex['trials']
blocks = sum(len(f['blocks']) for f in ex['functions'])
print('  exhaustive: %5d trials (%s), %d blocks, %.1fs' % (n, ', '.join('%s %d' % kv for kv in sorted(ex['states'].items())), blocks, wex))
print('  freq:       %5d trials = %.1f %% of the corpus, %.1fs = %.2fx the exhaustive time (%s)' % (
    fr['trials'], 100 * fr['trials'] / n, wfr, wfr / wex, fr['stopped']))
PY
	"$lab" replay -binary "$cache/$prog" -inputs "$tmp/$prog.toml" -r "$R" -seed 1000 -rel-eps "$REL" -ignore-rare "$SHARE" \
		-share "$SHARE" -check "$tmp/$prog-fr.json" -check-seed "$SEED" -exhaustive "$tmp/$prog-ex.json"
done
