#!/usr/bin/env bash
# debsrc.sh PACKAGE TARBALL SHA256 DIR: fetches the upstream tarball TARBALL of the
# Debian source package PACKAGE (Debian 12, bookworm) with apt-get source, checks its
# SHA-256, unpacks it into $FRAGPROF_CACHE (default ~/.cache/fragprof) and prints the
# directory DIR it holds. apt reads a deb-src list and keeps its package lists in a
# directory of the cache, not in the system's, so the system's apt state is left as
# it is. Used by scripts/lua.sh and scripts/bzip2.sh.
set -euo pipefail
pkg=$1 tarball=$2 sum=$3 name=$4
cache=${FRAGPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fragprof}
dir=$cache/debsrc/$name
if [ ! -f "$dir/.fragprof-ok" ]; then
	apt=$cache/debsrc/apt
	mkdir -p "$apt/lists/partial" "$apt/get"
	echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
	opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$apt/lists")
	[ -f "$apt/get/$tarball" ] || {
		apt-get "${opts[@]}" update >&2
		(cd "$apt/get" && apt-get "${opts[@]}" source --download-only "$pkg" >&2)
	}
	echo "$sum  $apt/get/$tarball" | sha256sum --quiet -c - >&2 || { echo "debsrc.sh: $apt/get/$tarball is not the expected file (SHA-256 differs)" >&2; exit 1; }
	rm -rf "$dir" && mkdir -p "$cache/debsrc"
	tar xzf "$apt/get/$tarball" -C "$cache/debsrc"
	[ -d "$dir" ] || { echo "debsrc.sh: $tarball holds no directory $name" >&2; exit 1; }
	touch "$dir/.fragprof-ok"
fi
echo "$dir"
