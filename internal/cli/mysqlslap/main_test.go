package mysqlslap

import (
	"database/sql"
	"flag"
	"os"
	"testing"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// update rewrites golden files: go test ./slap -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Credentials of the non-root account the setup creates, for the TCP and
// wrong-password tests.
const (
	testUser     = "slapper"
	testPassword = "s3cret"
)

// TestMain starts one private server for the package's integration tests
// (they skip without a server binary, and fail under CI=true).
func TestMain(m *testing.M) {
	code := servertest.Run(m, sandbox.Config{}, func(s *sandbox.Server) error {
		db, err := s.OpenDB("")
		if err != nil {
			return err
		}
		defer db.Close()
		return execAll(db,
			"CREATE USER '"+testUser+"'@'%' IDENTIFIED BY '"+testPassword+"'",
			"GRANT ALL ON *.* TO '"+testUser+"'@'%'",
		)
	})
	removeBinary()
	os.Exit(code)
}

func execAll(db *sql.DB, stmts ...string) error {
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			return err
		}
	}
	return nil
}
