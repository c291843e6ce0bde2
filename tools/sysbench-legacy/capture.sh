#!/usr/bin/env bash
# Records what the real sysbench 0.4.12 and 0.5 print and what they make a
# server execute, as goslap's golden test data (internal/cli/sysbench/testdata/
# legacy): for each case the program's stdout (raw: the tests read the
# figures back or mask them) and the server's SHOW GLOBAL STATUS Com_*
# deltas over the command.
#
# A throwaway mariadbd (--no-defaults, a temp datadir, 127.0.0.1 and a
# private socket only) is started and removed at exit.
#
# Usage: tools/sysbench-legacy/capture.sh SB04 SB05 [OUTDIR]
#   SB04, SB05: the binaries tools/sysbench-legacy/build.sh printed.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin
SB04=${1:?sysbench 0.4 binary}
SB05=${2:?sysbench 0.5 binary}
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${3:-$here/internal/cli/sysbench/testdata/legacy}
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sblegacy.XXXXXX")
asroot=
[ "$(id -u)" = 0 ] && asroot=--user=root
sock=$tmp/s.sock
port=$(( 20000 + RANDOM % 20000 ))
cleanup() {
	if [ -f "$tmp/pid" ]; then kill "$(cat "$tmp/pid")" 2>/dev/null || true; sleep 2; fi
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
mariadb-install-db --no-defaults --datadir="$tmp/data" --auth-root-authentication-method=normal \
	--skip-test-db --skip-name-resolve $asroot >/dev/null 2>&1
mariadbd --no-defaults --datadir="$tmp/data" --socket="$sock" --bind-address=127.0.0.1 --port=$port \
	--skip-name-resolve --pid-file="$tmp/pid" --log-error="$tmp/err.log" --innodb-buffer-pool-size=64M \
	--skip-log-bin --performance-schema=OFF $asroot &
srv=$!
for _ in $(seq 1 60); do
	mariadb --no-defaults -S "$sock" -uroot -e 'select 1' >/dev/null 2>&1 && break
	kill -0 $srv 2>/dev/null || { cat "$tmp/err.log" >&2; exit 1; }
	sleep 1
done
sql() { mariadb --no-defaults -S "$sock" -uroot -N -B -e "$1"; }
sql "CREATE DATABASE sbtest; CREATE USER sbtest@'127.0.0.1'; GRANT ALL ON *.* TO sbtest@'127.0.0.1'"

status() { sql "SHOW GLOBAL STATUS LIKE 'Com\\_%'" | sort; }

# capture NAME BINARY ARGS...: stdout to NAME.out, the exit status and the
# nonzero Com_* deltas (without the SHOW STATUS that reads them) to NAME.com.
capture() {
	local name=$1 bin=$2
	shift 2
	status >"$tmp/before"
	local rc=0
	"$bin" --mysql-host=127.0.0.1 --mysql-port=$port --mysql-user=sbtest "$@" >"$out/$name.out" 2>"$tmp/stderr" || rc=$?
	status >"$tmp/after"
	{
		echo "# $(basename "$(dirname "$(dirname "$bin")")") $*" | sed 's|--test=[^ ]*/|--test=|' 
		echo "exit $rc"
		join "$tmp/before" "$tmp/after" | awk '$1 != "Com_show_status" && $3 != $2 { print $1, $3 - $2 }'
	} >"$out/$name.com"
	if [ -s "$tmp/stderr" ]; then cp "$tmp/stderr" "$out/$name.err"; else rm -f "$out/$name.err"; fi
}

t04="--test=oltp"
for eng in innodb myisam; do
	capture 04-$eng-prepare "$SB04" $t04 --mysql-table-engine=$eng prepare
	capture 04-$eng-rw "$SB04" $t04 --mysql-table-engine=$eng --max-requests=1000 run
	capture 04-$eng-ro "$SB04" $t04 --mysql-table-engine=$eng --oltp-read-only=on --max-requests=1000 run
	capture 04-$eng-cleanup "$SB04" $t04 cleanup
done
capture 04-cleanup-again "$SB04" $t04 cleanup
# A time limit that ends the run (the trailer's "Time limit exceeded").
capture 04-innodb-prepare-time "$SB04" $t04 prepare
capture 04-innodb-time "$SB04" $t04 --max-requests=0 --max-time=1 --num-threads=4 run
# Deadlocks: many threads on a tiny table.
capture 04-deadlock "$SB04" $t04 --oltp-table-size=10 --num-threads=8 --max-requests=400 --oltp-dist-type=uniform run
capture 04-innodb-cleanup-time "$SB04" $t04 cleanup
# No command.
capture 04-nocommand "$SB04" $t04

t05="--test=$(dirname "$(dirname "$SB05")")/share/doc/sysbench/tests/db/oltp.lua"
[ -f "${t05#--test=}" ] || t05="--test=$(find "$(dirname "$(dirname "$SB05")")" -name oltp.lua | head -1)"
capture 05-prepare "$SB05" "$t05" prepare
capture 05-rw "$SB05" "$t05" --max-requests=1000 run
capture 05-ro "$SB05" "$t05" --oltp-read-only=on --max-requests=1000 run
# Options 0.5 does not have: 0.4's distribution names.
capture 05-disttype "$SB05" "$t05" --oltp-dist-type=uniform --oltp-dist-iter=3 --oltp-dist-pct=50 --oltp-dist-res=10 --max-requests=100 run
capture 05-cleanup "$SB05" "$t05" cleanup
capture 05-cleanup-again "$SB05" "$t05" cleanup
capture 05-prepare-deadlock "$SB05" "$t05" --oltp-table-size=10 prepare
capture 05-deadlock "$SB05" "$t05" --oltp-table-size=10 --num-threads=8 --max-requests=400 --rand-type=uniform run
capture 05-cleanup-deadlock "$SB05" "$t05" cleanup
capture 05-nocommand "$SB05" "$t05"
