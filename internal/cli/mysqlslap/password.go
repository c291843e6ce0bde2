package mysqlslap

import (
	"fmt"
	"os"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"golang.org/x/term"
)

// readPasswordFromTerminal prompts on /dev/tty (or on stdin when it is a
// terminal) and reads without echo. Without a terminal it returns
// ErrNoTerminal rather than reading a pipe: a bare -p must never hang.
func readPasswordFromTerminal(prompt string) (string, error) {
	if tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		defer tty.Close()
		if term.IsTerminal(int(tty.Fd())) {
			fmt.Fprint(tty, prompt)
			pw, err := term.ReadPassword(int(tty.Fd()))
			fmt.Fprintln(tty)
			return string(pw), err
		}
	}
	if fd := int(os.Stdin.Fd()); term.IsTerminal(fd) {
		fmt.Fprint(os.Stderr, prompt)
		pw, err := term.ReadPassword(fd)
		fmt.Fprintln(os.Stderr)
		return string(pw), err
	}
	return "", ErrNoTerminal
}

// passwordOptionNames are the long names whose values are secrets.
var passwordOptionNames = []string{"password", "password1", "password2", "password3"}

// maskPassword hides the value of a password word for --print-defaults:
// "--password=x", "--loose-password=x", a unique prefix "--pass=x", "-px".
func maskPassword(word string) string {
	if strings.HasPrefix(word, "-p") && len(word) > 2 && !strings.HasPrefix(word, "--") {
		return "-p*****"
	}
	if !strings.HasPrefix(word, "--") {
		return word
	}
	name, _, hasValue := strings.Cut(word[2:], "=")
	if !hasValue {
		return word
	}
	n := getopt.Normalize(name)
	n = strings.TrimPrefix(n, "loose-")
	for _, pw := range passwordOptionNames {
		if len(n) >= 2 && (strings.HasPrefix(pw, n) || n == pw) {
			return "--" + name + "=*****"
		}
	}
	return word
}
