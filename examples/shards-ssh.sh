#!/bin/sh
# goslap split over the machines named in HOSTS, started over ssh: each runs
# one shard, all meet at the database barrier (no synchronised clocks
# needed), and the documents come back on stdout to be merged here.
# goslap must be on every host's PATH; the server must be reachable from all.
# Usage: HOSTS="load1 load2 load3" DB_HOST=db.example ./shards-ssh.sh
set -eu
: "${HOSTS:?list the client machines in HOSTS}"
: "${DB_HOST:?name the server in DB_HOST}"
n=$(echo $HOSTS | wc -w)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
for h in $HOSTS; do
	# MYSQL_PWD, when set, travels in the command's environment.
	ssh "$h" "MYSQL_PWD='${MYSQL_PWD:-}' goslap --host=$DB_HOST --user=${DB_USER:-bench} \
	  --workload=oltp_point_select --create-schema=sbtest --tables=4 --table-size=100000 \
	  --concurrency=${CLIENTS:-64} --run-time=${RUN_TIME:-60s} \
	  --shard=$i/$n --start-at=barrier+3s --shard-wait=10m --json=-" >"$dir/shard-$i.out" 2>"$dir/shard-$i.err" &
	pids="${pids:-} $!"
	i=$((i + 1))
done
status=0
for p in $pids; do
	wait "$p" || status=1
done
# A missing or failed shard makes the merge refuse: add --allow-partial to
# report the others, flagged partial.
goslap merge --json=merged.json "$dir"/shard-*.out || status=$?
exit $status
