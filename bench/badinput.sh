#!/usr/bin/env bash
# badinput.sh: tries fragprof on more than 150 bad inputs — missing and malformed
# files, bad flags, malformed distributions and models, damaged and mismatched
# profiles, programs that crash, hang, fork, exit non-zero or print nothing, SIGINT
# and SIGTERM while fragprof builds or runs — each under a timeout, and prints a
# table and the totals that must be 0: hangs (a run past its timeout, or more than
# 2 s past a signal), panics, exit-0 failures, lost counts, overwritten files
# (bench/badinput/main.go says how each is judged).
#
# Usage: bench/badinput.sh [-md docs/errors.md] [-run REGEXP] [-j N]
# Exits with status 1 when a total that must be 0 is not.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh >/dev/null
work=$(mktemp -d /tmp/fragprof-badinput.XXXXXX)
trap 'rm -rf "$work"' EXIT
go build -o "$work/fragprof" ./cmd/fragprof
go run ./bench/badinput -fragprof "$work/fragprof" "$@"
