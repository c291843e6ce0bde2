#!/usr/bin/env bash
# Is the other release faster or slower than the one we run? Starts a
# throw-away sandbox from each server given (all up at once), loads the same
# InnoDB OLTP tables into each, runs ROUNDS interleaved rounds (a b, b a, ...;
# each server quiesced before it is measured), and prints each run's report,
# the side-by-side table, every side's per-round figures with the paired ratio
# to the first, its 95 % confidence interval and the verdict, and the chart's
# path.
#
# Usage: examples/compare-versions.sh [SERVER...]
#   SERVER is a mariadbd/mysqld path, a name on PATH, a directory holding one
#   (an install prefix, an unpacked MySQL/MariaDB tarball, a package extracted
#   with dpkg-deb -x, a build directory), or deb:VERSION: that version of the
#   Debian package mariadb-server-core, downloaded with apt-get download and
#   extracted (never installed) into $GOSLAP_CACHE (default ~/.cache/goslap).
#   Without SERVER: the installed mariadbd against the other version
#   `apt-cache policy mariadb-server-core` lists (e.g. 10.11.19 from
#   bookworm-security against 10.11.18 from bookworm).
#
#   examples/compare-versions.sh
#   examples/compare-versions.sh /usr/sbin/mariadbd deb:1:10.11.18-0+deb12u1
#   examples/compare-versions.sh /usr/sbin/mariadbd ~/mysql-8.0.40-linux-glibc2.28-x86_64
#   examples/compare-versions.sh /usr/sbin/mariadbd ~/src/mariadb/build
#
# Environment: GOSLAP (a goslap binary; default: built from this checkout),
# ROUNDS (default 5), RUN_TIME (per run, default 5s), TABLE_SIZE (default
# 10000), CONCURRENCY (default 8,32), CHART (default versions.svg), VERBOSE=1
# (goslap -v: which system-table SQL, messages and plugins each sandbox uses).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin:/usr/local/go/bin"
here="$(cd "$(dirname "$0")/.." && pwd)"
pkg=mariadb-server-core
cache="${GOSLAP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goslap}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# fetch VERSION: prints the directory the package version is extracted in.
fetch() {
  local version="$1" root
  root="$cache/${pkg}_${version//:/_}"
  if [ ! -x "$root/usr/sbin/mariadbd" ]; then
    mkdir -p "$cache"
    local work
    work="$(mktemp -d "$cache/download-XXXXXX")"
    echo "downloading $pkg=$version into $cache ..." >&2
    # apt-get download writes into the current directory.
    if ! (cd "$work" && apt-get download -q "$pkg=$version" >&2); then
      rm -rf "$work"
      echo "$0: cannot download $pkg=$version (apt-get update may be needed; versions: apt-cache policy $pkg)" >&2
      exit 1
    fi
    dpkg-deb -x "$work"/*.deb "$work/root"
    mv "$work/root" "$root"
    rm -rf "$work"
  fi
  echo "$root"
}

# other_version: the first version apt-cache lists besides the installed one.
other_version() {
  apt-cache policy "$pkg" | awk '
    $1 == "Installed:" { installed = $2 }
    /^ +(\*\*\* )?[^ ]+ [0-9]+$/ { v = ($1 == "***") ? $2 : $1; if (v != installed && other == "") other = v }
    END { if (other == "") exit 1; print other }'
}

# label SERVER: the server's version number (10.11.18, 8.0.40), else its name.
label() {
  local b="$1" bin="" d n
  if [ -d "$b" ]; then
    for d in bin sbin usr/sbin usr/bin sql .; do
      for n in mariadbd mysqld; do
        if [ -z "$bin" ] && [ -x "$b/$d/$n" ] && [ -f "$b/$d/$n" ]; then bin="$b/$d/$n"; fi
      done
    done
  else
    bin="$(command -v "$b" || echo "$b")"
  fi
  local v=""
  [ -n "$bin" ] && v="$("$bin" --no-defaults --version 2>/dev/null | sed -n 's/.* Ver \([0-9][0-9.]*\).*/\1/p')"
  echo "${v:-$(basename "$b")}"
}

servers=("$@")
if [ ${#servers[@]} -eq 0 ]; then
  other="$(other_version)" || { echo "$0: apt-cache policy $pkg lists no version besides the installed one (try apt-get update), or name the servers to compare" >&2; exit 1; }
  servers=(mariadbd "deb:$other")
fi
targets=()
labels=()
for s in "${servers[@]}"; do
  case "$s" in deb:*) s="$(fetch "${s#deb:}")" ;; esac
  l="$(label "$s")"
  for seen in "${labels[@]+"${labels[@]}"}"; do
    [ "$seen" = "$l" ] && l="$l-${#labels[@]}"
  done
  labels+=("$l")
  targets+=(--target="$l:sandbox:$s")
done

goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  (cd "$here" && CGO_ENABLED=0 go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi
chart="${CHART:-versions.svg}"
verbose=()
[ "${VERBOSE:-}" = 1 ] && verbose=(-v)
"$goslap" --no-defaults "${verbose[@]+"${verbose[@]}"}" \
  --workload=oltp_read_write --engine=innodb --table-size="${TABLE_SIZE:-10000}" \
  --concurrency="${CONCURRENCY:-8,32}" --run-time="${RUN_TIME:-5s}" --rounds="${ROUNDS:-5}" \
  "${targets[@]}" --plot="$chart"
echo
echo "chart: $chart"
