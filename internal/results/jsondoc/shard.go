package jsondoc

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// ShardOptions are the options that differ between the shards of one
// plan (and where each writes its document): left out of PlanHash.
var ShardOptions = []string{"shard", "start-at", "late-start", "run-id", "shard-wait", "json"}

// PlanHash is a hash of what the shards of one run must share: front end,
// seed and every option but ShardOptions. json.Marshal orders map keys,
// so equal plans hash equally.
func PlanHash(d *Document) string {
	opts := make(map[string]any, len(d.Options))
	for k, v := range d.Options {
		opts[k] = v
	}
	for _, k := range ShardOptions {
		delete(opts, k)
	}
	// Through JSON and back first: a document read by Decode holds its
	// numbers as float64, so the writer hashes them as the reader will
	// see them (a uint64 past 2^53 would otherwise hash differently).
	if raw, err := json.Marshal(opts); err == nil {
		var back map[string]any
		if json.Unmarshal(raw, &back) == nil {
			opts = back
		}
	}
	data, _ := json.Marshal(struct {
		FrontEnd string         `json:"front_end"`
		Seed     uint64         `json:"seed"`
		Options  map[string]any `json:"options"`
	}{d.FrontEnd, d.Seed, opts})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// Merged says how a merged document came about.
type Merged struct {
	RunID string `json:"run_id"`
	Count int    `json:"shards"` // shards of the plan
	// Shards are the indexes merged; Missing those absent (Partial).
	Shards  []int `json:"merged_shards"`
	Missing []int `json:"missing_shards"`
	Partial bool  `json:"partial"`
	// StartSkewMicros is, per benchmark and iteration, the latest shard's
	// start minus the earliest's.
	StartSkewMicros [][]int64 `json:"start_skew_us"`
}
