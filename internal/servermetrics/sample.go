package servermetrics

import (
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/procstat"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

// Sample is everything read at one moment.
type Sample struct {
	At     time.Time
	Server Snapshot
	// Process is the server's process, nil when it is not visible.
	Process *procstat.Process
	// Host is the host's CPU, nil when /proc/stat was not readable.
	Host *procstat.HostCPU
	// Client is goslap's own CPU time (user + system).
	Client time.Duration
}

// Span is what happened between two samples, or over consecutive spans
// added together.
type Span struct {
	Start, End time.Time
	Counters   Delta
	// ServerUser, ServerSystem: the server's CPU; HaveProcess says they,
	// the IO and the switches were read at both ends.
	HaveProcess              bool
	ServerUser, ServerSystem time.Duration
	HaveIO                   bool
	ReadBytes, WriteBytes    int64
	Voluntary, Involuntary   int64
	HaveHost                 bool
	HostTotal, HostIdle      time.Duration // all CPUs' time in every state, and idle
	HostIOWait, HostSteal    time.Duration
	CPUs                     int
	Client                   time.Duration
}

// Seconds is the span's length.
func (s Span) Seconds() float64 { return s.End.Sub(s.Start).Seconds() }

// Between is the span from a to b (a taken first).
func Between(a, b Sample) Span {
	s := Span{Start: a.At, End: b.At, Counters: Diff(a.Server, b.Server), Client: b.Client - a.Client}
	if a.Process != nil && b.Process != nil {
		s.HaveProcess = true
		s.ServerUser = b.Process.User - a.Process.User
		s.ServerSystem = b.Process.System - a.Process.System
		s.Voluntary = b.Process.VoluntarySwitches - a.Process.VoluntarySwitches
		s.Involuntary = b.Process.InvoluntarySwitches - a.Process.InvoluntarySwitches
		if a.Process.IOErr == nil && b.Process.IOErr == nil {
			s.HaveIO = true
			s.ReadBytes = b.Process.ReadBytes - a.Process.ReadBytes
			s.WriteBytes = b.Process.WriteBytes - a.Process.WriteBytes
		}
	}
	if a.Host != nil && b.Host != nil {
		s.HaveHost = true
		s.HostTotal = b.Host.Total() - a.Host.Total()
		s.HostIdle = b.Host.Idle - a.Host.Idle
		s.HostIOWait = b.Host.IOWait - a.Host.IOWait
		s.HostSteal = b.Host.Steal - a.Host.Steal
		s.CPUs = b.Host.CPUs
	}
	return s
}

// Add is s followed by t (consecutive spans): counts summed, gauges at
// their highest. A process or host figure missing from either is missing
// from the sum: half a run's CPU is not the run's. The zero Span adds
// nothing, so a sum can start from it.
func (s Span) Add(t Span) Span {
	if s.Start.IsZero() && s.End.IsZero() {
		return t
	}
	out := Span{Start: s.Start, End: t.End, Counters: s.Counters.Add(t.Counters), Client: s.Client + t.Client}
	if t.End.Before(s.End) {
		out.End = s.End
	}
	out.HaveProcess = s.HaveProcess && t.HaveProcess
	if out.HaveProcess {
		out.ServerUser, out.ServerSystem = s.ServerUser+t.ServerUser, s.ServerSystem+t.ServerSystem
		out.Voluntary, out.Involuntary = s.Voluntary+t.Voluntary, s.Involuntary+t.Involuntary
	}
	out.HaveIO = s.HaveIO && t.HaveIO
	if out.HaveIO {
		out.ReadBytes, out.WriteBytes = s.ReadBytes+t.ReadBytes, s.WriteBytes+t.WriteBytes
	}
	out.HaveHost = s.HaveHost && t.HaveHost
	if out.HaveHost {
		out.HostTotal, out.HostIdle = s.HostTotal+t.HostTotal, s.HostIdle+t.HostIdle
		out.HostIOWait, out.HostSteal = s.HostIOWait+t.HostIOWait, s.HostSteal+t.HostSteal
		out.CPUs = max(s.CPUs, t.CPUs)
	}
	return out
}

// Location is how goslap found the server's process, or why not.
type Location struct {
	PID   int    // 0: not visible
	Found string // how: "sandbox", "unix socket owner", "tcp listener owner", "pid file", "option"
	Why   string // when PID is 0: one line for the report
}

// Figures divides span over units (transactions, or queries for
// mysqlslap: unit names which). With units 0 the per-unit figures are
// absent. loc says whose process the process figures are.
func Figures(span Span, units uint64, unit string, loc Location) jsondoc.ServerFigures {
	f := jsondoc.ServerFigures{Unit: unit, Units: units, Seconds: span.Seconds(),
		Counters: span.Counters.Counters, GaugesMax: span.Counters.Gauges}
	if len(span.Counters.Reset) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("counters that went backwards (server restarted or FLUSH STATUS) left out: %v", span.Counters.Reset))
	}
	per := func(v float64) *float64 {
		if units == 0 {
			return nil
		}
		x := v / float64(units)
		return &x
	}
	counter := func(name string) *float64 {
		v, ok := span.Counters.Counters[name]
		if !ok {
			return nil
		}
		return per(float64(v))
	}
	p := &f.PerTransaction
	p.ClientCPUMicros = per(float64(span.Client.Microseconds()))
	p.DiskReads = counter("Innodb_buffer_pool_reads")
	p.ReadRequests = counter("Innodb_buffer_pool_read_requests")
	p.BytesWritten = counter("Innodb_data_written")
	p.RedoBytes = counter("Innodb_os_log_written")
	p.RowLockWaits = counter("Innodb_row_lock_waits")
	if ms := counter("Innodb_row_lock_time"); ms != nil {
		us := *ms * 1000
		p.RowLockWaitMicros = &us
	}
	p.Deadlocks = counter("Innodb_deadlocks")
	if p.Deadlocks == nil {
		p.Deadlocks = counter(MetricPrefix + "lock_deadlocks")
	}
	p.Statements = counter("Questions")
	p.RowsRead = counter("Innodb_rows_read")
	if len(span.Counters.Counters) == 0 {
		f.Notes = append(f.Notes, "no server counters were read")
	}
	switch {
	case loc.PID == 0:
		why := loc.Why
		if why == "" {
			why = "the server's process is not known"
		}
		f.Notes = append(f.Notes, "no server CPU or IO: "+why)
	case !span.HaveProcess:
		f.Notes = append(f.Notes, fmt.Sprintf("no server CPU or IO: process %d was not readable at both ends", loc.PID))
	default:
		p.CPUMicros = per(float64((span.ServerUser + span.ServerSystem).Microseconds()))
		proc := &jsondoc.ServerProcess{PID: loc.PID, Found: loc.Found,
			UserSeconds: span.ServerUser.Seconds(), SystemSeconds: span.ServerSystem.Seconds(),
			VoluntarySwitches: span.Voluntary, InvoluntarySwitches: span.Involuntary}
		if span.HaveIO {
			r, w := span.ReadBytes, span.WriteBytes
			proc.ReadBytes, proc.WriteBytes = &r, &w
			p.StorageWriteBytes = per(float64(w))
		} else {
			f.Notes = append(f.Notes, fmt.Sprintf("no server storage bytes: /proc/%d/io is not readable by this user", loc.PID))
		}
		f.Process = proc
	}
	if span.HaveHost && span.HostTotal > 0 {
		total := span.HostTotal.Seconds()
		h := &jsondoc.HostCPU{CPUs: span.CPUs,
			Busy:        (total - span.HostIdle.Seconds() - span.HostIOWait.Seconds()) / total,
			IOWait:      span.HostIOWait.Seconds() / total,
			Steal:       span.HostSteal.Seconds() / total,
			ClientShare: span.Client.Seconds() / total}
		if f.Process != nil {
			s := (span.ServerUser + span.ServerSystem).Seconds() / total
			h.ServerShare = &s
		}
		h.Saturated = h.Busy >= jsondoc.SaturatedBusy
		f.Host = h
	}
	return f
}

