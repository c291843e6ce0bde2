package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/ownership"
	"github.com/goslap/goslap/internal/workload"
)

// ConditionError is a failed TPC-C consistency condition.
type ConditionError struct {
	Condition int    // 1..4 (TPC-C clause 3.3.2.1-4)
	Rule      string // what the condition says
	Detail    string // where it fails
}

func (e *ConditionError) Error() string {
	return fmt.Sprintf("consistency condition %d (%s) fails: %s", e.Condition, e.Rule, e.Detail)
}

// Conditions name TPC-C's consistency conditions 1-4.
var Conditions = [4]string{
	"W_YTD = sum(D_YTD) per warehouse",
	"D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) per district",
	"max(NO_O_ID) - min(NO_O_ID) + 1 = count(NEW_ORDER) per district",
	"sum(O_OL_CNT) = count(ORDER_LINE) per district",
}

type checkQuery struct {
	cond int
	sql  string
	// bad formats a returned row (one row = one violation).
	bad func(r [][]byte) string
}

func s(b []byte) string {
	if b == nil {
		return "NULL"
	}
	return string(b)
}

// checks select the rows that violate each condition, so the server does
// the work and a consistent database returns nothing.
var checks = []checkQuery{
	{1, "SELECT w_id, w_ytd, (SELECT SUM(d_ytd) FROM district WHERE d_w_id = w_id) AS s FROM warehouse" +
		" HAVING NOT (w_ytd <=> s) LIMIT 1",
		func(r [][]byte) string {
			return fmt.Sprintf("warehouse %s has W_YTD %s, its districts sum to %s", s(r[0]), s(r[1]), s(r[2]))
		}},
	{2, "SELECT d_w_id, d_id, d_next_o_id - 1 AS n," +
		" (SELECT MAX(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) AS mo," +
		" (SELECT MAX(no_o_id) FROM new_orders WHERE no_w_id = d_w_id AND no_d_id = d_id) AS mno" +
		" FROM district HAVING NOT (n <=> mo) OR (mno IS NOT NULL AND mno <> n) LIMIT 1",
		func(r [][]byte) string {
			return fmt.Sprintf("district %s/%s has D_NEXT_O_ID - 1 = %s, max(O_ID) = %s, max(NO_O_ID) = %s",
				s(r[0]), s(r[1]), s(r[2]), s(r[3]), s(r[4]))
		}},
	{3, "SELECT no_w_id, no_d_id, MAX(no_o_id) - MIN(no_o_id) + 1 AS span, COUNT(*) AS n FROM new_orders" +
		" GROUP BY no_w_id, no_d_id HAVING span <> n LIMIT 1",
		func(r [][]byte) string {
			return fmt.Sprintf("district %s/%s has new orders spanning %s ids but %s rows", s(r[0]), s(r[1]), s(r[2]), s(r[3]))
		}},
	{4, "SELECT o.w, o.d, o.ol_cnt, l.n FROM" +
		" (SELECT o_w_id AS w, o_d_id AS d, SUM(o_ol_cnt) AS ol_cnt FROM orders GROUP BY o_w_id, o_d_id) AS o" +
		" LEFT JOIN (SELECT ol_w_id AS w, ol_d_id AS d, COUNT(*) AS n FROM order_line GROUP BY ol_w_id, ol_d_id) AS l" +
		" ON l.w = o.w AND l.d = o.d WHERE NOT (o.ol_cnt <=> l.n) LIMIT 1",
		func(r [][]byte) string {
			return fmt.Sprintf("district %s/%s has sum(O_OL_CNT) = %s but %s order lines", s(r[0]), s(r[1]), s(r[2]), s(r[3]))
		}},
}

// Check verifies TPC-C's consistency conditions 1-4 on the connection's
// current schema (quiescent: after prepare or after a run). It returns nil
// when all hold, a *ConditionError naming the first that fails, or the
// error of a query that could not run.
func Check(c *mysqlconn.Conn) error {
	for _, q := range checks {
		rows, err := c.Query(q.sql)
		if err != nil {
			return fmt.Errorf("consistency condition %d (%s) could not be checked: %w", q.cond, Conditions[q.cond-1], err)
		}
		if len(rows) > 0 {
			return &ConditionError{Condition: q.cond, Rule: Conditions[q.cond-1], Detail: q.bad(rows[0])}
		}
	}
	return nil
}

// CheckSection runs Check and returns goslap's <Consistency Check> section
// (each condition [OK], [NG] or [not checked]) with Check's error; only
// the section of a check that could not run is empty.
func CheckSection(c *mysqlconn.Conn) (string, error) {
	err := Check(c)
	var ce *ConditionError
	failed := 0
	if errors.As(err, &ce) {
		failed = ce.Condition
	} else if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\n<Consistency Check> (goslap: TPC-C conditions 1-4)\n")
	for i, rule := range Conditions {
		state := "[OK]"
		switch {
		case i+1 == failed:
			state = "[NG]"
		case failed != 0 && i+1 > failed:
			state = "[not checked]"
		}
		fmt.Fprintf(&b, "   %d: %s %s\n", i+1, rule, state)
	}
	return b.String(), err
}

// ConsistencyCheck is the check phase (`--workload=tpcc ... check`): TPC-C's
// consistency conditions on the prepared schema, as goslap tpcc-check runs
// them; the section to print, and the failed condition as the error.
func (w *Workload) ConsistencyCheck(ctx context.Context, s *workload.Session) (string, error) {
	if _, err := Loaded(s.Main); err != nil {
		if errors.Is(err, ErrNotLoaded) {
			return "", fmt.Errorf("schema '%s' %v: prepare it first", w.schemaName(s.Main), err)
		}
		return "", err
	}
	if _, err := ownership.Claim(s.Main, w.schemaName(s.Main), Tables, nil, Shape, "not checked"); err != nil {
		return "", err
	}
	return CheckSection(s.Main)
}
