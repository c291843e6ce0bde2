package workload

import (
	"context"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestMain(m *testing.M) { servertest.Main(m, sandbox.Config{}, nil) }

// session is a Session on the test server and a root connection to watch
// it from.
func session(t *testing.T) (*Session, *mysqlconn.Conn) {
	t.Helper()
	s := servertest.Require(t)
	conn, err := mysqlconn.NewConnector(s.RootConfig(""), "")
	if err != nil {
		t.Fatal(err)
	}
	connect := func() (*mysqlconn.Conn, error) { return conn.Connect(nil) }
	main, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(main.Close)
	watch, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(watch.Close)
	return &Session{Main: main, Connect: connect}, watch
}

func serverID(t *testing.T, c *mysqlconn.Conn) string {
	t.Helper()
	id, err := c.QueryStrings("SELECT CONNECTION_ID()")
	if err != nil || len(id) != 1 {
		t.Fatalf("CONNECTION_ID(): %v %v", id, err)
	}
	return id[0]
}

// alive reports whether the server still has the connection id.
func alive(t *testing.T, watch *mysqlconn.Conn, id string) bool {
	t.Helper()
	n, err := watch.QueryStrings("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + id)
	if err != nil {
		t.Fatal(err)
	}
	return n[0] != "0"
}

// TestInterruptibleCutsStatementsInFlight: a statement that would run for
// a minute, on the main connection and on one opened through Connect,
// ends soon after the context does, and the server's threads are gone
// once stop returns.
func TestInterruptibleCutsStatementsInFlight(t *testing.T) {
	for _, onMain := range []bool{true, false} {
		name := "main connection"
		if !onMain {
			name = "connection from Connect"
		}
		t.Run(name, func(t *testing.T) {
			base, watch := session(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s, stop := Interruptible(ctx, base)
			defer stop()
			c := s.Main
			if !onMain {
				var err error
				if c, err = s.Connect(); err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			id := serverID(t, c)
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			err := c.Exec("SELECT SLEEP(60)")
			took := time.Since(start)
			if err == nil {
				t.Error("the cut statement succeeded")
			}
			if took > cutGrace+time.Second {
				t.Errorf("the statement ended %v after it started, want about %v", took, 100*time.Millisecond+cutGrace)
			}
			stop()
			for deadline := time.Now().Add(2 * time.Second); alive(t, watch, id); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("server thread %s still there after stop", id)
				}
			}
			if _, err := s.Connect(); err == nil {
				t.Error("Connect opened a connection after the cut")
			}
		})
	}
}

// TestInterruptibleLeavesShortStatements: a loop that checks ctx between
// short statements returns within the grace: nothing is cut and the main
// connection stays usable (the clean-up can use it).
func TestInterruptibleLeavesShortStatements(t *testing.T) {
	base, watch := session(t)
	id := serverID(t, base.Main)
	ctx, cancel := context.WithCancel(context.Background())
	s, stop := Interruptible(ctx, base)
	time.AfterFunc(50*time.Millisecond, cancel)
	for ctx.Err() == nil {
		if err := s.Main.Exec("SELECT SLEEP(0.01)"); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	time.Sleep(cutGrace + 100*time.Millisecond)
	if err := s.Main.Exec("SELECT 1"); err != nil {
		t.Errorf("the main connection after a stop within the grace: %v", err)
	}
	if !alive(t, watch, id) {
		t.Errorf("connection %s was killed", id)
	}
}

// TestInterruptibleWithoutEnd: a context that cannot end costs nothing.
func TestInterruptibleWithoutEnd(t *testing.T) {
	base := &Session{}
	s, stop := Interruptible(context.Background(), base)
	defer stop()
	if s != base {
		t.Error("a context without Done got a watched session")
	}
}
