package oltp

import (
	"strconv"
	"strings"
)

// kind is a statement kind; a workload uses a subset of them.
type kind int

const (
	kBegin kind = iota
	kCommit
	kPoint
	kSimple
	kSum
	kOrder
	kDistinct
	kIndexUpdate
	kNonIndexUpdate
	kDelete
	kInsert
	kLock   // 0.5 LOCK TABLES ... WRITE on every table; 0.4 LOCK TABLES sbtest WRITE|READ
	kUnlock // UNLOCK TABLES
	kRandomPoints
	kRandomRanges
	kSelectPad // 0.4 nontrx select
	numKinds
)

// class is how 0.4 and 0.5 count a statement (by kind or text); 1.0 counts
// by result instead (§7.2).
type class uint8

const (
	classRead class = iota
	classWrite
	classOther
)

// stmtDef is one statement text of one table.
type stmtDef struct {
	sql    string   // with ? placeholders
	parts  []string // sql split at the placeholders, for inlining values
	result bool     // returns a result set
	class  class
	text   bool // always sent as text (1.0 oltp_insert)
}

func newStmt(sql string, result bool, cl class) stmtDef {
	return stmtDef{sql: sql, parts: strings.Split(sql, "?"), result: result, class: cl}
}

func (d stmtDef) params() int { return len(d.parts) - 1 }

// statements builds every statement kind the config's script uses, for
// each table (index t-1), in the dialect's wording (§6).
func statements(c *config, lockTables bool, trxEngine bool) [numKinds][]stmtDef {
	var out [numKinds][]stmtDef
	perTable := func(k kind, result bool, cl class, format func(tbl string) string) {
		n := c.tables
		out[k] = make([]stmtDef, n)
		for i := int64(0); i < n; i++ {
			tbl := c.tableName
			if c.dialect != dialect04 {
				tbl = "sbtest" + strconv.FormatInt(i+1, 10)
			}
			out[k][i] = newStmt(format(tbl), result, cl)
		}
	}
	one := func(k kind, sql string, result bool, cl class) {
		out[k] = []stmtDef{newStmt(sql, result, cl)}
	}
	end := "?"
	switch c.dialect {
	case dialect05:
		// 0.5 sends the end of a range as SQL arithmetic: "<s>+99".
		end = "?+" + strconv.FormatInt(c.rangeSize-1, 10)
	}
	switch c.dialect {
	case dialect10, dialect05:
		one(kBegin, "BEGIN", false, classOther)
		one(kCommit, "COMMIT", false, classOther)
		sumK := "SUM(k)"
		if c.dialect == dialect05 {
			sumK = "SUM(K)"
			var lock strings.Builder
			lock.WriteString("LOCK TABLES ")
			for i := int64(1); i <= c.tables; i++ {
				if i > 1 {
					lock.WriteString(" ,")
				}
				lock.WriteString("sbtest" + strconv.FormatInt(i, 10) + " WRITE")
			}
			one(kLock, lock.String(), false, classOther)
			one(kUnlock, "UNLOCK TABLES", false, classOther)
		}
		perTable(kPoint, true, classRead, func(t string) string { return "SELECT c FROM " + t + " WHERE id=?" })
		perTable(kSimple, true, classRead, func(t string) string { return "SELECT c FROM " + t + " WHERE id BETWEEN ? AND " + end })
		perTable(kSum, true, classRead, func(t string) string { return "SELECT " + sumK + " FROM " + t + " WHERE id BETWEEN ? AND " + end })
		perTable(kOrder, true, classRead, func(t string) string { return "SELECT c FROM " + t + " WHERE id BETWEEN ? AND " + end + " ORDER BY c" })
		perTable(kDistinct, true, classRead, func(t string) string {
			return "SELECT DISTINCT c FROM " + t + " WHERE id BETWEEN ? AND " + end + " ORDER BY c"
		})
		perTable(kIndexUpdate, false, classWrite, func(t string) string { return "UPDATE " + t + " SET k=k+1 WHERE id=?" })
		perTable(kNonIndexUpdate, false, classWrite, func(t string) string { return "UPDATE " + t + " SET c=? WHERE id=?" })
		perTable(kDelete, false, classWrite, func(t string) string { return "DELETE FROM " + t + " WHERE id=?" })
		perTable(kInsert, false, classWrite, func(t string) string { return "INSERT INTO " + t + " (id, k, c, pad) VALUES (?, ?, ?, ?)" })
		if c.script == scriptInsert && c.dialect == dialect10 {
			for i := range out[kInsert] {
				out[kInsert][i].text = true
			}
		}
		var b strings.Builder
		b.WriteString("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (")
		for i := int64(0); i < c.randomPoints; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("?")
		}
		b.WriteString(")")
		one(kRandomPoints, b.String(), true, classRead)
		b.Reset()
		b.WriteString("SELECT count(k) FROM sbtest1 WHERE ")
		for i := int64(0); i < c.ranges; i++ {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString("k BETWEEN ? AND ?")
		}
		one(kRandomRanges, b.String(), true, classRead)
	case dialect04:
		t := c.tableName
		if trxEngine {
			one(kBegin, "BEGIN", false, classOther)
			one(kCommit, "COMMIT", false, classOther)
		} else {
			mode := "WRITE"
			if !c.writes {
				mode = "READ"
			}
			one(kBegin, "LOCK TABLES "+t+" "+mode, false, classOther)
			one(kCommit, "UNLOCK TABLES", false, classOther)
		}
		point := "SELECT c from " + t + " where id=?"
		if c.allCols {
			point = "SELECT id, k, c, pad from " + t + " where id=?"
		}
		one(kPoint, point, true, classRead)
		one(kSimple, "SELECT c from "+t+" where id between ? and ?", true, classRead)
		one(kSum, "SELECT SUM(K) from "+t+" where id between ? and ?", true, classRead)
		one(kOrder, "SELECT c from "+t+" where id between ? and ? order by c", true, classRead)
		one(kDistinct, "SELECT DISTINCT c from "+t+" where id between ? and ? order by c", true, classRead)
		one(kIndexUpdate, "UPDATE "+t+" set k=k+1 where id=?", false, classWrite)
		one(kNonIndexUpdate, "UPDATE "+t+" set c=? where id=?", false, classWrite)
		one(kDelete, "DELETE from "+t+" where id=?", false, classWrite)
		if c.script == scriptNontrx {
			one(kInsert, "INSERT INTO "+t+" values(?,?,?,?)", false, classWrite)
		} else {
			one(kInsert, "INSERT INTO "+t+" values(?,0,' ','aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy')", false, classWrite)
		}
		one(kSelectPad, "SELECT pad from "+t+" where id=?", true, classRead)
	}
	_ = lockTables
	return out
}

