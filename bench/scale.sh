#!/usr/bin/env bash
# bench/scale.sh: what `fragprof freq --engine slurm` costs against the local engine,
# on the single-node Slurm cluster of scripts/slurm-local.sh (brought up if needed).
#  1. trials/s with K = 1, 2, 4, 8 array tasks (one CPU each) against the local engine
#     with --jobs K, the same TRIALS trials of examples/newton.c (a budget, ε = 1e-9,
#     so both run exactly TRIALS trials; --rule freqsys-absolute: a first round of 9,017,
#     that rule's minimum, then the rest). The Slurm engine's overhead per round, (wall_slurm −
#     wall_local) / rounds, is printed against the target: 2 s + 5 % of the round's
#     work (the local engine's time for the round's trials). Both wall times include
#     everything (fragprof's start, every round); the program is built once by
#     `fragprof cc`. Twice: with the node's real CPUs, where K above them queues in
#     Slurm (one CPU per task) and runs in waves, while local jobs time-share the
#     cores; and with 8 CPUs declared (FRAGPROF_SLURM_CPUS), where tasks time-share
#     the cores as local jobs do.
#  2. merging 1,000 shard profiles: SHARDTRIALS trials each of examples/known.c, run
#     as shards i/1000 of one seed; `fragprof merge` of the 1,000
#     files (all in memory at once, as the CLI does) and `freq --from` of them: time and
#     peak memory (GNU time's maximum RSS), and the memory of one task;
#  3. the same merge for a program with thousands of blocks (csmith --seed 7).
# Usage: bench/scale.sh [TRIALS=40000] [SHARDTRIALS=20]   (REPS=3 repetitions of part 1; PARTS=23 leaves part 1 out)
set -euo pipefail
cd "$(dirname "$0")/.."
TRIALS=${1:-40000}
SHARDTRIALS=${2:-20}
REPS=${REPS:-3}
PARTS=${PARTS:-123}
make -s build
FP=$PWD/fragprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
eval "$(scripts/slurm-local.sh env)"
now() { date +%s.%N; }
nblocks() { # the blocks of a profile
  $FP freq --from "$1" --json -o "$tmp/blocks.json"
  python3 -c "import json,sys; print(sum(len(f['blocks']) for f in json.load(open(sys.argv[1]))['functions']))" "$tmp/blocks.json"
}

$FP cc -O2 examples/newton.c -o "$tmp/newton"
inputs=(--input 'ask = uniform(100, 800)' --stdin '{ask}\n' --rule freqsys-absolute --eps 1e-9 --max-trials "$TRIALS")

part1() { # $1: the CPUs the node declares
  FRAGPROF_SLURM_CPUS=$1 scripts/slurm-local.sh up 2>/dev/null
  echo "== 1. $TRIALS trials of examples/newton.c, Slurm array tasks against local jobs; the node declares $1 CPUs; median of $REPS interleaved repetitions ($(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
  : > "$tmp/times"
  for rep in $(seq "$REPS"); do
    for k in 1 2 4 8; do
      t0=$(now)
      $FP freq --binary "$tmp/newton" "${inputs[@]}" --jobs "$k" --profile "$tmp/local$k.fpp" -o "$tmp/local$k.txt"
      t1=$(now)
      rm -rf "$tmp/run$k"
      $FP freq --binary "$tmp/newton" "${inputs[@]}" --engine slurm --shards "$k" --workdir "$tmp/run$k" \
        --profile "$tmp/slurm$k.fpp" -o "$tmp/slurm$k.txt" 2>"$tmp/slurm$k.log"
      t2=$(now)
      cmp -s "$tmp/local$k.fpp" "$tmp/slurm$k.fpp" || { echo "K=$k: the profiles differ" >&2; exit 1; }
      rounds=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['rounds']))" "$tmp/run$k/journal.json")
      echo "$k $t0 $t1 $t2 $rounds" >> "$tmp/times"
    done
  done
  python3 - "$TRIALS" "$tmp/times" <<'PY'
import collections, statistics, sys
n = int(sys.argv[1])
rows = collections.defaultdict(list)
for line in open(sys.argv[2]):
    k, t0, t1, t2, rounds = line.split()
    rows[int(k)].append((float(t1) - float(t0), float(t2) - float(t1), int(rounds)))
print('  %-3s %10s %10s %7s %7s %15s %14s' % ('K', 'local/s', 'slurm/s', 'ratio', 'rounds', 'overhead/round', 'target/round'))
for k in sorted(rows):
    local = statistics.median(r[0] for r in rows[k])
    slurm = statistics.median(r[1] for r in rows[k])
    rounds = rows[k][0][2]
    over = statistics.median((r[1] - r[0]) / r[2] for r in rows[k])
    target = 2 + 0.05 * local / rounds
    print('  %-3d %10.0f %10.0f %7.2f %7d %14.2fs %13.2fs %s' % (k, n / local, n / slurm, local / slurm, rounds, over, target,
          'ok' if over <= target else 'OVER'))
