//go:build !linux

package engine

import "errors"

// raiseThreadPriority: only Linux gives one thread a nice of its own.
func raiseThreadPriority(steps int) error {
	return errors.New("a thread's own priority is Linux only")
}
