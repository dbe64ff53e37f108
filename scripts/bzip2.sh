#!/usr/bin/env bash
# bzip2.sh: fetches the source of bzip2 1.0.8 (Debian's bzip2 source package, whose
# bzip2_1.0.8.orig.tar.gz is sourceware.org's bzip2-1.0.8.tar.gz), checks its
# SHA-256, unpacks it and prints the directory holding it (its Makefile, bzip2.c).
# Cached under $FRAGPROF_CACHE (default ~/.cache/fragprof). Used by bench/corpus.sh.
set -euo pipefail
exec "$(dirname "$0")/debsrc.sh" bzip2 bzip2_1.0.8.orig.tar.gz \
	ab5a03176ee106d3f0fa90e381da478ddae405918153cca248e682cd0c4a2269 bzip2-1.0.8
