package mysqlslap

import (
	"crypto/rand"
	"encoding/binary"

	slapscript "github.com/goslap/goslap/internal/workload/mysqlslap"
	"github.com/goslap/goslap/sqlgen"
)

// runSeed is --seed, or a random seed when none was given.
func runSeed(o *Options) uint64 {
	if o.Ext.SeedSet {
		return o.Ext.Seed
	}
	if o.Ext.Shard.Shard != "" {
		return shardSeed(o) >> 1 // the same on every shard
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) >> 1 // fits a JSON number exactly below 2^63
}

// timeBound reports whether clients run until --run-time rather than
// until a per-client limit: with --run-time and no explicit count.
func timeBound(o *Options) bool {
	return o.Ext.RunTime > 0 && o.NumberOfQueries == 0 && o.ExecuteNumber == 0
}

// scriptConfig is the mysqlslap script's configuration from validated
// options; the caller adds the output and hooks of a run or a print.
func scriptConfig(o *Options, p *sqlgen.Plan, seed uint64) slapscript.Config {
	return slapscript.Config{
		Plan:            p,
		Seed:            seed,
		Templates:       o.Ext.Templates,
		ExactCount:      o.Ext.ExactCount,
		NumberOfQueries: o.NumberOfQueries,
		TimeBound:       timeBound(o),
		PreSystem:       o.PreSystem,
		PostSystem:      o.PostSystem,
	}
}

// newScript builds the script, before anything connects; a bad template
// is an ExitError.
func newScript(cfg slapscript.Config) (*slapscript.Script, error) {
	s, err := slapscript.New(cfg)
	if err != nil {
		return nil, exitWith(err)
	}
	return s, nil
}