PY
  echo "  (ratio = slurm trials/s / local trials/s; overhead/round = median of (wall_slurm - wall_local) / rounds; the profiles are identical, byte for byte)"
}
if [[ $PARTS == *1* ]]; then
part1 "$(nproc)"   # K above the cores: tasks wait for a CPU and run in waves
part1 8            # every task has a CPU slot: they time-share the cores, as local jobs do
scripts/slurm-local.sh up 2>/dev/null   # back to the machine's CPUs
fi
[[ $PARTS == *2* ]] || exit 0

# measure1000 TO ARGS...: 1,000 tasks of `freq --binary ... --trial-range 0:TO --shard i/1000`,
# written as round 1 of a run directory; then the merge of their profiles three ways:
# `fragprof merge` (all in memory), `freq --from`, and the coordinator (`freq --resume`
# on a journal whose round 1 has every task in: it merges 64 at a time, judges, reports).
measure1000() {
  local to=$1; shift
  local run=$tmp/run1000
  rm -rf "$run" && mkdir -p "$run/r001"
  export RUN=$run TO=$to
  export TASKARGS="$*"
  task() { eval "$FP freq $TASKARGS --shard $1/1000 --trial-range 0:$TO --jobs 1 \
    --profile $RUN/r001/t$1.s0.fpp --task-record $RUN/r001/t$1.s0.json"; }
  export -f task
  /usr/bin/time -f '%M' -o "$tmp/task.mem" bash -c 'task 0'
  local t0 t1
  t0=$(now)
  seq 1 999 | xargs -P "$(nproc)" -I{} bash -c 'task {}'
  t1=$(now)
  echo "  $(nblocks "$run/r001/t0.s0.fpp") blocks; one task: max RSS $(cat "$tmp/task.mem") KiB; 1,000 tasks run in $(python3 -c "print('%.0f' % ($t1 - $t0))") s; a shard profile is $(stat -c %s "$run/r001/t0.s0.fpp") bytes"
  /usr/bin/time -f '%e %M' -o "$tmp/merge.tm" $FP merge "$run"/r001/t*.s0.fpp -o "$tmp/all.fpp"
  /usr/bin/time -f '%e %M' -o "$tmp/from.tm" $FP freq --from "$run"/r001/t*.s0.fpp --eps 0.5 -o "$tmp/from.txt"
  python3 - "$run" "$to" <<'PY'
import json, sys
run, to = sys.argv[1], int(sys.argv[2])
tasks = [{"seq": 0, "attempts": 1, "accepted": True} for _ in range(1000)]
j = {"version": 1, "name": "fragprof-bench", "started": "2026-01-01T00:00:00Z",
     "spec": {"engine": "slurm", "slurm": {}, "task_args": [], "counters": 0, "rule": "clt",
              "thresholds": {"Eps": 0.5, "Gamma": 0.95, "NMin": 30, "C0": 0.4748, "MaxTrials": 1000000},
              "max_trials": to, "tasks": 1000, "cpus": 1, "max_attempts": 1, "report": {"output": run + "/report.txt"}},
     "rounds": [{"from": 0, "to": to, "tasks": tasks, "jobs": [{"seq": 0, "id": "0", "tasks": list(range(1000)), "at": "2026-01-01T00:00:00Z"}], "merged": False}]}
json.dump(j, open(run + "/journal.json", "w"))
PY
  /usr/bin/time -f '%e %M' -o "$tmp/coord.tm" $FP freq --resume "$run" 2>"$tmp/coord.log" ||
    { echo "bench/scale.sh: freq --resume of the 1,000 shards failed:" >&2; cat "$tmp/coord.log" >&2; exit 1; }
  local ms mk fs fk cs ck
  read -r ms mk < "$tmp/merge.tm"
  read -r fs fk < "$tmp/from.tm"
  read -r cs ck < "$tmp/coord.tm"
  echo "  fragprof merge of 1,000:       ${ms} s, max RSS ${mk} KiB"
  echo "  fragprof freq --from 1,000:    ${fs} s, max RSS ${fk} KiB"
  echo "  the coordinator (merge, judge, report): ${cs} s, max RSS ${ck} KiB"
}

echo "== 2. 1,000 shard profiles of examples/known.c (model examples/known.toml, $SHARDTRIALS trials each)"
$FP cc -O2 examples/known.c -o "$tmp/known"
export FP tmp
measure1000 $((1000 * SHARDTRIALS)) --binary "$tmp/known" --inputs examples/known.toml

echo "== 3. 1,000 shard profiles of a program with many blocks: csmith --seed 7 (its counts are the same every trial; 2 trials a shard)"
csmith --seed 7 > "$tmp/big.c"
$FP cc -O1 -w -I/usr/include/csmith "$tmp/big.c" -o "$tmp/big"
measure1000 2000 --binary "$tmp/big" --input "'x = uniform(0, 1)'" --trial-timeout 60s
