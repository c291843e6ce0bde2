// Command goslap is a drop-in, flag-compatible replacement for mysqlslap;
// `goslap sysbench …` takes sysbench command lines (package sysbench),
// `goslap tpcc-load …` and `goslap tpcc-start …` tpcc-mysql's (package
// tpccmysql); `goslap merge …` merges the shard documents of a run split
// over several machines (slap.MergeMain, package merge); `goslap compare …`
// compares saved documents (package comparedocs).
package main

import (
	"os"

	"github.com/goslap/goslap/internal/comparedocs"
	"github.com/goslap/goslap/internal/footprint"
	"github.com/goslap/goslap/internal/sysbench"
	"github.com/goslap/goslap/internal/tpccmysql"
	"github.com/goslap/goslap/slap"
)

func main() {
	// Every package initialiser has run: what they touched of the
	// executable is not needed by a load (BENCHMARKS.md, "Max RSS").
	footprint.ReleaseExecutablePages()
	if len(os.Args) > 1 && os.Args[1] == "sysbench" {
		sysbench.Version = slap.Version
		os.Exit(sysbench.Main(os.Args[2:], sysbench.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		os.Exit(comparedocs.Main(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "merge" {
		os.Exit(slap.MergeMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && tpccmysql.IsCommand(os.Args[1]) {
		os.Exit(tpccmysql.Main(os.Args[1], os.Args[2:], tpccmysql.Env{Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	os.Exit(slap.Main(os.Args))
}
