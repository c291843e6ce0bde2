#!/usr/bin/env bash
# What does a bigger buffer pool buy? TPC-C as tpcc-mysql runs it, on one
# throw-away sandbox per innodb_buffer_pool_size value (one after another,
# each loaded afresh), tpmC per value and a chart with the pool size on the
# x axis. At 2 warehouses the tables take 243 MB of .ibd files (captured
# run): 16M holds little of them, 256M most.
#
# Usage: examples/tpcc-buffer-pool.sh [CHART_FILE]   (default tpcc-buffer-pool.svg)
# Environment: GOSLAP (a goslap binary; default: build one), WAREHOUSES (2),
# POOLS (16M,64M,256M), CLIENTS (4), RUN_TIME (20s), WARMUP (5s).
# Output captured from a real run: examples/output/tpcc-buffer-pool.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
chart="${1:-tpcc-buffer-pool.svg}"
goslap="${GOSLAP:-}"
if [ -z "$goslap" ]; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$here" && go build -o "$tmp/goslap" .)
  goslap="$tmp/goslap"
fi
"$goslap" --no-defaults --sandbox --workload=tpcc --warehouses="${WAREHOUSES:-2}" \
  --concurrency="${CLIENTS:-4}" --run-time="${RUN_TIME:-20s}" --warmup-time="${WARMUP:-5s}" \
  --sweep-server-option=innodb_buffer_pool_size="${POOLS:-16M,64M,256M}" \
  --plot="$chart"
