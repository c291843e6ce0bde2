package tpccmysql

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/workload/tpcc"
)

// Config is one command line of tpcc_load or tpcc_start.
type Config struct {
	Command string // "tpcc-load", "tpcc-start", "tpcc-check", "tpcc-cleanup"

	Host, User, Password, DB, Socket string
	Port                             int

	Warehouses  int // -w
	Connections int // -c (tpcc-start); --connections (tpcc-load's parallel load)
	Rampup      int // -r, seconds
	Measure     int // -l, seconds
	Interval    int // -i, seconds; 0 = no interval lines

	// Check runs the consistency check after the load or the run
	// (--check, goslap's).
	Check bool
	Help  bool

	// ServerReport (--server-report, tpcc-start) samples the server's
	// counters, its process's CPU and IO and the host's CPU over the
	// measured time, on a connection of its own, and prints the Server:
	// lines after the report; ServerPID (--server-pid=N) names the
	// server's process when goslap cannot find it; ServerMetricsOff
	// (--skip-server-metrics) is refused beside --server-report.
	ServerReport     bool
	ServerPID        int
	ServerMetricsOff bool

	set map[byte]bool // letters given
}

// letters are the option letters each command takes, all with a value as
// in tpcc-mysql's getopt strings; the ones goslap cannot honour are
// listed in refused.
var letters = map[string]string{
	"tpcc-load":    "hPdupwlmnS",
	"tpcc-start":   "hPdupwcrlifSmot01234",
	"tpcc-check":   "hPdupS",
	"tpcc-cleanup": "hPdupS",
}

// refused are options goslap accepts from tpcc-mysql's command lines but
// cannot honour: using one is an error that says why.
var refused = map[string]map[byte]string{
	"tpcc-load": {
		'l': "-l (load one part) cannot be honoured: goslap tpcc-load loads every part at once, in parallel",
		'm': "-m (first warehouse) cannot be honoured: goslap tpcc-load loads warehouses 1..-w at once, in parallel",
		'n': "-n (last warehouse) cannot be honoured: goslap tpcc-load loads warehouses 1..-w at once, in parallel",
	},
	"tpcc-start": {
		'f': "-f (report file) cannot be honoured: goslap prints the report on standard output",
		't': "-t (transaction file) cannot be honoured: goslap keeps per-transaction times in histograms, not a file",
		'm': "-m/-o (multi-schema) cannot be honoured: goslap runs on one schema",
		'o': "-m/-o (multi-schema) cannot be honoured: goslap runs on one schema",
		'0': "-0..-4 (response-time limits) cannot be honoured: goslap applies TPC-C's 5/5/5/80/20 s to elapsed time",
		'1': "-0..-4 (response-time limits) cannot be honoured: goslap applies TPC-C's 5/5/5/80/20 s to elapsed time",
		'2': "-0..-4 (response-time limits) cannot be honoured: goslap applies TPC-C's 5/5/5/80/20 s to elapsed time",
		'3': "-0..-4 (response-time limits) cannot be honoured: goslap applies TPC-C's 5/5/5/80/20 s to elapsed time",
		'4': "-0..-4 (response-time limits) cannot be honoured: goslap applies TPC-C's 5/5/5/80/20 s to elapsed time",
	},
}

// Parse reads a command's words the way getopt(3) does for tpcc-mysql's
// option strings (every letter takes a value: "-w 10" or "-w10"; "--"
// ends the options), plus goslap's long options --check,
// --connections=N (tpcc-load) and --help.
func Parse(command string, args []string) (*Config, error) {
	allowed, ok := letters[command]
	if !ok {
		return nil, fmt.Errorf("unknown command '%s'", command)
	}
	c := &Config{Command: command, Host: "localhost", Port: 3306, User: "root", Interval: 10, set: map[byte]bool{}}
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			if i+1 < len(args) {
				return nil, fmt.Errorf("unexpected argument '%s'", args[i+1])
			}
			i = len(args)
			continue
		case strings.HasPrefix(w, "--"):
			if err := c.long(w[2:]); err != nil {
				return nil, err
			}
			continue
		case len(w) < 2 || w[0] != '-':
			return nil, fmt.Errorf("unexpected argument '%s'", w)
		}
		letter := w[1]
		if strings.IndexByte(allowed, letter) < 0 {
			return nil, fmt.Errorf("invalid option -- '%c'", letter)
		}
		v := w[2:]
		if v == "" {
			if i+1 == len(args) {
				return nil, fmt.Errorf("option requires an argument -- '%c'", letter)
			}
			i++
			v = args[i]
		}
		if msg, ok := refused[command][letter]; ok {
			return nil, fmt.Errorf("%s", msg)
		}
		if err := c.set1(letter, v); err != nil {
			return nil, err
		}
	}
	if c.Help {
		return c, nil
	}
	return c, c.validate()
}

