#!/usr/bin/env bash
# Compressed row formats: the same oltp_read_write run on InnoDB's default
# row format and on ROW_FORMAT=COMPRESSED with KEY_BLOCK_SIZE 8 and 4, on a
# sandbox. The size table after each prepare shows the row format the
# server really gave and the .ibd file sizes; goslap warns when the server
# gave another format than the one asked for.
#
# Usage: examples/innodb-compressed.sh
# Environment: GOSLAP, TABLE_SIZE (50000), THREADS (16), RUN_TIME (5s).
# Output captured from a real run: examples/output/innodb-compressed.txt.
set -euo pipefail
source "$(dirname "$0")/_goslap.sh"
"$goslap" --no-defaults --sandbox --workload=oltp_read_write \
  --engine='innodb,innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8,innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4' \
  --table-size="${TABLE_SIZE:-50000}" --concurrency="${THREADS:-16}" --run-time="${RUN_TIME:-5s}"
