#!/usr/bin/env bash
# codesize.sh prints the size of fragprof's Go code as two Markdown tables: the lines
# of every package (its non-test .go files, and its _test.go files apart), then the
# lines of every file of the command (cmd/fragprof), largest first. Lines are
# physical lines (wc -l), comments and blank lines included.
#
#	bench/codesize.sh
set -euo pipefail
cd "$(dirname "$0")/.."

lines() { # the total of wc -l over the files named on stdin, 0 for none
	xargs -r cat | wc -l
}

echo "| package | files | lines | test lines |"
echo "|---|--:|--:|--:|"
total=0 ttotal=0
for dir in $(go list -f '{{.Dir}}' ./... | sed "s|^$PWD/||; s|^$PWD\$|.|" | sort); do
	code=$(find "$dir" -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort)
	tests=$(find "$dir" -maxdepth 1 -name '*_test.go' | sort)
	n=$(printf '%s\n' "$code" | grep -c . || true)
	l=$(printf '%s\n' "$code" | grep . | lines)
	tl=$(printf '%s\n' "$tests" | grep . | lines || true)
	total=$((total + l)) ttotal=$((ttotal + tl))
	echo "| $dir | $n | $l | $tl |"
done
echo "| **total** | | **$total** | **$ttotal** |"
echo
echo "| cmd/fragprof file | lines |"
echo "|---|--:|"
find cmd/fragprof -maxdepth 1 -name '*.go' ! -name '*_test.go' -exec wc -l {} + |
	grep -v ' total$' | sort -k1,1nr | awk '{ printf "| %s | %d |\n", $2, $1 }'
