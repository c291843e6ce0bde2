package mysqlslap

import (
	"bytes"
	"os"
	"testing"
	"time"
)

func TestFormatProgress(t *testing.T) {
	for _, c := range []struct {
		n, total uint64
		rate     float64
		el, span time.Duration
		want     string
	}{
		{250, 1000, 499.6, time.Second, 0, "goslap: innodb, 4 clients, iteration 1/2: 250/1000 queries, 500 q/s, 1s elapsed, ETA 3s"},
		{0, 1000, 0, 200 * time.Millisecond, 0, "goslap: innodb, 4 clients, iteration 1/2: 0/1000 queries, 0 q/s, 200ms elapsed"},
		{9000, 0, 3000, 3 * time.Second, 10 * time.Second, "goslap: innodb, 4 clients, iteration 1/2: 9000 queries, 3000 q/s, 3s elapsed, ETA 7s"},
		{9000, 0, 3000, 12 * time.Second, 10 * time.Second, "goslap: innodb, 4 clients, iteration 1/2: 9000 queries, 3000 q/s, 12s elapsed, ETA 0s"},
	} {
		if got := formatProgress("innodb, 4 clients, iteration 1/2", c.n, c.total, c.rate, c.el, c.span); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}

func TestProgressOnlyOnTerminal(t *testing.T) {
	c := &Config{Outputs: Outputs{ShowProgress: true}}
	if progressTerminal(c, &bytes.Buffer{}) != nil {
		t.Error("progress on a buffer")
	}
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if progressTerminal(c, f) != nil {
		t.Error("progress on a regular file")
	}
}

func TestProgressLineErasesItself(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := startProgress(f, "x", 10, 0, func() uint64 { return 5 })
	time.Sleep(progressInterval + 100*time.Millisecond)
	p.end()
	data, _ := os.ReadFile(f.Name())
	if !bytes.Contains(data, []byte("\rgoslap: x: 5/10 queries")) || !bytes.HasSuffix(data, []byte("\r\033[K")) {
		t.Errorf("line %q", data)
	}
}
