#!/usr/bin/env bash
# bench/trialcost.sh: what one freq trial costs against one run of the plain program
# (the target: "a freq trial costs <= 2x the plain run + 1 ms, on SQLite as on
# newton"). For examples/newton.c (a run of microseconds) and a SQLite workload (a
# table of ROWS rows, ROWS = uniform_int(100, 1000) read on stdin; tens of
# milliseconds, 5.8 MB of metadata in its instrumented binary):
#   plain      N runs of the plain clang -O2 build, each forked and exec'd with its
#              input on stdin and its output to /dev/null, by a small C driver;
#   freq       fragprof freq --binary (the fragprof cc -O2 build) --jobs 1, N trials:
#              the trial phase's time ("spent after"), divided by N, which carries
#              freq's start (the fork server's, the metadata's decoding); and the
#              same run with 2N trials less the N-trial one, divided by N: a trial
#              once freq has started;
#   bare fork  fork()+_exit+waitpid of a small C program;
#   standalone N runs of the fragprof cc -O2 build by the same driver, each writing
#              its dump to a file in TMPDIR (FRAGPROF_OUT): the fixed cost of a run
#              outside freq (start-up, the dump), against the plain run.
# Each is measured in wall time and in CPU time (user + system of the command and all
# its descendants: fragprof, its fork server and the trials; the driver and the runs),
# which a loaded machine inflates much less than wall time.
# ROUNDS (default 3) interleaved rounds; medians; the ratio freq trial / plain run.
# The SQLite part needs scripts/sqlite.sh (the amalgamation, through npm).
# Usage: bench/trialcost.sh [N=200]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}
ROUNDS=${ROUNDS:-3}
make -s build
FP=$PWD/fragprof
tmp=$(mktemp -d "${TMPDIR:-/tmp}/trialcost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
CLANG=${CLANG:-clang}

cat > "$tmp/driver.c" <<'C'
/* driver PROG INPUTS: runs PROG once per line of INPUTS, the line on its stdin, its
 * output to /dev/null; prints the mean microseconds per run. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
	FILE *in = fopen(argv[2], "r");
	char line[256];
	int n = 0, st, null = open("/dev/null", O_WRONLY);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	while (fgets(line, sizeof line, in)) {
		int p[2];
		if (pipe(p) < 0)
			return 1;
		pid_t pid = fork();
		if (pid == 0) {
			dup2(p[0], 0);
			dup2(null, 1);
			close(p[0]);
			close(p[1]);
			execv(argv[1], (char *[]){argv[1], 0});
			_exit(127);
		}
		close(p[0]);
		if (write(p[1], line, strlen(line)) < 0)
			return 1;
		close(p[1]);
		waitpid(pid, &st, 0);
		n++;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1000.0);
	return 0;
}
C
cat > "$tmp/fork.c" <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(void) {
	struct timespec a, b;
	int n = 2000, st;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		waitpid(p, &st, 0);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("%.1f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1000.0);
	return 0;
}
C
cc -O2 "$tmp/driver.c" -o "$tmp/driver"
cc -O2 "$tmp/fork.c" -o "$tmp/fork"

# Programs: name, source, clang flags, input distribution, stdin template, the
# inputs for the driver (N values of the same distribution).
python3 -c "import random; r = random.Random(1); print('\n'.join('%.6f' % r.uniform(100, 800) for _ in range($N)))" > "$tmp/newton.in"
python3 -c "import random; r = random.Random(1); print('\n'.join(str(r.randint(100, 1000)) for _ in range($N)))" > "$tmp/sqlite.in"
progs=(newton)
"$CLANG" -O2 -w -Iruntime/c examples/newton.c -o "$tmp/newton.plain" -lm
"$FP" cc -O2 -w examples/newton.c -o "$tmp/newton.fp" -lm
newton_input=(--input 'ask = uniform(100, 800)' --stdin '{ask}\n')
if sq=$(bash scripts/sqlite.sh 2>/dev/null); then
	{
		cat "$sq/sqlite3.c" internal/oracle/testdata/sqlite_workload.c.in |
			sed -e 's/^int main(void) {/int main(void) {\n\tint rows = 500;\n\tif (scanf("%d", \&rows) != 1)\n\t\trows = 500;/' \
				-e 's/for (int i = 0; i < 500; i++) {/for (int i = 0; i < rows; i++) {/'
	} > "$tmp/sqlite.c"
	sqflags=(-w -I"$sq" -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION)
	echo "building the SQLite workload (plain and fragprof cc; a few minutes)" >&2
	"$CLANG" -O2 "${sqflags[@]}" "$tmp/sqlite.c" -o "$tmp/sqlite.plain" -lm
	"$FP" cc -O2 "${sqflags[@]}" "$tmp/sqlite.c" -o "$tmp/sqlite.fp" -lm
	sqlite_input=(--input 'rows = uniform_int(100, 1000)' --stdin '{rows}\n')
	progs+=(sqlite)
else
	echo "(no SQLite: scripts/sqlite.sh could not fetch the amalgamation)" >&2
fi

# cpu CMD...: runs CMD and prints the CPU seconds (user + system) it and every
# descendant it waited for used, on fd 3; CMD's own stdout goes where it goes.
cpu() { python3 -c "import os,resource,subprocess,sys; subprocess.run(sys.argv[1:]); r=resource.getrusage(resource.RUSAGE_CHILDREN); os.write(3, b'%f\n' % (r.ru_utime + r.ru_stime))" "$@"; }
median() { python3 -c "import statistics,sys; print('%.1f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
echo "== freq trial against a plain run, $N each, $ROUNDS interleaved rounds, medians ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
floors=()
for p in "${progs[@]}"; do
	declare -a plain_us=() freq_us=() alone_us=() next_us=() plain_cpu=() freq_cpu=() next_cpu=()
	eval "in=(\"\${${p}_input[@]}\")"
	for round in $(seq "$ROUNDS"); do
		plain_us+=("$(cpu "$tmp/driver" "$tmp/$p.plain" "$tmp/$p.in" 3>"$tmp/cpu")")
		plain_cpu+=("$(python3 -c "print('%.1f' % ($(cat "$tmp/cpu") * 1e6 / $N))")")
		alone_us+=("$(FRAGPROF_OUT="$tmp/$p.dump" "$tmp/driver" "$tmp/$p.fp" "$tmp/$p.in")")
		cpu "$FP" freq --binary "$tmp/$p.fp" "${in[@]}" --rel-eps 1e-9 --max-trials "$N" --jobs 1 --seed "$round" \
			--program-output /dev/null -o "$tmp/$p.report" 2>/dev/null 3>"$tmp/cpu" || true
		c1=$(cat "$tmp/cpu")
		freq_cpu+=("$(python3 -c "print('%.1f' % ($c1 * 1e6 / $N))")")
		s=$(sed -n 's/^stopped: .* after \([0-9.]*\)s$/\1/p' "$tmp/$p.report")
		freq_us+=("$(python3 -c "print('%.1f' % ($s * 1e6 / $N))")")
		# The same with twice the trials: the second N cost what a trial costs once
		# freq has started (its fork server up, the metadata decoded).
		cpu "$FP" freq --binary "$tmp/$p.fp" "${in[@]}" --rel-eps 1e-9 --max-trials "$((2 * N))" --jobs 1 --seed "$round" \
			--program-output /dev/null -o "$tmp/$p.report2" 2>/dev/null 3>"$tmp/cpu" || true
		next_cpu+=("$(python3 -c "print('%.1f' % (($(cat "$tmp/cpu") - $c1) * 1e6 / $N))")")
		s2=$(sed -n 's/^stopped: .* after \([0-9.]*\)s$/\1/p' "$tmp/$p.report2")
		next_us+=("$(python3 -c "print('%.1f' % (($s2 - $s) * 1e6 / $N))")")
		floors+=("$("$tmp/fork")")
	done
	pm=$(median "${plain_us[@]}")
	fm=$(median "${freq_us[@]}")
	printf '  %-7s plain run %9s us   freq trial %9s us   ratio %5.2f   (plain:%s; freq:%s)\n' "$p" "$pm" "$fm" \
		"$(python3 -c "print($fm / $pm)")" "$(printf ' %s' "${plain_us[@]}")" "$(printf ' %s' "${freq_us[@]}")"
	nm=$(median "${next_us[@]}")
	printf '  %-7s freq trial past the start (2N trials less N) %9s us   ratio %5.2f   (%s)\n' "$p" "$nm" \
		"$(python3 -c "print($nm / $pm)")" "$(printf ' %s' "${next_us[@]}")"
	pc=$(median "${plain_cpu[@]}")
	fc=$(median "${freq_cpu[@]}")
	nc=$(median "${next_cpu[@]}")
	printf '  %-7s CPU: plain run %9s us   freq trial %9s us (ratio %5.2f)   past the start %9s us (ratio %5.2f)   (plain:%s; freq:%s; past:%s)\n' "$p" "$pc" "$fc" \
		"$(python3 -c "print($fc / $pc)")" "$nc" "$(python3 -c "print($nc / $pc)")" \
		"$(printf ' %s' "${plain_cpu[@]}")" "$(printf ' %s' "${freq_cpu[@]}")" "$(printf ' %s' "${next_cpu[@]}")"
	printf '  %-7s target 2 x plain + 1 ms: wall %9.1f us, CPU %9.1f us\n' "$p" \
		"$(python3 -c "print(2 * $pm + 1000)")" "$(python3 -c "print(2 * $pc + 1000)")"
	am=$(median "${alone_us[@]}")
	printf '  %-7s standalone run, dump to a file %9s us   ratio to plain %5.2f   (%s)\n' "$p" "$am" \
		"$(python3 -c "print($am / $pm)")" "$(printf ' %s' "${alone_us[@]}")"
	unset plain_us freq_us alone_us next_us plain_cpu freq_cpu next_cpu
done
echo "  bare fork()+_exit+waitpid: $(median "${floors[@]}") us"
echo "  target: freq trial <= 2 x plain run + 1 ms"
