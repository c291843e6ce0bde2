// Package outpath finds two options of one command line that name the same
// file: two outputs (--json=F --plot=F), or an output and a file the
// command reads (--json=q.sql --query=q.sql). Either way one write would
// destroy what the other wrote or what was read, after the whole run.
package outpath

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File is one option's file as the user wrote it.
type File struct {
	Option string // "--json", "--query", "shard document"
	Path   string
	// Input marks a file the command reads; two inputs may be one file.
	Input bool
}

// String is the file as a message names it: "--json=F" for an option,
// "the shard document F" for a file named otherwise.
func (f File) String() string {
	if strings.HasPrefix(f.Option, "-") {
		return f.Option + "=" + f.Path
	}
	return f.Option + " " + f.Path
}

// Check returns one line naming the first two files that are the same file
// while at least one of them is written: the same cleaned absolute path,
// or, when both exist, the same file through a symbolic or hard link
// (os.SameFile). Empty paths (stdout, unset) are skipped.
func Check(files ...File) error {
	type seen struct {
		File
		abs  string
		info os.FileInfo
	}
	var all []seen
	for _, f := range files {
		if f.Path == "" {
			continue
		}
		abs, err := filepath.Abs(f.Path)
		if err != nil {
			abs = filepath.Clean(f.Path)
		}
		s := seen{File: f, abs: abs}
		if info, err := os.Stat(f.Path); err == nil {
			s.info = info
		}
		for _, o := range all {
			if o.Input && s.Input {
				continue
			}
			same := o.abs == s.abs || (o.info != nil && s.info != nil && os.SameFile(o.info, s.info))
			if !same {
				continue
			}
			first, second := o.File, s.File
			if first.Input {
				first, second = second, first
			}
			if second.Input {
				return fmt.Errorf("%s would overwrite the file that %s reads: give the output another name", first, second)
			}
			return fmt.Errorf("%s and %s name the same file: give each output its own", first, second)
		}
		all = append(all, s)
	}
	return nil
}
