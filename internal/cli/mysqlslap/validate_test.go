package mysqlslap

import (
	"reflect"
	"strings"
	"testing"
)

// TestValidateOrder: where two rules fail, the one mysqlslap applies first
// speaks (the orders mariadb-slap shows are also parser goldens, order_*).
func TestValidateOrder(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"statements before the prompt", []string{"--create=" + dir, "-p"}, "goslap: Create file was not a regular file"},
		{"the prompt before the word count", []string{"-q", "select 1", "-p", "a", "b", "c"}, "goslap: --password without a value needs a terminal"},
		{"the prompt before goslap's refusals", []string{"-c", "0", "-q", "select 1", "-p"}, "goslap: --password without a value needs a terminal"},
		{"goslap's option combinations before the CSV file", []string{"--json", "--csv", "--exact-count"}, "goslap: --exact-count needs --number-of-queries"},
		{"goslap's option combinations before its refusals", []string{"--iterations=0", "--json", "--csv"}, "goslap: --json and --csv cannot both write to stdout"},
		{"a mistyped file before the values", []string{"-q", "q.sql", "--iterations=0"}, `goslap: --query "q.sql" looks like a file name`},
		{"iterations before the load type", []string{"-a", "--iterations=0", "--auto-generate-sql-load-type=x"}, "goslap: --iterations must be at least 1"},
		{"the load type before the concurrency", []string{"-a", "-c", "0", "--auto-generate-sql-load-type=x"}, "goslap: --auto-generate-sql-load-type=x: unknown load type"},
		{"the concurrency before the statement lists", []string{"-a", "-c", "0", "-x", "abc"}, `goslap: invalid --concurrency value "0"`},
		{"the shard options need --shard", []string{"-a", "--start-at=now+1s", "--iterations=0"}, "goslap: --start-at, --late-start, --run-id and --shard-wait need --shard=I/N"},
		{"a shard prints nothing", []string{"-a", "--shard=0/2", "--only-print", "--iterations=0"}, "goslap: --only-print runs nothing: it cannot be split over shards"},
		{"the statement lists before the shard spec", []string{"-a", "--shard=9/2", "-x", "abc"}, `goslap: invalid --number-char-cols value "abc"`},
		{"the shard spec last", []string{"-a", "--shard=9/2"}, "goslap: --shard=9/2"},
		{"more shards than clients", []string{"-a", "--shard=0/3", "-c", "2"}, "goslap: --shard=0/3: 2 clients cannot be split over 3 shards"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := frontEndForTest(t, nil, nil, tc.args...)
			if rc, msg := exitCode(err); rc != 1 || !strings.HasPrefix(msg, tc.want) {
				t.Errorf("rc %d %q, want rc 1 and %q", rc, msg, tc.want)
			}
		})
	}
}

// TestValidateLeavesOptions: what the options imply is the Config's; the
// parsed options are not changed (the prompted password goes to the
// Config's copy).
func TestValidateLeavesOptions(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		silent bool
	}{
		{[]string{"-q", "select 1"}, false},
		{[]string{"-q", "select 1", "-s"}, true},
		{[]string{"-q", "select 1", "--csv"}, true},
		{[]string{"-q", "select 1", "--only-print"}, true},
		{[]string{"-q", "select 1", "--json"}, true},
		{[]string{"-q", "select 1", "--json=-"}, true},
		{[]string{"-q", "select 1", "--json=" + t.TempDir() + "/r.json"}, false},
	} {
		env, _, _ := testEnv(t.TempDir(), nil)
		env.ReadPassword = func(string) (string, error) { return "typed", nil }
		o, err := ParseCommandLine(append([]string{"--no-defaults", "-p"}, tc.args...), env)
		if err != nil {
			t.Fatal(err)
		}
		before := *o
		c, err := Validate(o, env)
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		c.Close()
		if !reflect.DeepEqual(*o, before) {
			t.Errorf("%q: Validate changed the options", tc.args)
		}
		if c.Silent != tc.silent || c.Connection.Password != "typed" || c.OptionRecord["silent"] != before.Silent {
			t.Errorf("%q: silent %v (want %v), password %q, option silent %v", tc.args, c.Silent, tc.silent, c.Connection.Password, c.OptionRecord["silent"])
		}
	}
}

// TestWorkloadPromptedPassword: the password typed at a bare -p reaches
// a --workload run's server (its endpoint, whose credentials its
// connections take), not only the mysqlslap load's.
func TestWorkloadPromptedPassword(t *testing.T) {
	tty := func(string) (string, error) { return "typed", nil }
	c, _, err := validatedForTest(t, nil, tty, "--workload=oltp_point_select", "-p")
	if err != nil {
		t.Fatal(err)
	}
	if ep := c.Workload.Base; ep.Password != "typed" || !ep.PasswordSet {
		t.Errorf("endpoint password %q set %v", ep.Password, ep.PasswordSet)
	}
	cfg, err := c.Workload.Driver(c.Workload.Base, "")
	if err != nil || cfg.Passwd != "typed" {
		t.Errorf("driver password %q, %v", cfg.Passwd, err)
	}
}
