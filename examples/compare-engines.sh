#!/usr/bin/env bash
# InnoDB or MyISAM? Runs the same auto-generated mixed load for each engine at
# 10, 50 and 100 clients, 3 iterations, on one throw-away sandbox, and prints
# the mysqlslap report, a table with one row per engine × clients, and a
# chart with one line per engine.
#
# Usage: examples/compare-engines.sh [SERVER_BINARY] [CHART_FILE]
#   SERVER_BINARY  default: mariadbd or mysqld found on PATH or in /usr/sbin
#   CHART_FILE     .svg, .png or .pdf (default: engines.svg)
# Environment: GOSLAP (a goslap binary; default: build one), ENGINES (default
# innodb,myisam; MariaDB also has aria), QUERIES (default 10000).
#
# To compare engines on an existing server instead, replace the target with
# --target=prod-copy:server:HOST:PORT,user=bench,password=... (goslap creates
# and drops its own schema, `mysqlslap`, there, as mysqlslap does).
#
# Expected output shape:
#   stdout: "Target: mariadb", six mysqlslap Benchmark blocks ("Running for
#   engine innodb" at 10, 50, 100 clients, then myisam), then
#
#   Comparison: 1 target; seconds = average per iteration, q/s = queries per second
#     mariadb: sandbox: mariadbd 10.11.x-MariaDB
#
#                    mariadb
#   engine  clients  seconds  q/s
#   innodb  10       0.xxx    nnnn.n
#   innodb  50       ...
#   innodb  100      ...
#   myisam  10       ...
#   myisam  50       ...
#   myisam  100      ...
#
#   and CHART_FILE with the lines "mariadb innodb" and "mariadb myisam".
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-}"
chart="${2:-engines.svg}"
goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$here" && go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi

"$goslap" --no-defaults \
  --auto-generate-sql --engine="${ENGINES:-innodb,myisam}" \
  --concurrency=10,50,100 --iterations=3 --number-of-queries="${QUERIES:-10000}" \
  --target="mariadb:sandbox${bin:+:$bin}" \
  --plot="$chart"
