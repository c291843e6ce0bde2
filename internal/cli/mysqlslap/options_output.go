package mysqlslap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goslap/goslap/internal/chart"
	"github.com/goslap/goslap/internal/outpath"
)

// checkOutputFiles checks, before anything runs, the files goslap's own
// options write only at the end (--json, --plot): a typo in a path must not
// cost a whole benchmark. mysqlslap opens --csv up front for the same
// reason (spec 3.1). Nothing is created or changed: an existing file is
// opened for writing without truncation, and a new one is probed with a
// temporary file in its directory that is removed at once.
func checkOutputFiles(o *Options) error {
	if o.OnlyPrint && o.Ext.JSONSet {
		return Exitf(1, "--only-print runs nothing: it cannot be combined with --json")
	}
	if err := outpath.Check(outputFiles(o)...); err != nil {
		return exitWith(err)
	}
	if o.Ext.JSONSet && !JSONToStdout(o) {
		if err := checkWritable(o.Ext.JSON, false); err != nil {
			return Exitf(1, "--json=%s: cannot write the file: %v", o.Ext.JSON, err)
		}
	}
	if plot := o.Ext.Sandbox.Plot; plot != "" {
		format := strings.ToLower(strings.TrimPrefix(filepath.Ext(plot), "."))
		if !slices.Contains(chart.Formats, format) {
			return Exitf(1, "--plot=%s: the file name must end in %s", plot, chartExtensions())
		}
		if err := checkWritable(plot, true); err != nil {
			return Exitf(1, "--plot=%s: cannot write the file: %v", plot, err)
		}
	}
	return nil
}

// outputFiles are the files a command line writes, and the statement
// files it reads where goslap's own outputs could overwrite them. --csv
// against a statement file is left as mysqlslap runs it: it only appends.
func outputFiles(o *Options) []outpath.File {
	var files []outpath.File
	if o.Ext.JSONSet && !JSONToStdout(o) {
		files = append(files, outpath.File{Option: "--json", Path: o.Ext.JSON})
	}
	if o.Ext.Sandbox.Plot != "" {
		files = append(files, outpath.File{Option: "--plot", Path: o.Ext.Sandbox.Plot})
	}
	if len(files) == 0 {
		return nil
	}
	if o.CSVSet && o.CSV != "" && !strings.HasPrefix(o.CSV, "-") {
		files = append(files, outpath.File{Option: "--csv", Path: o.CSV})
	}
	for _, in := range []struct {
		set       bool
		option, v string
	}{{o.CreateSet, "--create", o.Create}, {o.QuerySet, "--query", o.Query},
		{o.PreQuerySet, "--pre-query", o.PreQuery}, {o.PostQuerySet, "--post-query", o.PostQuery}} {
		// A value names a file only when one exists (mysqlslap's rule).
		if info, err := os.Stat(in.v); in.set && err == nil && info.Mode().IsRegular() {
			files = append(files, outpath.File{Option: in.option, Path: in.v, Input: true})
		}
	}
	return files
}

// checkWritable reports why path cannot be written. replaced says the
// writer puts a new file in place (a rename, as the chart writer does), so
// only the directory must be writable.
func checkWritable(path string, replaced bool) error {
	info, err := os.Stat(path)
	switch {
	case err == nil && info.IsDir():
		return errors.New("it is a directory")
	case err == nil && !replaced:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return pathErr(path, err)
		}
		return f.Close()
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return pathErr(path, err)
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check-*")
	if err != nil {
		return pathErr(dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// pathErr names the path with the system's reason, without Go's "open"/"stat".
func pathErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", path, err)
}

// chartExtensions lists the --plot formats for messages: ".svg, .png or .pdf".
func chartExtensions() string {
	exts := make([]string, len(chart.Formats))
	for i, f := range chart.Formats {
		exts[i] = "." + f
	}
	if len(exts) < 2 {
		return strings.Join(exts, "")
	}
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}
