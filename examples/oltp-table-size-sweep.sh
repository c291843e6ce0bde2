#!/usr/bin/env bash
# How does throughput fall as the table outgrows memory? oltp_read_write at
# a fixed thread count over a list of table sizes (one prepare per size) on
# a sandbox with a small buffer pool; the comparison table and the chart
# have the table size on the x axis. The seed study went from 0.5M to 10M
# rows at 100 threads.
#
# Usage: examples/oltp-table-size-sweep.sh [CHART_FILE]   (default oltp-table-size.svg)
# Environment: GOSLAP, SIZES (10K,50K,200K), THREADS (16), RUN_TIME (5s), POOL (16M).
# Output captured from a real run: examples/output/oltp-table-size-sweep.txt.
set -euo pipefail
source "$(dirname "$0")/_goslap.sh"
"$goslap" --no-defaults --sandbox --sandbox-option=innodb_buffer_pool_size="${POOL:-16M}" \
  --workload=oltp_read_write --table-size="${SIZES:-10K,50K,200K}" \
  --concurrency="${THREADS:-16}" --run-time="${RUN_TIME:-5s}" --plot="${1:-oltp-table-size.svg}"
