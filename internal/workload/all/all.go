// Package all registers every workload goslap ships, in one place (as
// cockroach's workload/all): main.go and the front ends that list or look
// up workloads by name import it. A new workload is its package plus one
// line here.
package all

import (
	_ "github.com/goslap/goslap/internal/workload/luascript" // sysbench 1.0 Lua scripts (--workload=SCRIPT.lua)
	_ "github.com/goslap/goslap/internal/workload/oltp"      // the sysbench OLTP tests
	_ "github.com/goslap/goslap/internal/workload/tpcc"      // TPC-C as tpcc-mysql runs it
)