// Locate finds the process of the server conn is connected to with cfg,
// on this host: the owner of its Unix socket or of its loopback TCP port
// (exact, when this user may look at the server's descriptors), else the
// pid in @@pid_file when that file is readable and names a live server
// process (conn may be nil: no pid file then). A server on another host
// has none, said in Why.
func Locate(conn *mysqlconn.Conn, cfg *mysql.Config, proc procstat.Proc) Location {
	var ownerErr error
	switch cfg.Net {
	case "unix":
		pid, err := proc.UnixSocketOwner(cfg.Addr)
		if err == nil {
			return Location{PID: pid, Found: "unix socket owner"}
		}
		ownerErr = err
	case "tcp":
		host, port, err := net.SplitHostPort(cfg.Addr)
		var portN int
		if err == nil {
			_, err = fmt.Sscan(port, &portN)
		}
		ip := net.ParseIP(host)
		if err != nil || !(host == "localhost" || ip != nil && ip.IsLoopback()) {
			return Location{Why: "the server at " + cfg.Addr + " is not on a loopback address; only its status counters are read"}
		}
		pid, err := proc.TCPListenerOwner(portN)
		if err == nil {
			return Location{PID: pid, Found: "tcp listener owner"}
		}
		ownerErr = err
	default:
		return Location{Why: "the server is reached over " + cfg.Net + "; only its status counters are read"}
	}
	if conn == nil {
		return Location{Why: ownerErr.Error()}
	}
	rows, err := conn.Query("SELECT @@pid_file, @@datadir")
	if err != nil || len(rows) != 1 || len(rows[0]) != 2 || len(rows[0][0]) == 0 {
		return Location{Why: ownerErr.Error() + "; and @@pid_file could not be read"}
	}
	path := string(rows[0][0])
	if !filepath.IsAbs(path) {
		path = filepath.Join(string(rows[0][1]), path)
	}
	pid, err := procstat.ReadPIDFile(path)
	if err != nil {
		return Location{Why: ownerErr.Error() + "; and the pid file: " + err.Error()}
	}
	switch proc.Command(pid) {
	case "mysqld", "mariadbd":
		return Location{PID: pid, Found: "pid file"}
	case "":
		return Location{Why: fmt.Sprintf("%v; and the pid file %s names process %d, which is not running here", ownerErr, path, pid)}
	default:
		return Location{Why: fmt.Sprintf("%v; and the pid file %s names process %d, which is not a MySQL or MariaDB server", ownerErr, path, pid)}
	}
}

// Given is the Location of a pid the user or a sandbox named (how says
// which: "option", "sandbox"): checked to be a process goslap can read.
func Given(proc procstat.Proc, pid int, how string) Location {
	if pid <= 0 {
		return Location{Why: fmt.Sprintf("%d is not a process id", pid)}
	}
	if _, err := proc.Process(pid); err != nil {
		return Location{Why: fmt.Sprintf("process %d cannot be read: %v", pid, err)}
	}
	return Location{PID: pid, Found: how}
}
