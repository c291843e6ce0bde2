package mysqlslap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/optfile"
	"github.com/goslap/goslap/sqlgen"
)

// frontEndForTest runs ParseCommandLine and Validate with --no-defaults and
// a fake env.
func frontEndForTest(t *testing.T, vars map[string]string, pw func(string) (string, error), args ...string) (*Config, error) {
	c, _, err := validatedForTest(t, vars, pw, args...)
	return c, err
}

// validatedForTest is frontEndForTest with the options Validate checked
// (the prompted password included).
func validatedForTest(t *testing.T, vars map[string]string, pw func(string) (string, error), args ...string) (*Config, *Options, error) {
	t.Helper()
	env, _, _ := testEnv(t.TempDir(), vars)
	if pw != nil {
		env.ReadPassword = pw
	}
	o, err := ParseCommandLine(append([]string{"--no-defaults"}, args...), env)
	if err != nil {
		return nil, nil, err
	}
	c, opts, err := validate(o, env)
	if err == nil {
		t.Cleanup(func() { c.Close() })
	}
	return c, opts, err
}

// parseForTest runs ParseCommandLine with --no-defaults and a fake env.
func parseForTest(t *testing.T, vars map[string]string, pw func(string) (string, error), args ...string) (*Options, error, string) {
	t.Helper()
	env, _, stderr := testEnv(t.TempDir(), vars)
	if pw != nil {
		env.ReadPassword = pw
	}
	o, err := ParseCommandLine(append([]string{"--no-defaults"}, args...), env)
	return o, err, stderr.String()
}

func exitCode(err error) (int, string) {
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, ee.Msg
	}
	if err != nil {
		return -1, err.Error()
	}
	return 0, ""
}

