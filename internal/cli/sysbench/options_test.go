package sysbench

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

// The command lines (0.4 spelling) and the 1.0 one.
var (
	study04a = strings.Fields("--test=oltp --mysql-user=root --mysql-password=pw --mysql-socket=/var/run/mysqld/mysqld.sock " +
		"--oltp-table-size=1000000 --mysql-db=test --oltp-table-name=sbtest --max-requests=100000 " +
		"--num-threads=100 --oltp-read-only=on --mysql-table-engine=myisam run")
	study04b = strings.Fields("--test=oltp --oltp-table-size=1000000 --mysql-db=test --mysql-user=u --mysql-password=p " +
		"--mysql-host=db1 --mysql-port=3307 --max-time=60 --oltp-read-only=off --max-requests=0 --num-threads=8 run")
	study10 = strings.Fields("oltp_read_write --tables=8 --table-size=1000 --threads=64 --time=300 run")
)

func TestParse(t *testing.T) {
	cases := []struct {
		name string
		args []string
		// check inspects the result; fields not checked are free.
		check func(t *testing.T, c *Config)
	}{
		{"0.4 study, read-only myisam", study04a, func(t *testing.T, c *Config) {
			want := Config{Dialect: Dialect04, Test: "oltp", TestBy: "--test", Workload: "oltp", Command: "run",
				Threads: 100, Events: 100000, EventsSet: true, Time: 0, Engine: "myisam"}
			same(t, c, want, "Dialect", "Test", "TestBy", "Workload", "Command", "Threads", "Events", "EventsSet", "Time", "Engine")
			if c.MySQL.User != "root" || c.MySQL.Password != "pw" || c.MySQL.DB != "test" ||
				!reflect.DeepEqual(c.MySQL.Sockets, []string{"/var/run/mysqld/mysqld.sock"}) {
				t.Errorf("mysql: %+v", c.MySQL)
			}
			wantArgs := []Assignment{
				{"--oltp-table-size=1000000", "table-size", "1000000", true, nil},
				{"--oltp-table-name=sbtest", "oltp-table-name", "sbtest", true, nil},
				{"--oltp-read-only=on", "oltp-read-only", "on", true, nil},
				{"--mysql-table-engine=myisam", "mysql-storage-engine", "myisam", true, nil},
			}
			if !reflect.DeepEqual(c.WorkloadArgs, wantArgs) {
				t.Errorf("workload args %+v", c.WorkloadArgs)
			}
			if len(c.Warnings)+len(c.Notes) != 0 {
				t.Errorf("0.4 spellings in 0.4 dialect warn: %v %v", c.Warnings, c.Notes)
			}
		}},
		{"0.4 study, time limit and no event limit", study04b, func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect04, Workload: "oltp", Threads: 8, Events: 0, EventsSet: true, Time: 60, TimeSet: true},
				"Dialect", "Workload", "Threads", "Events", "EventsSet", "Time", "TimeSet")
			if !reflect.DeepEqual(c.MySQL.Hosts, []string{"db1"}) || !reflect.DeepEqual(c.MySQL.Ports, []int{3307}) {
				t.Errorf("hosts %v ports %v", c.MySQL.Hosts, c.MySQL.Ports)
			}
		}},
		{"0.4 default stop: 10000 events, no time", strings.Fields("--test=oltp --max-time=300 run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Events: 10000, Time: 300}, "Events", "Time")
			if c.EventsSet {
				t.Error("EventsSet")
			}
		}},
		{"1.0 study", study10, func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect10, Test: "oltp_read_write", TestBy: "positional", Workload: "oltp_read_write",
				Command: "run", Threads: 64, Time: 300, TimeSet: true, Events: 0, Percentile: 95},
				"Dialect", "Test", "TestBy", "Workload", "Command", "Threads", "Time", "TimeSet", "Events", "Percentile")
			if len(c.WorkloadArgs) != 2 || c.WorkloadArgs[0].Name != "tables" || c.WorkloadArgs[1].Name != "table-size" {
				t.Errorf("workload args %+v", c.WorkloadArgs)
			}
			if c.MySQL.User != "sbtest" || c.MySQL.DB != "sbtest" || !reflect.DeepEqual(c.MySQL.Hosts, []string{"localhost"}) ||
				!reflect.DeepEqual(c.MySQL.IgnoreErrors, []uint16{1213, 1020, 1205}) {
				t.Errorf("defaults %+v", c.MySQL)
			}
		}},
		{"1.0 default stop: 10 s, no events", strings.Fields("oltp_read_only run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Events: 0, Time: 10}, "Events", "Time")
		}},
		// sysbench 1.0.20's order, whatever the command line's.
		{"1.0 deprecated aliases warn on stdout, in order", strings.Fields("--max-time=1 --tx-rate=7 --max-requests=5 --num-threads=2 oltp_read_write run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Threads: 2, Events: 5, Time: 1, Rate: 7}, "Threads", "Events", "Time", "Rate")
			want := []string{
				"WARNING: --num-threads is deprecated, use --threads instead",
				"WARNING: --max-requests is deprecated, use --events instead",
				"WARNING: --max-time is deprecated, use --time instead",
				"WARNING: --tx-rate is deprecated, use --rate instead",
			}
			if !reflect.DeepEqual(c.Warnings, want) {
				t.Errorf("warnings %q", c.Warnings)
			}
		}},
		// Observed: an alias at its default is ignored (no warning, no
		// effect); otherwise it wins over the 1.0 name in any order.
		{"1.0 alias at its default is ignored", strings.Fields("--time=5 --max-time=0 --threads=3 --num-threads=1 oltp_read_write run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Threads: 3, Time: 5}, "Threads", "Time")
			if len(c.Warnings) != 0 {
				t.Errorf("warnings %q", c.Warnings)
			}
		}},
		{"1.0 alias wins over the new name", strings.Fields("--num-threads=2 --threads=3 oltp_read_write run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Threads: 2}, "Threads")
		}},
		{"--test with a 1.0 script path warns on stderr", strings.Fields("--test=/usr/share/sysbench/oltp_point_select.lua run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect10, Workload: "oltp_point_select"}, "Dialect", "Workload")
			if len(c.Notes) != 2 || !strings.HasPrefix(c.Notes[0], "WARNING: the --test option is deprecated.") ||
				!strings.Contains(c.Notes[1], "unmodified oltp_point_select.lua: running goslap's built-in oltp_point_select") {
				t.Errorf("notes %q", c.Notes)
			}
		}},
		{"0.5 oltp.lua", strings.Fields("--test=/usr/share/doc/sysbench/tests/db/oltp.lua --oltp-tables-count=8 --oltp-write-only=on run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect05, Workload: "oltp", Events: 10000}, "Dialect", "Workload", "Events")
			if len(c.WorkloadArgs) != 2 || c.WorkloadArgs[0].Name != "tables" || c.WorkloadArgs[1].Name != "oltp-write-only" {
				t.Errorf("args %+v", c.WorkloadArgs)
			}
		}},
		{"0.5 single-statement script", strings.Fields("--test=update_index.lua run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect05, Workload: "oltp_update_index"}, "Dialect", "Workload")
		}},
		{"forced dialect", strings.Fields("oltp_read_write --sysbench-compat=0.5 --oltp-table-size=10 run"), func(t *testing.T, c *Config) {
			same(t, c, Config{Dialect: Dialect05, Forced: true, Workload: "oltp_read_write", Events: 10000, Time: 0},
				"Dialect", "Forced", "Workload", "Events", "Time")
		}},
		{"underscores, booleans, bare flag", strings.Fields("oltp_read_write --skip_trx --range-selects=off --auto_inc=TRUE --mysql_ssl=yes --mysql-compression=1 --report_interval=2 --percentile=99 --rand-seed=5 prepare"), func(t *testing.T, c *Config) {
			want := []Assignment{
				{"--skip_trx", "skip-trx", "", false, nil},
				{"--range-selects=off", "range-selects", "off", true, nil},
				{"--auto_inc=TRUE", "auto-inc", "TRUE", true, nil},
			}
			if !reflect.DeepEqual(c.WorkloadArgs, want) {
				t.Errorf("args %+v", c.WorkloadArgs)
			}
			if !c.MySQL.SSL || !c.MySQL.Compression || c.ReportInterval != 2 || c.Percentile != 99 || c.Seed != 5 || !c.SeedSet {
				t.Errorf("%+v", c)
			}
		}},
		{"host and port lists, ignore all", strings.Fields("oltp_read_write --mysql-host=a,b --mysql-port=1,2 --mysql-ignore-errors=all run"), func(t *testing.T, c *Config) {
			if !reflect.DeepEqual(c.MySQL.Hosts, []string{"a", "b"}) || !reflect.DeepEqual(c.MySQL.Ports, []int{1, 2}) || !c.MySQL.IgnoreAll {
				t.Errorf("%+v", c.MySQL)
			}
		}},
		{"thread list is a sweep", strings.Fields("oltp_read_write --threads=1,4,16 run"), func(t *testing.T, c *Config) {
			if !reflect.DeepEqual(c.ThreadList, []int{1, 4, 16}) || c.Threads != 1 {
				t.Errorf("%v %d", c.ThreadList, c.Threads)
			}
		}},
		{"options that cannot be honoured are collected", strings.Fields("oltp_read_write --histogram --forced-shutdown=5 --mysql-dry-run=on --db-driver=pgsql --sandbox run"), func(t *testing.T, c *Config) {
			if len(c.Refused) != 4 {
				t.Errorf("refused %q", c.Refused)
			}
			for _, r := range c.Refused {
				if !strings.Contains(r, "cannot be honoured") {
					t.Errorf("%q", r)
				}
			}
		}},
		{"--json alone is stdout", strings.Fields("oltp_read_write --json run"), func(t *testing.T, c *Config) {
			if !c.Extras.JSONSet || c.Extras.JSON != "" || !c.Extras.Active() || len(c.Refused) != 0 {
				t.Errorf("extras %+v, refused %q", c.Extras, c.Refused)
			}
		}},
		{"--json=- is stdout", strings.Fields("oltp_read_write --json=- run"), func(t *testing.T, c *Config) {
			if !c.Extras.JSONSet || c.Extras.JSON != "" {
				t.Errorf("extras %+v", c.Extras)
			}
		}},
		{"--json=FILE", strings.Fields("oltp_read_write --json=r.json run"), func(t *testing.T, c *Config) {
			if !c.Extras.JSONSet || c.Extras.JSON != "r.json" {
				t.Errorf("extras %+v", c.Extras)
			}
		}},
		{"goslap's extras", strings.Fields("oltp_read_write --target=a:server --target=b:sandbox --sandbox-option=innodb_buffer_pool_size=32M --plot=x.svg --latency --iterations=3 --rounds=3 --sides-in-turn run"), func(t *testing.T, c *Config) {
			want := Extras{Targets: []string{"a:server", "b:sandbox"}, SandboxOptions: []string{"innodb_buffer_pool_size=32M"}, Plot: "x.svg", Latency: true, Iterations: 3,
				Rounds: 3, InTurn: true}
			if !reflect.DeepEqual(c.Extras, want) || len(c.Refused) != 0 || !c.Extras.Active() {
				t.Errorf("extras %+v, refused %q", c.Extras, c.Refused)
			}
		}},
		{"prewarm is the stock script's own (installed at /usr/share/sysbench)", strings.Fields("oltp_read_write prewarm"), func(t *testing.T, c *Config) {
			same(t, c, Config{Command: "prewarm", Script: "/usr/share/sysbench/oltp_read_write.lua", Workload: "lua"}, "Command", "Script", "Workload")
		}},
		{"prewarm without the stock script is warmup", strings.Fields("no_such_dir/oltp_read_write.lua prewarm"), func(t *testing.T, c *Config) {
			same(t, c, Config{Command: "warmup", Workload: "oltp_read_write"}, "Command", "Workload")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// same compares the named fields of got and want.
func same(t *testing.T, got *Config, want Config, fields ...string) {
	t.Helper()
	g, w := reflect.ValueOf(*got), reflect.ValueOf(want)
	for _, f := range fields {
		if a, b := g.FieldByName(f).Interface(), w.FieldByName(f).Interface(); !reflect.DeepEqual(a, b) {
			t.Errorf("%s = %v, want %v", f, a, b)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string // the message, as sysbench 1.0.20 words it where it has one
	}{
		{strings.Fields("--threads=abc oltp_read_write run"), "Invalid value for the 'threads' option: 'abc'"},
		{strings.Fields("--time=x oltp_read_write run"), "Invalid value for the 'time' option: 'x'"},
		{strings.Fields("--events=-1 oltp_read_write run"), "Invalid value for the 'events' option: '-1'"},
		{strings.Fields("--threads=0 oltp_read_write run"), "FATAL: Invalid value for --threads: 0."},
		{strings.Fields("--mysql-ssl=maybe oltp_read_write run"), "invalid option: --mysql-ssl=maybe"},
		{strings.Fields("--mysql-port=x oltp_read_write run"), "Invalid value for the 'mysql_port' option: 'x'"},
		{strings.Fields("oltp_read_write bogus"), "Unknown command: bogus"},
		{strings.Fields("oltp_read_write run extra"), "Unknown command: extra"},
		{strings.Fields("oltp_read_write --oltp-table-size=5 run"), "invalid option: --oltp-table-size=5 (a sysbench 0.4/0.5 name; sysbench 1.0 calls it --table-size)"},
		{strings.Fields("oltp_read_write --oltp-read-only=on run"), "invalid option: --oltp-read-only=on (a sysbench 0.4/0.5 option; in 1.0 pick the test: oltp_read_only, oltp_write_only, ...)"},
		{strings.Fields("--test=select.lua run"), "FATAL: Cannot find benchmark 'select.lua': sysbench's select.lua is not one of goslap's workloads (workloads: " + Names() + ")"},
		{strings.Fields("--sysbench-compat=2.0 oltp_read_write run"), "invalid option: --sysbench-compat=2.0 (dialects: 1.0, 0.5, 0.4)"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := Parse(tc.args)
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err %v, want a ParseError", err)
			}
			if pe.Msg != tc.want {
				t.Errorf("got  %q\nwant %q", pe.Msg, tc.want)
			}
		})
	}
}

// TestConfigFile: the file's options are applied after the command line's
// (sysbench 1.0.20: --threads=7 and threads=4 in the file run 4 threads).
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "sb.cfg")
	if err := os.WriteFile(f, []byte("# comment\nnum-threads=4\n\ntables=3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Parse([]string{"--config-file=" + f, "--threads=7", "oltp_read_write", "run"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Threads != 4 || len(c.WorkloadArgs) != 1 || c.WorkloadArgs[0].Name != "tables" || c.WorkloadArgs[0].Value != "3" {
		t.Errorf("threads %d args %+v", c.Threads, c.WorkloadArgs)
	}
	if _, err := Parse([]string{"--config-file=" + filepath.Join(dir, "none"), "oltp_read_write", "run"}); err == nil {
		t.Error("a missing config file is an error")
	}
}

