//go:build linux

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/mysqlconn/ring"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// The probe's table on a throwaway server: the loops (and with them
// internal/mysqlconn/ring) against MariaDB's real replies.
func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{}, func(s *sandbox.Server) error { return fillTable(context.Background(), s) })
}

// TestLoopsOnServer: both loops, with and without CLIENT_DEPRECATE_EOF,
// on one and two threads, count every reply of the probe's statement; an
// ERR reply and a reply of more than one row fail the run.
func TestLoopsOnServer(t *testing.T) {
	srv := servertest.Require(t)
	const clients, perClient = 8, 50
	for _, kind := range []string{"uring", "epoll"} {
		for _, tc := range []struct {
			name         string
			query        string
			deprecateEOF bool
			threads      int
			err          string
		}{
			{name: "deprecated EOF", query: query, deprecateEOF: true, threads: 1},
			{name: "EOF packets", query: query, threads: 2},
			{name: "ERR reply", query: "SELECT intcol1 FROM no_such_table", deprecateEOF: true, threads: 1, err: "Error 1146"},
			{name: "two rows", query: "SELECT intcol1 FROM t1 WHERE id <= 2", threads: 1, err: "a reply had 2 rows"},
		} {
			res, err := runLoops(loopConfig{kind: kind, socket: srv.Socket, db: schema, clients: clients, threads: tc.threads,
				perClient: perClient, query: ring.AppendQuery(nil, tc.query), deprecateEOF: tc.deprecateEOF, minComplete: 1})
			switch {
			case tc.err == "" && (err != nil || res.queries != clients*perClient):
				t.Errorf("%s, %s: %d replies, error %v; want %d, none", kind, tc.name, res.queries, err, clients*perClient)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("%s, %s: error %v, want one containing %q", kind, tc.name, err, tc.err)
			}
		}
	}
}
