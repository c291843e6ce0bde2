package servermetrics

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/procstat"
)

func procstatProc(root string) procstat.Proc { return procstat.Proc{Root: root} }

// silentListener accepts connections and never says a word, as a hung
// server or something that is not a MySQL server: it returns its address.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for _, c := range held {
			c.Close()
		}
	})
	return l.Addr().String()
}

// TestRunEndsWithItsContext: a sampler stuck connecting to a server that
// never answers still returns as soon as its context ends, and samples
// that could not reach the server say so once.
func TestRunEndsWithItsContext(t *testing.T) {
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", silentListener(t), "root"
	cfg.Logger = &mysql.NopLogger{}
	sm, err := New(Config{Driver: cfg, Proc: procRoot(), Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	done := make(chan struct{})
	go func() { defer close(done); sm.Run(ctx) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Fatal("Run did not return within 3 s of its context's end")
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Run took %v after a 300 ms context", took)
	}
	for _, w := range sm.Warnings() {
		if !strings.HasPrefix(w, "host CPU") { // no /proc on some systems
			t.Errorf("warning for a context that ended: %q", w)
		}
	}
}

// TestUnreachableServerWarnsOnce: a server that refuses connections gives
// one warning however many samples, and the samples go on with the host.
func TestUnreachableServerWarnsOnce(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens there now
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", addr, "root"
	cfg.Logger = &mysql.NopLogger{}
	sm, err := New(Config{Driver: cfg, Proc: procRoot()})
	if err != nil {
		t.Fatal(err)
	}
	defer sm.Close()
	var last Sample
	for range 3 {
		last = sm.Sample(context.Background())
	}
	w := sm.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "cannot connect") || !strings.Contains(w[0], "Can't connect to server on '127.0.0.1'") {
		t.Errorf("warnings = %q, want one 'cannot connect'", w)
	}
	if len(last.Server.Values) != 0 || last.At.IsZero() || last.Client <= 0 {
		t.Errorf("sample = %+v", last)
	}
}

func TestGiven(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "77/stat", "77 (mariadbd) S 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1 1 1 1\n")
	proc := procstatProc(root)
	tests := []struct {
		pid     int
		want    int
		wantWhy string
	}{{77, 77, ""}, {78, 0, "cannot be read"}, {0, 0, "not a process id"}}
	for _, tt := range tests {
		loc := Given(proc, tt.pid, "option")
		if loc.PID != tt.want || !strings.Contains(loc.Why, tt.wantWhy) || (tt.want != 0) != (loc.Found == "option") {
			t.Errorf("Given(%d) = %+v", tt.pid, loc)
		}
	}
}

func TestIsRefusal(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&mysql.MySQLError{Number: 1227, Message: "Access denied; you need (at least one of) the PROCESS privilege(s)"}, true},
		{&mysql.MySQLError{Number: 1146, Message: "Table doesn't exist"}, true},
		{&mysql.MySQLError{Number: 3167, Message: "The 'INFORMATION_SCHEMA.GLOBAL_STATUS' feature is disabled"}, true},
		{&mysql.MySQLError{Number: 2013, Message: "Lost connection to server during query"}, false},
		{context.Canceled, false},
	}
	for _, tt := range tests {
		if got := isRefusal(tt.err); got != tt.want {
			t.Errorf("isRefusal(%v) = %v", tt.err, got)
		}
	}
}