// fixtureSettings stands for a workload's settings: rows named with
// sysbench 1.0 spellings, as the OLTP workloads register them.
type fixtureSettings struct {
	tables, size uint64
	skipTrx      bool
	randType     string
	compat       string
}

func (f *fixtureSettings) Options() []*getopt.Option {
	return []*getopt.Option{
		{Name: "tables", Arg: getopt.RequiredArg, Var: getopt.VarUint64, Uint64: &f.tables, ExactOnly: true},
		{Name: "table-size", Arg: getopt.RequiredArg, Var: getopt.VarUint64, Uint64: &f.size, ExactOnly: true},
		{Name: "skip-trx", Arg: getopt.OptionalArg, Var: getopt.VarBool, Bool: &f.skipTrx, ExactOnly: true},
		{Name: "rand-type", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &f.randType, ExactOnly: true,
			Hook: func(s getopt.Setting) error {
				switch s.Value {
				case "uniform", "gaussian", "special", "pareto":
					return nil
				}
				return errors.New("invalid --rand-type: " + s.Value)
			}},
		{Name: "sysbench-compat", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &f.compat, ExactOnly: true},
	}
}

func (f *fixtureSettings) Build(string, workload.Common) (workload.Workload, error) {
	return nil, errors.New("fixture")
}

