#!/usr/bin/env bash
# "Same data, file size per version": the sysbench table loaded into MyISAM
# on each target, with information_schema's data and index lengths and the
# real sizes of the .MYD/.MYI files in the sandbox's data directory, for
# MyISAM's dynamic and fixed row formats. Add one --target per server
# binary to compare versions (LABEL:sandbox:/path/to/mysqld or an unpacked
# tarball directory); by default the one installed server runs.
#
# Usage: examples/myisam-file-size.sh [--target=LABEL:sandbox:BINARY ...]
# Environment: GOSLAP, TABLE_SIZE (100000).
# Output captured from a real run: examples/output/myisam-file-size.txt.
set -euo pipefail
source "$(dirname "$0")/_goslap.sh"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(--target="$(basename "$(command -v mariadbd || echo /usr/sbin/mariadbd)"):sandbox")
"$goslap" --no-defaults "${targets[@]}" --workload=oltp_read_only \
  --engine='myisam,myisam:ROW_FORMAT=FIXED' --table-size="${TABLE_SIZE:-100000}" \
  --concurrency=4 --run-time=1s
