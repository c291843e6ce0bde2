// Package target is where a benchmark runs: the targets given by --target
// (throw-away sandbox servers that differ in binary or server options, and
// existing servers), their parsing, the sandbox lifecycle (start, stop and
// remove, on every way out) and the runner that takes targets one after
// another. It reports nothing itself: an Outcome's Column is what the
// side-by-side table (internal/results/matrix) and the chart
// (internal/chart) read.
//
// It knows nothing about how a benchmark is run: the caller passes a BenchFunc
// that runs one benchmark against an Endpoint (internal/orchestrator wires the
// real runner in). Sandboxes are started with internal/sandbox.
package target

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind says what a Target is.
type Kind int

const (
	// Sandbox is a throw-away server started from a server binary in a
	// private temporary directory, stopped and removed after its run.
	Sandbox Kind = iota
	// Server is an existing server reached with connection options.
	Server
)

func (k Kind) String() string {
	switch k {
	case Sandbox:
		return "sandbox"
	case Server:
		return "server"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Target is one column of a comparison, as given by --target.
//
// Syntax (one --target option each):
//
//	LABEL:sandbox[:BINARY][,NAME[=VALUE]]...   a throw-away server; BINARY is a
//	                                           path, a command name or a
//	                                           tarball directory (default: the
//	                                           --sandbox binary, else mariadbd
//	                                           or mysqld); NAME=VALUE are server
//	                                           options (innodb_buffer_pool_size=1G)
//	LABEL:server[:HOST[:PORT] | :/SOCKET][,NAME=VALUE]...
//	                                           an existing server; without an
//	                                           address, the command line's
//	                                           connection options; NAME is one
//	                                           of host, port, socket, user,
//	                                           password
//
// A comma inside a value is written "\,".
type Target struct {
	Label string
	Kind  Kind

	// Sandbox targets.
	Binary        string   // "" means the default binary
	ServerOptions []string // "name=value" or "name", without "--"

	// Server targets: connection settings that override the command line's.
	Host        string
	Port        int // 0: not given
	Socket      string
	User        string
	Password    string
	PasswordSet bool
}

// serverKeys are the settings a server target accepts.
var serverKeys = []string{"host", "port", "socket", "user", "password"}

// ParseTarget parses one --target value (see Target).
func ParseTarget(spec string) (Target, error) {
	label, rest, ok := strings.Cut(spec, ":")
	label = strings.TrimSpace(label)
	if !ok || label == "" {
		return Target{}, fmt.Errorf("target %q: want LABEL:sandbox[:BINARY][,NAME=VALUE]... or LABEL:server[:HOST[:PORT]][,NAME=VALUE]...", spec)
	}
	parts := splitEscaped(rest, ',')
	head := parts[0]
	kind, arg, hasArg := strings.Cut(head, ":")
	t := Target{Label: label}
	switch strings.ToLower(strings.TrimSpace(kind)) {
	case "sandbox":
		t.Kind = Sandbox
		t.Binary = strings.TrimSpace(arg)
		for _, p := range parts[1:] {
			p = strings.TrimPrefix(strings.TrimSpace(p), "--")
			if p == "" || strings.HasPrefix(p, "=") {
				return Target{}, fmt.Errorf("target %q: empty server option", label)
			}
			t.ServerOptions = append(t.ServerOptions, p)
		}
	case "server":
		t.Kind = Server
		if hasArg && arg != "" {
			if err := t.setAddress(arg); err != nil {
				return Target{}, fmt.Errorf("target %q: %w", label, err)
			}
		}
		for _, p := range parts[1:] {
			name, value, ok := strings.Cut(p, "=")
			name = strings.ToLower(strings.TrimSpace(name))
			if !ok {
				return Target{}, fmt.Errorf("target %q: %q is not NAME=VALUE (NAME is one of %s)", label, p, strings.Join(serverKeys, ", "))
			}
			if err := t.setConn(name, value); err != nil {
				return Target{}, fmt.Errorf("target %q: %w", label, err)
			}
		}
	default:
		return Target{}, fmt.Errorf("target %q: unknown kind %q (want sandbox or server)", label, kind)
	}
	return t, nil
}

// setAddress interprets a server target's HOST[:PORT] or /SOCKET.
func (t *Target) setAddress(addr string) error {
	if strings.HasPrefix(addr, "/") {
		t.Socket = addr
		return nil
	}
	host, port, hasPort := strings.Cut(addr, ":")
	if hasPort {
		if err := t.setConn("port", port); err != nil {
			return err
		}
	}
	t.Host = host
	return nil
}

func (t *Target) setConn(name, value string) error {
	switch name {
	case "host":
		t.Host = value
	case "port":
		n, err := strconv.Atoi(value)
		if err != nil || n <= 0 || n > 65535 {
			return fmt.Errorf("port %q is not a TCP port number", value)
		}
		t.Port = n
	case "socket":
		t.Socket = value
	case "user":
		t.User = value
	case "password":
		t.Password, t.PasswordSet = value, true
	default:
		return fmt.Errorf("unknown server setting %q (want one of %s)", name, strings.Join(serverKeys, ", "))
	}
	return nil
}

// String is a short description for progress lines: "sandbox /usr/sbin/mariadbd
// innodb_buffer_pool_size=1G" or "server 127.0.0.1:3306". The password is never shown.
func (t Target) String() string {
	var b strings.Builder
	b.WriteString(t.Kind.String())
	switch t.Kind {
	case Sandbox:
		if t.Binary != "" {
			b.WriteString(" " + t.Binary)
		}
		for _, o := range t.ServerOptions {
			b.WriteString(" " + o)
		}
	case Server:
		switch {
		case t.Socket != "":
			b.WriteString(" " + t.Socket)
		case t.Host != "" || t.Port != 0:
			b.WriteString(" " + t.Host)
			if t.Port != 0 {
				b.WriteString(":" + strconv.Itoa(t.Port))
			}
		default:
			b.WriteString(" (command-line connection)")
		}
	}
	return b.String()
}

// splitEscaped splits s at sep, except where sep is preceded by a backslash
// ("\," is a literal comma); "\\" is a literal backslash.
func splitEscaped(s string, sep byte) []string {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && (s[i+1] == sep || s[i+1] == '\\'):
			cur.WriteByte(s[i+1])
			i++
		case c == sep:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}
