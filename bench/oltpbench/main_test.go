package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseTPCC(t *testing.T) {
	tests := []struct {
		file         string
		events, tpmC float64
	}{
		// tpcc-mysql's tpcc_start (Percona-Lab/tpcc-mysql 1ec1c5e), its
		// <Raw Results2(sum ver.)> after <Raw Results> must not count.
		{"testdata/tpcc_start.out", 683 + 682 + 69 + 68 + 68, 20490},
		{"testdata/goslap-tpcc-start.out", 278 + 275 + 28 + 27 + 28, 8340},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		events, tpmC, err := parseTPCC(string(b))
		if err != nil || events != tt.events || tpmC != tt.tpmC {
			t.Errorf("%s: parseTPCC = %v, %v, %v; want %v, %v", tt.file, events, tpmC, err, tt.events, tt.tpmC)
		}
	}
	for _, bad := range []string{"", "<Raw Results>\n  [0] sc:1 lt:0  rt:0  fl:0 avg_rt: 1.0 (5)\n in 10 sec.\n<TpmC>\n  6.000 TpmC\n"} {
		if _, _, err := parseTPCC(bad); err == nil {
			t.Errorf("parseTPCC(%q) took it", bad)
		}
	}
}

func TestParseSysbench(t *testing.T) {
	out := "SQL statistics:\n    transactions:                        100000 (93808.41 per sec.)\n    queries: 100000\n"
	events, tps, err := parseSysbench(out)
	if err != nil || events != 100000 || tps != 93808.41 {
		t.Errorf("parseSysbench = %v, %v, %v", events, tps, err)
	}
	if _, _, err := parseSysbench("FATAL: no connection\n"); err == nil {
		t.Error("parseSysbench took an output without transactions")
	}
}

func TestWorkloadList(t *testing.T) {
	ws, err := workloadList("1,16", "4,16", 5000)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.name)
	}
	want := []string{"ps-1", "ps-16", "ro-1", "ro-16", "rw-1", "rw-16", "ro-1000", "tpcc-4", "tpcc-16"}
	if !slices.Equal(names, want) {
		t.Errorf("names = %v, want %v", names, want)
	}
	if ws[0].events != 5000 || ws[2].events != 0 || !ws[7].tpcc() || ws[7].threads != 4 || ws[6].tpcc() {
		t.Errorf("rows = %+v", ws)
	}
	for _, bad := range [][2]string{{"1,x", "4"}, {"0", "4"}, {"1", ""}} {
		if _, err := workloadList(bad[0], bad[1], 1); err == nil {
			t.Errorf("workloadList(%q, %q) took it", bad[0], bad[1])
		}
	}
}

func TestArgv(t *testing.T) {
	ps := workload{name: "ps-4", test: "oltp_point_select", threads: 4}
	tp := workload{name: "tpcc-4", threads: 4}
	args := []string{"-a", "-b"}
	tests := []struct {
		t    tool
		w    workload
		want string
	}{
		{tool{kind: goslapKind}, ps, "sysbench oltp_point_select -a -b run"},
		{tool{kind: sysbenchKind}, ps, "oltp_point_select -a -b run"},
		{tool{kind: goslapKind, script: "/s"}, ps, "sysbench /s/oltp_point_select.lua --lua-interpreter -a -b run"},
		{tool{kind: goslapKind}, tp, "tpcc-start -a -b"},
		{tool{kind: tpccKind}, tp, "-a -b"},
	}
	for _, tt := range tests {
		if got := strings.Join(argv(tt.t, tt.w, args), " "); got != tt.want {
			t.Errorf("argv(%v, %s) = %q, want %q", tt.t.kind, tt.w.name, got, tt.want)
		}
	}
}
