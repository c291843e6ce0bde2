package tpcc

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

// mariadbSlapOptions are the long options of mariadb-slap 10.11
// (`mariadb-slap --help`), which TPC-C's names must not collide with.
var mariadbSlapOptions = strings.Fields(`auto-generate-sql auto-generate-sql-add-autoincrement
auto-generate-sql-execute-number auto-generate-sql-guid-primary auto-generate-sql-load-type
auto-generate-sql-secondary-indexes auto-generate-sql-unique-query-number auto-generate-sql-unique-write-number
auto-generate-sql-write-number character-sets-dir commit compress concurrency create create-schema csv debug
debug-check debug-info default-auth delimiter detach engine help host init-command iterations no-drop
number-char-cols number-int-cols number-of-queries only-print password plugin-dir port post-query post-system
pre-query pre-system protocol query silent socket ssl ssl-ca ssl-capath ssl-cert ssl-cipher ssl-crl ssl-crlpath
ssl-key ssl-verify-server-cert tls-version user verbose version`)

func parse(t *testing.T, words ...string) (*Settings, error) {
	t.Helper()
	s := NewSettings()
	p := getopt.NewParser("goslap", s.Options(), io.Discard)
	if err := p.Parse(words, false); err != nil {
		return s, err
	}
	return s, p.Finish()
}

func TestSettings(t *testing.T) {
	meta, err := workload.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := meta.NewSettings().(*Settings); !ok {
		t.Fatal("registered settings are not tpcc.Settings")
	}
	for _, c := range []struct {
		words   []string
		want    Settings
		buildOK bool
	}{
		{nil, Settings{Warehouses: 1, Indexes: true, ForeignKeys: true}, true},
		{[]string{"--warehouses=100", "--skip-tpcc-indexes", "--skip-tpcc-foreign-keys", "--tpcc-load-connections=8"},
			Settings{Warehouses: 100, Indexes: false, ForeignKeys: false, LoadConnections: 8}, true},
		{[]string{"--warehouses", "2"}, Settings{Warehouses: 2, Indexes: true, ForeignKeys: true}, true},
		{[]string{"--warehouses=0"}, Settings{Warehouses: 0, Indexes: true, ForeignKeys: true}, false},
		{[]string{"--warehouses=40000"}, Settings{Warehouses: 40000, Indexes: true, ForeignKeys: true}, false},
	} {
		s, err := parse(t, c.words...)
		if err != nil {
			t.Errorf("%v: %v", c.words, err)
			continue
		}
		if *s != c.want {
			t.Errorf("%v: %+v, want %+v", c.words, *s, c.want)
		}
		w, err := s.Build(Name, workload.Common{})
		if (err == nil) != c.buildOK {
			t.Errorf("%v: Build = %v, %v", c.words, w, err)
		}
	}
	s := NewSettings()
	s.Warehouses = 0
	if _, err := s.Build(Name, workload.Common{}); !errors.Is(err, ErrWarehouses) || err.Error() != "--warehouses must be at least 1" {
		t.Errorf("--warehouses=0: %v", err)
	}
	// Full names only: an abbreviation is not TPC-C's option.
	if _, err := parse(t, "--wareh=3"); err == nil {
		t.Error("--wareh=3 was accepted")
	}
}

func TestOptionNamesDoNotClash(t *testing.T) {
	for _, o := range NewSettings().Options() {
		if !o.ExactOnly {
			t.Errorf("--%s is not ExactOnly", o.Name)
		}
		for _, m := range mariadbSlapOptions {
			if strings.HasPrefix(m, o.Name) || strings.HasPrefix(o.Name, m) {
				t.Errorf("--%s and mysqlslap's --%s: one is a prefix of the other", o.Name, m)
			}
		}
	}
}
