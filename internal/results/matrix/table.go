package matrix

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// cell identifies one row of the side-by-side table.
type cell struct {
	engine      string
	concurrency int
	size        int64
	setting     string
}

// rows lists the (engine, concurrency) cells of all outcomes in the order
// they were first seen (the runner's order: engine by engine, then
// concurrency levels as given), and an index of each outcome's points.
func rows(outcomes []Column) ([]cell, []map[cell]Point) {
	var order []cell
	seen := map[cell]bool{}
	idx := make([]map[cell]Point, len(outcomes))
	for i, o := range outcomes {
		idx[i] = map[cell]Point{}
		for _, p := range o.Points {
			c := cell{p.Engine, p.Concurrency, p.Size, p.Setting}
			idx[i][c] = p
			if !seen[c] {
				seen[c] = true
				order = append(order, c)
			}
		}
	}
	return order, idx
}

// WriteTable prints the outcomes side by side: one row per engine ×
// concurrency level, and per target the average seconds per iteration, the
// queries per second and (from the second target on) the ratio of its
// queries per second to the first target's. A cell a target did not run is
// "-".
//
//	Comparison: 2 targets; seconds = average per iteration, q/s = queries per second, ratio = q/s against bp64M
//	  bp64M:  sandbox: mariadbd  Ver 10.11.14-MariaDB ... (innodb_buffer_pool_size=64M)
//	  bp256M: sandbox: mariadbd  Ver 10.11.14-MariaDB ... (innodb_buffer_pool_size=256M)
//
//	                 bp64M              bp256M
//	engine  clients  seconds  q/s       seconds  q/s       ratio
//	innodb  10       0.123    8130.1    0.101    9900.9    1.22x
func WriteTable(w io.Writer, outcomes []Column) error {
	if len(outcomes) == 0 {
		return nil
	}
	first := outcomes[0].Label
	fmt.Fprintf(w, "Comparison: %d target%s; seconds = average per iteration, q/s = queries per second", len(outcomes), plural(len(outcomes)))
	if len(outcomes) > 1 {
		fmt.Fprintf(w, ", ratio = q/s against %s", first)
	}
	fmt.Fprintln(w)
	width := 0
	for _, o := range outcomes {
		width = max(width, len(o.Label)+1)
	}
	for _, o := range outcomes {
		fmt.Fprintf(w, "  %-*s %s\n", width, o.Label+":", o.Description)
	}
	fmt.Fprintln(w)

	order, idx := rows(outcomes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Two heading lines: target labels over their first column, then the
	// column names.
	var h1, h2 strings.Builder
	h1.WriteString("\t")
	h2.WriteString("engine\tclients")
	sizes, settings := hasColumn(order, func(c cell) bool { return c.size > 0 }), hasColumn(order, func(c cell) bool { return c.setting != "" })
	if sizes {
		h1.WriteString("\t")
		h2.WriteString("\tsize")
	}
	if settings {
		h1.WriteString("\t")
		h2.WriteString("\tserver option")
	}
	for i, o := range outcomes {
		h1.WriteString("\t" + o.Label + "\t")
		h2.WriteString("\tseconds\tq/s")
		if i > 0 {
			h1.WriteString("\t")
			h2.WriteString("\tratio")
		}
	}
	fmt.Fprintln(tw, h1.String())
	fmt.Fprintln(tw, h2.String())
	for _, c := range order {
		engine := c.engine
		if engine == "" {
			engine = "-"
		}
		line := fmt.Sprintf("%s\t%d", engine, c.concurrency)
		if sizes {
			line += "\t" + strconv.FormatInt(c.size, 10)
		}
		if settings {
			line += "\t" + c.setting
		}
		base, haveBase := idx[0][c]
		for i := range outcomes {
			p, ok := idx[i][c]
			if ok {
				line += fmt.Sprintf("\t%.3f\t%s", p.AvgSeconds, formatQPS(p.QPS))
			} else {
				line += "\t-\t-"
			}
			if i > 0 {
				if ok && haveBase && base.QPS > 0 {
					line += fmt.Sprintf("\t%.2fx", p.QPS/base.QPS)
				} else {
					line += "\t-"
				}
			}
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

// formatQPS prints queries per second with one decimal, or "-" when unknown
// (0: e.g. iterations shorter than the millisecond mysqlslap measures in).
func formatQPS(q float64) string {
	if q <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", q)
}

// hasColumn reports whether any row has the dimension (a study's table
// size or server option): the table shows its column only then.
func hasColumn(order []cell, has func(cell) bool) bool {
	for _, c := range order {
		if has(c) {
			return true
		}
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
