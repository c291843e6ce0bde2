#!/bin/sh
# Collect the shard documents of the goslap-shards Job from its pods' logs
# and merge them into one report (and merged.json). Run after
# `kubectl wait --for=condition=complete job/goslap-shards --timeout=30m`.
# Usage: merge.sh [JOB] [extra goslap merge options, e.g. --allow-partial]
set -eu
job=${1:-goslap-shards}
[ $# -gt 0 ] && shift
logs=$(mktemp)
trap 'rm -f "$logs"' EXIT
# One log per pod: the documents sit between goslap's markers, whatever
# else the pods printed (the text report goes to stderr with --json=-).
for pod in $(kubectl get pods -l job-name="$job" -o name); do
	kubectl logs "$pod" >>"$logs"
done
goslap merge --json=merged.json "$@" "$logs"
