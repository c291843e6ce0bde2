package mysqlconn

import (
	"io"
	"log"

	"github.com/go-sql-driver/mysql"
)

// The driver logs every broken connection itself ("[mysql] … closing
// connection: … use of closed network connection") before returning the
// error. goslap reports that error once, in the client library's words;
// the driver's line would be a second, timestamped report of it on stderr.
func init() {
	_ = mysql.SetLogger(log.New(io.Discard, "", 0))
}
