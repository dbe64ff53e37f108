#!/bin/sh
# predict.sh: benchmark of prediction.
#
# bench/predict.sh protocol [SEEDS]   (the default; SEEDS 5)
#  0. The evaluation protocol: PolyBench-style kernels of
#     examples/predict/kernels; per kernel and seed, train on TR input points of small
#     sizes n ∈ [LO, HI] (REP runs each, --clock thread), then predict, with
#     model build --test, 4 points inside [LO, HI] (interpolation), one size drawn
#     in [3.5·HI, 4.5·HI] (4×; REP runs) and n = 16·HI (XREP runs; none where a run
#     would take minutes). SIZES=small trains on sizes 2.5× smaller, whose runs
#     last 0.1–0.6 ms (the design of the first runs). Per kernel over the seeds: MAPE of
#     the chosen predictor against each point's median run, the worst error, the
#     best baseline fitted on the same training runs (PMNF, power law a + b·n^k, the
#     count × arc-time composition) and the difference, the transition-graph model
#     alone, and how many single runs fell in the 90% intervals; a second table
#     from the same runs with models built with --speed-adjust; a third from
#     probes (docs/predict.md, "Probing a large input"): per seed, PROBES runs
#     (3) of the 4× input, and of the 16× one where it is run, stopped after
#     PSHARE (5%) of the model's predicted time (at least 5 ms; trace
#     --stop-after; STOP=events stops them after PSHARE of the predicted
#     checkpoints instead, at least 3: trace --stop-events), then model predict
#     --probe, against the same 4× and 16× runs.
#
# bench/predict.sh rebuild DIR [SEEDS]
#     The tables of a protocol run again from the traces it left in DIR (its
#     OUT), with the models and probe predictions of the code as it is now: a
#     change to model build measured on the same runs, free of the machine's
#     day. The probes are the run's own (their budget came from its models); the
#     plain builds are timed anew. KERNELS and SIZES as for the run.
#
# bench/predict.sh metalayer [TRIALS [REPEAT [RUNS]]]     (defaults 40, 7, 31)
#  1. The cost of a checkpoint: bench/pred_overhead.c passes N checkpoints in a tight
#     loop, traced (each clock) and untraced; per checkpoint, the difference of the
#     loop's wall time, of its thread's CPU time and of the process's CPU time
#     (the drainer's included). Minimum of REPEAT runs each.
#  2. Held-out MAPE of the predicted time, model vs direct baseline, per example, and
#     the MAPE of the number of checkpoints passed (the structure's error alone):
#     TRIALS input points each, every one run RUNS times (trace --repeat; insertion
#     sort's array seed drawn anew in each run, --vary s), --clock thread and --clock
#     tsc; model build --holdout 0.2 holds out a fifth of the points with all their
#     runs. The MAPE is against each held-out point's median run; beside it the
#     truth's own noise (how far one run lies from its median, and the median's
#     standard error) and the MAPE against single runs. Also the final-value errors
#     of euler_lag.
#  3. Model build time for about a million events (insertion sort).
#  4. Prediction time against the run's own time, for inputs far beyond training.
#  5. advise against real runs of brusselator_par.c on 1 and 2 threads, several K.
#
# Prints Markdown; the raw outputs stay in $OUT.
set -eu
MODE=${1:-protocol}
[ $# -gt 0 ] && shift
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REBUILD=
if [ "$MODE" = rebuild ]; then
	[ $# -ge 1 ] && [ -d "$1" ] || { echo "usage: bench/predict.sh rebuild DIR [SEEDS]" >&2; exit 2; }
	OUT=$(cd "$1" && pwd); shift
	REBUILD=1
	MODE=protocol
fi
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/fragprof-bench-predict.XXXXXX")}
FP="$OUT/fragprof"
EX="$ROOT/examples/predict"
(cd "$ROOT" && go build -o "$FP" ./cmd/fragprof)
CLANG=$(command -v clang || command -v clang-16)
echo "Machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1); load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

if [ "$MODE" = protocol ]; then
	SEEDS=${1:-5}
	TR=${TR:-16}
	REP=${REP:-5}
	XREP=${XREP:-3}
	# build_seed DIR: the models of one seed's traces, by default and --speed-adjust.
	build_seed() {
		bd=$1
		x16=
		[ -d "$bd/x16" ] && x16="--test $bd/x16"
		# shellcheck disable=SC2086
		"$FP" model build "$bd/train" --test "$bd/interp" --test "$bd/x4" $x16 -o "$bd.model" 2> "$bd/build.log"
		# shellcheck disable=SC2086
		"$FP" model build "$bd/train" --test "$bd/interp" --test "$bd/x4" $x16 --speed-adjust -o "$bd.adj.model" 2>> "$bd/build.log"
	}
	# xrow DIR TAG: the evaluation row of the seed's 4× (TAG x4) or 16× (x16)
	# input, null when none.
	xrow() {
		case $2 in x4) range='>= 1.5 and .extrapolation_factor < 8' ;; *) range='>= 8' ;; esac
		jq -c "[.evaluation.rows[] | select(.extrapolation_factor $range)][0]" "$1.model"
	}
	# xsets DIR ROW: model predict --set for that row's inputs.
	xsets() {
		jq -r --argjson row "$2" '[.inputs, $row.inputs] | transpose | map("\(.[0])=\(.[1])") | join(",")' "$1.model"
	}
	# probe_seed DIR SEED TAG [INPUT FLAGS]...: the probes of the 4× (TAG x4) or
	# 16× (x16) input, PROBES fresh runs of the same n stopped after PSHARE of
	# the predicted time, in DIR/probe (4×) or DIR/probe16.
	probe_seed() {
		pd=$1; ps=$2; tag=$3; shift 3
		row=$(xrow "$pd" "$tag")
		[ "$row" != null ] || return 0
		pn=$(jq -r --argjson row "$row" '$row.inputs[(.inputs | index("n"))]' "$pd.model")
		"$FP" model predict "$pd.model" --set "$(xsets "$pd" "$row")" --json > "$pd/$tag.pred.json"
		if [ "${STOP:-time}" = events ]; then
			stop="--stop-events $(jq -r --arg s "${PSHARE:-0.05}" '.events * ($s | tonumber) | ceil | if . < 3 then 3 else . end' "$pd/$tag.pred.json")"
		else
			stop="--stop-after $(jq -r --arg s "${PSHARE:-0.05}" '.predicted_ns * ($s | tonumber) | if . < 5e6 then 5e6 else . end | floor' "$pd/$tag.pred.json")ns"
		fi
		pdir=$pd/probe
		[ "$tag" = x4 ] || pdir=$pd/probe16
		rm -rf "$pdir"
		# shellcheck disable=SC2086
		"$FP" trace --binary "$bin" --input "n = $pn" "$@" --stdin "$stdin" --clock thread \
			--seed $((ps + 4000)) --trials 1 --repeat "${PROBES:-3}" $stop -o "$pdir" 2>> "$pd/trace.log"
	}
	# predict_probe DIR NAME TAG: the 4× or 16× input predicted from its probes,
	# one line of $OUT/NAME.TAG.probe.jsonl.
	predict_probe() {
		pd=$1; tag=$3
		row=$(xrow "$pd" "$tag")
		pdir=$pd/probe
		[ "$tag" = x4 ] || pdir=$pd/probe16
		[ "$row" != null ] && [ -d "$pdir" ] || return 0
		"$FP" model predict "$pd.model" --set "$(xsets "$pd" "$row")" --probe "$pdir" --json 2>> "$pd/build.log" |
			jq -c --argjson row "$row" '{pred: .predicted_ns, lo: .interval_ns[0], hi: .interval_ns[1], share: .probe.share,
				model: .probe.model_ns, actual: $row.actual_ns, times: $row.times_ns, cache: $row.cache}' >> "$OUT/$2.$tag.probe.jsonl" || true
	}
	# kernel NAME LO HI XREP STDIN [--input EXTRA]... : one row of the table.
	kernel() {
		name=$1; lo=$2; hi=$3; xrep=$4; stdin=$5; shift 5
		bin="$OUT/$name.bin"
		[ -n "$REBUILD" ] || "$FP" cc -O2 "$EX/kernels/$name.c" -o "$bin" 2> "$OUT/$name.cc.log"
		models=
		adjusted=
		rm -f "$OUT/$name.x4.probe.jsonl" "$OUT/$name.x16.probe.jsonl"
		for s in $(seq "$SEEDS"); do
			d="$OUT/$name.s$s"
			models="$models $d.model"
			adjusted="$adjusted $d.adj.model"
			if [ -n "$REBUILD" ]; then
				[ -d "$d/train" ] || { echo "bench/predict.sh rebuild: no traces in $d" >&2; exit 2; }
				build_seed "$d"
				predict_probe "$d" "$name" x4
				predict_probe "$d" "$name" x16
				continue
			fi
			rm -rf "$d"
			mkdir -p "$d"
			tr() { # DIR SEED TRIALS ROUND N-DIST [EXTRA FLAGS]...
				td=$1; ts=$2; tt=$3; tround=$4; tn=$5; shift 5
				"$FP" trace --binary "$bin" --input "n = $tn" "$@" --stdin "$stdin" --clock thread \
					--seed "$ts" --trials "$tt" --repeat 1 --first-rep "$tround" -o "$d/$td" 2>> "$d/trace.log"
			}
			# The rounds of training and test runs are interleaved in time, so that
			# the machine's changing load falls on both alike.
			for r in $(seq 0 $((REP - 1))); do
				tr train "$s" "$TR" "$r" "uniform_int($lo, $hi)" "$@"
				tr interp $((s + 1000)) 4 "$r" "uniform_int($lo, $hi)" "$@"
				# One size per seed around 4× rather than 4·HI itself: with HI a
				# power of two, 4·HI would be one too, where a column walk's
				# stride maps every element to one cache set (lu).
				tr x4 $((s + 2000)) 1 "$r" "uniform_int($((7 * hi / 2)), $((9 * hi / 2)))" "$@"
				# A run over 30 s at 16× is left out.
				if [ "$r" -lt "$xrep" ]; then
					tr x16 $((s + 3000)) 1 "$r" "choice($((16 * hi)))" --trial-timeout 30s "$@" || true
				fi
			done
			build_seed "$d"
			probe_seed "$d" "$s" x4 "$@"
			probe_seed "$d" "$s" x16 "$@"
			predict_probe "$d" "$name" x4
			predict_probe "$d" "$name" x16
		done
		for tag in x4 x16; do
			if [ -s "$OUT/$name.$tag.probe.jsonl" ]; then
				jq -rs --arg kernel "$name" --arg train "n ∈ [$lo, $hi]" --arg point "${tag#x}×" -f "$ROOT/bench/predict_probe.jq" \
					"$OUT/$name.$tag.probe.jsonl" >> "$OUT/probe.md"
			fi
		done
		# shellcheck disable=SC2086
		jq -rs --arg kernel "$name" --arg train "n ∈ [$lo, $hi]" -f "$ROOT/bench/predict_protocol.jq" $models
		# shellcheck disable=SC2086
		jq -rs --arg kernel "$name" --arg train "n ∈ [$lo, $hi]" -f "$ROOT/bench/predict_protocol.jq" $adjusted >> "$OUT/adjusted.md"
	}
	echo "## Protocol: train small, predict 4× and 16× larger ($SEEDS seeds; $TR points × $REP runs learnt, --clock thread)"
	echo
	echo "MAPE against each held-out point's median run; in parentheses the worst point. Baselines are"
	echo "fitted on the same training runs; Δ = chosen − best baseline at 4×, in points. Coverage: single runs"
	echo "inside the 90% interval (interpolation · 4× · 16×)."
	echo
	echo "| kernel | training sizes | chosen (seeds) | interpolation | 4× | 16× | best baseline at 4× | Δ | graph model at 4× | in 90% interval |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	# The training sizes (docs/performance.md, "Prediction"): runs of
	# 1–50 ms, and for gemm, lu and floyd working sets past L2 — within ±40% of a
	# cache's size a run's time depends on where its pages land (gemm at n ≈ 190–240
	# on a 1 MiB L2: up to 2× apart from run to run). SIZES=small is the first
	# design (runs of 0.1–0.6 ms). 16× is left out where a run would take minutes.
	: > "$OUT/adjusted.md"
	: > "$OUT/probe.md"
	for k in ${KERNELS:-gemm lu floyd jacobi2d seidel2d mergesort}; do
		case ${SIZES:-}$k in
		gemm) kernel gemm 160 400 0 '{n}\n' ;;
		lu) kernel lu 192 480 0 '{n}\n' ;;
		floyd) kernel floyd 160 400 0 '{n}\n' ;;
		jacobi2d) kernel jacobi2d 128 512 "$XREP" '{n} {T}\n' --input 'T = 20' ;;
		seidel2d) kernel seidel2d 64 256 "$XREP" '{n} {T}\n' --input 'T = 10' ;;
		mergesort) kernel mergesort 20000 80000 "$XREP" '{n} {s}\n' --input 's = uniform_int(1, 1000000)' --vary s ;;
		smallgemm) kernel gemm 48 128 "$XREP" '{n}\n' ;;
		smalllu) kernel lu 48 128 "$XREP" '{n}\n' ;;
		smallfloyd) kernel floyd 48 128 "$XREP" '{n}\n' ;;
		smalljacobi2d) kernel jacobi2d 64 256 "$XREP" '{n} {T}\n' --input 'T = 20' ;;
		smallseidel2d) kernel seidel2d 32 128 "$XREP" '{n} {T}\n' --input 'T = 10' ;;
		smallmergesort) kernel mergesort 5000 20000 "$XREP" '{n} {s}\n' --input 's = uniform_int(1, 1000000)' --vary s ;;
		*) echo "bench/predict.sh: unknown kernel $k (SIZES=${SIZES:-})" >&2; exit 2 ;;
		esac
	done
	echo
	echo "## The same runs, models built with --speed-adjust (each run's times divided by its slowdown measured by the checkpoint probe)"
	echo
	echo "| kernel | training sizes | chosen (seeds) | interpolation | 4× | 16× | best baseline at 4× | Δ | graph model at 4× | in 90% interval |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	cat "$OUT/adjusted.md"
	echo
	if [ "${STOP:-time}" = events ]; then budget="of its predicted checkpoints, at least 3"; else budget="of its predicted time, at least 5 ms"; fi
	echo "## The 4× and 16× inputs from probes (${PROBES:-3} runs of each stopped after ${PSHARE:-0.05} $budget; model predict --probe)"
	echo
	echo "| kernel | training sizes | point | seeds | probe's share of the run's time (the model's) | from the probes (worst) | without them | runs in the 90% interval | mean half-width |"
	echo "|---|---|---|---|---|---|---|---|---|"
	cat "$OUT/probe.md"
	echo
	# The plain program: traced with --auto-checkpoints (the outermost loops and
	# main's entry and return, so that a run's traced time is all of main), the
	# time predicted at 4× without the checkpoints' cost against the plain build
	# (clang -O2, no fragprof): its process CPU time (user + sys, from wait4; the
	# median of PREP runs) less that of an empty program (process start and exit).
	PREP=${PREP:-5}
	echo "## The plain program at 4× (--auto-checkpoints, --clock thread; plain build: median process CPU time of $PREP runs less an empty program's)"
	echo
	echo "| kernel | n | checkpoints per run | predicted (traced) | predicted without the checkpoints | plain build | ratio | from ${PROBES:-3} probes, without the checkpoints (their share) | ratio |"
	echo "|---|---|---|---|---|---|---|---|---|"
	printf 'int main(void) { return 0; }\n' > "$OUT/empty.c"
	"$CLANG" -O2 "$OUT/empty.c" -o "$OUT/empty"
	cputime() { # PROG STDIN: median CPU ns of PREP runs
		python3 -c '
import os, subprocess, sys, statistics
prog, stdin, reps = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
ts = []
for _ in range(reps):
    p = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    p.stdin.write(stdin); p.stdin.close()
    _, _, ru = os.wait4(p.pid, 0)
    ts.append((ru.ru_utime + ru.ru_stime) * 1e9)
print(int(statistics.median(ts)))' "$1" "$2" "$PREP"
	}
	e0=$(cputime "$OUT/empty" "")
	plain() { # NAME LO HI STDIN-TEMPLATE STDIN-AT-4x [INPUT FLAGS]...
		name=$1; lo=$2; hi=$3; stdin=$4; at=$5; shift 5
		d="$OUT/plain.$name"
		if [ -z "$REBUILD" ]; then
			rm -rf "$d"
			"$FP" trace "$EX/kernels/$name.c" --auto-checkpoints --input "n = uniform_int($lo, $hi)" "$@" --stdin "$stdin" \
				--clock thread --trials "$TR" --repeat "$REP" -o "$d" 2> "$d.log"
		fi
		"$FP" model build "$d" --holdout 0 -o "$d.model" 2>> "$d.log"
		sets=$(jq -r --arg n "$((4 * hi))" '. as $m | [.inputs[] as $in | if $in == "n" then "n=\($n)"
			else "\($in)=\($m.training.input_ranges[] | select(.name == $in) | .max)" end] | join(",")' "$d.model")
		"$FP" model predict "$d.model" --set "$sets" --json > "$d.pred.json"
		# Probes of the 4× input, as in the first table.
		if [ "${STOP:-time}" = events ]; then
			stop="--stop-events $(jq -r --arg s "${PSHARE:-0.05}" '.events * ($s | tonumber) | ceil | if . < 3 then 3 else . end' "$d.pred.json")"
		else
			stop="--stop-after $(jq -r --arg s "${PSHARE:-0.05}" '.predicted_ns * ($s | tonumber) | if . < 5e6 then 5e6 else . end | floor' "$d.pred.json")ns"
		fi
		if [ -z "$REBUILD" ]; then
			rm -rf "$d.probe"
			# shellcheck disable=SC2086
			"$FP" trace "$EX/kernels/$name.c" --auto-checkpoints --input "n = $((4 * hi))" "$@" --stdin "$stdin" \
				--clock thread --trials 1 --repeat "${PROBES:-3}" $stop -o "$d.probe" 2>> "$d.log"
		fi
		"$FP" model predict "$d.model" --set "$sets" --probe "$d.probe" --json > "$d.probe.json" 2>> "$d.log" || echo '{}' > "$d.probe.json"
		"$CLANG" -O2 -I "$ROOT/runtime/c" "$EX/kernels/$name.c" -o "$d.plain" -lm
		p=$(cputime "$d.plain" "$at")
		jq -r --arg name "$name" --arg n "$((4 * hi))" --arg plain "$((p - e0))" --arg ev "$(jq '.training.events / .training.runs | round' "$d.model")" \
			--slurpfile probe "$d.probe.json" '
			def ms: "\(./1e6*1000|round/1000) ms";
			def ratio: (./($plain|tonumber)*1000|round/1000);
			"| \($name) | \($n) | \($ev) | \(.predicted_ns | ms) | \(if .untraced_ns then (.untraced_ns | ms) else "unknown" end) | \($plain | tonumber | ms) | \(if .untraced_ns then (.untraced_ns | ratio) else "–" end)" +
			" | \($probe[0] | if .untraced_ns then "\(.untraced_ns | ms) (\(.probe.share*1000|round/10)%)" else "–" end) | \($probe[0] | if .untraced_ns then (.untraced_ns | ratio) else "–" end) |"' "$d.pred.json"
	}
	for k in ${PLAIN_KERNELS:-gemm jacobi2d mergesort}; do
		case $k in
		gemm) plain gemm 160 400 '{n}\n' "1600" ;;
		floyd) plain floyd 160 400 '{n}\n' "1600" ;;
		jacobi2d) plain jacobi2d 128 512 '{n} {T}\n' "2048 20" --input 'T = 20' ;;
		seidel2d) plain seidel2d 64 256 '{n} {T}\n' "1024 10" --input 'T = 10' ;;
		mergesort) plain mergesort 20000 80000 '{n} {s}\n' "320000 7" --input 's = uniform_int(1, 1000000)' --vary s ;;
		esac
	done
	echo
	echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg). Raw traces and models: $OUT"
	exit 0
