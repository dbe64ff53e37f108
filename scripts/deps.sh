#!/usr/bin/env bash
# deps.sh: install what fragprof's build, tests and demo need, when it is missing.
# Idempotent; needs root (or sudo) only when something must be installed.
# Usage: scripts/deps.sh [extra Debian packages...]
set -euo pipefail

# command → Debian package
declare -A need=(
  [clang]=clang          # Debian's default clang (14 on bookworm): typed pointers
  [clang-16]=clang-16    # a clang with opaque pointers: both IR dialects are tested
  [clang-19]=clang-19    # the newest clang in Debian: C and C++ are tested on 14 and 19
  [g++]=g++              # the C++ oracle (g++ --coverage)
  [llvm-cov-14]=llvm-14  # the second C++ oracle: clang's source-based coverage,
  [llvm-cov-19]=llvm-19  #   read by llvm-profdata and llvm-cov of the same LLVM
  [cmake]=cmake          # the unmodified CMake project of testdata/cxx/project
  [csmith]=csmith        # random C programs for the oracle tests
  [dot]=graphviz         # drawing CFGs
  [gcov]=gcc             # the oracle
  [chromium]=chromium    # the real-browser test of the HTML report
)
missing=()
for cmd in "${!need[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${need[$cmd]}")
done
[ -f /usr/include/csmith/csmith.h ] || missing+=(libcsmith-dev)
# OpenMP for Debian's default clang (14): the test of --atomic on an OpenMP loop.
# (libomp-19-dev conflicts with it, so OpenMP is tested on clang 14 only.)
[ -e /usr/lib/llvm-14/lib/libomp.so ] || missing+=(libomp-dev)
# Separate debug files of libc (by build ID, /usr/lib/debug/.build-id): the test of
# symbols for stripped libraries; lua5.4 and sqlite3 are sampled by bench/sampling.sh.
[ -d /usr/lib/debug/.build-id ] && ls /usr/lib/debug/.build-id/*/*.debug >/dev/null 2>&1 || missing+=(libc6-dbg)
command -v lua5.4 >/dev/null 2>&1 || missing+=(lua5.4)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
missing+=("$@")
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}" >/dev/null