func TestParseCommandLineGoslapBehaviour(t *testing.T) {
	noTTY := func(string) (string, error) { return "", ErrNoTerminal }
	tty := func(prompt string) (string, error) {
		if prompt != "Enter password: " {
			return "", errors.New("wrong prompt " + prompt)
		}
		return "typed", nil
	}
	tests := []struct {
		name    string
		vars    map[string]string
		pw      func(string) (string, error)
		args    []string
		wantRC  int
		wantMsg string // substring of the ExitError message
		check   func(*testing.T, *Options)
		// checkConfig checks the validated configuration.
		checkConfig func(*testing.T, *Config)
	}{
		{name: "iterations zero rejected", args: []string{"--iterations=0"}, wantRC: 1,
			wantMsg: "goslap: --iterations must be at least 1 (mysqlslap would print a report of zeros)"},
		{name: "empty iterations rejected", args: []string{"--iterations="}, wantRC: 1, wantMsg: "--iterations must be at least 1"},
		{name: "empty delimiter rejected", args: []string{"--delimiter="}, wantRC: 1, wantMsg: "goslap: --delimiter must not be empty"},
		{name: "bare -p without terminal", pw: noTTY, args: []string{"-p"}, wantRC: 1,
			wantMsg: "goslap: --password without a value needs a terminal to prompt on; use --password=SECRET or MYSQL_PWD"},
		{name: "bare --password prompts", pw: tty, args: []string{"--password"},
			check: func(t *testing.T, o *Options) {
				if o.Password != "typed" || !o.PasswordSet {
					t.Errorf("password %q set %v", o.Password, o.PasswordSet)
				}
			}},
		{name: "-p SECRET prompts and keeps a positional word", pw: tty, args: []string{"-p", "SECRET"},
			check: func(t *testing.T, o *Options) {
				if o.Password != "typed" || len(o.Args) != 1 || o.Args[0] != "SECRET" {
					t.Errorf("password %q args %q", o.Password, o.Args)
				}
			}},
		{name: "-pSECRET", pw: noTTY, args: []string{"-pSECRET"},
			check: func(t *testing.T, o *Options) {
				if o.Password != "SECRET" || !o.PasswordSet {
					t.Errorf("password %q", o.Password)
				}
			}},
		{name: "--password= is an empty password", pw: noTTY, args: []string{"--password="},
			check: func(t *testing.T, o *Options) {
				if o.Password != "" || !o.PasswordSet {
					t.Errorf("password %q set %v", o.Password, o.PasswordSet)
				}
			}},
		{name: "MYSQL_PWD used when no option", vars: map[string]string{"MYSQL_PWD": "envpw"},
			check: func(t *testing.T, o *Options) {
				if o.Password != "envpw" || !o.PasswordSet {
					t.Errorf("password %q", o.Password)
				}
			}},
		{name: "empty MYSQL_PWD is an empty password", vars: map[string]string{"MYSQL_PWD": ""},
			check: func(t *testing.T, o *Options) {
				if !o.PasswordSet {
					t.Error("MYSQL_PWD= not taken")
				}
			}},
		{name: "option beats MYSQL_PWD", vars: map[string]string{"MYSQL_PWD": "envpw"}, args: []string{"-popt"},
			check: func(t *testing.T, o *Options) {
				if o.Password != "opt" {
					t.Errorf("password %q", o.Password)
				}
			}},
		{name: "MYSQL_UNIX_PORT", vars: map[string]string{"MYSQL_UNIX_PORT": "/env.sock"},
			check: func(t *testing.T, o *Options) {
				if o.Socket != "/env.sock" {
					t.Errorf("socket %q", o.Socket)
				}
			}},
		{name: "defaults after parsing", check: func(t *testing.T, o *Options) {
			if o.Concurrency != "1" || o.NumberCharCols != "1" || o.NumberIntCols != "1" || o.User != "osuser" ||
				o.Iterations != 1 || o.Port != 3306 || !o.SSL || o.Delimiter != "\n" || o.CreateSchema != "mysqlslap" || o.Protocol != "" {
				t.Errorf("defaults: %+v", o)
			}
		}},
		{name: "-S then -P is TCP", args: []string{"-S", "/s", "-P", "1"}, check: wantProtocol("TCP")},
		{name: "-P then -S is SOCKET", args: []string{"-P", "1", "-S", "/s"}, check: wantProtocol("SOCKET")},
		{name: "--protocol prefix", args: []string{"-P", "1", "--protocol=pi"}, check: wantProtocol("PIPE")},
		{name: "csv implies silent, dash means stdout", args: []string{"--csv=-x"}, checkConfig: func(t *testing.T, c *Config) {
			if !c.Outputs.CSVStdout || !c.Silent || c.OptionRecord["silent"] != false {
				t.Errorf("csv to stdout %v, silent %v (option %v)", c.Outputs.CSVStdout, c.Silent, c.OptionRecord["silent"])
			}
		}},
		{name: "statement flags", args: []string{"--create=c", "-q", "q", "--pre-query=p", "--post-query=pp", "-e", "innodb"},
			check: func(t *testing.T, o *Options) {
				if !o.CreateSet || !o.QuerySet || !o.PreQuerySet || !o.PostQuerySet || !o.EngineSet {
					t.Errorf("%+v", o)
				}
			}},
		{name: "ssl-ca implies ssl", args: []string{"--skip-ssl", "--ssl-ca=x"}, check: func(t *testing.T, o *Options) {
			if !o.SSL {
				t.Error("ssl off")
			}
		}},
		{name: "verbose counts", args: []string{"-vvv", "--verbose", "-v"}, check: func(t *testing.T, o *Options) {
			if o.Verbose != 5 {
				t.Errorf("verbose %d", o.Verbose)
			}
		}},
		{name: "too many arguments", args: []string{"a", "b", "c"}, wantRC: 1, wantMsg: "goslap: Too many arguments"},
		{name: "two positional words are fine", args: []string{"a", "b"}},
		{name: "mysql sql_mode", args: []string{"--sql_mode=ANSI", "--ssl-mode=verify_ca", "--get-server-public-key",
			"--server-public-key-path=/k.pem", "--compression-algorithms=zlib,uncompressed", "--tls-ciphersuites=X", "--enable-cleartext-plugin"},
			check: func(t *testing.T, o *Options) {
				if o.SQLMode != "ANSI" || !o.SQLModeSet || o.SSLMode != "VERIFY_CA" || !o.GetServerPublicKey ||
					o.ServerPublicKeyPath != "/k.pem" || o.CompressionAlgorithms != "zlib,uncompressed" ||
					o.TLSCipherSuites != "X" || !o.EnableCleartextPlugin {
					t.Errorf("%+v", o)
				}
			}},
		{name: "bad ssl-mode", args: []string{"--ssl-mode=bogus"}, wantRC: 1, wantMsg: "Unknown option to ssl-mode: bogus"},
		{name: "zstd refused", args: []string{"--compression-algorithms=zstd"}, wantRC: 1, wantMsg: "is not supported by goslap"},
		{name: "fips refused", args: []string{"--ssl-fips-mode=ON"}, wantRC: 1,
			wantMsg: "goslap: option '--ssl-fips-mode' is not supported by goslap: "},
		{name: "password1 refused", args: []string{"--password1=x"}, wantRC: 1, wantMsg: "option '--password1' is not supported"},
		{name: "mysql option not matched by prefix", args: []string{"--ssl-mod=x"}, wantRC: 7, wantMsg: "goslap: unknown variable 'ssl-mod=x'"},
		// Issue 15: where mysqlslap silently guesses, goslap says no.
		{name: "unknown load type refused (mysqlslap runs mixed)", args: []string{"-a", "--auto-generate-sql-load-type=READ"}, wantRC: 1,
			wantMsg: "goslap: --auto-generate-sql-load-type=READ: unknown load type; use mixed, update, write, key or read"},
		{name: "load type word not matching a type refused", args: []string{"-a", "--auto-generate-sql-load-type=reads"}, wantRC: 1,
			wantMsg: "unknown load type"},
		{name: "empty load type refused with -a", args: []string{"-a", "--auto-generate-sql-load-type="}, wantRC: 1, wantMsg: "unknown load type"},
		{name: "load type prefix accepted", args: []string{"-a", "--auto-generate-sql-load-type=upd"}},
		{name: "load type is only a CSV label without -a", args: []string{"-q", "select 1", "--auto-generate-sql-load-type=nightly"}},
		{name: "suffix overflow is out of range (mysqlslap wraps to 0)", args: []string{"--iterations=16E"}, wantRC: 13,
			wantMsg: "Integer value out of range for uint64: '16E' for iterations\ngoslap: Error while setting value '16E' to 'iterations'"},
		{name: "suffix overflow of a 64-bit option", args: []string{"--number-of-queries=17E"}, wantRC: 13,
			wantMsg: "Integer value out of range for uint64: '17E' for number-of-queries"},
		{name: "largest suffix value still fits", args: []string{"--number-of-queries=15E", "-q", "select 1"}, check: func(t *testing.T, o *Options) {
			if o.NumberOfQueries != 15<<60 {
				t.Errorf("number-of-queries %d", o.NumberOfQueries)
			}
		}},
		{name: "--csv= names no file", args: []string{"--csv="}, wantRC: 1,
			wantMsg: "goslap: Could not open csv file: --csv= names no file (--csv alone writes to stdout)"},
		{name: "--plot= names no file", args: []string{"--plot="}, wantRC: 1,
			wantMsg: "goslap: --plot= names no file; give a file name ending in .svg, .png or .pdf"},
		{name: "--json= names no file", args: []string{"--json="}, wantRC: 1, wantMsg: "goslap: --json= names no file"},
		{name: "en dash pasted for --", args: []string{"\u2013concurrency=50"}, wantRC: 2,
			wantMsg: "goslap: '\u2013concurrency=50' starts with an en dash (U+2013), not '-': did you mean --concurrency=50?"},
		{name: "em dash pasted for --", args: []string{"\u2014number-of-queries=1000"}, wantRC: 2,
			wantMsg: "goslap: '\u2014number-of-queries=1000' starts with an em dash (U+2014), not '-': did you mean --number-of-queries=1000?"},
		{name: "en dash pasted for -", args: []string{"\u2013c", "50"}, wantRC: 2,
			wantMsg: "goslap: '\u2013c' starts with an en dash (U+2013), not '-': did you mean -c?"},
		{name: "no-break space between two options", args: []string{"-a", "--concurrency=50\u00a0--iterations=3"}, wantRC: 13,
			wantMsg: "goslap: the value of --concurrency contains a no-break space (U+00A0), as pasted from a web page or document: did you mean --concurrency=50 --iterations=3?"},
		{name: "combination checks run before too many arguments", args: []string{"-a", "-q", "x", "a", "b", "c"}, wantRC: 1,
			wantMsg: "Can't use --auto-generate-sql when create and query strings are specified!"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, o, err := validatedForTest(t, tc.vars, tc.pw, tc.args...)
			rc, msg := exitCode(err)
			if rc != tc.wantRC || !strings.Contains(msg, tc.wantMsg) {
				t.Fatalf("rc %d msg %q, want rc %d msg containing %q", rc, msg, tc.wantRC, tc.wantMsg)
			}
			if tc.check != nil {
				tc.check(t, o)
			}
			if tc.checkConfig != nil {
				tc.checkConfig(t, c)
			}
		})
	}
}