fi
[ "$MODE" = metalayer ] || { echo "usage: bench/predict.sh [protocol [SEEDS] | rebuild DIR [SEEDS] | metalayer [TRIALS [REPEAT [RUNS]]]]" >&2; exit 2; }
TRIALS=${1:-40}
REPEAT=${2:-7}
RUNS=${3:-31}

minof() { sort -g | head -1; }

echo "## Checkpoint cost (ns per checkpoint, minimum of $REPEAT runs of 2,000,000)"
echo
echo "| checkpoint | clock | wall | thread CPU | process CPU (with the drainer) |"
echo "|---|---|---|---|---|"
"$FP" cc -O2 "$ROOT/bench/pred_overhead.c" -o "$OUT/ovh" 2> /dev/null
for mode in 0 1; do
	: > "$OUT/off.$mode"
	for r in $(seq "$REPEAT"); do echo "2000000 $mode" | "$OUT/ovh" 2>> "$OUT/off.$mode" > /dev/null; done
	w0=$(cut -d' ' -f1 "$OUT/off.$mode" | minof)
	c0=$(cut -d' ' -f2 "$OUT/off.$mode" | minof)
	p0=$(cut -d' ' -f3 "$OUT/off.$mode" | minof)
	name=FP_POINT
	[ "$mode" = 1 ] && name="FP_POINT_VARS (2 vars)"
	for clock in tsc monotonic thread; do
		: > "$OUT/on.$mode.$clock"
		for r in $(seq "$REPEAT"); do
			echo "2000000 $mode" | FRAGPROF_TRACE=1 FRAGPROF_TRACE_CLOCK=$clock FRAGPROF_EXTRA_OUT="$OUT/ovh.extra" \
				"$OUT/ovh" 2>> "$OUT/on.$mode.$clock" > /dev/null
		done
		rm -f "$OUT/ovh.extra"
		w=$(cut -d' ' -f1 "$OUT/on.$mode.$clock" | minof)
		c=$(cut -d' ' -f2 "$OUT/on.$mode.$clock" | minof)
		p=$(cut -d' ' -f3 "$OUT/on.$mode.$clock" | minof)
		echo "| $name | $clock | $(echo "$w - $w0" | bc -l | xargs printf %.1f) | $(echo "$c - $c0" | bc -l | xargs printf %.1f) | $(echo "$p - $p0" | bc -l | xargs printf %.1f) |"
	done
