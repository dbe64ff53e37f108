#!/usr/bin/env bash
# sqlite.sh: fetches the SQLite amalgamation (sqlite3.c, sqlite3.h) that the npm
# package better-sqlite3 12.11.1 vendors under deps/sqlite3, checks its SHA-256, and
# prints the directory holding it. Cached under $FRAGPROF_CACHE (default
# ~/.cache/fragprof). Used by `make test-large` (internal/oracle TestSQLiteGcov).
set -euo pipefail
version=12.11.1
sum=60d2f39a3726cd6b9021da6f4e868608d66fbb6528a9f513dc8ffcc640493422
cache=${FRAGPROF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fragprof}
dir=$cache/sqlite-better-sqlite3-$version
if [ ! -f "$dir/sqlite3.c" ]; then
	command -v npm >/dev/null 2>&1 || { sudo=; [ "$(id -u)" = 0 ] || sudo=sudo; $sudo apt-get install -y npm >&2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && npm pack --silent "better-sqlite3@$version" >&2 && tar xzf "better-sqlite3-$version.tgz")
	mkdir -p "$dir"
	cp "$tmp/package/deps/sqlite3/sqlite3.c" "$tmp/package/deps/sqlite3/sqlite3.h" "$dir/"
fi
echo "$sum  $dir/sqlite3.c" | sha256sum --quiet -c - >&2 || { echo "sqlite.sh: $dir/sqlite3.c is not the expected file (SHA-256 differs)" >&2; exit 1; }
echo "$dir"
