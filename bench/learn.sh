#!/bin/sh
# learn.sh: benchmark of the C API's online learning (docs/predict.md, "In the
# program", "Learning as it runs").
#
# bench/learn.sh [RUNS]   (RUNS 5)
#   Traces cmd/fragprof/testdata/capi/doubling.c (a loop of n steps of equal
#   work, n ∈ [50, 150], 12 trials), builds and compiles its model, builds the
#   program with fragprof cc and runs it RUNS times with FRAGPROF_MODEL set: 300
#   steps whose work doubles from step 150 on, the program asking its model for
#   the next step's time after every step while its checkpoints feed the
#   learner. Per run: the predicted step time before the change and at the end,
#   the last step measured, the first step after the change from which the
#   interval held 9 in 10 of the measured steps, the windows cut at a change,
#   and a checkpoint's thread CPU time with the learner fed and without it
#   (median of 5 × 20000). FRAGPROF (./fragprof) is the binary used.
set -eu
RUNS=${1:-5}
FP=${FRAGPROF:-./fragprof}
SRC=cmd/fragprof/testdata/capi/doubling.c
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$FP" trace "$SRC" --input 'n = uniform_int(50, 150)' --stdin '{n}\n' --trials 12 -o "$OUT/traces" 2>/dev/null
"$FP" model build "$OUT/traces" -o "$OUT/m.model" 2>/dev/null
"$FP" model compile "$OUT/m.model" -o "$OUT/m.fpm" 2>/dev/null
"$FP" cc -O2 "$SRC" -o "$OUT/prog"
printf '%-4s %12s %12s %12s %8s %8s %12s %12s\n' run before_ns end_ns measured_ns held_at changes cp_fed_ns cp_plain_ns
i=1
while [ "$i" -le "$RUNS" ]; do
	echo 300 | FRAGPROF_MODEL="$OUT/m.fpm" "$OUT/prog" 150 | awk -v run="$i" '
		{ v[$1] = $2 }
		END { printf "%-4s %12.4g %12.4g %12.4g %8s %8s %12s %12s\n", run, v["predicted_before"], v["predicted_end"],
			v["measured_end"], v["held_after_change"], v["changes"], v["checkpoint_ns"], v["checkpoint_plain_ns"] }'
	i=$((i + 1))
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
