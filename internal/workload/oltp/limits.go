package oltp

// StopDefaults are the run limits of the settings' dialect (see the
// function StopDefaults): workload.StopDefaulter, for front ends that find
// them by the capability rather than by importing this package.
func (s *Settings) StopDefaults() (events int64, seconds float64) { return StopDefaults(s.Compat) }

// ScaleOption is the option that sizes the tables, which a study sweeps
// (workload.Scaler).
func (s *Settings) ScaleOption() (option, label string) { return "table-size", "table size" }
