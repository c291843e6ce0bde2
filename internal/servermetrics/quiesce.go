package servermetrics

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// quiesceSteady is how long a server may make no progress towards
// settling before goslap measures it as it is.
const quiesceSteady = 2 * time.Second

// Settled thresholds: what an idle InnoDB keeps dirty or unpurged
// between two statements of its own background work.
const (
	settledDirtyPages = 16
	settledHistory    = 64
)

// Quiesce waits, at most limit, until the server has written out its
// dirty pages and purge has caught up with the history, so that one
// side's aftermath (a load, a write-heavy round) does not run into the
// next measurement; it returns the line that says how it went. On a
// sandbox goslap started it lowers the dirty-page targets to 0 for the
// wait (and restores them); a user's server is only watched.
func Quiesce(ctx context.Context, m *mysqlconn.Conn, sandbox bool, limit time.Duration) string {
	started := time.Now()
	if sandbox {
		restore := flushHard(m)
		defer restore()
	}
	dirty, history, err := innodbBacklog(m)
	if err != nil {
		return "not quiesced: " + err.Error()
	}
	if dirty < 0 {
		return "no InnoDB figures to wait for (engine without Innodb_buffer_pool_pages_dirty)"
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	// Progress is a new low of either figure; a server that makes none
	// for quiesceSteady is as settled as it gets (an open transaction
	// elsewhere can hold purge back for ever).
	lowDirty, lowHistory, progressed := dirty, history, time.Now()
	for dirty > settledDirtyPages || history > settledHistory {
		if time.Since(started) > limit {
			return fmt.Sprintf("still %d dirty pages and a history list of %s after %s: measuring anyway", dirty, historyWord(history), limit)
		}
		if time.Since(progressed) > quiesceSteady {
			return fmt.Sprintf("steady at %d dirty pages, history list %s (no progress in %s; waited %.1f s)", dirty, historyWord(history), quiesceSteady, time.Since(started).Seconds())
		}
		select {
		case <-ctx.Done():
			return "interrupted while quiescing"
		case <-t.C:
		}
		if dirty, history, err = innodbBacklog(m); err != nil {
			return "not quiesced: " + err.Error()
		}
		if dirty < lowDirty || history < lowHistory {
			lowDirty, lowHistory, progressed = min(lowDirty, dirty), min(lowHistory, history), time.Now()
		}
	}
	how := "waited"
	if sandbox {
		how = "flushed"
	}
	return fmt.Sprintf("quiesced (%s %.1f s: %d dirty pages, history list %s)", how, time.Since(started).Seconds(), dirty, historyWord(history))
}

func historyWord(h int64) string {
	if h < 0 {
		return "unknown"
	}
	return strconv.FormatInt(h, 10)
}

// innodbBacklog reads the buffer pool's dirty pages and the purge
// history length (-1 each when the server does not say).
func innodbBacklog(m *mysqlconn.Conn) (dirty, history int64, err error) {
	dirty, history = -1, -1
	rows, err := m.Query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Innodb_buffer_pool_pages_dirty', 'Innodb_history_list_length')")
	if err != nil {
		return dirty, history, fmt.Errorf("reading the InnoDB status: %w", err)
	}
	values := map[string]int64{}
	addRows(values, "", rows)
	if n, ok := values["Innodb_buffer_pool_pages_dirty"]; ok {
		dirty = n
	}
	if n, ok := values["Innodb_history_list_length"]; ok {
		history = n
	}
	if history < 0 && dirty >= 0 {
		// MySQL: the counter is an InnoDB metric (enabled by default).
		if v, qerr := m.QueryStrings("SELECT `COUNT` FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'"); qerr == nil && len(v) == 1 {
			if n, perr := strconv.ParseInt(v[0], 10, 64); perr == nil {
				history = n
			}
		}
	}
	return dirty, history, nil
}

// flushHard sets a sandbox's dirty-page targets to 0, so that its page
// cleaner writes everything out now, and returns what restores them.
func flushHard(m *mysqlconn.Conn) (restore func()) {
	vars := []string{"innodb_max_dirty_pages_pct_lwm", "innodb_max_dirty_pages_pct"}
	old := map[string]string{}
	rows, err := m.Query("SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_max_dirty_pages_pct_lwm', 'innodb_max_dirty_pages_pct')")
	if err != nil {
		return func() {}
	}
	for _, row := range rows {
		if len(row) == 2 {
			old[strings.ToLower(string(row[0]))] = string(row[1])
		}
	}
	var set []string
	for _, v := range vars { // the low-water mark first: it may not exceed the other
		if _, ok := old[v]; ok && m.Exec("SET GLOBAL "+v+" = 0") == nil {
			set = append(set, v)
		}
	}
	return func() {
		for i := len(set) - 1; i >= 0; i-- {
			v := set[i]
			if _, err := strconv.ParseFloat(old[v], 64); err == nil {
				_ = m.Exec("SET GLOBAL " + v + " = " + old[v])
			}
		}
	}
}
