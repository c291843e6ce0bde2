// Package host is what the benchmark commands (bench/slapbench,
// bench/oltpbench, bench/uringprobe) share about the box and its servers:
// the two server configurations every table is measured on, the machine
// line above each table, the load average beside each row, and the
// open-file limit the clients and the server inherit.
package host

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// ServerOptions are the mariadbd options of a kind of server for maxConn
// clients. sandbox starts every server small (64 MB buffer pool, 16 MB
// redo log, skip-name-resolve); "default" puts MariaDB 10.11's defaults
// back.
func ServerOptions(kind string, maxConn int) ([]string, error) {
	files := "open-files-limit=" + strconv.Itoa(2*maxConn+2000)
	switch kind {
	case "default":
		return []string{files, "innodb-buffer-pool-size=128M", "innodb-log-file-size=96M", "skip-name-resolve=0"}, nil
	case "tuned":
		// The server must hold every client at once (max_connections, open
		// files, thread stacks); innodb_flush_log_at_trx_commit=2 keeps the
		// write rows from being a measurement of fsync, which would hide the
		// client; 400 tables open make 8 table-cache instances.
		return []string{files,
			"thread-cache-size=" + strconv.Itoa(min(maxConn, 16384)),
			"back-log=" + strconv.Itoa(min(maxConn, 65535)),
			"innodb-flush-log-at-trx-commit=2",
			"innodb-buffer-pool-size=256M",
			"table-open-cache=400",
		}, nil
	}
	return nil, fmt.Errorf("-servers: unknown server %q (default, tuned)", kind)
}

// LoadAverage is the machine's 1-minute load average (the box is shared:
// the tables say how busy it was).
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// RaiseNofile lifts this process's soft (and, as root, hard) open-file
// limit; children (the server, the clients) inherit it.
func RaiseNofile(want uint64) {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return
	}
	if lim.Max < want {
		hard := lim
		hard.Max, hard.Cur = want, want
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &hard) == nil {
			return
		}
	}
	lim.Cur = min(max(lim.Cur, want), lim.Max)
	_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}

// Machine describes the box: CPU model, cores, memory, kernel, Go.
func Machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			if kb, err := strconv.ParseFloat(f[1], 64); err == nil {
				mem = fmt.Sprintf(", %.0f GB RAM", kb/1024/1024)
			}
		}
	}
	kernel := ""
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		kernel = ", Linux " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d cores (%s)%s%s, %s", runtime.NumCPU(), model, mem, kernel, runtime.Version())
}
