#!/usr/bin/env bash
# bench/scale.sh: what `fragprof freq --engine slurm` costs against the local engine,
# on the single-node Slurm cluster of scripts/slurm-local.sh (brought up if needed).
#  1. trials/s with K = 1, 2, 4, 8 array tasks (one CPU each) against the local engine
#     with --jobs K, the same TRIALS trials of examples/newton.c (a budget, ε = 1e-9,
#     so both run exactly TRIALS trials: a first round of 9,017, the rule's minimum,
#     then the rest). The Slurm engine's overhead per round, (wall_slurm −
#     wall_local) / rounds, is printed against the target: 2 s + 5 % of the round's
#     work (the local engine's time for the round's trials). Both wall times include
#     everything (fragprof's start, every round); the program is built once by
#     `fragprof cc`. K above the node's CPUs queues in Slurm (one CPU per task) and
#     time-shares in the local engine.
#  2. merging 1,000 shard profiles: SHARDTRIALS trials each of examples/known.c, run
#     as shards i/1000 of one seed; `fragprof merge` of the 1,000
#     files (all in memory at once, as the CLI does) and `freq --from` of them: time and
#     peak memory (GNU time's maximum RSS), and the memory of one task.
# Usage: bench/scale.sh [TRIALS=40000] [SHARDTRIALS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-40000}
SHARDTRIALS=${2:-20}
make -s build
FP=$PWD/fragprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/slurm-local.sh up
eval "$(scripts/slurm-local.sh env)"
now() { date +%s.%N; }

$FP cc -O2 examples/newton.c -o "$tmp/newton"
inputs=(--input 'ask = uniform(100, 800)' --stdin '{ask}\n' --eps 1e-9 --max-trials "$TRIALS")

echo "== 1. $TRIALS trials of examples/newton.c: Slurm array tasks against local jobs ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
printf '  %-3s %12s %12s %8s %7s %16s %16s\n' K local/s slurm/s ratio rounds overhead/round target/round
for k in 1 2 4 8; do
  t0=$(now)
  $FP freq --binary "$tmp/newton" "${inputs[@]}" --jobs "$k" --profile "$tmp/local$k.fpp" -o "$tmp/local$k.txt"
  t1=$(now)
  $FP freq --binary "$tmp/newton" "${inputs[@]}" --engine slurm --shards "$k" --workdir "$tmp/run$k" \
    --profile "$tmp/slurm$k.fpp" -o "$tmp/slurm$k.txt" 2>"$tmp/slurm$k.log"
  t2=$(now)
  cmp -s "$tmp/local$k.fpp" "$tmp/slurm$k.fpp" || { echo "K=$k: the profiles differ" >&2; exit 1; }
  rounds=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rounds']))" "$tmp/run$k/journal.json")
  python3 - "$k" "$t0" "$t1" "$t2" "$rounds" "$TRIALS" <<'PY'
import sys
k, t0, t1, t2, rounds, n = int(sys.argv[1]), *map(float, sys.argv[2:5]), int(sys.argv[5]), int(sys.argv[6])
local, slurm = t1 - t0, t2 - t1
over = (slurm - local) / rounds
target = 2 + 0.05 * local / rounds
print('  %-3d %12.0f %12.0f %8.2f %7d %15.2fs %15.2fs %s' % (k, n / local, n / slurm, local / slurm, rounds, over, target,
      'ok' if over <= target else 'OVER'))
PY
done
echo "  (ratio = slurm trials/s / local trials/s; the profiles are identical, byte for byte)"

echo "== 2. 1,000 shard profiles of examples/known.c (model examples/known.toml, $SHARDTRIALS trials each)"
$FP cc -O2 examples/known.c -o "$tmp/known"
mkdir -p "$tmp/shards"
shard() {
  $FP freq --binary "$tmp/known" --inputs examples/known.toml --shard "$1/1000" --trial-range "0:$((1000 * SHARDTRIALS))" \
    --profile "$tmp/shards/s$1.fpp" --task-record "$tmp/shards/s$1.json" --jobs 1
}
export -f shard; export FP tmp SHARDTRIALS
/usr/bin/time -f '%M' -o "$tmp/task.mem" bash -c 'shard 0'
t0=$(now)
seq 1 999 | xargs -P "$(nproc)" -I{} bash -c 'shard {}'
t1=$(now)
echo "  one task: max RSS $(cat "$tmp/task.mem") KiB; 1,000 tasks run in $(python3 -c "print('%.0f' % ($t1 - $t0))") s; a shard profile is $(stat -c %s "$tmp/shards/s0.fpp") bytes"
/usr/bin/time -f '%e %M' -o "$tmp/merge.tm" $FP merge "$tmp"/shards/s*.fpp -o "$tmp/all.fpp"
/usr/bin/time -f '%e %M' -o "$tmp/from.tm" $FP freq --from "$tmp"/shards/s*.fpp --eps 0.5 -o "$tmp/from.txt"
read -r ms mk < "$tmp/merge.tm"
read -r fs fk < "$tmp/from.tm"
echo "  fragprof merge of 1,000:   ${ms} s, max RSS ${mk} KiB"
echo "  fragprof freq --from 1,000: ${fs} s, max RSS ${fk} KiB"
