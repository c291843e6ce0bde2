#!/bin/bash
# Regenerates the golden files of cases.txt from the real mariadb-slap.
# Run from anywhere: internal/cli/mysqlslap/testdata/onlyprint/capture.sh [path-to-mariadb-slap]
# fixed-* cases are skipped (hand-written, see cases.txt).
set -euo pipefail
cd "$(dirname "$0")"
slap=${1:-mariadb-slap}
while IFS= read -r line; do
	case $line in '#'* | '') continue ;; esac
	name=${line%% | *}
	args=${line#* | }
	case $name in fixed-*) continue ;; esac
	# eval: the arguments are written with shell quoting.
	eval "set -- $args"
	rc=0
	"$slap" --no-defaults --only-print "$@" >"$name.out" 2>"$name.err" </dev/null || rc=$?
	[ -s "$name.err" ] || rm -f "$name.err"
	[ "$rc" = 0 ] || echo "$name: exit status $rc" >&2
done <cases.txt
