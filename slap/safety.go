package slap

import (
	"regexp"
	"sort"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"

	"github.com/goslap/goslap/sqlgen"
)

// AllowDropFlag is goslap's own option that lets a run drop a schema holding
// objects goslap did not create.
const AllowDropFlag = "--allow-drop-existing-schema"

// checkSchemaSafety refuses a run that would drop (spec 3.3) an existing
// schema holding tables, views or routines this run's create list does not
// create — mysqlslap silently drops whatever --create-schema names. A schema
// holding only goslap's own tables is a leftover of an earlier run and may
// be dropped, as may an empty one.
func checkSchemaSafety(c *mysqlconn.Conn, o *Options, p *sqlgen.Plan) error {
	if !p.OwnsSchema || o.AllowDropExistingSchema {
		return nil
	}
	lit := sqlString(p.Schema)
	objects, err := c.QueryStrings(
		"SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = " + lit +
			" UNION ALL SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = " + lit)
	if err != nil {
		return Exitf(1, "Cannot inspect schema '%s' before dropping it: %s", p.Schema, mysqlconn.ErrorText(err))
	}
	own := ownObjectNames(o, p)
	var foreign []string
	for _, name := range objects {
		if !own[name] {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	sort.Strings(foreign)
	if len(foreign) > 10 {
		foreign = append(foreign[:10], "...")
	}
	return Exitf(1, "Schema '%s' already exists and holds tables goslap did not create (%s); "+
		"refusing to drop it. Use %s to drop it anyway, or --create-schema to name another schema.",
		p.Schema, strings.Join(foreign, ", "), AllowDropFlag)
}

// createdObject matches the name of a table, view or routine a CREATE
// statement makes, at the start of the text or after a ';' (one create
// statement may hold several with multi-statements).
var createdObject = regexp.MustCompile(`(?is)(?:^|;)\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?` +
	`(?:ALGORITHM\s*=\s*\w+\s+)?(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?` +
	`(?:TABLE|VIEW|PROCEDURE|FUNCTION)\s+(?:IF\s+NOT\s+EXISTS\s+)?` +
	"((?:`[^`]+`|[\\w$]+)(?:\\s*\\.\\s*(?:`[^`]+`|[\\w$]+))?)")

var identPart = regexp.MustCompile("`[^`]+`|[\\w$]+")

// ownObjectNames are the objects the run's create list makes: t1 for -a,
// and every CREATE TABLE/VIEW/PROCEDURE/FUNCTION name in the create list.
func ownObjectNames(o *Options, p *sqlgen.Plan) map[string]bool {
	own := map[string]bool{}
	if o.AutoGenerateSQL {
		own["t1"] = true
	}
	for _, s := range p.Create {
		for _, m := range createdObject.FindAllStringSubmatch(s.Text, -1) {
			parts := identPart.FindAllString(m[1], -1) // [schema.]name
			name := parts[len(parts)-1]
			own[strings.Trim(name, "`")] = true
		}
	}
	return own
}

// sqlString quotes s as a SQL string literal.
func sqlString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
