// Package mysqlslap (internal/cli/mysqlslap) is goslap's mysqlslap front end: the command line that
// behaves as mariadb-slap's, plus goslap's own options. Data flows one way:
//
//	option files + argv ──ParseCommandLine──▶ Options
//	Options ──Validate (once, in mysqlslap's order)──▶ Config
//	Config ──┬─ mysqlslap's load: Run runs workload/mysqlslap's script
//	         │  through the orchestrator's Loop ──▶ results ──▶ block, CSV,
//	         │  --latency, JSON, chart (report*.go, json.go, sandbox.go)
//	         ├─ --only-print: OnlyPrint prints the same script
//	         └─ --workload=NAME: internal/orchestrator (engine, results, reports)
//
// Nothing after Validate changes Options; the engine never sees them, and
// the reporters see only results.
package mysqlslap
