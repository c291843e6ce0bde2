package oltp

import (
	"strconv"
	"strings"
)

// Dialects (--sysbench-compat).
const (
	dialect10 = "1.0"
	dialect05 = "0.5"
	dialect04 = "0.4"
)

// tableDef is what the DDL of one dialect depends on.
type tableDef struct {
	dialect       string
	engine        string // as the user gave it; "" means innodb
	createOptions string // --create-table-options / --mysql-create-options / Point.EngineOptions
	autoInc       bool
	secondary     bool
	myisamMaxRows int64
}

func (d tableDef) engineName() string {
	if d.engine == "" {
		return "innodb"
	}
	return d.engine
}

// createTable is the CREATE TABLE statement of the table named (§2).
func (d tableDef) createTable(name string) string {
	var b strings.Builder
	unsigned := ""
	if d.dialect != dialect10 {
		unsigned = " UNSIGNED"
	}
	autoInc := ""
	if d.autoInc {
		autoInc = " AUTO_INCREMENT"
	}
	key := "PRIMARY KEY (id)"
	if d.secondary {
		key = "KEY xid (id)"
	}
	e := d.engineName()
	if d.dialect == dialect04 {
		b.WriteString("CREATE TABLE " + name + " (id INTEGER UNSIGNED NOT NULL" + autoInc +
			", k integer UNSIGNED DEFAULT '0' NOT NULL, c char(120) DEFAULT '' NOT NULL, pad char(60) DEFAULT '' NOT NULL, " +
			key + " ) ")
		switch strings.ToLower(e) {
		case "myisam":
			b.WriteString(d.createOptions + " /*! ENGINE=MyISAM")
			if d.myisamMaxRows > 0 {
				b.WriteString(" MAX_ROWS=" + strconv.FormatInt(d.myisamMaxRows, 10))
			}
			b.WriteString(" */")
		case "bdb", "berkeleydb":
			b.WriteString(d.createOptions + " /*! ENGINE=BerkeleyDB */")
		case "ndbcluster":
			b.WriteString(d.createOptions + " /*! ENGINE=NDB */")
		default:
			b.WriteString(d.createOptions + " /*! ENGINE=" + e + " */")
		}
		return b.String()
	}
	b.WriteString("CREATE TABLE " + name + "(\n")
	b.WriteString("  id INTEGER" + unsigned + " NOT NULL" + autoInc + ",\n")
	b.WriteString("  k INTEGER" + unsigned + " DEFAULT '0' NOT NULL,\n")
	b.WriteString("  c CHAR(120) DEFAULT '' NOT NULL,\n")
	b.WriteString("  pad CHAR(60) DEFAULT '' NOT NULL,\n")
	b.WriteString("  " + key + "\n")
	if d.dialect == dialect05 {
		b.WriteString(") /*! ENGINE = " + e + " MAX_ROWS = " + strconv.FormatInt(d.myisamMaxRows, 10) + " */")
	} else {
		b.WriteString(") /*! ENGINE = " + e + " */")
	}
	if d.createOptions != "" {
		b.WriteString(" " + d.createOptions)
	}
	return b.String()
}

// createIndex is the statement creating the index on k: after the load in
// 1.0 and 0.5, before it in 0.4.
func (d tableDef) createIndex(name string, i int) string {
	switch d.dialect {
	case dialect04:
		return "CREATE INDEX k on " + name + "(k)"
	case dialect05:
		return "CREATE INDEX k_" + strconv.Itoa(i) + " on " + name + "(k)"
	}
	return "CREATE INDEX k_" + strconv.Itoa(i) + " ON " + name + "(k)"
}
