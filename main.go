// Command goslap is a drop-in, flag-compatible replacement for mysqlslap.
package main

import (
	"os"

	"github.com/goslap/goslap/slap"
)

func main() {
	os.Exit(slap.Main(os.Args))
}
