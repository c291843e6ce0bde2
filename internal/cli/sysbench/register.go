package sysbench

// The sysbench tests are goslap's OLTP workloads; the front end sees the
// registry the binary has (every workload, registered in one place).
import _ "github.com/goslap/goslap/internal/workload/all"
