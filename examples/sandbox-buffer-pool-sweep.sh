#!/usr/bin/env bash
# What does a larger innodb_buffer_pool_size buy? One goslap command starts a
# throw-away MariaDB/MySQL sandbox per size (one after another, never two at
# once), runs the same InnoDB benchmark at 16, 64 and 256 clients against
# each, removes each sandbox, prints a side-by-side table and draws the
# throughput (and p99 latency) curves.
#
# Usage: examples/sandbox-buffer-pool-sweep.sh [SERVER_BINARY] [CHART_FILE]
#   SERVER_BINARY  mariadbd/mysqld path, name or unpacked tarball directory
#                  (default: mariadbd or mysqld found on PATH or in /usr/sbin)
#   CHART_FILE     .svg (self-contained), .png or .pdf (default: bp-sweep.svg)
# Environment: GOSLAP (a goslap binary; default: build one), QUERIES (total
# statements per benchmark, default 20000), ITERATIONS (default 3).
#
# Expected output shape (numbers vary with the machine):
#   stderr: "goslap: target bp64M: starting sandbox ...", "... up in 1.4s ...",
#           "... sandbox stopped and removed", for each of the three targets
#   stdout: "Target: bp64M" followed by three mysqlslap Benchmark blocks
#           (16, 64, 256 clients), the same for bp256M and bp1G, then:
#
#   Comparison: 3 targets; seconds = average per iteration, q/s = queries per second, ratio = q/s against bp64M
#     bp64M:  sandbox: mariadbd 10.11.x-MariaDB (innodb_buffer_pool_size=64M)
#     bp256M: sandbox: mariadbd 10.11.x-MariaDB (innodb_buffer_pool_size=256M)
#     bp1G:   sandbox: mariadbd 10.11.x-MariaDB (innodb_buffer_pool_size=1G)
#
#                    bp64M            bp256M                  bp1G
#   engine  clients  seconds  q/s     seconds  q/s     ratio  seconds  q/s     ratio
#   innodb  16       ...      ...     ...      ...     1.xx   ...      ...     1.xx
#   innodb  64       ...
#   innodb  256      ...
#
#   and CHART_FILE: queries/s and p99 latency against concurrency, one line
#   per size. Needs about 2 GB of free memory for the 1G pool.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-}"
chart="${2:-bp-sweep.svg}"
goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$here" && go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi
sandbox=(--sandbox)
[ -n "$bin" ] && sandbox=(--sandbox="$bin")

"$goslap" --no-defaults "${sandbox[@]}" \
  --auto-generate-sql --auto-generate-sql-load-type=mixed --engine=innodb \
  --concurrency=16,64,256 --iterations="${ITERATIONS:-3}" --number-of-queries="${QUERIES:-20000}" \
  --target=bp64M:sandbox,innodb_buffer_pool_size=64M \
  --target=bp256M:sandbox,innodb_buffer_pool_size=256M \
  --target=bp1G:sandbox,innodb_buffer_pool_size=1G \
  --plot="$chart"
