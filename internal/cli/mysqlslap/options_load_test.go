package mysqlslap

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/goslap/goslap/internal/getopt"
)

// loadOptionNames are the names the issue asks for; TestLoadOptionNames keeps
// them in goslap's section, matched by full name only.
var loadOptionNames = []string{"latency", "json", "show-progress", "run-time", "warmup-time", "rate",
	"ignore-errors", "exact-count", "templates", "seed"}

// TestLoadOptionNames: goslap's options are in their own section, full-name
// only, collide with no mysqlslap name (MySQL or MariaDB, also not as a
// 3-or-more-character prefix that mysqlslap would resolve), and a mysqlslap
// prefix of three or more characters never resolves to one of them.
func TestLoadOptionNames(t *testing.T) {
	st := &parseState{opts: newOptions(), env: &Env{}, strSet: map[string]bool{}}
	table := optionTable(st)
	bySection := map[string]*optSpec{}
	for _, s := range table {
		bySection[s.Name] = s
	}
	for _, name := range loadOptionNames {
		s, ok := bySection[name]
		if !ok {
			t.Errorf("--%s missing from the option table", name)
			continue
		}
		if s.Section != sectionGoslap || !s.ExactOnly {
			t.Errorf("--%s: section %d, ExactOnly %v", name, s.Section, s.ExactOnly)
		}
	}
	for _, s := range table {
		if s.Section != sectionGoslap {
			continue
		}
		for _, m := range table {
			if m.Section == sectionGoslap {
				continue
			}
			// Neither name may be a prefix of the other: a user typing a
			// mysqlslap abbreviation must never land on a goslap option, and
			// a goslap name must not read as an abbreviation of a mysqlslap one.
			if strings.HasPrefix(getopt.Normalize(m.Name), getopt.Normalize(s.Name)) ||
				strings.HasPrefix(getopt.Normalize(s.Name), getopt.Normalize(m.Name)) {
				t.Errorf("goslap --%s and mysqlslap --%s: one is a prefix of the other", s.Name, m.Name)
			}
		}
		for _, m := range mysqlOnlyNames {
			if strings.HasPrefix(m, getopt.Normalize(s.Name)) {
				t.Errorf("goslap --%s is a prefix of MySQL's --%s", s.Name, m)
			}
		}
	}
}

func TestLoadOptionsParse(t *testing.T) {
	o, err, _ := parseForTest(t, nil, nil, "--latency", "--json=out.json", "--skip-show-progress",
		"--run-time=1m30s", "--warmup-time=2.5", "--rate=1500.5", "--ignore-errors=1146, 2013",
		"--number-of-queries=10", "--exact-count", "--templates", "--seed=42")
	if err != nil {
		t.Fatal(err)
	}
	ext := o.Ext
	if !ext.Latency || !ext.JSONSet || ext.JSON != "out.json" || ext.ShowProgress ||
		ext.RunTime != 90*time.Second || ext.WarmupTime != 2500*time.Millisecond || ext.Rate != 1500.5 ||
		!ext.Tolerates(1146) || !ext.Tolerates(2013) || ext.Tolerates(1062) || ext.IgnoreAllErrors ||
		!ext.ExactCount || !ext.Templates || ext.Seed != 42 || !ext.SeedSet {
		t.Errorf("parsed %+v", ext)
	}
	if err := checkExtensions(o); err != nil || impliesSilent(o) {
		t.Errorf("checkExtensions: %v, silent %v", err, impliesSilent(o))
	}

	o, err, _ = parseForTest(t, nil, nil, "--json", "--ignore-errors=ALL")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Ext.ShowProgress || !JSONToStdout(o) || !o.Ext.Tolerates(9999) {
		t.Errorf("defaults: %+v", o.Ext)
	}
	if err := checkExtensions(o); err != nil || !impliesSilent(o) {
		t.Errorf("bare --json must imply silent: %v %v", err, impliesSilent(o))
	}
	// Without goslap options nothing changes.
	o, err, _ = parseForTest(t, nil, nil, "-q", "select 1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Ext.Latency || o.Ext.JSONSet || o.Ext.RunTime != 0 || o.Ext.Rate != 0 || o.Ext.TolerantErrors() || o.Ext.Templates {
		t.Errorf("defaults changed: %+v", o.Ext)
	}
}

