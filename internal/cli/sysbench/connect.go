package sysbench

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/mysqlconn"
)

// DriverConfigs maps the --mysql-* options onto driver configurations, one
// per server address. sysbench spreads its connections over the host (and
// port, socket) lists round-robin; the caller assigns connection i to
// configuration i mod len.
//
// A socket list wins over hosts and ports; without one, host "localhost"
// means the client library's default socket (the client library's rule,
// which sysbench's default --mysql-host=localhost relies on).
func DriverConfigs(m MySQL) ([]*mysql.Config, error) {
	if m.SSLCipher != "" {
		return nil, errors.New("--mysql-ssl-cipher cannot be honoured: Go's TLS chooses its cipher suites itself")
	}
	if m.SSL {
		// sysbench 1.0 hands the client library ./client-key.pem,
		// ./client-cert.pem and ./cacert.pem; presenting or checking
		// certificates is not what goslap does, so refuse rather than
		// connect differently.
		for _, f := range []string{"client-key.pem", "client-cert.pem", "cacert.pem"} {
			if _, err := os.Stat(f); err == nil {
				return nil, fmt.Errorf("--mysql-ssl cannot be honoured here: sysbench would use ./%s, goslap encrypts without client certificates or verification", f)
			}
		}
	}
	type addr struct{ net, addr string }
	var addrs []addr
	if len(m.Sockets) > 0 {
		for _, s := range m.Sockets {
			addrs = append(addrs, addr{"unix", s})
		}
	} else {
		// Every host with every port, host-major, as sysbench builds its
		// list (hosts × ports).
		for _, h := range m.Hosts {
			for _, p := range m.Ports {
				if h == "localhost" {
					addrs = append(addrs, addr{"unix", DefaultSocket})
					break
				}
				addrs = append(addrs, addr{"tcp", net.JoinHostPort(h, strconv.Itoa(p))})
			}
		}
	}
	var out []*mysql.Config
	for _, a := range addrs {
		o := mysqlconn.Options{Net: a.net, Addr: a.addr, User: m.User, Password: m.Password, Schema: m.DB,
			Program: "goslap-sysbench", Compress: m.Compression}
		if m.SSL {
			o.TLS.Mode = "REQUIRED" // encrypted, without certificates or verification
		}
		c, err := mysqlconn.Config(o)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// DefaultSocket is the client library's default socket on Debian/Ubuntu's
// MariaDB, which sysbench's "localhost" uses.
const DefaultSocket = mysqlconn.DefaultSocket
