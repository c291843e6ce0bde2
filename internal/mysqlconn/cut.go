package mysqlconn

// Cut shuts the connection's socket down from any goroutine: a statement
// in flight on it returns at once with a connection error and the
// connection is unusable after (its owner still closes it). It returns the
// server's id for the connection (0 when unknown), so the caller can KILL
// the statement the server may still be running. Not for the per-query
// path: it is how an interrupt ends an untimed statement (a CREATE INDEX,
// a LOAD DATA) of a prepare.
func (c *Conn) Cut() (serverID uint32) {
	if c == nil || c.sock == nil {
		return 0
	}
	c.sock.shutdown()
	return c.sock.id.Load()
}
