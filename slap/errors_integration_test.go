package slap

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/templates"
	"github.com/goslap/goslap/internal/testserver/servertest"
	"github.com/goslap/goslap/sqlgen"
)

// TestFailedDropComesAfterItsCause: when the clean-up after a failure
// cannot drop the schema, the line saying so follows the error that ended
// the run instead of being printed before it.
func TestFailedDropComesAfterItsCause(t *testing.T) {
	s := servertest.Require(t)
	db := rootDB(t, s)
	o := slapOptions(t, s)
	user := "u_" + o.CreateSchema
	for _, q := range []string{
		"CREATE USER " + user + "@localhost",
		"GRANT ALL ON " + o.CreateSchema + ".* TO " + user + "@localhost",
		"GRANT CREATE USER ON *.* TO " + user + "@localhost",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		db.Exec("DROP USER " + user + "@localhost")
		db.Exec("DROP SCHEMA IF EXISTS " + o.CreateSchema)
	})
	o.User = user
	o.AutoGenerateSQL = true
	// Lock the account, then lose the main connection: the drop after the
	// error cannot reconnect.
	o.PreQuery, o.PreQuerySet = "ALTER USER "+user+"@localhost ACCOUNT LOCK;KILL CONNECTION_ID()", true
	r := runSlap(t, context.Background(), o)
	var ee *ExitError
	if !errors.As(r.err, &ee) || ee.Code != 1 {
		t.Fatalf("err = %v, want an ExitError with status 1", r.err)
	}
	if r.stderr.Len() != 0 {
		t.Errorf("printed before the error: %q", r.stderr.String())
	}
	lines := strings.Split(ee.Msg, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "goslap: Cannot run query ALTER USER ") ||
		!strings.HasPrefix(lines[1], "goslap: could not drop schema '"+o.CreateSchema+"' after the error: 4151 ") {
		t.Errorf("message:\n%s", ee.Msg)
	}
}

// TestTemplatesDoubleBraceWithoutPlaceholder: with --templates, "{{" is a
// literal "{" also in a statement that has no placeholder (it was sent
// as written, "{{" and all).
func TestTemplatesDoubleBraceWithoutPlaceholder(t *testing.T) {
	list, err := parseTemplates([]sqlgen.Statement{{Text: "SELECT '{{x}'"}, {Text: "SELECT 1"}})
	if err != nil {
		t.Fatal(err)
	}
	if list == nil || list[0] == nil || list[1] != nil {
		t.Fatalf("templates %v: want one for the first statement only", list)
	}
	if got := list[0].Render(templates.NewSource(1, 0)); got != "SELECT '{x}'" {
		t.Errorf("rendered %q", got)
	}
}
