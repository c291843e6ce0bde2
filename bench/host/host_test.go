package host

import (
	"slices"
	"strings"
	"testing"
)

// TestServerOptions: both servers hold the clients' files, the tuned one
// their threads, and an unknown kind is refused by name.
func TestServerOptions(t *testing.T) {
	for _, tt := range []struct {
		kind    string
		maxConn int
		want    []string
		err     string
	}{
		{"default", 1000, []string{"open-files-limit=4000", "innodb-buffer-pool-size=128M"}, ""},
		{"tuned", 1000, []string{"open-files-limit=4000", "thread-cache-size=1000", "back-log=1000", "innodb-flush-log-at-trx-commit=2"}, ""},
		{"tuned", 100000, []string{"thread-cache-size=16384", "back-log=65535"}, ""},
		{"fast", 16, nil, `unknown server "fast"`},
	} {
		got, err := ServerOptions(tt.kind, tt.maxConn)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.kind, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.kind, err)
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s %d: %q not in %q", tt.kind, tt.maxConn, w, got)
			}
		}
	}
}
