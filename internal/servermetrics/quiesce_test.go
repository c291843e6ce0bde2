package servermetrics

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestQuiesce: after writes the test server reads its dirty pages and
// history list (both MariaDB status figures), waits for them and says so;
// the sandbox's dirty-page targets are back afterwards.
func TestQuiesce(t *testing.T) {
	s := servertest.Require(t)
	c := connect(t, s.RootConfig(""))
	dirty, history, err := innodbBacklog(c)
	if err != nil || dirty < 0 || history < 0 {
		t.Fatalf("innodbBacklog: %d dirty pages, history %d, %v: want both figures", dirty, history, err)
	}
	before := query(t, c, "SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm")
	// The package's throw-away server goes with its directory: nothing
	// to drop afterwards.
	exec(t, c, "CREATE DATABASE IF NOT EXISTS quiesce_test")
	exec(t, c, "CREATE TABLE IF NOT EXISTS quiesce_test.t (id INT PRIMARY KEY, v VARCHAR(200))")
	for i := range 50 {
		exec(t, c, fmt.Sprintf("REPLACE INTO quiesce_test.t VALUES (%d, REPEAT('x', 200))", i))
		exec(t, c, fmt.Sprintf("UPDATE quiesce_test.t SET v = REPEAT('y', 200) WHERE id = %d", i))
	}
	line := Quiesce(context.Background(), c, true, 30*time.Second)
	if !strings.HasPrefix(line, "quiesced (flushed ") && !strings.HasPrefix(line, "steady at ") {
		t.Errorf("Quiesce: %q", line)
	}
	after := query(t, c, "SELECT @@innodb_max_dirty_pages_pct, @@innodb_max_dirty_pages_pct_lwm")
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("dirty-page targets %s after the wait, %s before", after, before)
	}
}
