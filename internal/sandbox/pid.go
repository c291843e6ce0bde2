package sandbox

// PID is the server process's id (0 before it started): a sandbox's
// process figures (CPU, IO) are read from /proc with it.
func (s *Server) PID() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}