func (c *Config) long(body string) error {
	name, v, hasValue := strings.Cut(body, "=")
	switch {
	case name == "help" && !hasValue:
		c.Help = true
	case name == "check" && !hasValue:
		c.Check = true
	case name == "skip-check" && !hasValue:
		c.Check = false
	case name == "connections" && c.Command == "tpcc-load":
		if !hasValue {
			return fmt.Errorf("option '--connections' requires a value")
		}
		n, err := positive("--connections", v)
		if err != nil {
			return err
		}
		c.Connections = n
	case c.Command == "tpcc-start" && !hasValue && (name == "server-report" || name == "skip-server-report"):
		c.ServerReport = name == "server-report"
	case c.Command == "tpcc-start" && !hasValue && (name == "server-metrics" || name == "skip-server-metrics"):
		c.ServerMetricsOff = name == "skip-server-metrics"
	case c.Command == "tpcc-start" && name == "server-pid":
		if !hasValue {
			return fmt.Errorf("option '--server-pid' requires a value")
		}
		n, err := positive("--server-pid", v)
		if err != nil {
			return err
		}
		c.ServerPID = n
	default:
		return fmt.Errorf("unrecognized option '--%s'", body)
	}
	return nil
}

func (c *Config) set1(letter byte, v string) error {
	c.set[letter] = true
	var err error
	switch letter {
	case 'h':
		c.Host = v
	case 'P':
		c.Port, err = wholeNumber("-P", v, "the TCP port", 1, 65535)
	case 'd':
		c.DB = v
	case 'u':
		c.User = v
	case 'p':
		c.Password = v
	case 'S':
		c.Socket = v
	case 'w':
		c.Warehouses, err = wholeNumber("-w", v, "the number of warehouses", 1, tpcc.MaxWarehouses)
	case 'c':
		c.Connections, err = wholeNumber("-c", v, "the number of connections", 1, math.MaxInt32)
	case 'r':
		c.Rampup, err = wholeNumber("-r", v, "the ramp-up time (seconds)", 0, math.MaxInt32)
	case 'l':
		c.Measure, err = wholeNumber("-l", v, "the measure time (seconds)", 1, math.MaxInt32)
	case 'i':
		c.Interval, err = wholeNumber("-i", v, "the report interval (seconds; 0: none)", 0, math.MaxInt32)
	}
	return err
}

// wholeNumber reads a letter option's whole number in [lo, hi]; the message
// says the range that is accepted, and a list (-w 1,2) that one number is.
func wholeNumber(opt, v, what string, lo, hi int) (int, error) {
	if strings.Contains(v, ",") {
		return 0, fmt.Errorf("%s %s: one number only; lists are not supported (run once per value)", opt, v)
	}
	n, err := strconv.Atoi(v)
	if err == nil && n >= lo && n <= hi {
		return n, nil
	}
	if hi == math.MaxInt32 {
		return 0, fmt.Errorf("%s %s: %s must be a whole number of %d or more", opt, v, what, lo)
	}
	return 0, fmt.Errorf("%s %s: %s must be a whole number from %d to %d", opt, v, what, lo, hi)
}

func positive(opt, v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%s: not a number of 1 or more", opt, v)
	}
	return n, nil
}

// validate asks for what goslap will not guess: the schema, and for a load
// or a run its size and length.
func (c *Config) validate() error {
	if !c.set['d'] || c.DB == "" {
		return fmt.Errorf("-d (database) is required")
	}
	switch c.Command {
	case "tpcc-load", "tpcc-start":
		if !c.set['w'] {
			return fmt.Errorf("-w (warehouses) is required")
		}
	}
	if c.Command != "tpcc-start" {
		return nil
	}
	switch {
	case !c.set['c']:
		return fmt.Errorf("-c (connections) is required")
	case !c.set['l']:
		return fmt.Errorf("-l (measure time, seconds) is required")
	case c.ServerReport && c.ServerMetricsOff:
		return fmt.Errorf("--server-report prints the server metrics --skip-server-metrics turns off: give one of them")
	case c.ServerPID != 0 && !c.ServerReport:
		return fmt.Errorf("--server-pid=%d names the server's process for --server-report's figures, and without --server-report nothing is sampled", c.ServerPID)
	}
	return nil
}
