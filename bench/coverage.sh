#!/usr/bin/env bash
# bench/coverage.sh: the coverage laboratory of freq's stopping rules, in full, and
# the targets of freq's defaults (parts 3 and 4).
#  1. every rule × every world of the laboratory (internal/stopping/lab): the whole
#     sequential procedure replicated R times (default 1000) per cell; coverage of
#     the reported statement at the stopping time with its 95 % Clopper-Pearson
#     interval, mean trials, the oracle (least fixed n covering with prob. >= gamma)
#     and the ratio. Closed forms, plus the resampling worlds of a real run of
#     examples/newton.c stored by freq --profile (its exact count distributions).
#  2. the designs (independent draws, antithetic pairs, Latin hypercube units of 16,
#     freq's default) under the default rule, replicating the procedure freq runs
#     (stopping.Units) on every world: coverage, trials, trials saved against
#     independent draws at equal coverage, and the ratio to the oracle.
#  3. newton at eps 0.3, gamma 0.95: trials of the defaults (target <= 100) next
#     to independent draws and FreqSys's two rules, in the same run.
#  4. bubble sort of a random array, n ~ uniform_int(10, 100), at the defaults
#     (1 % relative, gamma 0.95, Latin hypercube units): seconds and trials (target
#     <= 10 s), next to independent draws and to the rigorous FreqSys rule within
#     3x the time of the defaults.
# Usage: bench/coverage.sh [R=1000] [GAMMAS=0.95,0.9]
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:-1000}
GAMMAS=${2:-0.95,0.9}
make -s build
FP=./fragprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/lab" ./bench/coverage
newton=(examples/newton.c --input 'ask = uniform(100, 800)' --stdin '{ask}\n')

echo "== 1. coverage laboratory, R = $R replications per cell ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
$FP freq "${newton[@]}" --rel-eps 1e-9 --max-trials 20000 --profile "$tmp/newton.fpp" -o /dev/null 2>/dev/null
"$tmp/lab" -r "$R" -oracle-r $((2 * R)) -gammas "$GAMMAS" -profile "$tmp/newton.fpp" -rel-eps 0.03 \
  -rules clt,clt-naive,clt-plain,anytime,bernstein,freqsys-signed,freqsys-absolute

echo "== 2. designs under the default rule (R = $R)"
"$tmp/lab" -designs -rules clt -r "$R" -oracle-r $((2 * R))

echo "== 3. newton, eps 0.3, gamma 0.95 (FreqSys: 36 trials): trials of each rule, and the default"
echo "   rule's coverage over $R replications of every varying block (its stored count distributions)"
"$tmp/lab" -r "$R" -oracle-r $((2 * R)) -closed=false -profile "$tmp/newton.fpp" -eps 0.3 -rules clt,freqsys-signed
for run in "clt" "clt --design independent" "freqsys-signed" "freqsys-absolute"; do
  # shellcheck disable=SC2086 # the rule and its design are two words
  $FP freq "${newton[@]}" --eps 0.3 --rule $run --json -o "$tmp/n.json" 2>/dev/null
  python3 - "$tmp/n.json" "$run" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = [b for f in d['functions'] if f['name'] == 'nsqrt' for b in f['blocks'] if b['label'] == 'do.body'][0]
print('  %-27s %6d trials, %5.2fs, loop body %.4f ± %.4f (%s, %s)' % (sys.argv[2], d['trials'], d['elapsed_s'], b['mean'], b['halfwidth'], b['state'], d.get('design', '')))
PY
done

echo "== 4. bubble sort, n ~ uniform_int(10, 100), defaults (rel-eps 1 %, gamma 0.95)"
sort=(examples/sort.c --func bubble_sort --input 'n = uniform_int(10, 100)' --input 'a = array(n, uniform_int(0, 1e6))')
$FP freq "${sort[@]}" --json -o "$tmp/s.json" 2>/dev/null
read -r _ sd < <(python3 -c "import json; d=json.load(open('$tmp/s.json')); print(d['trials'], d['elapsed_s'])")
$FP freq "${sort[@]}" --design independent --json -o "$tmp/i.json" 2>/dev/null
budget=$(python3 -c "print(max(10, round(3 * $sd)))")
$FP freq "${sort[@]}" --rule freqsys-absolute --max-time "${budget}s" --json -o "$tmp/a.json" 2>/dev/null || true
python3 - "$tmp/s.json" "$tmp/i.json" "$tmp/a.json" <<'PY'
import json, sys
d, i, a = (json.load(open(f)) for f in sys.argv[1:4])
un = lambda j: j['states'].get('unconverged', 0)
print('  defaults (clt, %s): %7d trials in %6.2fs (%s)' % (d['design'], d['trials'], d['elapsed_s'], d['stopped']))
print('  clt, independent:       %7d trials in %6.2fs (%s)' % (i['trials'], i['elapsed_s'], i['stopped']))
print('  freqsys-absolute:       %7d trials in %6.2fs (%s; %d blocks unconverged)' % (a['trials'], a['elapsed_s'], a['stopped'], un(a)))
print('  ratios to the defaults: independent %.1fx the trials, %.1fx the time; freqsys-absolute >= %.1fx the time (cut at 3x)' % (
    i['trials'] / d['trials'], i['elapsed_s'] / d['elapsed_s'], a['elapsed_s'] / d['elapsed_s']))
PY
