#!/usr/bin/env bash
# bench/freq.sh: what fragprof freq costs and how right it is.
#  1. trials per second on a tiny program (examples/newton.c): the fork server against
#     an exec per trial (FreqSys's way) and in-process trials (--isolation none),
#     measured in this run in ROUNDS (default 3) interleaved rounds, medians printed
#     as ratios;
#  2. trials to convergence on newton.c at eps = 0.3, gamma = 0.95: the default rule,
#     FreqSys's rigorous (absolute third moment) and the paper's signed moment, next
#     to FreqSys's 36 (bench/coverage.sh measures what each rule's intervals are worth);
#  3. empirical coverage of the intervals over many seeds on examples/known.c, whose
#     expected counts are known exactly.
#  0. the machine's floor: fork+_exit+waitpid of a bare C program, dynamic and static,
#     in the same run, since a fork server cannot beat fork() itself.
# Usage: bench/freq.sh [SEEDS=200] [TRIALS=4000]   (SEEDS=0 leaves out part 3)
set -euo pipefail
cd "$(dirname "$0")/.."
SEEDS=${1:-200}
TRIALS=${2:-4000}
make -s build
FP=./fragprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
newton=(examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n')
rate() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%d %.1f %.0f' % (d['trials'], d['elapsed_s'], d['trials']/d['elapsed_s']))" "$1"; }

cat > "$tmp/fork.c" <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
int main(void) {
  struct timespec a, b; int n = 2000, st;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (int i = 0; i < n; i++) { pid_t p = fork(); if (p == 0) _exit(0); waitpid(p, &st, 0); }
  clock_gettime(CLOCK_MONOTONIC, &b);
  printf("%.0f", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n / 1000.0);
  return 0;
}
C
cc -O2 "$tmp/fork.c" -o "$tmp/fork" && cc -O2 -static "$tmp/fork.c" -o "$tmp/fork-static"
floor=$("$tmp/fork")
echo "== 0. fork()+_exit+waitpid of a bare C program: $floor us dynamic, $("$tmp/fork-static") us static"

ROUNDS=${ROUNDS:-3}
echo "== 1. trials/s on examples/newton.c, $TRIALS trials each, $ROUNDS interleaved rounds, median ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
median() { python3 -c "import statistics,sys; print(round(statistics.median(float(x) for x in sys.argv[1:])))" "$@"; }
for jobs in 1 2; do
  declare -A rates=([exec]="" [fork]="" [none]="")
  for round in $(seq "$ROUNDS"); do
    for iso in exec fork none; do
      $FP freq "${newton[@]}" --rel-eps 1e-9 --max-trials "$TRIALS" --isolation $iso --jobs $jobs --json -o "$tmp/$iso.json"
      read -r n s r < <(rate "$tmp/$iso.json")
      rates[$iso]="${rates[$iso]} $r"
    done
  done
  for iso in exec fork none; do
    eval "r_$iso=$(median ${rates[$iso]})"
    printf '  jobs %d  %-5s %7d trials/s  (rounds:%s)\n' "$jobs" "$iso" "$(eval echo \$r_$iso)" "${rates[$iso]}"
  done
  python3 -c "print('  jobs $jobs  fork/exec = %.1fx   none/exec = %.1fx   none/fork = %.1fx' % ($r_fork/$r_exec, $r_none/$r_exec, $r_none/$r_fork))"
  if [ "$jobs" = 1 ]; then
    # No fork server beats fork() itself: exec's trial over the bare fork is the
    # most any fork server could reach on this machine.
    python3 -c "print('  jobs 1  a trial: exec %.0f us, fork server %.0f us, bare fork %d us: ceiling exec/bare fork = %.1fx, fork server / bare fork = %.2f' % (1e6/$r_exec, 1e6/$r_fork, $floor, 1e6/$r_exec/$floor, 1e6/$r_fork/$floor))"
  fi
done

echo "== 2. trials to convergence on examples/newton.c, eps 0.3, gamma 0.95 (FreqSys: 36 trials, 9.96)"
for m in clt freqsys-absolute freqsys-signed; do
  $FP freq "${newton[@]}" --eps 0.3 --gamma 0.95 --rule $m --json -o "$tmp/$m.json"
  python3 - "$tmp/$m.json" $m <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for f in d['functions'] if f['name'] == 'nsqrt' for b in f['blocks'] if b['label'] == 'do.body'][0]
print('  %-17s %6d trials, %5.1fs, loop body %.4f ± %.4f (%s)' % (sys.argv[2], d['trials'], d['elapsed_s'], b['mean'], b['halfwidth'], b['state']))
PY
done

[ "$SEEDS" -gt 0 ] || exit 0
echo "== 3. coverage on examples/known.c over $SEEDS seeds (eps 1, gamma 0.95, --isolation none)"
for s in $(seq 1 "$SEEDS"); do
  $FP freq examples/known.c --inputs examples/known.toml --eps 1 --isolation none --seed "$s" --json -o "$tmp/k$s.json"
done
python3 - "$tmp" "$SEEDS" <<'PY'
import json, re, sys
tmp, seeds = sys.argv[1], int(sys.argv[2])
known = {}
for i, l in enumerate(open('examples/known.c'), 1):
    m = re.search(r'\be ([0-9.]+)\s*$', l)
    if m: known[i] = float(m.group(1))
def line_col(pos):
    p = pos.split(':'); return int(p[-2]), int(p[-1])
cover = {l: 0 for l in known}; trials = []
for s in range(1, seeds + 1):
    d = json.load(open('%s/k%d.json' % (tmp, s))); trials.append(d['trials'])
    f = d['functions'][0]
    for l, e in known.items():
        bs = [b for b in f['blocks'] if b.get('start') and line_col(b['start'])[0] == l]
        b = min(bs, key=lambda b: line_col(b['start'])[1])
        if b['state'] == 'converged' and abs(b['mean'] - e) <= b['halfwidth']: cover[l] += 1
tot = sum(cover.values())
for l, e in sorted(known.items()):
    print('  line %2d  e = %-9g covered in %3d of %d runs: %.3f' % (l, e, cover[l], seeds, cover[l] / seeds))
print('  all      %d of %d intervals: %.3f (goal >= gamma - 0.02 = 0.93); trials per run: median %d' % (tot, 4 * seeds, tot / (4 * seeds), sorted(trials)[len(trials) // 2]))
PY
