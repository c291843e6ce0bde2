#!/usr/bin/env bash
# MySQL or MariaDB, 5.7 or 8.0? Starts a throw-away sandbox from each server
# binary given (one after another), runs the same InnoDB benchmark at 8, 32
# and 128 clients against each and compares them; the first binary is the
# baseline of the ratios. A binary is a path, a name on PATH, or the
# directory of an unpacked MySQL/MariaDB tarball (bin/mysqld is found in it).
# MariaDB is initialised with mariadb-install-db, MySQL 5.7+ with
# --initialize-insecure.
#
# Usage: examples/compare-versions.sh BINARY_OR_DIR [BINARY_OR_DIR...]
#   e.g. examples/compare-versions.sh /usr/sbin/mariadbd ~/mysql-8.0.40-linux-glibc2.28-x86_64
# Environment: GOSLAP, QUERIES (default 20000), CHART (default versions.svg).
#
# Expected output shape: per target "Target: LABEL" and three Benchmark
# blocks, then the table
#
#   Comparison: 2 targets; seconds = average per iteration, q/s = queries per second, ratio = q/s against mariadbd
#     mariadbd:                          sandbox: mariadbd 10.11.x-MariaDB
#     mysql-8.0.40-linux-glibc2.28-x86_64: sandbox: mysqld 8.0.40
#
#   engine  clients  seconds  q/s  seconds  q/s  ratio
#   innodb  8 / 32 / 128 ...
#
# and CHART with one line per binary.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 BINARY_OR_DIR [BINARY_OR_DIR...]" >&2; exit 2; }
here="$(cd "$(dirname "$0")/.." && pwd)"
goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$here" && go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi
targets=()
for b in "$@"; do
  targets+=(--target="$(basename "$b"):sandbox:$b")
done

"$goslap" --no-defaults \
  --auto-generate-sql --engine=innodb \
  --concurrency=8,32,128 --iterations=3 --number-of-queries="${QUERIES:-20000}" \
  "${targets[@]}" --plot="${CHART:-versions.svg}"
