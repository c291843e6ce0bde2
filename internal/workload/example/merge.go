package example

import (
	"encoding/json"
	"errors"

	"github.com/goslap/goslap/internal/results/jsondoc"
	"github.com/goslap/goslap/internal/workload/report"
)

// sectionMerger is how goslap merge combines the shards' sections: their
// units summed, at the size they all ran (report.SectionMerger).
type sectionMerger struct{}

func (sectionMerger) MergeSections(parts []json.RawMessage, _ *jsondoc.Benchmark) (json.RawMessage, error) {
	var m Summary
	for i, raw := range parts {
		var s Summary
		if raw == nil {
			return nil, errors.New("a shard has no example section")
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if i > 0 && s.Rows != m.Rows {
			return nil, errors.New("the shards' example sections differ in their rows")
		}
		m.Rows, m.Units = s.Rows, m.Units+s.Units
	}
	_, raw, err := report.Marshal(Name, m)
	return raw, err
}
