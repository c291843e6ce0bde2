package mysqlslap

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/goslap/goslap/sqlgen"
)

// AllowDropFlag is goslap's own option that lets a run drop a schema holding
// objects goslap did not create.
const AllowDropFlag = "--allow-drop-existing-schema"

// Ownership of a schema is proven, never guessed from names: a user's t1 or
// orders looks exactly like goslap's. Right after goslap executes CREATE
// SCHEMA it creates the marker table in it (with markerComment), and after
// the create list (and again when a --no-drop run leaves the schema) it
// stores in the marker the inventory of every object the schema holds. A
// schema that exists before a run may be dropped only if it is empty or
// holds the marker and nothing the inventory does not list; whatever was
// added later — a table, view, sequence, routine, trigger or event — makes
// goslap refuse. Names are compared exactly (kind and name).
const (
	markerTable   = "goslap_ownership_marker"
	markerComment = "goslap created this schema; the rows list the objects it made (see README, Data safety)"
)

// schemaObjectsSelect lists every object of a schema as (kind, name) rows.
// information_schema.TABLES covers base tables, views and (MariaDB)
// sequences, which share one name space. The names are converted to one
// binary collation: information_schema's columns differ in collation
// (MySQL 8), which UNION and the marker's key would otherwise trip over.
func schemaObjectsSelect(schema string) string {
	lit := mysqlconn.QuoteString(schema)
	bin := func(col string) string { return "CONVERT(" + col + " USING utf8mb4) COLLATE utf8mb4_bin" }
	return "SELECT CASE TABLE_TYPE WHEN 'VIEW' THEN 'view' WHEN 'SEQUENCE' THEN 'sequence' ELSE 'table' END, " + bin("TABLE_NAME") +
		" FROM information_schema.TABLES WHERE TABLE_SCHEMA = " + lit +
		" UNION ALL SELECT " + bin("LOWER(ROUTINE_TYPE)") + ", " + bin("ROUTINE_NAME") +
		" FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = " + lit +
		" UNION ALL SELECT 'trigger', " + bin("TRIGGER_NAME") + " FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = " + lit +
		" UNION ALL SELECT 'event', " + bin("EVENT_NAME") + " FROM information_schema.EVENTS WHERE EVENT_SCHEMA = " + lit
}

// schemaObject is one entry of a schema's inventory.
type schemaObject struct{ kind, name string }

func (s schemaObject) String() string { return s.kind + " " + s.name }

func queryObjects(c *mysqlconn.Conn, stmt string) ([]schemaObject, error) {
	rows, err := c.Query(stmt)
	if err != nil {
		return nil, err
	}
	objs := make([]schemaObject, 0, len(rows))
	for _, row := range rows {
		if len(row) == 2 {
			objs = append(objs, schemaObject{string(row[0]), string(row[1])})
		}
	}
	return objs, nil
}

// checkSchemaSafety refuses a run that would drop (spec 3.3) an existing
// schema holding objects goslap cannot prove it made (see markerTable) —
// mysqlslap silently drops whatever --create-schema names. An empty schema
// and a proven leftover of an earlier goslap run may be dropped.
func checkSchemaSafety(c *mysqlconn.Conn, allowDropExisting bool, p *sqlgen.Plan) error {
	if !p.OwnsSchema || allowDropExisting {
		return nil
	}
	objects, err := queryObjects(c, schemaObjectsSelect(p.Schema))
	if err != nil {
		return Exitf(1, "Cannot inspect schema '%s' before dropping it: %s", p.Schema, mysqlconn.ErrorText(err))
	}
	if len(objects) == 0 {
		return nil
	}
	proven, err := provenObjects(c, p.Schema, objects)
	if err != nil {
		return Exitf(1, "Cannot inspect schema '%s' before dropping it: %s", p.Schema, mysqlconn.ErrorText(err))
	}
	var foreign []string
	for _, obj := range objects {
		if !proven[obj] {
			foreign = append(foreign, obj.String())
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	if len(foreign) > 10 {
		foreign = append(foreign[:10], "...")
	}
	return Exitf(1, "Schema '%s' already exists and holds objects goslap did not create (%s); "+
		"refusing to drop it. Use %s to drop it anyway, or --create-schema to name another schema.",
		p.Schema, strings.Join(foreign, ", "), AllowDropFlag)
}

// provenObjects is the inventory of an earlier goslap run's marker plus the
// marker itself; empty when the schema holds no genuine marker.
func provenObjects(c *mysqlconn.Conn, schema string, objects []schemaObject) (map[schemaObject]bool, error) {
	marker := schemaObject{"table", markerTable}
	proven := map[schemaObject]bool{}
	hasMarker := false
	for _, obj := range objects {
		hasMarker = hasMarker || obj == marker
	}
	if !hasMarker {
		return proven, nil
	}
	comments, err := c.QueryStrings("SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = " +
		mysqlconn.QuoteString(schema) + " AND TABLE_NAME = " + mysqlconn.QuoteString(markerTable) + " AND TABLE_TYPE = 'BASE TABLE'")
	if err != nil || len(comments) != 1 || comments[0] != markerComment {
		return proven, err
	}
	listed, err := queryObjects(c, "SELECT kind, name FROM "+markerName(schema))
	if err != nil {
		return nil, err
	}
	proven[marker] = true
	for _, obj := range listed {
		proven[obj] = true
	}
	return proven, nil
}

func markerName(schema string) string {
	return mysqlconn.QuoteName(schema) + "." + mysqlconn.QuoteName(markerTable)
}

// createMarker is run right after CREATE SCHEMA: from then on the schema is
// provably goslap's, holding (so far) only the marker.
func createMarker(c *mysqlconn.Conn, schema string) error {
	return c.Exec("CREATE TABLE " + markerName(schema) + " (kind VARCHAR(16) NOT NULL, " +
		"name VARCHAR(64) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, PRIMARY KEY (kind, name)) " +
		"COMMENT = " + mysqlconn.QuoteString(markerComment))
}

// recordInventory replaces the marker's inventory with what the schema
// holds now. c must be in autocommit mode (runner.ledgerDo), so the rows are
// durable at once and no lock is left for a later DROP SCHEMA to wait for.
func recordInventory(c *mysqlconn.Conn, schema string) error {
	for _, stmt := range []string{
		"DELETE FROM " + markerName(schema),
		"INSERT IGNORE INTO " + markerName(schema) + " (kind, name) " + schemaObjectsSelect(schema),
	} {
		if err := c.Exec(stmt); err != nil {
			return fmt.Errorf("recording goslap's ownership of schema '%s': %s", schema, mysqlconn.ErrorText(err))
		}
	}
	return nil
}
