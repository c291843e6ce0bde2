package mysqlslap

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/optfile"
)

// Env is everything ParseCommandLine takes from the process, injectable for tests.
type Env struct {
	// Getenv reads an environment variable ("" when unset). LookupEnv, when
	// set, is preferred: it tells MYSQL_PWD= (empty password) from unset.
	Getenv    func(string) string
	LookupEnv func(string) (string, bool)

	Stdin  io.Reader
	Stdout io.Writer // --help, --version, --print-defaults
	Stderr io.Writer // Info:/Warning: lines and errors printed as they happen

	// ReadPassword shows prompt on the terminal and reads a line without echo.
	// It returns ErrNoTerminal when there is no terminal to prompt on.
	ReadPassword func(prompt string) (string, error)

	HomeDir  string // for ~/.my.cnf
	UserName string // OS account name: the default --user (not $USER)

	// DefaultFiles are the option files read in order when no --defaults-file
	// is given; "~/" means HomeDir. nil means DefaultOptionFiles(Getenv). The
	// --defaults-extra-file is read before the first "~/" entry.
	DefaultFiles []string
}

// ErrNoTerminal is returned by Env.ReadPassword when nothing can be prompted on.
var ErrNoTerminal = errors.New("no terminal")

// DefaultEnv is the Env of the running process.
func DefaultEnv() Env {
	env := Env{
		Getenv: os.Getenv, LookupEnv: os.LookupEnv,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		ReadPassword: readPasswordFromTerminal,
	}
	if home, err := os.UserHomeDir(); err == nil {
		env.HomeDir = home
	}
	if u, err := user.Current(); err == nil {
		env.UserName = u.Username
	}
	return env
}

// DefaultOptionFiles is MariaDB's search list (spec 1.5): the global files,
// $MARIADB_HOME/my.cnf (or $MYSQL_HOME/my.cnf) when set, then ~/.my.cnf.
func DefaultOptionFiles(getenv func(string) string) []string {
	files := []string{"/etc/my.cnf", "/etc/mysql/my.cnf"}
	home := getenv("MARIADB_HOME")
	if home == "" {
		home = getenv("MYSQL_HOME")
	}
	if home != "" {
		files = append(files, filepath.Join(home, "my.cnf"))
	}
	return append(files, "~/.my.cnf")
}

// optionGroups are the option-file groups mariadb-slap reads, plus goslap's.
var optionGroups = []string{"mysqlslap", "mariadb-slap", "client", "client-server", "client-mariadb", "goslap"}

// defaultsArgs are the "defaults" options, recognised only at the start of argv.
type defaultsArgs struct {
	noDefaults    bool
	file          string
	extraFile     string
	groupSuffix   string
	hasSuffix     bool
	printDefaults bool
	loginPath     string
	noLoginPaths  bool
}

// scanDefaultsArgs mirrors my_default.c's get_defaults_options: --no-defaults
// only as the first word, otherwise each of --defaults-file=,
// --defaults-extra-file=, --defaults-group-suffix= at most once, then
// --print-defaults. It returns how many words it consumed.
func scanDefaultsArgs(args []string) (defaultsArgs, int) {
	var d defaultsArgs
	i := 0
	if len(args) > 0 && args[0] == "--no-defaults" {
		d.noDefaults = true
		i++
	} else {
		for ; i < len(args); i++ {
			a := args[i]
			switch {
			case d.file == "" && strings.HasPrefix(a, "--defaults-file="):
				d.file = a[len("--defaults-file="):]
			case d.extraFile == "" && strings.HasPrefix(a, "--defaults-extra-file="):
				d.extraFile = a[len("--defaults-extra-file="):]
			case !d.hasSuffix && strings.HasPrefix(a, "--defaults-group-suffix="):
				d.groupSuffix, d.hasSuffix = a[len("--defaults-group-suffix="):], true
			case d.loginPath == "" && strings.HasPrefix(a, "--login-path="):
				// MySQL only: read [NAME] (and the usual groups) from ~/.mylogin.cnf.
				d.loginPath = a[len("--login-path="):]
			case !d.noLoginPaths && a == "--no-login-paths":
				d.noLoginPaths = true
			default:
				goto done
			}
		}
	}
done:
	if i < len(args) && args[i] == "--print-defaults" {
		d.printDefaults = true
		i++
	}
	return d, i
}

func (env *Env) lookup(name string) (string, bool) {
	if env.LookupEnv != nil {
		return env.LookupEnv(name)
	}
	if env.Getenv == nil {
		return "", false
	}
	v := env.Getenv(name)
	return v, v != ""
}

func (env *Env) getenv(name string) string {
	v, _ := env.lookup(name)
	return v
}

func (env *Env) defaultFiles() []string {
	if env.DefaultFiles != nil {
		return env.DefaultFiles
	}
	return DefaultOptionFiles(env.getenv)
}

func (env *Env) expandHome(path string) string {
	if strings.HasPrefix(path, "~/") {
		return filepath.Join(env.HomeDir, path[2:])
	}
	return path
}

