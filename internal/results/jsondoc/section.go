package jsondoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// benchmarkFields is Benchmark without its JSON methods.
type benchmarkFields Benchmark

// benchmarkTail are the fields written after the sections.
type benchmarkTail struct {
	Server    *ServerFigures `json:"server,omitempty"`
	Intervals []Interval     `json:"intervals,omitempty"`
}

// MarshalJSON writes the benchmark's fields in their order with the
// sections, by name, between Figures and Server (where the document had
// its workload parts before they became sections, so documents are
// unchanged byte for byte).
func (b Benchmark) MarshalJSON() ([]byte, error) {
	tail := benchmarkTail{b.Server, b.Intervals}
	head := benchmarkFields(b)
	head.Server, head.Intervals = nil, nil
	hb, err := json.Marshal(head)
	if err != nil {
		return nil, err
	}
	tb, err := json.Marshal(tail)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.Write(hb[:len(hb)-1]) // without its "}"
	names := make([]string, 0, len(b.Sections))
	for name := range b.Sections {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if knownField(name) {
			return nil, fmt.Errorf("benchmark section %q has the name of a field", name)
		}
		raw := b.Sections[name]
		if !json.Valid(raw) {
			return nil, fmt.Errorf("benchmark section %q is not valid JSON", name)
		}
		key, _ := json.Marshal(name)
		out.WriteByte(',')
		out.Write(key)
		out.WriteByte(':')
		out.Write(raw)
	}
	if len(tb) > 2 { // not "{}"
		out.WriteByte(',')
		out.Write(tb[1:])
	} else {
		out.WriteByte('}')
	}
	return out.Bytes(), nil
}

// UnmarshalJSON reads the benchmark's fields; every other member whose
// value is an object is a section, kept as it was for the workload that
// reads it (what no one reads is carried through a merge).
func (b *Benchmark) UnmarshalJSON(data []byte) error {
	var f benchmarkFields
	if err := json.Unmarshal(data, &f); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	for name, raw := range members {
		if knownField(name) || !bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{")) {
			continue
		}
		if f.Sections == nil {
			f.Sections = map[string]json.RawMessage{}
		}
		var compact bytes.Buffer // as a workload wrote it, not as indented in a file
		if err := json.Compact(&compact, raw); err != nil {
			return err
		}
		f.Sections[name] = compact.Bytes()
	}
	*b = Benchmark(f)
	return nil
}

// Section decodes the section name into v; ok is false when the
// benchmark has none.
func (b *Benchmark) Section(name string, v any) (ok bool, err error) {
	raw, ok := b.Sections[name]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("benchmark section %q: %w", name, err)
	}
	return true, nil
}

// SetSection records v as the section name.
func (b *Benchmark) SetSection(name string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("benchmark section %q: %w", name, err)
	}
	if b.Sections == nil {
		b.Sections = map[string]json.RawMessage{}
	}
	b.Sections[name] = raw
	return nil
}

var (
	fieldsOnce sync.Once
	fieldNames map[string]bool
)

// knownField reports whether name is the JSON name of a Benchmark field
// (matched as encoding/json matches: case-insensitively).
func knownField(name string) bool {
	fieldsOnce.Do(func() {
		fieldNames = map[string]bool{}
		t := reflect.TypeFor[Benchmark]()
		for i := range t.NumField() {
			tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			if tag != "" && tag != "-" {
				fieldNames[strings.ToLower(tag)] = true
			}
		}
	})
	return fieldNames[strings.ToLower(name)]
}
