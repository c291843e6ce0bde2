package orchestrator

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/target"
	"github.com/goslap/goslap/internal/workload"
	_ "github.com/goslap/goslap/internal/workload/oltp"
)

func TestParseEngines(t *testing.T) {
	cases := []struct {
		in   string
		want []Engine
		err  string
	}{
		{"", nil, ""},
		{"innodb,myisam", []Engine{{Name: "innodb"}, {Name: "myisam"}}, ""},
		{"innodb:ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8", []Engine{{Name: "innodb", Options: "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"}}, ""},
		{"innodb,", nil, "invalid engine ''"},
		{"inno db", nil, "invalid engine"},
		{"innodb:X=1;DROP TABLE t", nil, "invalid table options"},
	}
	for _, tc := range cases {
		got, err := ParseEngines(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v", tc.in, got, err)
		}
	}
}

func TestParseLists(t *testing.T) {
	if c, err := ParseClients("1, 8,64"); err != nil || !reflect.DeepEqual(c, []int{1, 8, 64}) {
		t.Errorf("clients %v %v", c, err)
	}
	for _, bad := range []string{"0", "a", "1,,2", "-3"} {
		if _, err := ParseClients(bad); err == nil {
			t.Errorf("clients %q accepted", bad)
		}
	}
	s, err := ParseServerSweep("innodb_buffer_pool_size=64M,128M")
	if err != nil || s.Name != "innodb_buffer_pool_size" || !reflect.DeepEqual(s.Values, []string{"64M", "128M"}) {
		t.Errorf("sweep %+v %v", s, err)
	}
	for _, bad := range []string{"innodb_buffer_pool_size", "=1,2", "x=1,,2", "a b=1"} {
		if _, err := ParseServerSweep(bad); err == nil {
			t.Errorf("sweep %q accepted", bad)
		}
	}
	// The sandbox confinement rule: goslap's own settings and values
	// outside the sandbox's directory, in any of the values.
	for sweep, want := range map[string]string{
		"pid_file=a,b":                 "--sweep-server-option=pid_file=a,b: pid_file=a: goslap sets the sandbox's pid_file itself",
		"--datadir=d1,d2":              "--sweep-server-option=datadir=d1,d2: datadir=d1: goslap sets the sandbox's datadir itself",
		"log_error=x.err,/y/F":         "--sweep-server-option=log_error=x.err,/y/F: log_error=/y/F: /y/F is outside the sandbox's directory",
		"general_log_file=g,../../g":   "general_log_file=../../g: ../../g is outside",
		"innodb_data_file_path=a:12M":  "",
		"log_error=x.err,logs/y.err":   "",
		"innodb_buffer_pool_size=1G,2": "",
	} {
		_, err := ParseServerSweep(sweep)
		switch {
		case want == "" && err != nil:
			t.Errorf("sweep %q: %v", sweep, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("sweep %q: %v, want %q", sweep, err, want)
		}
	}
	for word, want := range map[string]Phase{"": PhaseAll, "prepare": PhasePrepare, "run": PhaseRun, "cleanup": PhaseCleanup} {
		if p, err := ParsePhase(word); err != nil || p != want {
			t.Errorf("phase %q: %q %v", word, p, err)
		}
	}
	if _, err := ParsePhase("prewarm"); err == nil {
		t.Error("prewarm accepted")
	}
}

func TestSplitScales(t *testing.T) {
	m, err := workload.Lookup("oltp_read_write")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		size   string
		want   []int64
		left   string // the option's value afterwards
		errSub string
	}{
		{"1000", nil, "1000", ""},
		{"500K,1M,2000", []int64{500000, 1000000, 2000}, "500K", ""},
		{"10,abc", nil, "", "invalid value 'abc' for --table-size"},
		{"10,0", nil, "", "invalid value '0' for --table-size"},
	}
	for _, tc := range cases {
		s := m.NewSettings()
		var row *string
		for _, o := range s.Options() {
			if o.Name == "table-size" {
				row = o.String
			}
		}
		*row = tc.size
		got, label, err := SplitScales(m.Name, s, workload.Common{Schema: "sbtest", Seed: 1})
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Errorf("%s: error %v", tc.size, err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) || *row != tc.left || label != "table size" {
			t.Errorf("%s: %v %q %q %v", tc.size, got, *row, label, err)
		}
	}
}

func TestCheck(t *testing.T) {
	m, _ := workload.Lookup("oltp_point_select")
	base := func() *Config {
		return &Config{Workload: m.Name, Settings: m.NewSettings(), Clients: []int{1}, Iterations: 1, Duration: time.Second,
			Driver: func(target.Endpoint, string) (*mysql.Config, error) { return mysql.NewConfig(), nil }}
	}
	sandbox := []target.Target{{Label: "s", Kind: target.Sandbox}}
	cases := []struct {
		name string
		edit func(*Config)
		err  string
	}{
		{"ok", func(*Config) {}, ""},
		{"prepare of a sweep", func(c *Config) { c.Phase, c.Scales = PhasePrepare, []int64{1, 2} }, "the prepare command works on one set of tables"},
		{"run on a sandbox", func(c *Config) { c.Phase, c.Targets = PhaseRun, sandbox }, "the run command needs tables that outlive the command"},
		{"sweep without sandbox", func(c *Config) { c.Server = ServerSweep{"innodb_buffer_pool_size", []string{"1G"}} }, "needs sandbox targets"},
		{"sweep on a server", func(c *Config) {
			c.Server = ServerSweep{"innodb_buffer_pool_size", []string{"1G"}}
			c.Targets = []target.Target{{Label: "db", Kind: target.Server}}
		}, "target db is an existing server"},
		{"sweep over a target's own option", func(c *Config) {
			c.Server = ServerSweep{"innodb-buffer-pool-size", []string{"1G"}}
			c.Targets = []target.Target{{Label: "s", Kind: target.Sandbox, ServerOptions: []string{"innodb_buffer_pool_size=2G"}}}
		}, "target s sets innodb-buffer-pool-size itself"},
		{"no limit", func(c *Config) { c.Duration = 0 }, "nothing would end a run"},
		{"no-drop sweep", func(c *Config) { c.NoDrop, c.Engines = true, []Engine{{Name: "innodb"}, {Name: "myisam"}} }, "--no-drop keeps the tables"},
		{"no limit needed for cleanup", func(c *Config) { c.Duration, c.Phase = 0, PhaseCleanup }, ""},
	}
	for _, tc := range cases {
		c := base()
		tc.edit(c)
		err := c.Check()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

func TestRowFormatAsked(t *testing.T) {
	for opts, want := range map[string]string{"ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8": "COMPRESSED", "key_block_size=8 row_format=dynamic": "DYNAMIC", "": "", "ROW_FORMAT = FIXED": "FIXED"} {
		if got := rowFormat(opts); got != want {
			t.Errorf("%q: %q, want %q", opts, got, want)
		}
	}
}