// used says which kinds the config's script runs (the ones to prepare).
func used(c *config, lockTables bool) [numKinds]bool {
	var u [numKinds]bool
	trx := !c.skipTrx
	switch c.script {
	case scriptReadWrite:
		if trx {
			if lockTables {
				u[kLock], u[kUnlock] = true, true
			} else {
				u[kBegin], u[kCommit] = true, true
			}
		}
		if c.reads {
			u[kPoint] = c.points > 0
			if c.rangeSelects {
				u[kSimple], u[kSum], u[kOrder], u[kDistinct] = c.simple > 0, c.sum > 0, c.order > 0, c.distinct > 0
			}
		}
		if c.writes {
			// 0.4's extra UPDATE before each DELETE uses the index update.
			u[kIndexUpdate] = c.indexUpdates > 0 || (c.dialect == dialect04 && c.deleteInserts > 0)
			u[kNonIndexUpdate] = c.nonIndexUpdates > 0
			u[kDelete], u[kInsert] = c.deleteInserts > 0, c.deleteInserts > 0
		}
	case scriptPointSelect:
		u[kPoint] = true
	case scriptInsert:
		u[kInsert] = true
	case scriptUpdateIndex:
		u[kIndexUpdate] = true
	case scriptUpdateNonIndex:
		u[kNonIndexUpdate] = true
	case scriptDelete:
		u[kDelete] = true
	case scriptRandomPoints:
		u[kRandomPoints] = true
	case scriptRandomRanges:
		u[kRandomRanges] = true
	case scriptNontrx:
		switch c.nontrx {
		case "select":
			u[kSelectPad] = true
		case "update_key":
			u[kIndexUpdate] = true
		case "update_nokey":
			u[kNonIndexUpdate] = true
		case "insert":
			u[kInsert] = true
		case "delete":
			u[kDelete] = true
		}
	}
	return u
}
