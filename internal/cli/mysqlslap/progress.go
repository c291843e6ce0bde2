package mysqlslap

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progressInterval is how often the progress line is redrawn.
const progressInterval = 250 * time.Millisecond

// progressLine is the live line on stderr (--show-progress, on by
// default): level, iteration, queries done of the total, current queries
// per second, elapsed time and the estimate of what is left. It is drawn
// with golang.org/x/term and a carriage return rather than a progress-bar
// library: goslap needs one line whose total is a query count or a
// duration, redrawn in place and erased at the end, which is a dozen
// lines of code and keeps the dependency list short.
type progressLine struct {
	w     io.Writer
	width int
	label string // "innodb, 8 clients, iteration 1/3"
	total uint64 // queries in this load phase; 0 when time-bound
	span  time.Duration
	count func() uint64
	start time.Time
	stop  chan struct{}
	done  chan struct{}
}

// progressTerminal returns the terminal file to draw on, or nil when the
// progress line is off: --skip-show-progress, silent output, -vvv (the
// statement echo would tear it), or stderr not a terminal.
func progressTerminal(c *Config, stderr io.Writer) *os.File {
	if out := c.Outputs; !out.ShowProgress || c.Silent || out.Verbose >= 3 {
		return nil
	}
	f, ok := stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return f
}

// startProgress draws the line until end is called. count returns the
// queries finished so far (all clients); total is the expected number, or
// 0 for a time-bound phase of length span.
func startProgress(f *os.File, label string, total uint64, span time.Duration, count func() uint64) *progressLine {
	width := 80
	if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 10 {
		width = w
	}
	p := &progressLine{w: f, width: width, label: label, total: total, span: span, count: count,
		start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *progressLine) loop() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	lastN, lastT := uint64(0), p.start
	for {
		select {
		case <-p.stop:
			io.WriteString(p.w, "\r\033[K")
			return
		case now := <-t.C:
			n := p.count()
			rate := float64(n-lastN) / now.Sub(lastT).Seconds()
			lastN, lastT = n, now
			line := formatProgress(p.label, n, p.total, rate, now.Sub(p.start), p.span)
			if len(line) > p.width-1 {
				line = line[:p.width-1]
			}
			io.WriteString(p.w, "\r"+line+"\033[K")
		}
	}
}

// end erases the line; nil-safe.
func (p *progressLine) end() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
}

// formatProgress is the text of the line (a pure function, tested).
func formatProgress(label string, n, total uint64, rate float64, elapsed, span time.Duration) string {
	var b strings.Builder
	b.WriteString(ProgName + ": " + label + ": ")
	if total > 0 {
		fmt.Fprintf(&b, "%d/%d queries", n, total)
	} else {
		fmt.Fprintf(&b, "%d queries", n)
	}
	fmt.Fprintf(&b, ", %.0f q/s, %s elapsed", rate, elapsed.Round(100*time.Millisecond))
	var eta time.Duration
	switch {
	case span > 0:
		eta = max(span-elapsed, 0)
	case total > 0 && n > 0:
		eta = time.Duration(float64(elapsed) * float64(total-min(n, total)) / float64(n))
	default:
		return b.String()
	}
	b.WriteString(", ETA " + eta.Round(100*time.Millisecond).String())
	return b.String()
}
