// Command capture-docs keeps the example outputs in goslap's documentation
// true: every block marked <!-- capture: NAME --> in README.md and docs/*.md
// holds "$ goslap ..." command lines, and this program runs them — against
// throw-away servers only (the command's own --sandbox, or one test server
// it starts itself in a temporary directory, reached as $SOCK over its Unix
// socket) — and writes what they printed back under each command line.
//
//	go run ./tools/capture-docs                 # capture every block
//	go run ./tools/capture-docs -only latency   # one block
//	go run ./tools/capture-docs -check          # parse-only: no server, fast
//
// -check (what the package's test runs) makes sure each captured command
// line is one goslap still accepts, without running a load: see check.go.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/goslap/goslap/internal/sandbox"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "capture-docs:", err)
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		os.Exit(1)
	}
}

func run() error {
	goslapBin := flag.String("goslap", "", "goslap binary to run (default: build the checkout's)")
	only := flag.String("only", "", "comma-separated block names to capture (default: all)")
	check := flag.Bool("check", false, "only check that every captured command line parses; run nothing")
	timeout := flag.Duration("timeout", 5*time.Minute, "time limit of each command")
	flag.Parse()

	root, err := repoRoot()
	if err != nil {
		return err
	}
	files := flag.Args()
	if len(files) == 0 {
		files, err = docFiles(root)
		if err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()

	work, err := os.MkdirTemp("", "capdocs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	bin := *goslapBin
	if bin == "" {
		bin = filepath.Join(work, "goslap")
		if err := build(ctx, root, bin); err != nil {
			return err
		}
	} else {
		// The commands say "goslap": put the given binary on PATH by that name.
		abs, err := filepath.Abs(bin)
		if err != nil {
			return err
		}
		bin = filepath.Join(work, "goslap")
		if err := os.Symlink(abs, bin); err != nil {
			return err
		}
	}

	if *check {
		return checkFiles(ctx, bin, files)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(*only, ",") {
		if n != "" {
			want[n] = true
		}
	}
	c := &capturer{bin: bin, work: work, timeout: *timeout}
	defer c.stopServer()
	for _, f := range files {
		if err := c.captureFile(ctx, f, want); err != nil {
			return err
		}
	}
	for n := range want {
		if !c.seen[n] {
			return fmt.Errorf("no block named %q", n)
		}
	}
	return nil
}

// repoRoot is the directory holding goslap's go.mod, found from the
// working directory upwards (go run and go test run in different places).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/goslap/goslap\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the goslap checkout (no go.mod of github.com/goslap/goslap above the working directory)")
		}
		dir = parent
	}
}

// docFiles are the pages that may hold captured blocks.
func docFiles(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	return append([]string{filepath.Join(root, "README.md")}, docs...), nil
}

func build(ctx context.Context, root, out string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, b)
	}
	return nil
}

// docSchemas are the empty schemas the $SOCK server starts with, for the
// examples whose tools need one (tpcc-load, as tpcc-mysql's, creates none).
var docSchemas = []string{"tpcc", "tpcc_empty"}

type capturer struct {
	bin     string
	work    string
	timeout time.Duration
	server  *sandbox.Server
	seen    map[string]bool
}

func (c *capturer) stopServer() {
	if c.server != nil {
		if err := c.server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "capture-docs: stopping the test server:", err)
		}
		c.server = nil
	}
}

// socket starts the shared throw-away server on first use.
func (c *capturer) socket(ctx context.Context) (string, error) {
	if c.server == nil {
		fmt.Fprintln(os.Stderr, "capture-docs: starting a throw-away server for $SOCK")
		s, err := sandbox.StartContext(ctx, sandbox.Config{TempDir: c.work})
		if err != nil {
			return "", err
		}
		c.server = s
		// tpcc-load, as tpcc-mysql's, loads into a schema that exists.
		db, err := s.OpenDB("")
		if err != nil {
			return "", err
		}
		defer db.Close()
		for _, name := range docSchemas {
			if _, err := db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+name+"`"); err != nil {
				return "", err
			}
		}
	}
	return c.server.Socket, nil
}

func (c *capturer) captureFile(ctx context.Context, file string, want map[string]bool) error {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	blocks, err := parseBlocks(file, lines)
	if err != nil {
		return err
	}
	// Rewrite from the last block up, so earlier blocks' line indexes stay valid.
	for k := len(blocks) - 1; k >= 0; k-- {
		b := blocks[k]
		c.seen[b.name] = true
		if len(want) > 0 && !want[b.name] {
			continue
		}
		outs, err := c.captureBlock(ctx, b)
		if err != nil {
			return fmt.Errorf("%s: capture %s: %w", file, b.name, err)
		}
		lines = rewrite(lines, b, outs)
	}
	return os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o644)
}

// captureBlock runs a block's commands in order, in one fresh directory (so
// a later command can read a file an earlier one wrote), through sh with the
// goslap under test first on PATH.
func (c *capturer) captureBlock(ctx context.Context, b block) ([]string, error) {
	dir, err := os.MkdirTemp(c.work, b.name+"-")
	if err != nil {
		return nil, err
	}
	env := append(os.Environ(), "PATH="+filepath.Dir(c.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	sock := ""
	for _, cmd := range b.commands {
		if strings.Contains(cmd.text, "$SOCK") && sock == "" {
			if sock, err = c.socket(ctx); err != nil {
				return nil, err
			}
			env = append(env, "SOCK="+sock)
		}
	}
	var outs []string
	for _, cmd := range b.commands {
		fmt.Fprintf(os.Stderr, "capture-docs: %s: $ %s\n", b.name, cmd.text)
		cctx, cancel := context.WithTimeout(ctx, c.timeout)
		if _, err := splitWords(cmd.text, map[string]string{"SOCK": sock, "HOME": os.Getenv("HOME")}); err != nil {
			cancel()
			return nil, err
		}
		// exec: goslap is sh's process itself, so the interrupt below reaches it.
		sh := exec.CommandContext(cctx, "sh", "-c", "exec "+cmd.text)
		sh.Dir = dir
		sh.Env = env
		var out bytes.Buffer
		sh.Stdout = &out
		sh.Stderr = &out
		// An interrupt reaches goslap itself, which cleans up its sandbox.
		sh.Cancel = func() error { return sh.Process.Signal(os.Interrupt) }
		sh.WaitDelay = 15 * time.Second
		err := sh.Run()
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		switch {
		case err != nil && !b.fails:
			return nil, fmt.Errorf("$ %s: %v\n%s", cmd.text, err, out.String())
		case err == nil && b.fails:
			return nil, fmt.Errorf("$ %s: exit status 0, but the block is marked fails", cmd.text)
		}
		o := out.String()
		if sock != "" {
			o = strings.ReplaceAll(o, sock, "$SOCK")
		}
		o = strings.ReplaceAll(o, dir+"/", "")
		if b.from != "" {
			if o, err = fromLine(o, b.from); err != nil {
				return nil, fmt.Errorf("$ %s: %w", cmd.text, err)
			}
		}
		outs = append(outs, o)
	}
	return outs, nil
}
