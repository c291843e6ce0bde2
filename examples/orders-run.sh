#!/bin/sh
# An orders workload with realistic data (goslap --templates): a table of
# 1000 orders, then each client cycles one INSERT of a new order with a
# generated name, e-mail, city, amount and date, and three point reads by a
# random id. --seed makes the generated values the same on every run.
#
# Usage: examples/orders-run.sh [connection options...]
#   e.g. examples/orders-run.sh --socket=/run/mysqld/mysqld.sock --user=root
set -e
dir=$(dirname "$0")
exec "${GOSLAP:-goslap}" "$@" \
	--create="$dir/orders-create.sql" \
	--query="$dir/orders-queries.sql" \
	--create-schema=goslap_orders \
	--templates --seed=42 \
	--concurrency=4,16 \
	--warmup-time=5s --run-time=30s \
	--latency --json=orders.json
