# goslap: a flag-compatible mysqlslap in Go.
export PATH := $(PATH):/usr/local/go/bin:/usr/sbin:/sbin

GO ?= go

.PHONY: build test vet deps demo image bench bench-oltp bench-prefill bench-many-clients bench-uring clean

# A static build (no cgo): libc is not mapped into the process, which saves
# ~2 MB of max RSS per run (BENCHMARKS.md); os/user and DNS have pure-Go
# fallbacks that goslap's uses need.
build:
	CGO_ENABLED=0 $(GO) build -o goslap .

deps:
	@bash .ci/install-deps

# The arm64 build: goslap makes system calls by number (the threaded path's
# poll and recvfrom), and arm64's table has no poll(2); it once did not build
# there. 24 s with a cold build cache, a few with a warm one. The macOS build:
# goslap builds there too (the Linux-only parts have _other.go twins; the
# io_uring probe in bench/ is Linux only); it once did not, three packages
# used Linux-only calls. 28 s with a cold cache on 2 busy cores.
vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	GOARCH=arm64 $(GO) build ./...
	GOOS=darwin GOARCH=arm64 $(GO) build ./...

# -p 1: the front-end, compare and sandbox packages each start their own
# MariaDB servers; on 2 cores one package at a time keeps their timing tests
# (run-time and rate within 5 %) away from each other's load.
#
# Then the packages whose loads take a client path run once more on each
# path forced: by default a load below 7 clients is threaded, a load of 7 to
# 128 whose clients give their units as statements (mysqlslap's statement
# lists, sysbench's built-in OLTP) on the io_uring ring path
# (internal/engine/ringchoice.go) and the rest on the netpoller, so without
# the forcing each test covers only the path its client count picks.
# GOSLAP_THREAD_PER_CLIENT_BELOW=0 / =100000 put every load on the netpoller
# / a thread per client (setting it keeps the ring off); GOSLAP_RING=1 puts
# every load that can take it on the ring (the packages whose clients can;
# the engine's tests with plain clients then run in the ring's coroutine
# mode). workload/tpcc is not in that pass: TestRingCoroutineRun forces
# both the netpoller and the coroutine mode itself (about 9 s in each pass
# that runs the package), and its other loads would only repeat it.
# The workload packages' engine loads have 1 to 4 clients, threaded by
# default, so the thread-per-client pass runs only the engine's tests (it
# repeated the default pass's 33 s of workload/tpcc and 17 s of
# workload/oltp); a workload test of 7 or more clients would belong in it.
# internal/mysqlconn is in no forced pass: its tests give every load's
# threshold themselves (StartThreads(n, below)) and never read the
# environment's, so each pass repeated the default one (~10 s each); nor
# are the tests in PINNED_TESTS, which run each path in turn themselves
# (Plan.ThreadPerClientBelow), 8 s a pass.
PATH_PACKAGES = ./internal/engine/... ./internal/workload/...
PINNED_TESTS = ^TestIntervalsAddNoWakeups$$
THREAD_PACKAGES = ./internal/engine/...
RING_PACKAGES = ./internal/engine/... ./internal/workload/oltp/... ./internal/workload/mysqlslap/...
test: deps vet
	$(GO) test -p 1 -count=1 -timeout 20m ./...
	GOSLAP_THREAD_PER_CLIENT_BELOW=0 $(GO) test -p 1 -count=1 -timeout 10m -skip '$(PINNED_TESTS)' $(PATH_PACKAGES)
	GOSLAP_THREAD_PER_CLIENT_BELOW=100000 $(GO) test -p 1 -count=1 -timeout 10m -skip '$(PINNED_TESTS)' $(THREAD_PACKAGES)
	GOSLAP_RING=1 $(GO) test -p 1 -count=1 -timeout 10m -skip '$(PINNED_TESTS)' $(RING_PACKAGES)

# demo: installs MariaDB when missing (apt-get as root; otherwise it says what
# to install), builds goslap and benchmarks a throw-away sandbox server:
# InnoDB and MyISAM at 10, 50 and 100 clients, 3 iterations, mysqlslap's
# report on stdout and the throughput/latency chart in $(DEMO_PLOT). Nothing
# outside the sandbox's temporary directory is touched.
DEMO_PLOT ?= goslap-demo.svg
demo: deps build
	./goslap --no-defaults --sandbox --auto-generate-sql --engine=innodb,myisam \
	  --concurrency=10,50,100 --iterations=3 --number-of-queries=5000 --plot=$(DEMO_PLOT)
	@echo "chart: $(DEMO_PLOT)"

