# predict_protocol.jq: summarises the models of one kernel over its seeds (input:
# the model files, slurped). Buckets of held-out points by extrapolation factor f:
# interpolation (f < 1.5), 4× (1.5 ≤ f < 8), 16× (f ≥ 8).
def ape(p; a): ((p - a) | fabs) / a;
def bucket(lo; hi): [.[] | .evaluation.rows[] | select(.extrapolation_factor >= lo and .extrapolation_factor < hi)];
def pc: if . == null then "–" else (. * 1000 | round / 10 | tostring) + "%" end;
def mape(f): if length == 0 then null else (map(f) | add / length) end;
def worst(f): if length == 0 then null else (map(f) | max) end;
# Runs inside their point's interval, counted apart for the points whose working
# set crosses a cache level no training run crossed (.cache): their intervals
# claim no level.
def inside: ([.[] as $r | $r.times_ns[] | select(. >= $r.lo_ns and . <= $r.hi_ns)] | length) as $in
	| ([.[].times_ns[]] | length) as $all | "\($in)/\($all)";
def cover: if length == 0 then "–" else
	([.[] | select(.cache == null)] | if length == 0 then "–" else inside end)
	+ ([.[] | select(.cache != null)] | if length == 0 then "" else " (+\(inside) past a cache)" end) end;
def cand(c): mape(ape(.candidates[c]; .actual_ns));
. as $models
| (bucket(0; 1.5)) as $in | (bucket(1.5; 8)) as $x4 | (bucket(8; 1e9)) as $x16
| ([["pmnf", ($x4 | cand("pmnf"))], ["power", ($x4 | cand("power"))], ["composition", ($x4 | cand("composition"))]]
   | map(select(.[1] != null)) | min_by(.[1])) as $best
| ($x4 | mape(ape(.predicted_ns; .actual_ns))) as $m4
| [ $kernel, $train,
    ($models | map(.selection.chosen // "graph") | group_by(.) | map("\(.[0])×\(length)") | join(" ")),
    ($in | mape(ape(.predicted_ns; .actual_ns)) | pc),
    "**\($m4 | pc)** (\($x4 | worst(ape(.predicted_ns; .actual_ns)) | pc))",
    "\($x16 | mape(ape(.predicted_ns; .actual_ns)) | pc) (\($x16 | worst(ape(.predicted_ns; .actual_ns)) | pc))",
    "\($best[0]) \($best[1] | pc)",
    (if $m4 == null or $best == null then "–" else (($m4 - $best[1]) * 1000 | round / 10 | tostring) end),
    ($x4 | cand("graph") | pc),
    "\($in | cover) · \($x4 | cover) · \($x16 | cover)"
  ] | "| " + join(" | ") + " |"
