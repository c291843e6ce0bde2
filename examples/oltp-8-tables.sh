#!/usr/bin/env bash
# The 8-table study: oltp_read_only and oltp_read_write over 8 sbtest
# tables, swept over threads, with goslap's per-statement latency lines
# (--latency) and a chart per workload whose second panel is the p99
# response time. The seed study used 8 tables of 10 GB; these are tiny.
#
# Usage: examples/oltp-8-tables.sh [CHART_PREFIX]   (default oltp-8-tables)
# Environment: GOSLAP, TABLE_SIZE (5000), THREADS (8,32), RUN_TIME (5s).
# Output captured from a real run: examples/output/oltp-8-tables.txt.
set -euo pipefail
source "$(dirname "$0")/_goslap.sh"
prefix="${1:-oltp-8-tables}"
for wl in oltp_read_only oltp_read_write; do
  echo "== $wl"
  "$goslap" --no-defaults --sandbox --workload=$wl --tables=8 --table-size="${TABLE_SIZE:-5000}" \
    --concurrency="${THREADS:-8,32}" --run-time="${RUN_TIME:-5s}" --latency --plot="$prefix-$wl.svg"
done
