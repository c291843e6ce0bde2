package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// checkFiles makes sure every captured command line is one the goslap
// binary bin still accepts, without a server and without running a load, so
// a renamed or removed option fails `make test` instead of a later capture:
//
//   - mysqlslap's command line and --workload: the arguments with --help
//     appended. goslap parses every option before it acts on --help, so an
//     unknown option or a bad argument kind is an error (non-zero, or a
//     message on stderr, which my_getopt's "unknown variable" is).
//   - goslap sysbench TEST ... run|prepare|cleanup: the same with the command
//     word replaced by help, which parses the test's and the general options.
//   - goslap tpcc-*: --help appended, after every option is parsed.
//   - goslap compare, goslap merge: run in an empty directory; they parse
//     their options before they open a file, so the only acceptable error is
//     that the first document does not exist.
//   - a block marked fails (error examples) runs as written: it must exit
//     non-zero, and not with an unknown-option error.
//
// $SOCK stands for a socket path that does not exist.
func checkFiles(ctx context.Context, bin string, files []string) error {
	var bad []string
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		blocks, err := parseBlocks(f, strings.Split(string(data), "\n"))
		if err != nil {
			return err
		}
		for _, b := range blocks {
			for _, c := range b.commands {
				n++
				if err := checkCommand(ctx, bin, c.text, b.fails); err != nil {
					bad = append(bad, fmt.Sprintf("%s: capture %s: $ %s\n  %v", f, b.name, c.text, err))
				}
			}
		}
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "\n"))
	}
	fmt.Fprintf(os.Stderr, "capture-docs: %d command lines parse\n", n)
	return nil
}

var unknownOption = regexp.MustCompile(`(?i)(unknown|unrecognized|invalid) (option|variable)`)

var missingDoc = regexp.MustCompile(`: open [^:]+\.json: no such file or directory`)

func checkCommand(ctx context.Context, bin, text string, fails bool) error {
	dir, err := os.MkdirTemp("", "capdocs-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args, err := splitWords(text, map[string]string{"SOCK": dir + "/no-such-server.sock", "HOME": dir})
	if err != nil {
		return err
	}
	if len(args) < 2 || args[0] != "goslap" {
		return fmt.Errorf("a captured command must start with goslap and have arguments")
	}
	args = args[1:]
	wantMissingFile := false
	switch {
	case fails:
		// An error example runs as written (against no server): it must
		// fail, and not because an option is unknown.
	case args[0] == "sysbench":
		last := len(args) - 1
		switch args[last] {
		case "run", "prepare", "cleanup", "check", "help":
			args[last] = "help"
		default:
			args = append(args, "help")
		}
	case args[0] == "compare" || args[0] == "merge":
		wantMissingFile = true
	default:
		args = append(args, "--help")
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, append([]string{"--no-defaults"}[:noDefaults(args)], args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir) // no ~/.my.cnf of the machine's
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	if fails {
		if runErr == nil {
			return fmt.Errorf("an error example exited 0")
		}
		if unknownOption.MatchString(msg) {
			return fmt.Errorf("an error example fails on an option: %s", msg)
		}
		return nil
	}
	if wantMissingFile {
		if runErr != nil && missingDoc.MatchString(msg) {
			return nil
		}
		return fmt.Errorf("expected only a missing-document error, got %v: %s", runErr, msg)
	}
	if runErr != nil || msg != "" {
		return fmt.Errorf("%v: %s", runErr, msg)
	}
	return nil
}

// noDefaults is 1 when --no-defaults should lead the arguments (mysqlslap's
// command line, which would otherwise read the machine's option files),
// else 0. A command that already starts with it keeps its own.
func noDefaults(args []string) int {
	switch args[0] {
	case "sysbench", "compare", "merge", "tpcc-load", "tpcc-start", "tpcc-check", "tpcc-cleanup", "--no-defaults":
		return 0
	}
	return 1
}
