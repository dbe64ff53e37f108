# predict_probe.jq: summarises the probe predictions of one kernel's 4× or 16×
# point ($point) over its seeds (input: one JSON object per seed, slurped, as
# bench/predict.sh writes them: pred, lo, hi, share, model, actual = the median of
# that point's runs, times = those runs). One Markdown row; the half-width is
# relative to the prediction.
def ape(p; a): ((p - a) | fabs) / a;
def pc: (. * 1000 | round / 10 | tostring) + "%";
"| \($kernel) | \($train) | \($point) | \(length) | \(map(.share) | add / length | pc)"
+ " | **\(map(ape(.pred; .actual)) | add / length | pc)** (\(map(ape(.pred; .actual)) | max | pc))"
+ " | \(map(ape(.model; .actual)) | add / length | pc)"
+ " | \([.[] as $r | $r.times[] | select(. >= $r.lo and . <= $r.hi)] | length)/\([.[].times[]] | length)"
+ " | ±\(map((.hi - .lo) / 2 / .pred) | add / length | pc) |"
