package mysqlconn

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/goslap/goslap/internal/sandbox"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// The server's max_allowed_packet is small so that a statement over it is
// cheap to build.
func TestMain(m *testing.M) {
	servertest.Main(m, sandbox.Config{Options: []string{"max_allowed_packet=1M"}}, nil)
}

// serverConnectors are root connectors to the test server over its socket
// and over TCP.
func serverConnectors(t *testing.T) map[string]*Connector {
	s := servertest.Require(t)
	out := map[string]*Connector{}
	for _, network := range []string{"unix", "tcp"} {
		cfg := s.RootConfig("")
		cfg.Logger = &mysql.NopLogger{}
		cfg.MaxAllowedPacket = 1 << 30 // as mysqlslap.DriverConfig (mysqlconn.Options.MysqlslapSession)
		if network == "tcp" {
			cfg.Net, cfg.Addr = "tcp", "127.0.0.1:"+strconv.Itoa(s.Port)
		}
		c, err := NewConnector(cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		out[network] = c
	}
	return out
}

// TestConnectionFailureWording: a broken connection is reported with the
// client library's code and wording, or the server's own error when it
// sent one, never as the driver's "invalid connection" or a raw
// "write: broken pipe".
func TestConnectionFailureWording(t *testing.T) {
	big := "SELECT '" + strings.Repeat("a", 3<<20) + "'"
	tests := []struct {
		name string
		run  func(t *testing.T, c *Connector, conn *Conn) error
		want string
	}{
		{"killed during a query", func(t *testing.T, c *Connector, conn *Conn) error {
			killer, err := c.Connect(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer killer.Close()
			ids, err := conn.QueryStrings("SELECT CONNECTION_ID()")
			if err != nil {
				t.Fatal(err)
			}
			// The KILL's reply is read before killer closes: a Close
			// while its Exec reads shares the driver's buffer (a panic in
			// the driver once, reading a packet the Close had overwritten).
			killed := make(chan struct{})
			go func() {
				defer close(killed)
				time.Sleep(200 * time.Millisecond)
				killer.Exec("KILL " + ids[0])
			}()
			err = conn.Exec("SELECT SLEEP(10)")
			<-killed
			return err
		}, "2013 Lost connection to server during query"},
		{"statement over max_allowed_packet", func(t *testing.T, c *Connector, conn *Conn) error {
			return conn.Exec(big)
		}, "1153 Got a packet bigger than 'max_allowed_packet' bytes"},
	}
	for network, c := range serverConnectors(t) {
		for _, tc := range tests {
			t.Run(network+"/"+tc.name, func(t *testing.T) {
				conn, err := c.Connect(nil)
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close()
				err = tc.run(t, c, conn)
				if err == nil {
					t.Fatal("no error")
				}
				if got := ErrorText(err); got != tc.want {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}
	}
}
