package slap

import "github.com/goslap/goslap/internal/getopt"

// OwnOptions holds goslap's own options (beyond mysqlslap). They are long
// names only, matched by their full name, listed in their own --help section
// and must never collide with a MySQL or MariaDB mysqlslap option name
// (TestOwnOptionsDoNotCollide checks this).
//
// To add one: add a field here and a row in ownOptions, e.g.
//
//	Seed    uint64 // --seed
//	{Name: "seed", Arg: getopt.RequiredArg, Var: getopt.VarUint64, Uint64: &own.Seed, Help: "..."}
//
// For "--json[=FILE]" use Arg: getopt.OptionalArg with Var: getopt.VarString and
// a Hook that records that the option was given.
type OwnOptions struct {
	Sandbox SandboxOptions // --sandbox, --sandbox-option, --target, --plot
}

// ownOptions returns the option rows for goslap's own options, bound to own.
func ownOptions(own *OwnOptions) []*getopt.Option {
	var rows []*getopt.Option
	rows = append(rows, sandboxOwnOptions(&own.Sandbox)...)
	return rows
}
