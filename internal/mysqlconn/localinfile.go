package mysqlconn

import (
	"io"
	"strconv"
	"sync/atomic"

	"github.com/go-sql-driver/mysql"
)

// LocalInfileRefused reports a refusal of LOAD DATA LOCAL INFILE, by the
// server or its settings: the loads then fall back to INSERTs.
func LocalInfileRefused(err error) bool {
	switch ServerCode(err) {
	case 1148, // ER_NOT_ALLOWED_COMMAND
		3948, // MySQL 8: ER_CLIENT_LOCAL_FILES_DISABLED
		4166: // MariaDB: ER_LOAD_INFILE_CAPABILITY_DISABLED
		return true
	}
	return false
}

var readerSeq atomic.Uint64

// LocalReader registers open with the driver as a LOAD DATA LOCAL INFILE
// source under a name unique in the process; file is what the statement
// names ('LOAD DATA LOCAL INFILE ' + file + ...), release deregisters it.
// The driver calls open once per statement that names file, so a
// statement sent again (a deadlock victim) reads its data again.
func LocalReader(open func() io.Reader) (file string, release func()) {
	name := "goslap-" + strconv.FormatUint(readerSeq.Add(1), 10)
	mysql.RegisterReaderHandler(name, open)
	return "'Reader::" + name + "'", func() { mysql.DeregisterReaderHandler(name) }
}