done
echo

# example | inputs... | stdin template
trace_model() {
	name=$1; clock=$2; stdin=$3; shift 3
	dir="$OUT/$name.$clock"
	rm -rf "$dir"
	set --  "$@" --stdin "$stdin" --trials "$TRIALS" --repeat "$RUNS" --clock "$clock" -o "$dir"
	"$FP" trace "$EX/$name.c" "$@" 2> "$dir.trace.log"
	"$FP" model build "$dir" -o "$dir.model" 2> "$dir.build.log"
	"$FP" model show "$dir.model" --json > "$dir.json"
	jq -r --arg n "$name" --arg c "$clock" 'def pc: 100*.*100|round/100|tostring + "%";
		"| \($n) | \($c) | \(.training.points) × \(.training.runs/.training.points|round) | \(.evaluation.runs) | **\(.evaluation.mape|pc)** | \(.evaluation.baseline_mape|pc) | \(.evaluation.truth_error|pc) | \(.evaluation.truth_scatter|pc) | \(.evaluation.single_run_mape|pc) / \(.evaluation.baseline_single_run_mape|pc) | \(.evaluation.events_mape|pc) | \(.evaluation.covered)/\(.evaluation.runs) | \(.time_scale*1000|round/1000) |"' "$dir.json"
}

echo "## Held-out error of the predicted time ($TRIALS input points × $RUNS runs, 20% of the points held out)"
echo
echo "MAPE: mean over the held-out points of |predicted − median of the point's runs| / that median."
echo "Truth's error: the median's own relative standard error (1.2533²·mean|run − median|/√runs);"
echo "one run's scatter: mean |run − median| / median. Single runs: the MAPE against every run alone."
echo
echo "| example | clock | points × runs learnt | points held out | model MAPE | baseline MAPE | truth's error | one run's scatter | single runs: model / baseline | checkpoints-passed MAPE | in interval | time scale |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for clock in thread tsc; do
	trace_model brusselator $clock '{K}\n' --input 'K = choice(1, 2, 4, 8, 16, 32, 48)'
	trace_model matmul $clock '{n}\n' --input 'n = uniform_int(60, 125)'
	trace_model insertion_sort $clock '{n} {s}\n' --input 'n = uniform_int(50, 250)' --input 's = uniform_int(1, 1000000)' --vary s
	trace_model euler_lag $clock '{y0:%.17g} {u:%.17g} {a:%.17g} {N}\n' --input 'y0 = uniform(-1, 1)' \
		--input 'u = uniform(0, 2)' --input 'a = uniform(0.001, 0.05)' --input 'N = uniform_int(50, 400)'
	trace_model solver $clock '{n} {w:%.17g}\n' --input 'n = uniform_int(20000, 100000)' --input 'w = uniform(0.1, 1.9)'
