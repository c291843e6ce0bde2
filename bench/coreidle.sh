#!/usr/bin/env bash
# coreidle.sh: how much of the machine each client leaves idle. Runs
# mysqlslap's key load through each ARM in turn, ROUNDS times, against a
# running server, and prints per run: the process's wall time, its CPU
# (user+sys), the server's CPU during it, and the share of all cores'
# time the kernel counted idle (idle+iowait in /proc/stat) meanwhile.
#
#   bench/coreidle.sh SOCKET SERVER_PID ROUNDS 'label|ENV=VALUE ...|binary' ...
#
# e.g. with a server from `go run ./bench/slapbench -serve -servers default`:
#   C=16 Q=100000 bench/coreidle.sh /tmp/goslap-server-*/mysqld.sock 1234 4 \
#     'slap|X=1|mariadb-slap' 'goslap|X=1|./goslap' 'netpoller|GOSLAP_RING=0|./goslap'
# C is the client count (16), Q the number of queries (100000).
set -eu
[ $# -ge 4 ] || { sed -n 2,15p "$0" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "coreidle.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }
sock=$1 pid=$2 rounds=$3
shift 3
C=${C:-16} Q=${Q:-100000}
server_ticks() { awk '{print $14+$15}' "/proc/$pid/stat"; }
cpu_line() { awk '/^cpu /{print $5+$6, $2+$3+$4+$5+$6+$7+$8+$9}' /proc/stat; }
hz=$(getconf CLK_TCK)
for _ in $(seq "$rounds"); do
  for arm in "$@"; do
    IFS='|' read -r label envs bin <<<"$arm"
    read -r idle0 total0 < <(cpu_line)
    s0=$(server_ticks)
    # shellcheck disable=SC2086 # envs is a list of NAME=VALUE words
    out=$(env $envs /usr/bin/time -f '%e %U %S' "$bin" --no-defaults --socket="$sock" --user=root -a \
      --auto-generate-sql-add-autoincrement --engine=innodb --number-of-queries="$Q" \
      --auto-generate-sql-load-type=key --concurrency="$C" 2>&1 >/dev/null | tail -1)
    s1=$(server_ticks)
    read -r idle1 total1 < <(cpu_line)
    read -r wall user sys <<<"$out"
    awk -v l="$label" -v w="$wall" -v u="$user" -v s="$sys" -v sc="$((s1 - s0))" -v hz="$hz" \
      -v i="$((idle1 - idle0))" -v t="$((total1 - total0))" \
      'BEGIN { printf "%-12s wall %.2f s  client %.2f s  server %.2f s  idle %.1f %%\n", l, w, u + s, sc / hz, 100 * i / (t > 0 ? t : 1) }'
  done
done
