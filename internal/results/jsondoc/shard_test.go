package jsondoc

import (
	"bytes"
	"testing"
	"time"
)

// A shard's plan hash survives its document's round trip (numbers past
// 2^53 included) and ignores the shard options; any other option or the
// seed changes it.
func TestPlanHash(t *testing.T) {
	d := New("mysqlslap", "v", time.Unix(0, 0), 7)
	d.Options = map[string]any{"seed": uint64(18446744073709551615), "concurrency": "8", "shard": "0/2", "json": "a.json"}
	h := PlanHash(d)
	var b bytes.Buffer
	if err := Encode(&b, d); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if PlanHash(back) != h {
		t.Error("plan hash changed through Encode/Decode")
	}
	other := *d
	other.Options = map[string]any{"seed": uint64(18446744073709551615), "concurrency": "8", "shard": "1/2", "json": "b.json", "start-at": "now+3s"}
	if PlanHash(&other) != h {
		t.Error("shard options change the plan hash")
	}
	other.Options["concurrency"] = "9"
	if PlanHash(&other) == h {
		t.Error("an option did not change the plan hash")
	}
	other.Options["concurrency"], other.Seed = "8", 8
	if PlanHash(&other) == h {
		t.Error("the seed did not change the plan hash")
	}
}