done
echo
echo "Final value of euler_lag's y (median relative error over the held-out runs):"
jq -r '.evaluation.vars[] | select(.var == "y") | "model \(.model), max \(.max_model); direct baseline \(.baseline)"' "$OUT/euler_lag.thread.json"
echo

echo "## Model build time"
echo
dir="$OUT/big"
"$FP" trace "$EX/insertion_sort.c" --input 'n = uniform_int(1900, 2100)' --input 's = uniform_int(1, 1000000)' \
	--stdin '{n} {s}\n' --trials 4 -o "$dir" 2> "$dir.trace.log"
events=$(sed -n 's/.*: \([0-9]*\) events at.*/\1/p' "$dir.trace.log")
start=$(date +%s.%N)
"$FP" model build "$dir" -o "$dir.model" --holdout 0 2> "$dir.build.log"
end=$(date +%s.%N)
echo "$events events (4 runs of insertion sort, n ≈ 2000): model build $(echo "$end - $start" | bc -l | xargs printf %.2f) s wall (reading the traces included); $(jq .training.build_seconds "$dir.model" | xargs printf %.2f) s learning"
echo

echo "## Prediction time against run time"
echo
echo "Models as built above (--clock thread; insertion sort's --clock tsc); the predicted time"
echo "without the checkpoints' own cost, against the plain program (clang -O2, no fragprof)."
echo
echo "| example | input | predicted | run (min of 3) | prediction took | interpreter steps |"
echo "|---|---|---|---|---|---|"
"$CLANG" -O2 -pthread "$EX/brusselator_par.c" -o "$OUT/bru_par"
"$CLANG" -O2 -I "$ROOT/runtime/c" "$EX/matmul.c" -o "$OUT/matmul_plain"
"$CLANG" -O2 -I "$ROOT/runtime/c" "$EX/solver.c" -o "$OUT/solver_plain" -lm
"$CLANG" -O2 -I "$ROOT/runtime/c" "$EX/insertion_sort.c" -o "$OUT/sort_plain"
predict_row() {
	name=$1; model=$2; set=$3; cmd=$4; input=$5
	"$FP" model predict "$model" --set "$set" --json > "$OUT/p.json"
	best=
	for r in 1 2 3; do
		s=$(date +%s%N)
		echo "$input" | $cmd > /dev/null 2>&1
		e=$(date +%s%N)
		d=$((e - s))
		if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
	done
	jq -r --arg n "$name" --arg s "$set" --arg run "$best" \
		'"| \($n) | \($s) | \(if .untraced_ns then "\(.untraced_ns/1e6*1000|round/1000) ms" else "unknown: the checkpoints dominate" end) | \(($run|tonumber)/1e6*1000|round/1000) ms | \(.elapsed_ns/1e3*10|round/10) µs | \(.steps) |"' "$OUT/p.json"
}
predict_row brusselator "$OUT/brusselator.thread.model" K=256 "$OUT/bru_par" "256 1"
predict_row matmul "$OUT/matmul.thread.model" n=400 "$OUT/matmul_plain" "400"
predict_row solver "$OUT/solver.thread.model" "n=1000000,w=0.05" "$OUT/solver_plain" "1000000 0.05"
predict_row insertion_sort "$OUT/insertion_sort.tsc.model" "n=20000" "$OUT/sort_plain" "20000 7"
echo
echo "Insertion sort's checkpoints sit in its innermost loop: the traced time per shift"
echo "is the checkpoint's, not the shift's, and no subtraction recovers the plain run's."
echo "Its row shows the interpreter's speed (10⁸ predicted events in a few ms)."
echo