# bench: goslap against mariadb-slap on two throw-away servers
# (bench/slapbench), one with MariaDB's default settings and the tuned one:
# key, read, write and mixed loads of 100000 queries at 16 clients, key at
# 1, 4, 64, 256, 1000 and 10000 clients, and beside every key row up to
# 1000 clients sysbench 1.0's oltp_point_select at the same thread count on
# a 100-row table (text protocol and prepared); runs alternated, medians of
# BENCH_RUNS; prints the Markdown tables of BENCHMARKS.md (progress on
# stderr), then key-16 and key-1000 beside issue 28's goals (the ratio of
# the medians, its 95 % interval over the rounds, pass or miss). Long: the
# 30000-query, 5-run session of BENCHMARKS.md took 13 minutes for both
# servers; 100000 queries x 7 runs is about 4-5 times that.
BENCH_RUNS ?= 7
BENCH_FLAGS ?=
bench: deps build
	$(GO) run ./bench/slapbench -goslap ./goslap -runs $(BENCH_RUNS) -big-runs 3 -big-baseline $(BENCH_FLAGS)

# The OLTP rows of issues 10 and 28, also part of `make bench`: bench-oltp
# runs `goslap sysbench TEST ... run` against sysbench 1.0.20 on the same
# prepared table, prepared statements for both: oltp_point_select (100000
# events), oltp_read_only and oltp_read_write (10 s each) at 1, 4, 8, 16, 64
# and 256 threads, and oltp_read_only at 1000, on a server with MariaDB's
# default settings and on the tuned one (bench/oltpbench), every run on a
# quiesced server (dirty pages written, purge caught up: 2-45 s after a
# prepare, a 256-thread or a TPC-C run); each row's tps
# and client CPU per transaction are printed beside issue 28's goals with
# their 95 % intervals and pass or miss. About 35-40 minutes per server
# (48 with the TPC-C rows, default server, 2026-12-05), 75 for both, at
# BENCH_RUNS=7 (estimated from the rows' lengths: 19 rows x 7 runs x 2
# tools, ~10 s each). TPC-C rows against tpcc-mysql's tpcc_start at 4 and
# 16 connections (about 5 more minutes per server) run when TPCC_MYSQL
# names a tpcc-mysql build; it is not packaged, so without it the rows are
# skipped with the line that says how to build it. bench-prefill times
# goslap's prepare of 1,000,000 rows against sysbench's
# (bench/prefillbench; about 3 minutes). All of `make bench`: about 2.5
# hours.
OLTP_BENCH_FLAGS ?=
TPCC_MYSQL ?=
bench: bench-oltp bench-prefill
bench-oltp: deps build
	$(GO) run ./bench/oltpbench -goslap ./goslap -runs $(BENCH_RUNS) -server default,tuned \
	  $(if $(TPCC_MYSQL),-tpcc-mysql $(TPCC_MYSQL)) $(OLTP_BENCH_FLAGS)
bench-prefill: deps
	$(GO) run ./bench/prefillbench -rows 1000000 -runs $(BENCH_RUNS) -conns 1,4

# bench-many-clients: 19000 clients (this box's open-files limit is 20000 per
# process), goslap against mariadb-slap, on a default-settings server that
# holds them with MariaDB's thread pool and a small table cache
# (BENCHMARKS.md, "19000 clients"; about 2 minutes).
bench-many-clients: deps build
	$(GO) run ./bench/slapbench -goslap ./goslap -sysbench "" -rows key-19000 -servers default \
	  -server-options thread_handling=pool-of-threads,table_open_cache=20 -queries 380000 -runs 3 -v

# bench-uring: issue 28's io_uring probe (bench/uringprobe, not part of
# `make bench`): one fixed key SELECT at 4, 16, 64 and 1000 clients through
# mariadb-slap, goslap, an io_uring event loop (1 and 2 OS threads, and 1
# thread waiting for 8 completions per io_uring_enter) and an epoll event
# loop (1 and 2 threads), many connections per thread, every run its own
# process, medians of BENCH_RUNS, on the default-settings and the tuned
# server; BENCHMARKS.md, "io_uring probe (issue 28)". About 25 minutes at
# BENCH_RUNS=7 (17 at 5 runs, on a loaded machine).
URING_FLAGS ?=
bench-uring: deps build
	$(GO) run ./bench/uringprobe -goslap ./goslap -runs $(BENCH_RUNS) -servers default,tuned $(URING_FLAGS)

# image: goslap's container image as a tarball (goslap-image.tar, tagged
# $(IMAGE_TAG)), built offline without a container daemon by tools/image:
# the static binary, CA certificates, user 65532, no shell. Load it with
# `docker load -i` or `podman load -i`, or push it with `crane push
# goslap-image.tar REF`; examples/kubernetes names how to use it.
IMAGE_TAG ?= goslap:latest
image: build
	$(GO) run ./tools/image -binary goslap -tag $(IMAGE_TAG) -o goslap-image.tar

clean:
	rm -f goslap goslap-image.tar
