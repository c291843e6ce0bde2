package sqlgen

import (
	"strings"
	"testing"
)

// Expected texts were captured from mariadb-slap 10.11 --only-print, except
// where a comment says goslap fixes mysqlslap's comma bugs (spec 8).
func TestCreateTable(t *testing.T) {
	cases := []struct {
		name  string
		table Table
		want  string
	}{
		{"default", Table{Ints: Columns{Count: 1}, Chars: Columns{Count: 1}},
			"CREATE TABLE `t1` (intcol1 INT(32) ,charcol1 VARCHAR(128))"},
		{"autoinc 2x2", Table{AutoIncrement: true, Ints: Columns{Count: 2}, Chars: Columns{Count: 2}},
			"CREATE TABLE `t1` (id serial,intcol1 INT(32) ,intcol2 INT(32) ,charcol1 VARCHAR(128),charcol2 VARCHAR(128))"},
		{"indexed 2:1 2:1", Table{Ints: Columns{2, true}, Chars: Columns{2, true}},
			"CREATE TABLE `t1` (intcol1 INT(32), INDEX(intcol1),intcol2 INT(32), INDEX(intcol2),charcol1 VARCHAR(128), INDEX(charcol1) ,charcol2 VARCHAR(128), INDEX(charcol2) )"},
		{"secondary 2, one int", Table{SecondaryIndexes: 2, Ints: Columns{Count: 1}},
			"CREATE TABLE `t1` (id0 varchar(36) unique key,id1 varchar(36) unique key,intcol1 INT(32) )"},
		{"guid + secondary 1, no columns", Table{GUIDPrimary: true, SecondaryIndexes: 1},
			"CREATE TABLE `t1` (id varchar(36) primary key,id0 varchar(36) unique key)"},
		{"guid + secondary 2 + indexed ints", Table{GUIDPrimary: true, SecondaryIndexes: 2, Ints: Columns{2, true}},
			"CREATE TABLE `t1` (id varchar(36) primary key,id0 varchar(36) unique key,id1 varchar(36) unique key,intcol1 INT(32), INDEX(intcol1),intcol2 INT(32), INDEX(intcol2))"},
		{"autoinc only", Table{AutoIncrement: true}, "CREATE TABLE `t1` (id serial)"},
		{"no columns at all", Table{}, "CREATE TABLE `t1` ()"},
		{"one indexed char", Table{Ints: Columns{Count: 1}, Chars: Columns{1, true}},
			"CREATE TABLE `t1` (intcol1 INT(32) ,charcol1 VARCHAR(128), INDEX(charcol1) )"},
		// mysqlslap: "(id varchar(36) primary key,)".
		{"fixed: guid alone", Table{GUIDPrimary: true}, "CREATE TABLE `t1` (id varchar(36) primary key)"},
		// mysqlslap: "(id serialid0 varchar(36) unique key)".
		{"fixed: autoinc + secondary, no columns", Table{AutoIncrement: true, SecondaryIndexes: 1},
			"CREATE TABLE `t1` (id serial,id0 varchar(36) unique key)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.table.CreateTable(); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestInsert(t *testing.T) {
	const firstString = "mxvtvmC9127qJNm06sGB8R92q2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0woJsm6uzFAEynLH2xCsw1KQ1lT4zg9rdxBL"
	cases := []struct {
		name  string
		table Table
		want  string
	}{
		{"default", Table{Ints: Columns{Count: 1}, Chars: Columns{Count: 1}},
			"INSERT INTO t1 VALUES (1804289383,'" + firstString + "')"},
		{"autoinc two ints", Table{AutoIncrement: true, Ints: Columns{Count: 2}},
			"INSERT INTO t1 VALUES (NULL,1804289383,846930886)"},
		{"guid secondary 2 two ints", Table{GUIDPrimary: true, SecondaryIndexes: 2, Ints: Columns{Count: 2}},
			"INSERT INTO t1 VALUES (uuid(),uuid(),uuid(),1804289383,846930886)"},
		{"guid alone", Table{GUIDPrimary: true}, "INSERT INTO t1 VALUES (uuid())"},
		{"no columns", Table{}, "INSERT INTO t1 VALUES ()"},
		// mysqlslap: "(NULLuuid())".
		{"fixed: autoinc + secondary", Table{AutoIncrement: true, SecondaryIndexes: 1}, "INSERT INTO t1 VALUES (NULL,uuid())"},
		// mysqlslap: "(uuid()uuid(),uuid())".
		{"fixed: guid + secondary 2", Table{GUIDPrimary: true, SecondaryIndexes: 2}, "INSERT INTO t1 VALUES (uuid(),uuid(),uuid())"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.table.Insert(NewGlibcRandom(1)); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestSelectAndUpdate(t *testing.T) {
	cases := []struct {
		name       string
		table      Table
		plain, key string
		keyNeeded  bool
		update     string
	}{
		{"default", Table{Ints: Columns{Count: 1}, Chars: Columns{Count: 1}},
			"SELECT intcol1,charcol1 FROM t1", "SELECT intcol1,charcol1 FROM t1", false,
			"UPDATE t1 SET intcol1 = 1804289383,charcol1 = '"},
		{"autoinc ints only", Table{AutoIncrement: true, Ints: Columns{Count: 2}},
			"SELECT intcol1,intcol2 FROM t1", "SELECT intcol1,intcol2 FROM t1 WHERE id = ", true,
			"UPDATE t1 SET intcol1 = 1804289383,intcol2 = 846930886 WHERE id = "},
		{"guid chars only", Table{GUIDPrimary: true, Chars: Columns{Count: 1}},
			"SELECT charcol1 FROM t1", "SELECT charcol1 FROM t1 WHERE id = ", true,
			"UPDATE t1 SET charcol1 = 'jmxvtvmC9"}, // 1804289383 % 60 = 43 = 'j'
		{"guid no columns", Table{GUIDPrimary: true},
			"SELECT  FROM t1", "SELECT  FROM t1 WHERE id = ", true, "UPDATE t1 SET  WHERE id = "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.table.Select(false); got.Text != c.plain || got.NeedsKey {
				t.Errorf("plain SELECT = %+v, want %q", got, c.plain)
			}
			if got := c.table.Select(true); got.Text != c.key || got.NeedsKey != c.keyNeeded {
				t.Errorf("key SELECT = %+v, want %q (NeedsKey %v)", got, c.key, c.keyNeeded)
			}
			got := c.table.Update(NewGlibcRandom(1))
			if !strings.HasPrefix(got.Text, c.update) || got.NeedsKey != c.keyNeeded {
				t.Errorf("UPDATE = %+v, want prefix %q (NeedsKey %v)", got, c.update, c.keyNeeded)
			}
		})
	}
	s := Table{AutoIncrement: true, Ints: Columns{Count: 1}}.Select(true)
	if got, want := s.WithKey("5"), "SELECT intcol1 FROM t1 WHERE id =  '5'"; got != want {
		t.Errorf("WithKey = %q, want %q", got, want)
	}
}

func TestAlphabet(t *testing.T) {
	if len(Alphabet) != 60 || strings.ContainsAny(Alphabet, "UV") {
		t.Fatalf("Alphabet %q: want 60 characters without U and V", Alphabet)
	}
}
