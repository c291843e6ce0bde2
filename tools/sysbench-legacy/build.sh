#!/usr/bin/env bash
# Builds the two sysbench versions the seed studies ran (2010-2013), from
# their public source, into a directory outside the repository, so that
# capture.sh can record their output as goslap's golden test data:
#
#   0.4  the 0.4 branch as of July 2011 (3d52f3e, 2011-07-19, reports
#        "0.4.12"): the C --test=oltp with the 0.4.12 release's report
#        ("Test execution summary:", "per-request statistics:", changed on
#        2011-07-21) and its extra UPDATE per transaction (removed in 2016),
#        plus --seed-rng's "Random number generator seed" line (2009-09)
#   0.5  the 0.5 branch (tests/db/*.lua), head of the branch
#
# Nothing of sysbench is copied into this repository: the source is read
# from a git clone given by SYSBENCH_GIT (a git directory of
# https://github.com/akopytov/sysbench) and built under OUT.
#
# Usage: SYSBENCH_GIT=/path/to/sysbench.git tools/sysbench-legacy/build.sh [OUT]
# Needs: gcc, make, automake, autoconf, libtool, libmariadb-dev-compat (or
# libmysqlclient-dev). Prints the two binaries' paths.
set -euo pipefail

OUT=${1:-${TMPDIR:-/tmp}/sysbench-legacy}
GIT=${SYSBENCH_GIT:?set SYSBENCH_GIT to a git directory of github.com/akopytov/sysbench}
REV04=${REV04:-3d52f3e}   # 0.4 branch, 2011-07-19, AC_INIT 0.4.12
REV05=${REV05:-0.5}       # 0.5 branch head

build() {
	local name=$1 rev=$2 src=$OUT/src-$1
	local want
	want=$(git --git-dir="$GIT" rev-parse "$rev^{commit}")
	if [ -x "$OUT/$name/bin/sysbench" ] && [ "$(cat "$OUT/$name/REV" 2>/dev/null)" = "$want" ]; then
		echo "$OUT/$name/bin/sysbench"
		return
	fi
	rm -rf "$src"
	mkdir -p "$src"
	git --git-dir="$GIT" archive "$rev" | tar -x -C "$src"
	cd "$src"
	# Automake >= 1.12 needs AM_PROG_AR for the static helper libraries and
	# its warnings about that would fail the build under -Werror; the
	# sources' own -Werror (W_FAIL) is off unless asked for.
	sed -i 's/AM_INIT_AUTOMAKE(\[*-Wall -Werror\([^])]*\)\]*)/AM_INIT_AUTOMAKE([-Wall\1])/' configure.ac
	grep -q 'AM_PROG_AR' configure.ac || sed -i '/^AM_INIT_AUTOMAKE/a m4_ifdef([AM_PROG_AR], [AM_PROG_AR])' configure.ac
	./autogen.sh >"$OUT/$name-autogen.log" 2>&1
	CFLAGS="-O2 -g -fcommon -Wno-error" ./configure --with-mysql --without-pgsql --prefix="$OUT/$name" \
		>"$OUT/$name-configure.log" 2>&1
	make -j"$(nproc)" >"$OUT/$name-make.log" 2>&1
	make install >"$OUT/$name-install.log" 2>&1
	echo "$want" >"$OUT/$name/REV"
	cd - >/dev/null
	echo "$OUT/$name/bin/sysbench"
}

mkdir -p "$OUT"
build 0.4 "$REV04"
build 0.5 "$REV05"
