package sandbox

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"strings"
)

// StartError is a server that was initialised but did not start. Its
// Error is the reason and the end of the server's error log (for tests);
// ServerError is the server's own one-line reason, for a person.
type StartError struct {
	Err         error  // what Start saw: the server exited, or did not answer in time
	ServerError string // the first error line the server logged while starting, "" if none
	LogTail     string // the last lines of the error log
}

func (e *StartError) Error() string { return e.Err.Error() + "\n" + e.LogTail }
func (e *StartError) Unwrap() error { return e.Err }

// logErrorTag finds an error line: "... [ERROR] text" (MariaDB, MySQL 5.7)
// or "... [ERROR] [MY-000067] [Server] text" (MySQL 8); group 1 is the text.
var logErrorTag = regexp.MustCompile(`\[ERROR\]\s+(?:\[MY-\d+\]\s+\[\w+\]\s+)?(.*)$`)

// firstLogError is the text of the first error line of the error log from
// byte offset from: the first error is the cause, those after it follow
// from it ("Aborting").
func (s *Server) firstLogError(from int64) string {
	f, err := os.Open(s.LogFile)
	if err != nil {
		return ""
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := logErrorTag.FindStringSubmatch(sc.Text()); m != nil && strings.TrimSpace(m[1]) != "" {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
