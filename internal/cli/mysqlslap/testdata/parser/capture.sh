#!/usr/bin/env bash
# Capture what the real mariadb-slap prints for every case of cases.txt into
# golden/NAME.txt, so that the goslap parser tests replay them.
# usage: internal/cli/mysqlslap/testdata/parser/capture.sh   (needs /usr/bin/mariadb-slap)
#
# Each golden file has the sections "-- rc --", "-- stdout --", "-- stderr --".
# Normalisation: the program name becomes goslap; the version line becomes
# @VERSION@ and mariadb-slap's copyright line @COPYRIGHT@ (goslap prints its
# own); the directory of this script becomes @DIR@; the groups line gets
# goslap's extra group; mariadb-slap's password output is masked as goslap
# does (spec 8).
set -u
cd "$(dirname "$0")" || exit 1
dir=$(pwd)
command -v mariadb-slap >/dev/null || { echo "mariadb-slap is not installed" >&2; exit 2; }
rm -f golden/*.txt
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
norm() {
  sed -e "s#$dir#@DIR@#g" \
      -e 's/^mariadb-slap  Ver .*/@VERSION@/' \
      -e 's/^Copyright (c) 2005, 2018, Oracle, MariaDB Corporation Ab and others\.$/@COPYRIGHT@/' \
      -e 's/^\(The following groups are read: mysqlslap mariadb-slap client client-server client-mariadb\)\(.*\)$/\1 goslap\2/' \
      -e 's/^\(The following groups are read: .*\) \(mysqlslap\([^ ]*\) mariadb-slap[^ ]* client[^ ]* client-server[^ ]* client-mariadb[^ ]*\)$/\1 \2 goslap\3/' \
      -e 's/mariadb-slap: /goslap: /g' \
      -e 's/^Usage: mariadb-slap/Usage: goslap/' \
      -e 's/^mariadb-slap would have/goslap would have/' \
      -e 's/--password=[^ ]*/--password=*****/g' -e 's/^\(.* \)\?-p[^ ,]\+ /\1-p***** /'
}
grep -v '^#' cases.txt | while IFS='|' read -r name envs args; do
  [ -n "$name" ] || continue
  eval "set -- $args"
  # shellcheck disable=SC2086
  env -i PATH=/usr/bin:/bin HOME="$dir/home" $envs timeout 10 mariadb-slap "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
  rc=$?
  {
    echo "-- args --"; echo "$envs|$args"
    echo "-- rc --"; echo "$rc"
    echo "-- stdout --"; norm <"$tmp/out"
    echo "-- stderr --"; norm <"$tmp/err"
  } >"golden/$name.txt"
done
echo "captured $(ls golden | wc -l) cases"
