#!/bin/sh
# capture.sh: record sysbench 1.0.20's report layouts for goslap's goldens.
#
# Starts a throwaway mariadbd (private datadir and socket in a temp dir,
# removed at exit), runs the real sysbench against it and writes its stdout,
# as it is, to *.golden here.
# Usage: internal/cli/sysbench/testdata/capture.sh   (needs sysbench, mariadbd,
# mariadb-install-db, mariadb). The 0.4/0.5 captures (legacy/) come from
# tools/sysbench-legacy/capture.sh.
set -eu
PATH=$PATH:/usr/sbin:/sbin
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/sbcap.XXXXXX)
asroot=
[ "$(id -u)" = 0 ] && asroot=--user=root
sock=$tmp/s.sock
cleanup() {
	if [ -f "$tmp/pid" ]; then kill "$(cat "$tmp/pid")" 2>/dev/null || true; sleep 2; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
mariadb-install-db --no-defaults --datadir="$tmp/data" --auth-root-authentication-method=normal \
	--skip-test-db --skip-name-resolve $asroot >/dev/null 2>&1
mariadbd --no-defaults --datadir="$tmp/data" --socket="$sock" --skip-networking \
	--pid-file="$tmp/pid" --log-error="$tmp/err.log" --innodb-buffer-pool-size=64M \
	--skip-log-bin --performance-schema=OFF $asroot &
srv=$!
for i in $(seq 1 60); do
	mariadb --no-defaults -S "$sock" -uroot -e 'select 1' >/dev/null 2>&1 && break
	kill -0 $srv 2>/dev/null || { cat "$tmp/err.log" >&2; exit 1; }
	sleep 1
done
mariadb --no-defaults -S "$sock" -uroot -e 'CREATE DATABASE sbtest'

sb() { sysbench --mysql-socket="$sock" --mysql-user=root "$@"; }

sb oltp_read_write --tables=2 --table-size=1000 prepare >"$here/prepare-1.0.golden"
# Fixed event count: counts are exact, only times are normalised.
# Raw outputs: the tests read the figures back out of each golden, render
# them through goslap's formatter and compare byte for byte, so nothing needs
# normalising and every field width sysbench chose is kept.
sb oltp_read_write --tables=2 --table-size=1000 --threads=2 --events=200 --time=0 run >"$here/report-1.0-events.golden"
sb oltp_read_only --tables=2 --table-size=1000 --threads=2 --time=3 --report-interval=1 run >"$here/report-1.0-interval.golden"
sb oltp_point_select --tables=2 --table-size=1000 --num-threads=1 --max-requests=10 --max-time=0 run >"$here/report-1.0-deprecated.golden"
sb oltp_write_only --tables=2 --table-size=1000 --threads=3 --events=60 --time=0 --rand-seed=42 --percentile=99 --tx-rate=2000 run >"$here/report-1.0-seed.golden"
sb oltp_point_select --tables=2 --table-size=1000 --events=20 --time=0 --percentile=100 run >"$here/report-1.0-p100.golden"
sb oltp_point_select --tables=2 --table-size=1000 --events=20 --time=0 --percentile=0 run >"$here/report-1.0-p0.golden"
sb oltp_read_write --tables=2 --table-size=1000 cleanup >"$here/cleanup-1.0.golden"