// absPath makes a --defaults-file name absolute, as mariadb-slap reports it.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// readOptionFiles returns the words of every option file to read, in order.
func readOptionFiles(d defaultsArgs, env *Env) (words []string, err error) {
	suffix := d.groupSuffix
	if !d.hasSuffix {
		suffix = env.getenv("MYSQL_GROUP_SUFFIX")
	}
	r := &optfile.Reader{Groups: optfile.Groups(optionGroups, suffix), Stderr: env.Stderr, Prog: ProgName}
	if d.loginPath != "" && !d.noLoginPaths {
		// Unlike MySQL, ~/.mylogin.cnf is read only when --login-path asks for
		// it, so that a plain command line behaves as mariadb-slap.
		defer func() {
			if err != nil {
				return
			}
			lr := &optfile.Reader{Groups: optfile.Groups(append(append([]string(nil), optionGroups...), d.loginPath), suffix), Stderr: env.Stderr}
			var lw []string
			lw, err = lr.ReadLoginFile(env.expandHome("~/.mylogin.cnf"))
			words = append(words, lw...)
		}()
	}
	if d.file != "" {
		// Observed: with --defaults-file, a --defaults-extra-file is ignored.
		return r.ReadFile(absPath(d.file), true)
	}
	extraDone := d.extraFile == ""
	readExtra := func() error {
		extraDone = true
		w, err := r.ReadFile(absPath(d.extraFile), true)
		words = append(words, w...)
		return err
	}
	for _, f := range env.defaultFiles() {
		if !extraDone && strings.HasPrefix(f, "~/") {
			if err := readExtra(); err != nil {
				return nil, err
			}
		}
		w, err := r.ReadFile(env.expandHome(f), false)
		if err != nil {
			return nil, err
		}
		words = append(words, w...)
	}
	if !extraDone {
		if err := readExtra(); err != nil {
			return nil, err
		}
	}
	return words, nil
}

// newOptions returns Options with mysqlslap's compiled-in defaults (those the
// variables table of --help shows before any option is read).
func newOptions() *Options {
	return &Options{
		LoadType:       "mixed",
		UniqueQueryNum: 10,
		UniqueWriteNum: 10,
		WriteNumber:    100,
		Delimiter:      "\n",
		Iterations:     1,
		CreateSchema:   "mysqlslap",
		Port:           3306,
		SSL:            true,
	}
}

// ParseCommandLine reads option files and argv (argv[0] excluded) the way
// mariadb-slap does. It returns the resolved options, which Validate then
// checks (ParseCommandLine refuses only what the option parser itself
// refuses: names, values, option files), or an action that ends
// the program now: an *ExitError (Code 0 with empty Msg after --help,
// --version or --print-defaults, which have printed to env.Stdout). Info and
// Warning lines are written to env.Stderr as they happen; an ExitError's Msg
// holds the error lines not yet written (it may be empty when they were).
func ParseCommandLine(args []string, env Env) (*Options, error) {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	d, n := scanDefaultsArgs(args)
	rest := args[n:]

	var fileWords []string
	if !d.noDefaults {
		var err error
		if fileWords, err = readOptionFiles(d, &env); err != nil {
			var fe *optfile.Error
			if errors.As(err, &fe) {
				return nil, &ExitError{Code: 1, Msg: fe.Msg}
			}
			return nil, exitWith(err)
		}
	}
	if d.printDefaults {
		printDefaults(env.Stdout, append(append([]string(nil), fileWords...), rest...))
		return nil, &ExitError{Code: 0}
	}

	st := &parseState{opts: newOptions(), env: &env, strSet: map[string]bool{}}
	table := optionTable(st)
	opts := make([]*getopt.Option, len(table))
	for i, t := range table {
		opts[i] = t.Option
	}
	parser := getopt.NewParser(ProgName, opts, env.Stderr)
	st.help = func() error {
		parser.Flush()
		printHelp(env.Stdout, table, &env, d)
		return &ExitError{Code: 0}
	}
	if err := parser.Parse(fileWords, true); err != nil {
		return nil, toExitError(err)
	}
	if err := parser.Parse(rest, false); err != nil {
		return nil, toExitError(err)
	}
	if err := parser.Finish(); err != nil {
		return nil, toExitError(err)
	}
	o := st.opts
	o.Args = parser.Positional

	st.finish()
	// The document's record: the values the table just filled, read
	// through the table that filled them.
	o.record = recordOptions(table, o)
	return o, nil
}

// finish applies what mysqlslap applies after the option parser: the
// defaults its help table shows unset, and the values taken from the
// environment. Every check comes later, in Validate.
func (st *parseState) finish() {
	o, env := st.opts, st.env
	// Defaults mysqlslap applies after parsing (the help table shows them unset).
	if !st.strSet["concurrency"] {
		o.Concurrency = "1"
	}
	if !st.strSet["number-char-cols"] {
		o.NumberCharCols = "1"
	}
	if !st.strSet["number-int-cols"] {
		o.NumberIntCols = "1"
	}
	if !o.PasswordSet {
		// A bare -p still prompts (Validate) and the typed password wins.
		if pw, ok := env.lookup("MYSQL_PWD"); ok {
			o.Password, o.PasswordSet = pw, true
		}
	}
	if o.Socket == "" {
		o.Socket = env.getenv("MYSQL_UNIX_PORT")
	}
	if !st.strSet["user"] {
		o.User = env.UserName
	}
}

func toExitError(err error) error {
	var ge *getopt.Error
	if errors.As(err, &ge) {
		return &ExitError{Code: ge.Code, Msg: ge.Msg}
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee
	}
	return exitWith(err)
}

// printDefaults is --print-defaults: the words the program would run with,
// each followed by a space, passwords masked (spec 8: goslap never prints them).
func printDefaults(w io.Writer, words []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s would have been started with the following arguments:\n", ProgName)
	for _, word := range words {
		b.WriteString(maskPassword(word))
		b.WriteByte(' ')
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