func wantProtocol(p string) func(*testing.T, *Options) {
	return func(t *testing.T, o *Options) {
		if o.Protocol != p {
			t.Errorf("protocol %q, want %q", o.Protocol, p)
		}
	}
}

func TestCheckCombinationOrder(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		{Options{AutoGenerateSQL: true, CreateSet: true, GUIDPrimary: true, AddAutoIncrement: true}, "Can't use --auto-generate-sql"},
		{Options{AutoGenerateSQL: true, GUIDPrimary: true, AddAutoIncrement: true, LoadType: "key"}, "Either auto-generate-sql-guid-primary"},
		{Options{AutoGenerateSQL: true, LoadType: "key", NumberOfQueries: 1, ExecuteNumber: 1}, "Can't perform key test"},
		{Options{AutoGenerateSQL: true, LoadType: "mixed", NumberOfQueries: 1, ExecuteNumber: 1}, "Either auto-generate-sql-execute-number"},
		{Options{AutoGenerateSQL: false, CreateSet: true, QuerySet: true, NumberOfQueries: 1, ExecuteNumber: 1}, ""},
		{Options{AutoGenerateSQL: true, LoadType: "Key"}, ""}, // only a lower-case k means key
	}
	for _, tc := range tests {
		err := sqlgen.CheckCombination(planConfig(&tc.o))
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestOptionFileSourcesAndOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	global := write("global.cnf", "[client]\nport=1111\nsocket=/file.sock\n[goslap]\ncreate-schema=g\n")
	write(".my.cnf", "[mysqlslap]\npassword=home\n")
	extra := write("extra.cnf", "[client-mariadb]\nport=2222\n")
	env, stdout, _ := testEnv(dir, nil)
	env.HomeDir = dir
	env.DefaultFiles = []string{global, "~/.my.cnf"}

	o, err := ParseCommandLine([]string{"--defaults-extra-file=" + extra, "-i", "2"}, env)
	if err != nil {
		t.Fatal(err)
	}
	// Port and socket from files do not choose the protocol (spec 1.7).
	if o.Port != 2222 || o.Socket != "/file.sock" || o.Protocol != "" || o.CreateSchema != "g" || o.Password != "home" || o.Iterations != 2 {
		t.Errorf("%+v", o)
	}

	_, err = ParseCommandLine([]string{"--defaults-extra-file=" + extra, "--print-defaults", "-pX"}, env)
	if rc, _ := exitCode(err); rc != 0 {
		t.Fatalf("print-defaults: %v", err)
	}
	want := "goslap would have been started with the following arguments:\n" +
		"--port=1111 --socket=/file.sock --create-schema=g --port=2222 --password=***** -p***** \n"
	if stdout.String() != want {
		t.Errorf("print-defaults:\n%q\nwant\n%q", stdout.String(), want)
	}
}

