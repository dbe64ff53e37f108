#!/usr/bin/env bash
# codesize.sh prints the size of fragprof's Go code as three Markdown tables: the
# lines of every package (its non-test .go files, and its _test.go files apart), the
# lines of every file of the command (cmd/fragprof), largest first, and the lines of
# every subcommand's RunE, largest first. Lines are physical lines (wc -l), comments
# and blank lines included.
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
echo
echo "| command RunE | lines |"
echo "|---|--:|"
# The lines after a command's 'RunE: func(...) {' up to its closing brace. A RunE of
# one line that returns a method's result (freq's f.run) is measured as that method
# (of a type declared in the command's file), from its 'func' line to its closing
# brace.
for f in $(find cmd/fragprof -maxdepth 1 -name '*.go' ! -name '*_test.go' | sort); do
	awk -v file="$f" '
		/RunE: func\(.*\) error \{$/ { start = FNR; match($0, /^\t*/); indent = substr($0, 1, RLENGTH); next }
		start && $0 == indent "}," { printf "%d %s:%d\n", FNR - start, file, start; start = 0 }
		/RunE: func\(.*\) error \{ return [a-z]+\.[a-zA-Z]+\(.*\) \},$/ {
			name = $0; sub(/.*return [a-z]+\./, "", name); sub(/\(.*/, "", name)
			printf "DELEGATE %s:%d %s\n", file, FNR, name
		}' "$f"
done | while read -r n where name; do
	if [ "$n" != DELEGATE ]; then
		echo "$n $where"
		continue
	fi
	types=$(sed -n 's/^type \([A-Za-z]*\) struct.*/\1/p' "${where%:*}" | paste -sd'|')
	awk -v name="$name" -v types="$types" -v where="$where" '
		$0 ~ "^func \\([a-z]+ \\*?(" types ")\\) " name "\\(" { s = FNR; at = FILENAME ":" FNR }
		s && /^}/ { printf "%d %s (%s)\n", FNR - s, where, at; exit }' cmd/fragprof/*.go
done | sort -k1,1nr | awk '{ n = $1; $1 = ""; printf "|%s | %d |\n", $0, n }'
