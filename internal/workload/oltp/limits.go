package oltp

// StopDefaults are the run limits of the settings' dialect (see the
// function StopDefaults), for front ends that find them through an
// optional interface rather than by importing this package.
func (s *Settings) StopDefaults() (events int64, seconds float64) { return StopDefaults(s.Compat) }
