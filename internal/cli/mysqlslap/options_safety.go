package mysqlslap

import "github.com/goslap/goslap/internal/getopt"

// safetyOptions returns the row of goslap's data-safety opt-in (see
// safety.go): mysqlslap drops whatever schema --create-schema names; goslap
// only does so when told to.
func safetyOptions(o *Options) []*getopt.Option {
	return []*getopt.Option{
		{Name: "allow-drop-existing-schema", Arg: getopt.NoArg, Var: getopt.VarBool, Bool: &o.AllowDropExistingSchema, ExactOnly: true,
			Help: "Let goslap drop and re-create a --create-schema that already exists and holds tables " +
				"goslap did not create (mysqlslap's behaviour). Without it goslap refuses before running anything."},
	}
}
