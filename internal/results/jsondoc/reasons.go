package jsondoc

// Reason is one server figure per unit that differs between a side and
// the baseline: why a verdict came out as it did.
type Reason struct {
	// Figure is the PerTransaction field's JSON name ("disk_reads").
	Figure string `json:"figure"`
	// Unit is what the figures are per: "transaction" or "query".
	Unit string `json:"unit"`
	// Baseline and Value are the baseline's and the side's figure, each
	// the median over its rounds.
	Baseline float64 `json:"baseline"`
	Value    float64 `json:"value"`
	// Change is (Value - Baseline) / Baseline; absent when Baseline is 0.
	Change *float64 `json:"change,omitempty"`
	// Text is the reason in the report's words: "disk reads per
	// transaction 3.3 → 0.0".
	Text string `json:"text"`
}

// SideHost is one side's host CPU over its rounds.
type SideHost struct {
	Target       string `json:"target"`
	ServerOption string `json:"server_option,omitempty"`
	// Rounds had host figures; SaturatedRounds of them a host CPU busy at
	// SaturatedBusy or more.
	Rounds          int `json:"rounds"`
	SaturatedRounds int `json:"saturated_rounds"`
	// Busy, ClientShare (goslap's CPU) and ServerShare (the server
	// process's, when visible) are fractions of all the host's CPUs,
	// medians over the rounds.
	Busy        float64  `json:"busy"`
	ClientShare float64  `json:"client_share"`
	ServerShare *float64 `json:"server_share,omitempty"`
}
