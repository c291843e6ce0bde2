package sysbench

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/sandbox/servertest"
)

// TestVerdictNamesDiskReads: two sandboxes, an 8M and a 256M buffer pool
// (O_DIRECT, so the 8M pool's misses reach the disk), oltp_read_only on
// a table larger than 8M (100000 rows, about 24M), 3 interleaved rounds:
// the verdict line of 256M against 8M names disk reads per transaction
// (well above zero with 8M, near zero with 256M), each side gets its host
// line, and the JSON's comparison carries the same as the verdict's
// reasons and the hosts list. The reason does not depend on the verdict
// (3 rounds of a loaded machine may not give one). About 40 s here.
func TestVerdictNamesDiskReads(t *testing.T) {
	s := servertest.Require(t)
	doc := filepath.Join(t.TempDir(), "bp.json")
	out, errOut, code := goslapSysbench(t, s, "oltp_read_only", "--table-size=100000", "--time=2", "--threads=2", "--rounds=3",
		"--target=bp8M:sandbox,innodb_buffer_pool_size=8M,innodb_flush_method=O_DIRECT",
		"--target=bp256M:sandbox,innodb_buffer_pool_size=256M,innodb_flush_method=O_DIRECT", "--json="+doc, "run")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	line := regexp.MustCompile(`bp256M vs bp8M +tps +ratio [^\n]*: disk reads per transaction ([0-9.]+) → ([0-9.]+)`)
	m := line.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the verdict of bp256M against bp8M names no disk reads per transaction:\n%s", out)
	}
	if a, _ := strconv.ParseFloat(m[1], 64); a < 0.5 || m[2] != "0.0" {
		t.Errorf("disk reads per transaction %s → %s, want well above zero with 8M, near zero with 256M", m[1], m[2])
	}
	for _, side := range []string{"bp8M", "bp256M"} {
		if !regexp.MustCompile(side + ` +host +host CPU (saturated|not saturated) [^\n]*goslap used [0-9]+ % of it, the server [0-9]+ %`).MatchString(out) {
			t.Errorf("no host line for %s:\n%s", side, out)
		}
	}
	d := readDocument(t, doc)
	if d.Comparison == nil || len(d.Comparison.Points) != 1 {
		t.Fatalf("comparison section: %+v", d.Comparison)
	}
	p := d.Comparison.Points[0]
	var disk *jsondoc.Reason
	for i, r := range p.Metrics[0].Verdicts[0].Reasons {
		if r.Figure == "disk_reads" {
			disk = &p.Metrics[0].Verdicts[0].Reasons[i]
		}
	}
	switch {
	case disk == nil:
		t.Errorf("the JSON verdict's reasons lack disk_reads: %+v", p.Metrics[0].Verdicts[0].Reasons)
	case disk.Baseline < 0.5 || disk.Value > 0.05 || disk.Unit != "transaction" || !strings.HasPrefix(disk.Text, "disk reads per transaction"):
		t.Errorf("disk_reads reason %+v: want a baseline well above zero and a value near zero", *disk)
	}
	if len(p.Hosts) != 2 || p.Hosts[0].Rounds != 3 || p.Hosts[0].ServerShare == nil {
		t.Errorf("hosts %+v: want both sides, 3 rounds each, with the server's share", p.Hosts)
	}
}
