#!/usr/bin/env bash
# lua.sh: fetches the source of Lua 5.4.4 (Debian's lua5.4 source package, whose
# lua5.4_5.4.4.orig.tar.gz is lua.org's lua-5.4.4.tar.gz), checks its SHA-256,
# unpacks it and prints the directory holding it (its Makefile, src/). Cached under
# $FRAGPROF_CACHE (default ~/.cache/fragprof). Used by bench/corpus.sh.
# The source package is fetched with apt-get source from a deb-src list of its own
# (in the cache), so the system's apt configuration is left as it is.
set -euo pipefail
exec "$(dirname "$0")/debsrc.sh" lua5.4 lua5.4_5.4.4.orig.tar.gz \
	164c7849653b80ae67bec4b7473b884bf5cc8d2dca05653475ec2ed27b9ebf61 lua-5.4.4
