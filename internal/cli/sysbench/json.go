package sysbench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/goslap/goslap/internal/orchestrator"
	"github.com/goslap/goslap/internal/results/jsondoc"
)

// frontEnd names this command line in the --json document.
const frontEnd = "sysbench"

// checkWritable reports why --json's file could not be written, before
// anything runs.
func checkWritable(path string) error {
	if info, err := os.Stat(path); err == nil {
		if info.IsDir() {
			return fmt.Errorf("is a directory")
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return f.Close()
	}
	dir := filepath.Dir(path)
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// writeJSON writes the invocation's document to stdout or --json's file.
func writeJSON(stdout io.Writer, c *Config, cfg *orchestrator.Config, res *orchestrator.Result, started time.Time, runErr error) error {
	doc, err := orchestrator.Document(cfg, res, orchestrator.DocumentInput{FrontEnd: frontEnd, Version: Version, StartedAt: started,
		Options: optionValues(c, cfg), Err: runErr})
	if err != nil {
		return fatalf("writing the JSON document: %v", err)
	}
	var b bytes.Buffer
	if err := jsondoc.Encode(&b, doc); err != nil {
		return fatalf("writing the JSON document: %v", err)
	}
	if c.Extras.JSON == "" {
		_, err = stdout.Write(b.Bytes())
	} else {
		err = os.WriteFile(c.Extras.JSON, b.Bytes(), 0o666)
	}
	if err != nil {
		return fatalf("writing the JSON document: %v", err)
	}
	return nil
}

var targetPassword = regexp.MustCompile(`((?:^|,)password=)[^,]*`)

// optionValues are the document's options under sysbench's 1.0 names,
// resolved (defaults included): the general options, --mysql-*, the
// test's own and goslap's extras. The password is never included.
func optionValues(c *Config, cfg *orchestrator.Config) map[string]any {
	seed := any(nil)
	if c.SeedSet {
		seed = c.Seed
	}
	threads := any(c.Threads)
	if c.ThreadList != nil {
		threads = c.ThreadList
	}
	m := c.MySQL
	ignore := []string{}
	if m.IgnoreAll {
		ignore = append(ignore, "all")
	}
	for _, code := range m.IgnoreErrors {
		ignore = append(ignore, fmt.Sprint(code))
	}
	targets := []string{}
	for _, t := range c.Extras.Targets {
		targets = append(targets, targetPassword.ReplaceAllString(t, "${1}*****"))
	}
	json := any("-")
	if c.Extras.JSON != "" {
		json = c.Extras.JSON
	}
	sandbox := any(nil)
	if c.Extras.SandboxSet {
		sandbox = c.Extras.Sandbox
	}
	out := map[string]any{
		"test": c.Test, "sysbench-compat": string(c.Dialect), "threads": threads,
		"events": c.Events, "time": c.Time, "rate": c.Rate, "report-interval": c.ReportInterval,
		"percentile": c.Percentile, "rand-seed": seed,
		"mysql-host": nonNil(m.Hosts), "mysql-port": m.Ports, "mysql-socket": nonNil(m.Sockets), "mysql-user": m.User,
		"mysql-db": m.DB, "mysql-ssl": m.SSL, "mysql-ssl-cipher": m.SSLCipher, "mysql-compression": m.Compression,
		"mysql-ignore-errors": ignore, "mysql-debug": m.Debug,
		"target": targets, "sandbox": sandbox, "sandbox-option": nonNil(c.Extras.SandboxOptions), "plot": c.Extras.Plot,
		"latency": c.Extras.Latency, "iterations": max(c.Extras.Iterations, 1), "rounds": max(c.Extras.Rounds, 1), "compare-metric": c.Extras.Metric, "json": json,
		"server-metrics": !c.Extras.ServerMetricsOff, "server-pid": serverPID(c), "server-report": c.Extras.ServerReport,
	}
	if out["mysql-port"] == nil || len(m.Ports) == 0 {
		out["mysql-port"] = []int{}
	}
	bound := map[any]bool{}
	for _, r := range cfg.Settings.Options() {
		// Deprecated spellings share the current name's variable.
		var ptr, v any
		switch {
		case r.Bool != nil:
			ptr, v = r.Bool, *r.Bool
		case r.Uint32 != nil:
			ptr, v = r.Uint32, *r.Uint32
		case r.Uint64 != nil:
			ptr, v = r.Uint64, *r.Uint64
		case r.String != nil:
			ptr, v = r.String, *r.String
		}
		if ptr == nil || bound[ptr] {
			continue
		}
		bound[ptr] = true
		out[r.Name] = v
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// serverPID is --server-pid for the document: null when not given.
func serverPID(c *Config) any {
	if c.Extras.ServerPID == 0 {
		return nil
	}
	return c.Extras.ServerPID
}
