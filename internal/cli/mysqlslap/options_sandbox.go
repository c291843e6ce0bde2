package mysqlslap

import (
	"strings"

	"github.com/goslap/goslap/internal/getopt"
)

// SandboxOptions are goslap's own options for sandboxes, comparisons and
// charts (see sandbox.go). Like every goslap option they are long names matched
// by their full name only (getopt.Option.ExactOnly), so they cannot make a
// mysqlslap prefix ambiguous; none starts with the first three letters of a
// MySQL or MariaDB mysqlslap option ("san", "tar", "plo" are all free).
//
// Wiring (options_load.go): add the field
//
//	Sandbox SandboxOptions // --sandbox, --sandbox-option, --target, --plot
//
// to Extensions and let loadOptions return
//
//	sandboxOptions(&ext.Sandbox)
//
// (appended to goslap's other options).
type SandboxOptions struct {
	// --sandbox[=SERVER_BINARY]: run against a throw-away server started
	// from SERVER_BINARY (a path, a command name, or an unpacked
	// MySQL/MariaDB directory; default mariadbd or mysqld on $PATH). With
	// --target it is the binary of sandbox targets that name none.
	Sandbox    string
	SandboxSet bool
	// --sandbox-option=NAME[=VALUE], repeatable: a server option for every
	// sandbox (innodb_buffer_pool_size=1G).
	ServerOptions []string
	// --target=LABEL:sandbox[:BINARY][,NAME=VALUE]... or
	// --target=LABEL:server[:HOST[:PORT]|:/SOCKET][,NAME=VALUE]..., repeatable:
	// run the same benchmark against each target in turn and compare them
	// (see target.Target).
	Targets []string
	// --plot=FILE: write queries/s (and p99 latency, when measured) against
	// concurrency as a chart; FILE ends in .svg, .png or .pdf.
	Plot string
}

// Active reports whether the run goes to sandboxes or a target list (Main
// then calls RunTargets instead of RunWithSignals).
func (s *SandboxOptions) Active() bool { return s.SandboxSet || len(s.Targets) > 0 }

// sandboxOptions returns the option rows for SandboxOptions.
func sandboxOptions(s *SandboxOptions) []*getopt.Option {
	return []*getopt.Option{
		{Name: "sandbox", Arg: getopt.OptionalArg, Var: getopt.VarString, String: &s.Sandbox,
			Help: "Run the benchmark against a throw-away server started from the server binary named " +
				"(a path, a command, or an unpacked MySQL/MariaDB directory; default: mariadbd or mysqld on PATH) " +
				"in a temporary directory with its own socket and loopback port; it is stopped and removed " +
				"afterwards, also on error and Ctrl-C. Connection options are ignored for it. " +
				"With --target, the binary of sandbox targets that name none.",
			Hook: func(getopt.Setting) error { s.SandboxSet = true; return nil },
			Off:  func() error { s.Sandbox, s.SandboxSet = "", false; return nil }},
		{Name: "sandbox-option", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "NAME=VALUE: a server option for every sandbox, e.g. innodb_buffer_pool_size=1G. Repeatable. " +
				"It may not name a path outside the sandbox's directory (absolute, ~/ or ..) nor set what goslap sets " +
				"(datadir, socket, pid_file, port, basedir, plugin_dir, bind_address, ...); a relative file name is the sandbox's own.",
			Hook: func(st getopt.Setting) error {
				s.ServerOptions = append(s.ServerOptions, strings.TrimPrefix(st.Value, "--"))
				return nil
			},
			Off: func() error { s.ServerOptions = nil; return nil }},
		{Name: "target", Arg: getopt.RequiredArg, Var: getopt.VarNone,
			Help: "Compare targets: run the same benchmark against each, one after another, and print them side by side. " +
				"LABEL:sandbox[:BINARY][,NAME=VALUE]... is a sandbox with server options; " +
				"LABEL:server[:HOST[:PORT]|:/SOCKET][,user=U,password=P] is an existing server " +
				"(no address: the connection options). Repeatable; the first target is the baseline of the ratios.",
			Hook: func(st getopt.Setting) error {
				s.Targets = append(s.Targets, st.Value)
				return nil
			},
			Off: func() error { s.Targets = nil; return nil }},
		{Name: "plot", Arg: getopt.RequiredArg, Var: getopt.VarString, String: &s.Plot,
			Help: "Write queries per second (and p99 latency when measured) against concurrency, " +
				"one line per target and engine, to the file named; its extension picks the format: " +
				".svg (self-contained, fonts embedded), .png or .pdf.",
			Hook: func(st getopt.Setting) error {
				if st.Value == "" {
					return Exitf(1, "--plot= names no file; give a file name ending in %s", chartExtensions())
				}
				return nil
			},
			Off: func() error { s.Plot = ""; return nil }},
	}
}
