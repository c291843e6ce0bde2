// Command goslap is a drop-in, flag-compatible replacement for mysqlslap;
// `goslap sysbench …` takes sysbench command lines (package sysbench),
// `goslap tpcc-load …` and `goslap tpcc-start …` tpcc-mysql's (package
// tpccmysql); `goslap merge …` merges the shard documents of a run split
// over several machines (internal/cli/merge); `goslap compare …` compares
// saved documents (internal/cli/compare). Each front end
// turns its command line into a configuration and runs it through the one
// orchestrator (internal/orchestrator); this file only picks the front end.
package main

import (
	"os"

	"github.com/goslap/goslap/internal/cli/compare"
	"github.com/goslap/goslap/internal/cli/merge"
	"github.com/goslap/goslap/internal/cli/mysqlslap"
	"github.com/goslap/goslap/internal/cli/sysbench"
	"github.com/goslap/goslap/internal/cli/tpccmysql"
	"github.com/goslap/goslap/internal/footprint"
	_ "github.com/goslap/goslap/internal/workload/all" // every workload, registered in one place
)

// command is a front end chosen by the first argument: is says whether a
// word names it, run runs it with the arguments after that word (word is
// the word itself) and returns the exit status.
type command struct {
	is  func(word string) bool
	run func(word string, args []string) int
}

// named is a command's one word.
func named(name string) func(string) bool { return func(word string) bool { return word == name } }

// commands are goslap's front ends besides mysqlslap's, which takes every
// other command line.
var commands = []command{
	{named("sysbench"), func(_ string, args []string) int {
		sysbench.Version = mysqlslap.Version
		return sysbench.Main(args, sysbench.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	}},
	{named("merge"), func(_ string, args []string) int { return merge.Main(args, os.Stdout, os.Stderr) }},
	{named("compare"), func(_ string, args []string) int { return compare.Main(args, os.Stdout, os.Stderr) }},
	{tpccmysql.IsCommand, func(word string, args []string) int {
		return tpccmysql.Main(word, args, tpccmysql.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	}},
}

func main() {
	// Every package initialiser has run: what they touched of the
	// executable is not needed by a load (BENCHMARKS.md, "Max RSS").
	footprint.ReleaseExecutablePages()
	if len(os.Args) > 1 {
		for _, c := range commands {
			if c.is(os.Args[1]) {
				os.Exit(c.run(os.Args[1], os.Args[2:]))
			}
		}
	}
	os.Exit(mysqlslap.Main(os.Args))
}