func TestApplyWorkload(t *testing.T) {
	cases := []struct {
		args    []string
		want    fixtureSettings
		wantErr string
	}{
		{strings.Fields("--test=oltp --oltp-table-size=500 --oltp-skip-trx=on --oltp-dist-type=uniform run"),
			fixtureSettings{size: 500, skipTrx: true, randType: "uniform", compat: "0.4"}, ""},
		{strings.Fields("oltp_read_write --tables=2 --table_size=10 --skip-trx --mysql-storage-engine=myisam run"),
			fixtureSettings{tables: 2, size: 10, skipTrx: true, compat: "1.0"}, ""},
		{strings.Fields("oltp_read_write --skip-trx=off run"), fixtureSettings{compat: "1.0"}, ""},
		{strings.Fields("oltp_read_write --table-size=abc run"), fixtureSettings{}, "Invalid value for the 'table_size' option: 'abc'"},
		{strings.Fields("oltp_read_write --bogus=1 run"), fixtureSettings{}, "invalid option: --bogus=1"},
		{strings.Fields("--test=oltp --oltp-table-name=t1 run"), fixtureSettings{}, "invalid option: --oltp-table-name=t1"},
		{strings.Fields("oltp_read_write --skip-trx=maybe run"), fixtureSettings{}, "invalid option: --skip-trx=maybe"},
		{strings.Fields("oltp_read_write --rand-type=zipf run"), fixtureSettings{}, "FATAL: invalid --rand-type: zipf"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			c, err := Parse(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			var f fixtureSettings
			err = ApplyWorkload(&f, c)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f != tc.want {
				t.Errorf("got %+v want %+v", f, tc.want)
			}
		})
	}
}

