# goslap: a flag-compatible mysqlslap in Go.
export PATH := $(PATH):/usr/local/go/bin:/usr/sbin:/sbin

GO ?= go

.PHONY: build test vet deps demo bench clean

build:
	$(GO) build -o goslap .

deps:
	@bash .ci/install-mariadb

vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...

test: deps vet
	$(GO) test -count=1 -timeout 20m ./...

clean:
	rm -f goslap
