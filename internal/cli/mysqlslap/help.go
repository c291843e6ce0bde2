package mysqlslap

import (
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/optfile"
)

// Layout of my_getopt's my_print_help.
const (
	helpNameSpace    = 22
	helpCommentSpace = 57
)

// versionLine is mysqlslap's "Ver 1.0 Distrib" line with goslap's version.
func versionLine() string {
	return fmt.Sprintf("%s  Ver 1.0 Distrib %s, for %s (%s)\n", ProgName, Version, runtime.GOOS, runtime.GOARCH)
}

// copyrightLine stands where mysqlslap's --help names Oracle and MariaDB:
// goslap is not their program and carries none of their code. The
// repository has no licence file yet, so the line names no licence; add it
// here when the project publishes one.
const copyrightLine = "Copyright (c) 2026 the goslap authors."

func printVersion(w io.Writer) { io.WriteString(w, versionLine()) }

// printHelp writes mysqlslap's --help text: header, the defaults paragraph,
// the option list, the variables table with the values read so far, then
// goslap's extra sections (MySQL options, goslap's own options).
func printHelp(w io.Writer, table []*optSpec, env *Env, d defaultsArgs) {
	var b strings.Builder
	b.WriteString(versionLine())
	b.WriteString(copyrightLine + "\n\n")
	b.WriteString("Run a query multiple times against the server.\n\n")
	fmt.Fprintf(&b, "Usage: %s [OPTIONS]\n\n", ProgName)

	b.WriteString("Default options are read from the following files in the given order:\n")
	if d.file != "" {
		b.WriteString(absPath(d.file) + "\n")
	} else {
		for _, f := range env.defaultFiles() {
			b.WriteString(f + " ")
		}
		b.WriteString("\n")
	}
	suffix := d.groupSuffix
	if !d.hasSuffix {
		suffix = env.getenv("MYSQL_GROUP_SUFFIX")
	}
	fmt.Fprintf(&b, "The following groups are read: %s\n", strings.Join(optfile.Groups(optionGroups, suffix), " "))
	b.WriteString(`The following options may be given as the first argument:
--print-defaults          Print the program argument list and exit.
--no-defaults             Don't read default options from any option file.
The following specify which files/extra groups are read (specified before remaining options):
--defaults-file=#         Only read default options from the given file #.
--defaults-extra-file=#   Read this file after the global files are read.
--defaults-group-suffix=# Additionally read default groups with # appended as a suffix.

`)
	section := func(sec optSection) []*optSpec {
		var out []*optSpec
		for _, t := range table {
			if t.Section == sec {
				out = append(out, t)
			}
		}
		return out
	}
	printOptionList(&b, section(sectionMariaDB))
	printVariables(&b, section(sectionMariaDB))
	if mysql := section(sectionMySQL); len(mysql) > 0 {
		b.WriteString("\nMySQL mysqlslap options accepted by goslap (full names only; some are refused with the reason):\n")
		printOptionList(&b, mysql)
	}
	if ext := section(sectionGoslap); len(ext) > 0 {
		b.WriteString("\ngoslap options (beyond mysqlslap):\n")
		printOptionList(&b, ext)
	}
	io.WriteString(w, b.String())
}

// printOptionList is my_print_help: "  -X, --name=marker", the description
// wrapped at helpCommentSpace columns from column helpNameSpace.
func printOptionList(b *strings.Builder, opts []*optSpec) {
	for _, t := range opts {
		o := t.Option
		col := 2
		if o.Short != 0 {
			fmt.Fprintf(b, "  -%c, ", o.Short)
			col = 6
		} else {
			b.WriteString("  ")
		}
		name := getopt.HelpName(o.Name)
		b.WriteString("--" + name)
		col += 2 + len(name)
		marker := argMarker(o)
		b.WriteString(marker + " ")
		col += len(marker) + 1
		if col > helpNameSpace && o.Help != "" {
			b.WriteString("\n")
			col = 0
		}
		for ; col < helpNameSpace; col++ {
			b.WriteByte(' ')
		}
		comment := o.Help
		for len(comment) > helpCommentSpace {
			end := strings.LastIndexByte(comment[:helpCommentSpace+1], ' ')
			if end <= 0 {
				break
			}
			b.WriteString(comment[:end] + "\n" + strings.Repeat(" ", helpNameSpace))
			comment = comment[end+1:]
		}
		b.WriteString(comment + "\n")
		if o.Var == getopt.VarBool && o.Bool != nil && t.defaultTrue() {
			fmt.Fprintf(b, "%*s(Defaults to on; use --skip-%s to disable.)\n", helpNameSpace, "", name)
		}
	}
}

// defaultTrue reports a boolean whose compiled-in default is on (only --ssl).
func (t *optSpec) defaultTrue() bool { return t.Name == "ssl" }

func argMarker(o *getopt.Option) string {
	if o.Arg == getopt.NoArg || o.Var == getopt.VarBool {
		return ""
	}
	m := "=#"
	if o.Var == getopt.VarString {
		m = "=name"
	}
	if o.Arg == getopt.OptionalArg {
		return "[" + m + "]"
	}
	return m
}

// printVariables is my_print_variables: name and current value of every
// option with a variable, the name column one wider than the longest name.
func printVariables(b *strings.Builder, opts []*optSpec) {
	width := 0
	for _, t := range opts {
		if t.Variable != nil && len(t.Name) > width {
			width = len(t.Name)
		}
	}
	width++
	b.WriteString("\nVariables (--variable-name=value)\n")
	fmt.Fprintf(b, "%-*sValue (after reading options)\n", width, "and boolean options {FALSE|TRUE}")
	for i := 1; i < 75; i++ {
		if i == width {
			b.WriteByte(' ')
		} else {
			b.WriteByte('-')
		}
	}
	b.WriteByte('\n')
	for _, t := range opts {
		if t.Variable != nil {
			fmt.Fprintf(b, "%-*s%s\n", width, getopt.HelpName(t.Name), t.Variable())
		}
	}
}
