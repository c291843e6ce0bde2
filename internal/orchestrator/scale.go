package orchestrator

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/getopt"
	"github.com/goslap/goslap/internal/workload"
)

// SplitScales turns a list value of the workload's size option
// (workload.Scaler: "--table-size=500K,1M") into the sweep's scales. Each
// element is validated by the workload itself (Settings.Build with that
// value), so a bad one gets the workload's own message; the option is then
// left at the first element. A single value gives nil scales (the
// workload's own size). label names the axis for reports. Only a size
// option that is a string (getopt.VarString) takes a list.
func SplitScales(name string, s workload.Settings, common workload.Common) (scales []int64, label string, err error) {
	sc, ok := s.(workload.Scaler)
	if !ok {
		return nil, "", nil
	}
	option, label := sc.ScaleOption()
	var row *getopt.Option
	for _, o := range s.Options() {
		if o.Name == option && o.Var == getopt.VarString && o.String != nil {
			row = o
			break
		}
	}
	if row == nil {
		return nil, "", nil
	}
	list := *row.String
	if !strings.Contains(list, ",") {
		return nil, label, nil
	}
	for _, v := range strings.Split(list, ",") {
		*row.String = strings.TrimSpace(v)
		if _, err := s.Build(name, common); err != nil {
			*row.String = list
			return nil, label, err
		}
		n, err := parseCount(*row.String)
		if err != nil {
			*row.String = list
			return nil, label, fmt.Errorf("invalid value '%s' for --%s: %v", v, option, err)
		}
		scales = append(scales, n)
	}
	*row.String = strings.TrimSpace(strings.Split(list, ",")[0])
	return scales, label, nil
}

// parseCount reads a whole number with an optional K or M suffix (the
// workloads' own size syntax; they validated the value already).
func parseCount(v string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(v, "K") || strings.HasSuffix(v, "k"):
		mult, v = 1000, v[:len(v)-1]
	case strings.HasSuffix(v, "M") || strings.HasSuffix(v, "m"):
		mult, v = 1000000, v[:len(v)-1]
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("not a positive whole number")
	}
	return n * mult, nil
}

// formatCount writes a scale the short way a person types it: 500K, 1M.
func formatCount(n int64) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return strconv.FormatInt(n/1000000, 10) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.FormatInt(n/1000, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}
