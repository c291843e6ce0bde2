#!/usr/bin/env bash
# "MyISAM or InnoDB?": sysbench's oltp_read_write and oltp_read_only over a
# thread sweep on both engines, on a throw-away sandbox; one Benchmark
# block per engine x threads, the OLTP lines under it, and a chart per
# workload. The seed study swept 100..1000 threads on 1,000,000 rows; the
# defaults here finish in about two minutes on 2 cores.
#
# Usage: examples/oltp-thread-sweep.sh [CHART_PREFIX]   (default oltp-threads)
# MyISAM has no transactions: two clients deleting and re-inserting the same
# id collide on the primary key (1062), which sysbench users ignore with
# --mysql-ignore-errors; here --ignore-errors adds it to sysbench's default
# list, and the report counts them.
#
# Environment: GOSLAP, THREADS (4,16,64), TABLE_SIZE (10000), RUN_TIME (5s).
# Output captured from a real run: examples/output/oltp-thread-sweep.txt.
set -euo pipefail
source "$(dirname "$0")/_goslap.sh"
prefix="${1:-oltp-threads}"
for wl in oltp_read_write oltp_read_only; do
  echo "== $wl"
  "$goslap" --no-defaults --sandbox --workload=$wl --engine=innodb,myisam --ignore-errors=1062,1213,1020,1205 \
    --table-size="${TABLE_SIZE:-10000}" --concurrency="${THREADS:-4,16,64}" --run-time="${RUN_TIME:-5s}" \
    --plot="$prefix-$wl.svg"
done
