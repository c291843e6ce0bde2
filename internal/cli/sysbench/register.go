package sysbench

// The sysbench tests are goslap's OLTP workloads.
import _ "github.com/goslap/goslap/internal/workload/oltp"
