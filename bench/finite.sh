#!/usr/bin/env bash
# bench/finite.sh: the coverage laboratory of finite populations
# (internal/stopping, TestFiniteCoverageStrata): R runs per cell (R = $1, 10,000
# by default: a binomial sd of 0.0022 at 0.95), each to its
# stopping point at +-8 % and gamma 0.95, of the default rule on simple random
# samples without replacement and of the stratified rule under proportional and
# Neyman allocation (in the rounds of dist.Schedule), on three worlds of 400 items: "skewed" (floor(e^X),
# X ~ N(1, 0.8^2), stratified by size quartile), "rare-class" (a class of 40 items
# of count 40 among counts 10-16, stratified by class) and "rare-8" (8 items of
# count 400). Prints coverage and mean trials per design, and the trials of each
# stratified design as a ratio to the simple design's, measured in the same run.
# Usage: bench/finite.sh [R]
set -euo pipefail
cd "$(dirname "$0")/.."
FRAGPROF_FINITE_REPS=${1:-10000} go test ./internal/stopping -run 'TestFiniteCoverageStrata$' -count=1 -timeout 2h -v |
	sed -n 's/.*strata_test.go:[0-9]*: //p' |
	awk '{
		# skewed     simple: coverage 0.986, 258 trials; proportional: 0.961, 365; Neyman: 0.942, 137; R = 1000, sd 0.0069
		gsub(/[,;]/, "")
		printf "%-10s simple %s cov, %s trials | proportional %s cov, %s trials (%.2fx) | Neyman %s cov, %s trials (%.2fx) | R %s, sd %s\n",
			$1, $4, $5, $8, $9, $9/$5, $11, $12, $12/$5, $15, $17
	}'
