package procstat

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrNotFound: no process on this host has the socket or port; a server
// behind it is elsewhere (another host, a container's own network) or
// not running.
var ErrNotFound = errors.New("no process of this host listens there")

// UnixSocketOwner is the pid of the process listening on the Unix socket
// at path: the socket's inode from /proc/net/unix, then the process with
// a descriptor on it. A server run by another user hides its descriptors
// (the error says how many processes could not be looked into).
func (p Proc) UnixSocketOwner(path string) (int, error) {
	data, err := os.ReadFile(p.path("net", "unix"))
	if err != nil {
		return 0, err
	}
	const acceptConn = 0x10000 // __SO_ACCEPTCON: a listening socket
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 8 || f[7] != path {
			continue
		}
		flags, err := strconv.ParseUint(f[3], 16, 32)
		if err != nil || flags&acceptConn == 0 {
			continue
		}
		return p.socketOwner(f[6])
	}
	return 0, fmt.Errorf("%w (no listening socket %s in %s)", ErrNotFound, path, p.path("net", "unix"))
}

// TCPListenerOwner is the pid of the process listening on port on a
// loopback or wildcard address (IPv4 or IPv6), from /proc/net/tcp{,6}.
func (p Proc) TCPListenerOwner(port int) (int, error) {
	want := fmt.Sprintf("%04X", port)
	for _, file := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(p.path("net", file))
		if err != nil {
			continue // no IPv6 on this host
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			addr, prt, ok := strings.Cut(f[1], ":")
			if !ok || prt != want || !localListener(addr) {
				continue
			}
			return p.socketOwner(f[9])
		}
	}
	return 0, fmt.Errorf("%w (no loopback listener on port %d in %s)", ErrNotFound, port, p.path("net", "tcp"))
}

// localListener: a /proc/net/tcp{,6} local address (hex, each 32-bit word
// in host order, little-endian here) that a connection to a loopback
// address reaches: 127.0.0.0/8, 0.0.0.0, ::, ::1, ::ffff:127.x.
func localListener(hex string) bool {
	switch len(hex) {
	case 8:
		return hex == "00000000" || strings.HasSuffix(hex, "7F")
	case 32:
		return hex == strings.Repeat("0", 32) ||
			hex == "00000000000000000000000001000000" ||
			strings.HasPrefix(hex, "0000000000000000FFFF0000") && strings.HasSuffix(hex, "7F")
	}
	return false
}

// socketOwner finds the process holding socket inode ino among the
// numeric entries of the /proc tree.
func (p Proc) socketOwner(ino string) (int, error) {
	link := "socket:[" + ino + "]"
	entries, err := os.ReadDir(p.path())
	if err != nil {
		return 0, err
	}
	hidden := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		fds, err := os.ReadDir(p.path(e.Name(), "fd"))
		if err != nil {
			hidden++
			continue
		}
		for _, fd := range fds {
			if target, err := os.Readlink(p.path(e.Name(), "fd", fd.Name())); err == nil && target == link {
				return pid, nil
			}
		}
	}
	if hidden > 0 {
		return 0, fmt.Errorf("the socket (inode %s) is open in a process whose descriptors this user cannot read (%d such processes)", ino, hidden)
	}
	return 0, fmt.Errorf("%w (no process holds socket inode %s)", ErrNotFound, ino)
}

// Command is the process's name (/proc/PID/comm), "" when it is gone.
func (p Proc) Command(pid int) string {
	b, err := os.ReadFile(p.path(strconv.Itoa(pid), "comm"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// ReadPIDFile reads a server's pid file (one number).
func ReadPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s does not hold a process id", path)
	}
	return pid, nil
}