func TestLoadOptionsRejected(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--run-time=0"}, "--run-time=0: expected a duration"},
		{[]string{"--run-time=-1s"}, "--run-time=-1s"},
		{[]string{"--warmup-time=soon"}, "--warmup-time=soon"},
		{[]string{"--rate=0"}, "--rate=0"},
		{[]string{"--rate=fast"}, "--rate=fast"},
		{[]string{"--ignore-errors=1146,x"}, "--ignore-errors=1146,x"},
		{[]string{"--seed=-3"}, "--seed=-3"},
		{[]string{"--lat"}, "unknown option"}, // goslap options are never abbreviated
	} {
		_, err, stderr := parseForTest(t, nil, nil, c.args...)
		code, msg := exitCode(err)
		if code == 0 || !strings.Contains(msg+stderr, c.want) {
			t.Errorf("%v: code %d, %q %q; want %q", c.args, code, msg, stderr, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--exact-count"}, "--exact-count needs --number-of-queries"},
		{[]string{"--exact-count", "--number-of-queries=5", "--auto-generate-sql-execute-number=3"}, "cannot be combined"},
		{[]string{"--json", "--csv"}, "cannot both write to stdout"},
	} {
		o, err, _ := parseForTest(t, nil, nil, c.args...)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if err := checkExtensions(o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"30s": 30 * time.Second, "2m": 2 * time.Minute, "30": 30 * time.Second,
		"0.25": 250 * time.Millisecond, " 1h ": time.Hour} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseDuration("1e400"); err == nil {
		t.Error("overflow accepted")
	}
}

// offSamples holds a valid value for every goslap option that takes one;
// TestLoadValueOptionsSkipMeansOff fails for an option missing here, so a new
// option gets its --skip- test.
var offSamples = map[string]string{
	"json": "out.json", "run-time": "30s", "warmup-time": "5s", "rate": "100", "ignore-errors": "1146",
	"seed": "7", "sandbox": "/usr/sbin/mariadbd", "sandbox-option": "innodb_buffer_pool_size=1G",
	"target": "a:sandbox", "plot": "chart.svg", "thread-per-client-below": "8",
	"workload": "oltp_read_write", "sweep-server-option": "innodb_buffer_pool_size=1G,2G", "report-interval": "10",
	"rounds": "3", "compare-metric": "p99",
	"shard": "1/3", "start-at": "now+3s", "late-start": "fail", "run-id": "r1", "shard-wait": "30s",
	"server-pid": "1234",
}

// TestLoadValueOptionsSkipMeansOff: for goslap's own options, --skip-X and
// --disable-X switch the option off (as if never given), not "set to 0"
// (a JSON file named 0, a sandbox binary called "0"); --skip-X=0 turns it on.
func TestLoadValueOptionsSkipMeansOff(t *testing.T) {
	st := &parseState{opts: newOptions(), env: &Env{}, strSet: map[string]bool{}}
	none, err, _ := parseForTest(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range optionTable(st) {
		if spec.Section != sectionGoslap || spec.Arg == getopt.NoArg {
			continue
		}
		sample, ok := offSamples[spec.Name]
		if !ok && isWorkloadOption(spec.Option) {
			// A workload's option is recorded as given, and checked once
			// the workload is known (TestWorkloadOptionSkipMeansOff).
			sample, ok = "1", true
		}
		if !ok {
			t.Errorf("--%s takes a value but has no sample in offSamples", spec.Name)
			continue
		}
		for _, off := range []string{"--skip-" + spec.Name, "--disable-" + spec.Name, "--skip-" + spec.Name + "=1"} {
			o, err, stderr := parseForTest(t, nil, nil, "--"+spec.Name+"="+sample, off)
			if err != nil {
				t.Errorf("%s: %v %s", off, err, stderr)
				continue
			}
			if !reflect.DeepEqual(o.Ext, none.Ext) {
				t.Errorf("--%s=%s %s: own options %+v, want the defaults %+v", spec.Name, sample, off, o.Ext, none.Ext)
			}
		}
	}
	// The double negation and --enable- mean the bare option.
	o, err, _ := parseForTest(t, nil, nil, "--skip-json=0")
	if err != nil || !JSONToStdout(o) {
		t.Errorf("--skip-json=0: %v, JSON %q set %v", err, o.Ext.JSON, o.Ext.JSONSet)
	}
	o, err, _ = parseForTest(t, nil, nil, "--enable-sandbox")
	if err != nil || !o.Ext.Sandbox.SandboxSet || o.Ext.Sandbox.Sandbox != "" {
		t.Errorf("--enable-sandbox: %v, %+v", err, o.Ext.Sandbox)
	}
	_, err, _ = parseForTest(t, nil, nil, "--enable-rate")
	if code, msg := exitCode(err); code != getopt.ExitArgumentRequired || msg != "goslap: option '--rate' requires an argument" {
		t.Errorf("--enable-rate: %d %q", code, msg)
	}
}