echo "## advise against real runs (brusselator, 2 threads)"
echo
"$FP" model advise "$OUT/brusselator.thread.model" --set K=1 --procs 2 --json > "$OUT/adv.json"
jq -r '"P(2) measured: median \(.overhead.ns/1e3*10|round/10) µs; processors free during the probe: \(.overhead.available)"' "$OUT/adv.json"
echo
echo "| K | predicted 1 thread | measured 1 thread | measured 2 threads | advice (Amdahl, N = 2) | right? | advice with the processors free | right? |"
echo "|---|---|---|---|---|---|---|---|"
right=0; rightnow=0; total=0
for K in 1 2 4 6 8 16 32 64 160; do
	seq=; par=
	for r in $(seq "$REPEAT"); do
		a=$(echo "$K 1" | "$OUT/bru_par" 2>&1 > /dev/null)
		b=$(echo "$K 2" | "$OUT/bru_par" 2>&1 > /dev/null)
		if [ -z "$seq" ] || [ "$a" -lt "$seq" ]; then seq=$a; fi
		if [ -z "$par" ] || [ "$b" -lt "$par" ]; then par=$b; fi
	done
	"$FP" model advise "$OUT/brusselator.thread.model" --set K=$K --procs 2 --json > "$OUT/adv.json"
	adv=$(jq -r '.parallelise' "$OUT/adv.json")
	now=$(jq -r '.parallelise_now' "$OUT/adv.json")
	pred=$(jq -r '.time_ns' "$OUT/adv.json")
	truth=false
	[ "$par" -lt "$seq" ] && truth=true
	ok=no
	[ "$adv" = "$truth" ] && ok=yes && right=$((right + 1))
	oknow=no
	[ "$now" = "$truth" ] && oknow=yes && rightnow=$((rightnow + 1))
	total=$((total + 1))
	echo "| $K | $(echo "$pred / 1000" | bc -l | xargs printf %.1f) µs | $(echo "$seq / 1000" | bc -l | xargs printf %.1f) µs | $(echo "$par / 1000" | bc -l | xargs printf %.1f) µs | $adv | $ok | $now | $oknow |"
done
echo
echo "advise right on $right of $total K values by Amdahl's condition with N = 2, on $rightnow with the processors the probe found free (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))."