func TestDriverConfigs(t *testing.T) {
	c, err := Parse(strings.Fields("oltp_read_write --mysql-host=h1,h2 --mysql-port=1,2 --mysql-user=u --mysql-password=p --mysql-db=d --mysql-compression run"))
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := DriverConfigs(c.MySQL)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, x := range cfgs {
		addrs = append(addrs, x.Net+":"+x.Addr)
		if x.User != "u" || x.Passwd != "p" || x.DBName != "d" {
			t.Errorf("%+v", x)
		}
	}
	if want := []string{"tcp:h1:1", "tcp:h1:2", "tcp:h2:1", "tcp:h2:2"}; !reflect.DeepEqual(addrs, want) {
		t.Errorf("addrs %v want %v", addrs, want)
	}
	c, _ = Parse(strings.Fields("oltp_read_write --mysql-socket=/a.sock,/b.sock --mysql-host=ignored run"))
	cfgs, _ = DriverConfigs(c.MySQL)
	if len(cfgs) != 2 || cfgs[0].Net != "unix" || cfgs[1].Addr != "/b.sock" {
		t.Errorf("sockets %+v", cfgs)
	}
	c, _ = Parse(strings.Fields("oltp_read_write run"))
	cfgs, _ = DriverConfigs(c.MySQL)
	if len(cfgs) != 1 || cfgs[0].Net != "unix" || cfgs[0].Addr != DefaultSocket {
		t.Errorf("localhost default %+v", cfgs[0])
	}
	if _, err := DriverConfigs(MySQL{Hosts: []string{"h"}, Ports: []int{1}, SSLCipher: "AES"}); err == nil {
		t.Error("--mysql-ssl-cipher must be refused")
	}
}