func TestRealMyCnfReadsCleanly(t *testing.T) {
	if _, err := os.Stat("/etc/mysql/my.cnf"); err != nil {
		t.Skip("no /etc/mysql/my.cnf")
	}
	env, _, stderr := testEnv(t.TempDir(), nil)
	env.DefaultFiles = []string{"/etc/my.cnf", "/etc/mysql/my.cnf"}
	if _, err := ParseCommandLine(nil, env); err != nil {
		t.Fatalf("%v (stderr %q)", err, stderr)
	}
}

func TestMaskPassword(t *testing.T) {
	for in, want := range map[string]string{
		"--password=x": "--password=*****", "--loose-password=x": "--loose-password=*****",
		"--pass=x": "--pass=*****", "--password2=y": "--password2=*****", "-psecret": "-p*****",
		"-p": "-p", "--port=1": "--port=1", "--password": "--password", "--plugin-dir=/p": "--plugin-dir=/p",
	} {
		if got := maskPassword(in); got != want {
			t.Errorf("maskPassword(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPrefixesSurviveExtraOptions: every prefix (length >= 3) that is unique
// among mariadb-slap's options must resolve to the same option when the
// MySQL-only and goslap options are in the table, and no goslap option may
// reuse a MySQL or MariaDB mysqlslap name.
func TestPrefixesSurviveExtraOptions(t *testing.T) {
	st := &parseState{opts: newOptions(), env: &Env{}, strSet: map[string]bool{}}
	table := optionTable(st)
	var mariadb, all []*getopt.Option
	names := map[string]optSection{}
	for _, s := range table {
		all = append(all, s.Option)
		if s.Section == sectionMariaDB {
			mariadb = append(mariadb, s.Option)
		}
		n := getopt.Normalize(s.Name)
		if prev, dup := names[n]; dup {
			t.Errorf("option name %q appears twice (sections %d and %d)", n, prev, s.Section)
		}
		names[n] = s.Section
	}
	for _, s := range table {
		if s.Section != sectionGoslap {
			continue
		}
		for _, m := range mysqlOnlyNames {
			if getopt.Normalize(s.Name) == m {
				t.Errorf("goslap option --%s collides with MySQL's --%s", s.Name, m)
			}
		}
		for _, sp := range []string{"skip-", "disable-", "enable-", "maximum-", "loose-", "autoset-"} {
			if strings.HasPrefix(s.Name, sp) {
				t.Errorf("goslap option --%s starts with my_getopt's special prefix %q", s.Name, sp)
			}
		}
	}
	resolve := func(opts []*getopt.Option, word string) string {
		var got string
		p := getopt.NewParser("t", opts, &strings.Builder{})
		for _, o := range opts {
			o := o
			old := o.Hook
			o.Hook = func(getopt.Setting) error { got = o.Name; return nil }
			defer func() { o.Hook = old }()
		}
		_ = p.Parse([]string{"--" + word + "=1"}, false)
		return got
	}
	for _, o := range mariadb {
		for l := 3; l <= len(o.Name); l++ {
			prefix := o.Name[:l]
			want := resolve(mariadb, prefix)
			if want == "" {
				continue // ambiguous among MariaDB options: nothing to preserve
			}
			if got := resolve(all, prefix); got != want {
				t.Errorf("--%s: %q with MariaDB options only, %q with the full table", prefix, want, got)
			}
		}
	}
}

func TestLoginPath(t *testing.T) {
	dir := t.TempDir()
	key := [20]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	data := optfile.EncodeLoginFile(key, []string{"[client]\n", "user = lpuser\n", "[mypath]\n", "host = lphost\n", "password = lppw\n", "[other]\n", "host = no\n"})
	if err := os.WriteFile(filepath.Join(dir, ".mylogin.cnf"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	env, _, _ := testEnv(dir, nil)
	env.HomeDir = dir
	env.DefaultFiles = []string{}
	o, err := ParseCommandLine([]string{"--login-path=mypath", "-i", "2"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if o.User != "lpuser" || o.Host != "lphost" || o.Password != "lppw" || o.Iterations != 2 {
		t.Errorf("%+v", o)
	}
	o, err = ParseCommandLine([]string{"--login-path=mypath", "--no-login-paths"}, env)
	if err != nil || o.Host != "" {
		t.Errorf("--no-login-paths: %v %+v", err, o)
	}
	if err := os.WriteFile(filepath.Join(dir, ".mylogin.cnf"), []byte("garbage that is long enough to have a header"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseCommandLine([]string{"--login-path=mypath"}, env); err == nil {
		t.Error("corrupt .mylogin.cnf accepted")
	}
}
