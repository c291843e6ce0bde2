package procstat

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeProc builds a /proc tree in a temporary directory: files maps a
// path under the root to its content; links maps a path to a symlink
// target (descriptors: "socket:[123]").
func fakeProc(t *testing.T, files, links map[string]string) Proc {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range links {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return Proc{Root: root}
}

// statLine is a /proc/PID/stat line with utime and stime in ticks; the
// command name has a space and a parenthesis, as names may.
func statLine(utime, stime string) string {
	return "4242 (my (d) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 " + utime + " " + stime + " 0 0 20 0 30 0 100 1000000 500 18446744073709551615\n"
}

func TestProcess(t *testing.T) {
	tests := []struct {
		name      string
		files     map[string]string
		want      Process
		wantErr   bool
		wantIOErr bool
	}{
		{
			name: "all readable",
			files: map[string]string{
				"4242/stat":   statLine("250", "75"),
				"4242/status": "Name:\tmariadbd\nvoluntary_ctxt_switches:\t17\nnonvoluntary_ctxt_switches:\t3\n",
				"4242/io":     "rchar: 1\nwchar: 2\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n",
			},
			want: Process{User: 2500 * time.Millisecond, System: 750 * time.Millisecond,
				ReadBytes: 4096, WriteBytes: 8192, VoluntarySwitches: 17, InvoluntarySwitches: 3},
		},
		{
			name: "io unreadable is said, the rest kept",
			files: map[string]string{
				"4242/stat":   statLine("1", "2"),
				"4242/status": "voluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t6\n",
			},
			want:      Process{User: 10 * time.Millisecond, System: 20 * time.Millisecond, VoluntarySwitches: 5, InvoluntarySwitches: 6},
			wantIOErr: true,
		},
		{name: "gone", files: map[string]string{"1/stat": statLine("1", "1")}, wantErr: true},
		{name: "garbled stat", files: map[string]string{"4242/stat": "4242 (x) S 1 2\n"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fakeProc(t, tt.files, nil)
			got, err := p.Process(4242)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if (got.IOErr != nil) != tt.wantIOErr {
				t.Fatalf("IOErr = %v, want error %v", got.IOErr, tt.wantIOErr)
			}
			got.At, got.IOErr = time.Time{}, nil
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestHostCPU(t *testing.T) {
	first := "cpu  100 0 50 800 40 0 10 0 0 0\ncpu0 50 0 25 400 20 0 5 0 0 0\ncpu1 50 0 25 400 20 0 5 0 0 0\nintr 1\n"
	second := "cpu  200 0 100 1000 90 0 10 100 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\ncpu1 1 0 0 0 0 0 0 0 0 0\n"
	a, err := fakeProc(t, map[string]string{"stat": first}, nil).HostCPU()
	if err != nil {
		t.Fatal(err)
	}
	b, err := fakeProc(t, map[string]string{"stat": second}, nil).HostCPU()
	if err != nil {
		t.Fatal(err)
	}
	if a.CPUs != 2 || a.User != time.Second || a.IOWait != 400*time.Millisecond {
		t.Fatalf("first reading %+v", a)
	}
	// Between: total 500 ticks; idle 200, iowait 50, steal 100; busy = 250.
	s := Between(a, b)
	if s.Busy != 0.5 || s.IOWait != 0.1 || s.Steal != 0.2 {
		t.Errorf("Between = %+v, want busy 0.5 iowait 0.1 steal 0.2", s)
	}
	if _, err := fakeProc(t, map[string]string{"stat": "intr 1\n"}, nil).HostCPU(); err == nil {
		t.Error("no cpu line: no error")
	}
}

func TestSocketOwners(t *testing.T) {
	unix := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00000000 0001 03 111 /tmp/d/mysqld.sock\n" + // connected, not listening
		"0000000000000000: 00000002 00000000 00010000 0001 01 222 /tmp/d/mysqld.sock\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 333 /tmp/other.sock\n"
	tcp := "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 0100007F:0CEA 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 444 1\n" + // established, same port
		"   1: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1\n" +
		"   2: 0A00000A:0CEB 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 666 1\n" // 10.0.0.10 only
	tcp6 := "  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n" +
		"   0: 00000000000000000000000000000000:0CEC 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 777 1\n"
	p := fakeProc(t, map[string]string{
		"net/unix": unix, "net/tcp": tcp, "net/tcp6": tcp6,
		"self/comm": "x", "4242/comm": "mariadbd\n", "5000/comm": "other",
	}, map[string]string{
		"4242/fd/0":  "/dev/null",
		"4242/fd/10": "socket:[222]",
		"4242/fd/11": "socket:[555]",
		"5000/fd/3":  "socket:[777]",
		"5000/fd/4":  "socket:[111]",
	})
	tests := []struct {
		name    string
		find    func() (int, error)
		want    int
		wantErr error
	}{
		{"unix listener", func() (int, error) { return p.UnixSocketOwner("/tmp/d/mysqld.sock") }, 4242, nil},
		{"unix nobody holds it", func() (int, error) { return p.UnixSocketOwner("/tmp/other.sock") }, 0, ErrNotFound},
		{"unix no such socket", func() (int, error) { return p.UnixSocketOwner("/tmp/none.sock") }, 0, ErrNotFound},
		{"tcp loopback listener", func() (int, error) { return p.TCPListenerOwner(0x0CEA) }, 4242, nil},
		{"tcp other address only", func() (int, error) { return p.TCPListenerOwner(0x0CEB) }, 0, ErrNotFound},
		{"tcp6 wildcard", func() (int, error) { return p.TCPListenerOwner(0x0CEC) }, 5000, nil},
		{"tcp no listener", func() (int, error) { return p.TCPListenerOwner(1) }, 0, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.find()
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("got %d, %v; want %d, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if c := p.Command(4242); c != "mariadbd" {
		t.Errorf("Command = %q", c)
	}
}

func TestSocketOwnerHidden(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	unix := "Num RefCount Protocol Flags Type St Inode Path\n0: 00000002 00000000 00010000 0001 01 222 /s.sock\n"
	p := fakeProc(t, map[string]string{"net/unix": unix, "77/fd/.keep": ""}, nil)
	if err := os.Chmod(filepath.Join(p.Root, "77", "fd"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(filepath.Join(p.Root, "77", "fd"), 0o755) })
	_, err := p.UnixSocketOwner("/s.sock")
	if err == nil || !strings.Contains(err.Error(), "cannot read (1 such processes)") {
		t.Errorf("err = %v", err)
	}
}

func TestReadPIDFile(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		content string
		want    int
	}{{"4242\n", 4242}, {"", 0}, {"x", 0}, {"-3", 0}}
	for _, tt := range tests {
		f := filepath.Join(dir, "p.pid")
		if err := os.WriteFile(f, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPIDFile(f)
		if got != tt.want || (err == nil) != (tt.want != 0) {
			t.Errorf("%q: got %d, %v", tt.content, got, err)
		}
	}
}

func TestSelfCPU(t *testing.T) {
	u0, s0, err := SelfCPU()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		x++
	}
	u1, s1, _ := SelfCPU()
	if u1+s1 <= u0+s0 {
		t.Errorf("CPU did not grow after 50 ms of spinning (%d loops)", x)
	}
}
