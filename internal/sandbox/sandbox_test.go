package sandbox_test

import (
	"os"
	"testing"

	. "github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

func TestMain(m *testing.M) { servertest.Main(m, Config{}, nil) }

func TestServerAnswersOverSocketAndTCP(t *testing.T) {
	s := servertest.Require(t)
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var maxConn int
	if err := db.QueryRow("SELECT @@max_connections").Scan(&maxConn); err != nil {
		t.Fatal(err)
	}
	if maxConn != 1200 {
		t.Errorf("max_connections = %d, want 1200", maxConn)
	}
	var port int
	if err := db.QueryRow("SELECT @@port").Scan(&port); err != nil {
		t.Fatal(err)
	}
	if port != s.Port {
		t.Errorf("@@port = %d, want %d", port, s.Port)
	}
	// Temporary tables stay out of the shared /tmp.
	var tmp string
	if err := db.QueryRow("SELECT @@tmpdir").Scan(&tmp); err != nil {
		t.Fatal(err)
	}
	if tmp != s.TmpDir() {
		t.Errorf("@@tmpdir = %s, want %s", tmp, s.TmpDir())
	}
}

func TestStartWithOptionsAndStopTwice(t *testing.T) {
	servertest.Require(t)
	s, err := Start(Config{MaxConnections: 50, Options: []string{"sql-mode=NO_ENGINE_SUBSTITUTION"}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := s.OpenDB("")
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := db.QueryRow("SELECT @@GLOBAL.sql_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if mode != "NO_ENGINE_SUBSTITUTION" {
		t.Errorf("sql_mode = %q", mode)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, err := os.Stat(s.Dir); !os.IsNotExist(err) {
		t.Errorf("directory %s still exists after Stop (err %v)", s.Dir, err)
	}
}

func TestMissingBinaryIsReported(t *testing.T) {
	_, err := Start(Config{Binary: "/nonexistent/mariadbd"})
	if err == nil {
		t.Fatal("Start with a missing binary succeeded")
	}
}
