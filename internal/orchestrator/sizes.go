package orchestrator

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/goslap/goslap/internal/mysqlconn"
	"github.com/goslap/goslap/internal/workload"
)

// TableSize is one table's size after prepare, as the server reports it
// (information_schema.TABLES after ANALYZE TABLE) and, for a sandbox, as
// its files in the data directory are.
type TableSize struct {
	Table         string
	Engine        string
	Rows          int64 // the engine's estimate for InnoDB, exact for MyISAM
	DataLength    int64
	IndexLength   int64
	RowFormat     string // the format the server gave the table
	CreateOptions string // what was asked for (ROW_FORMAT=..., KEY_BLOCK_SIZE=...)
	Charset       string
	Files         []File // sandbox only
}

// File is one file of a table in the data directory.
type File struct {
	Name  string
	Bytes int64
}

// tableNamer is the optional capability of a workload that names its
// tables; without it every table of the schema is reported.
type tableNamer interface{ TableNames() []string }

// Sizes reads the on-disk size of the workload's tables in the current
// schema; files says to read the data directory too (a sandbox, whose
// files are on this machine).
func Sizes(m *mysqlconn.Conn, wl workload.Workload, p workload.Point, files bool) ([]TableSize, error) {
	where := "TABLE_SCHEMA = DATABASE()"
	var names []string
	if tn, ok := wl.(tableNamer); ok {
		names = tn.TableNames()
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = "'" + strings.ReplaceAll(n, "'", "''") + "'"
		}
		where += " AND t.TABLE_NAME IN (" + strings.Join(quoted, ",") + ")"
	}
	if len(names) > 0 {
		// Fresh statistics: InnoDB's TABLE_ROWS and lengths are otherwise
		// those of its last automatic sample.
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = "`" + strings.ReplaceAll(n, "`", "``") + "`"
		}
		if _, err := m.Query("ANALYZE TABLE " + strings.Join(q, ", ")); err != nil {
			return nil, fmt.Errorf("analyzing the tables for their size: %w", err)
		}
	}
	rows, err := m.Query("SELECT t.TABLE_NAME, IFNULL(t.ENGINE,''), IFNULL(t.TABLE_ROWS,0), IFNULL(t.DATA_LENGTH,0), IFNULL(t.INDEX_LENGTH,0), " +
		"IFNULL(t.ROW_FORMAT,''), IFNULL(t.CREATE_OPTIONS,''), IFNULL(c.CHARACTER_SET_NAME,'') " +
		"FROM information_schema.TABLES t LEFT JOIN information_schema.COLLATIONS c ON c.COLLATION_NAME = t.TABLE_COLLATION " +
		"WHERE t." + where + " ORDER BY t.TABLE_NAME")
	if err != nil {
		return nil, fmt.Errorf("reading the tables' size: %w", err)
	}
	var dir string
	if files {
		d, err := m.QueryStrings("SELECT CONCAT(@@datadir, '/', DATABASE())")
		if err != nil {
			return nil, fmt.Errorf("reading the data directory: %w", err)
		}
		if len(d) == 1 {
			dir = d[0]
		}
	}
	var out []TableSize
	for _, r := range rows {
		num := func(i int) int64 { n, _ := strconv.ParseInt(string(r[i]), 10, 64); return n }
		t := TableSize{Table: string(r[0]), Engine: string(r[1]), Rows: num(2), DataLength: num(3), IndexLength: num(4),
			RowFormat: string(r[5]), CreateOptions: strings.TrimSpace(string(r[6])), Charset: string(r[7])}
		if dir != "" {
			t.Files = tableFiles(dir, t.Table)
		}
		out = append(out, t)
	}
	return out, nil
}

// tableFiles lists the table's own files (NAME.ibd, .MYD, .MYI, .frm, and
// partitions NAME#P#...), by name.
func tableFiles(dir, table string) []File {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []File
	for _, e := range entries {
		n := e.Name()
		base := strings.TrimSuffix(n, filepath.Ext(n))
		if base != table && !strings.HasPrefix(n, table+"#") {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		out = append(out, File{Name: n, Bytes: info.Size()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
