package jsondoc

// ServerFigures is what the server and its host did during a benchmark,
// or during one interval of it: the server's counters (package
// servermetrics), its process and the host's CPU (package procstat), and
// those divided per measured unit. A benchmark embeds it as "server"; a
// figure goslap could not see is absent and Notes say why.
type ServerFigures struct {
	// Unit is what PerTransaction divides by: "transaction" (a workload's
	// unit) or "query" (mysqlslap); Units how many completed.
	Unit    string  `json:"unit"`
	Units   uint64  `json:"units"`
	Seconds float64 `json:"seconds"`
	// PerTransaction is per Unit, whatever Unit is.
	PerTransaction PerTransaction `json:"per_transaction"`
	// Process is the server's process; absent for a server goslap cannot
	// see (another host, another user's process with no readable pid file).
	Process *ServerProcess `json:"process,omitempty"`
	// Host is the CPU of the host goslap ran on.
	Host *HostCPU `json:"host,omitempty"`
	// Counters are status counters' increase (SHOW GLOBAL STATUS names;
	// INNODB_METRICS ones prefixed "innodb_metrics."); GaugesMax the
	// highest reading of the levels (Threads_running, dirty pages).
	Counters  map[string]int64 `json:"counters,omitempty"`
	GaugesMax map[string]int64 `json:"gauges_max,omitempty"`
	Notes     []string         `json:"notes,omitempty"`
}

// PerTransaction is ServerFigures divided by its units. Each figure is
// absent when its source was not readable.
type PerTransaction struct {
	// CPUMicros is the server process's CPU (user + system), µs. Linux
	// counts it in 10 ms ticks, so over a short interval of a lightly
	// loaded server it is coarse.
	CPUMicros *float64 `json:"cpu_us,omitempty"`
	// ClientCPUMicros is goslap's own CPU, µs.
	ClientCPUMicros *float64 `json:"client_cpu_us,omitempty"`
	// DiskReads are page reads the buffer pool missed
	// (Innodb_buffer_pool_reads); ReadRequests all page reads.
	DiskReads    *float64 `json:"disk_reads,omitempty"`
	ReadRequests *float64 `json:"read_requests,omitempty"`
	// BytesWritten is InnoDB's (Innodb_data_written), RedoBytes the redo
	// log's (Innodb_os_log_written), StorageWriteBytes what the server's
	// process made the storage write (/proc/PID/io write_bytes).
	BytesWritten      *float64 `json:"bytes_written,omitempty"`
	RedoBytes         *float64 `json:"redo_bytes,omitempty"`
	StorageWriteBytes *float64 `json:"storage_write_bytes,omitempty"`
	// RowLockWaits and RowLockWaitMicros are InnoDB row lock waits and
	// the time spent in them; Deadlocks the transactions rolled back.
	RowLockWaits      *float64 `json:"row_lock_waits,omitempty"`
	RowLockWaitMicros *float64 `json:"row_lock_wait_us,omitempty"`
	Deadlocks         *float64 `json:"deadlocks,omitempty"`
	// Statements the server counted (Questions) and rows InnoDB read.
	Statements *float64 `json:"statements,omitempty"`
	RowsRead   *float64 `json:"rows_read,omitempty"`
}

// ServerProcess is the server process's use of the host.
type ServerProcess struct {
	PID int `json:"pid"`
	// Found says how goslap knew the pid ("sandbox", "unix socket owner",
	// "tcp listener owner", "pid file", "option").
	Found         string  `json:"found"`
	UserSeconds   float64 `json:"cpu_user_s"`
	SystemSeconds float64 `json:"cpu_system_s"`
	// ReadBytes and WriteBytes reached the storage; absent when
	// /proc/PID/io was not readable.
	ReadBytes           *int64 `json:"read_bytes,omitempty"`
	WriteBytes          *int64 `json:"write_bytes,omitempty"`
	VoluntarySwitches   int64  `json:"voluntary_switches"`
	InvoluntarySwitches int64  `json:"involuntary_switches"`
}

// HostCPU is the host's CPU over the span, as fractions of all its CPUs'
// time; ClientShare is goslap's own share of it.
type HostCPU struct {
	CPUs        int     `json:"cpus"`
	Busy        float64 `json:"busy"`
	IOWait      float64 `json:"iowait"`
	Steal       float64 `json:"steal"`
	ClientShare float64 `json:"client_share"`
	// ServerShare is the server process's share, when it is visible.
	ServerShare *float64 `json:"server_share,omitempty"`
	// Saturated: Busy reached SaturatedBusy.
	Saturated bool `json:"saturated"`
}

// SaturatedBusy is the Busy fraction from which the host's CPU counts as
// saturated: the result measured the CPU as much as the server.
const SaturatedBusy = 0.9
