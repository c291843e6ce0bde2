// Remove this constraint once internal/workload/oltp is on main (it was
// not when this was committed; tested with it: go test -tags oltpmerged).
//go:build oltpmerged

package sysbench

// The sysbench tests are goslap's OLTP workloads.
import _ "github.com/goslap/goslap/internal/workload/oltp"
