package tpccmysql

import "testing"

// TestNumberMessages: a bad number says the range that is accepted (not
// "0 or more" where 0 is refused), a list says lists are not supported,
// and -w stops at tpcc-mysql's smallint w_id.
func TestNumberMessages(t *testing.T) {
	for _, tc := range []struct {
		command string
		args    []string
		want    string // "" when accepted
	}{
		{"tpcc-load", []string{"-d", "x", "-w", "1,2"}, "-w 1,2: one number only; lists are not supported (run once per value)"},
		{"tpcc-load", []string{"-d", "x", "-w", "-1"}, "-w -1: the number of warehouses must be a whole number from 1 to 32767"},
		{"tpcc-load", []string{"-d", "x", "-w", "1T"}, "-w 1T: the number of warehouses must be a whole number from 1 to 32767"},
		{"tpcc-load", []string{"-d", "x", "-w", "0"}, "-w 0: the number of warehouses must be a whole number from 1 to 32767"},
		{"tpcc-load", []string{"-d", "x", "-w", "32768"}, "-w 32768: the number of warehouses must be a whole number from 1 to 32767"},
		{"tpcc-load", []string{"-d", "x", "-w", "32767"}, ""},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "-1", "-l", "5"}, "-c -1: the number of connections must be a whole number of 1 or more"},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "0"}, "-l 0: the measure time (seconds) must be a whole number of 1 or more"},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "-r", "0", "-i", "0"}, ""},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "-r", "-2"}, "-r -2: the ramp-up time (seconds) must be a whole number of 0 or more"},
		{"tpcc-check", []string{"-d", "x", "-P", "70000"}, "-P 70000: the TCP port must be a whole number from 1 to 65535"},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "--server-report", "--server-pid=7"}, ""},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "--server-pid=7"},
			"--server-pid=7 names the server's process for --server-report's figures, and without --server-report nothing is sampled"},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "--server-report", "--skip-server-metrics"},
			"--server-report prints the server metrics --skip-server-metrics turns off: give one of them"},
		{"tpcc-start", []string{"-d", "x", "-w", "1", "-c", "1", "-l", "5", "--server-pid=0"}, "--server-pid=0: not a number of 1 or more"},
		{"tpcc-load", []string{"-d", "x", "-w", "1", "--server-report"}, "unrecognized option '--server-report'"},
	} {
		_, err := Parse(tc.command, tc.args)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %v: refused: %v", tc.command, tc.args, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s %v: got %v; want %q", tc.command, tc.args, err, tc.want)
		}
	}
}
