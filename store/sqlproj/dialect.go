package sqlproj

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/duelogic/duelogic/engine"
)

// Dialect is the SQL a store speaks: [Postgres] or [SQLite]. The tables and
// the rules that fill them are the same in both; only the spelling differs
// (placeholders $n or ?, jsonb or text, timestamptz or text, boolean or
// integer).
type Dialect int

// The dialects.
const (
	// Postgres is PostgreSQL (12 and later), through pgx or database/sql.
	Postgres Dialect = iota + 1
	// SQLite is SQLite (3.35 and later), through database/sql.
	SQLite
)

// String names the dialect.
func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case SQLite:
		return "sqlite"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// Stmt is one SQL statement and its arguments, plain Go values (string,
// int64, float64, bool, time.Time for Postgres, nil): what pgx's Exec and
// database/sql's ExecContext take.
type Stmt struct {
	SQL  string
	Args []any
}

// sqlType is the column type t in d.
func (d Dialect) sqlType(t engine.ColumnType) string {
	if d == SQLite {
		switch t {
		case engine.ColInt, engine.ColBool:
			return "INTEGER"
		case engine.ColReal:
			return "REAL"
		}
		return "TEXT"
	}
	switch t {
	case engine.ColInt:
		return "bigint"
	case engine.ColReal:
		return "double precision"
	case engine.ColBool:
		return "boolean"
	case engine.ColJSON:
		return "jsonb"
	case engine.ColTime:
		return "timestamptz"
	}
	return "text"
}

// zero is the SQL default of a NOT NULL column of type t in d (for JSON,
// the empty array, and the empty object for a column that is not appended
// to: see columnDDL).
func (d Dialect) zero(t engine.ColumnType) string {
	switch t {
	case engine.ColInt, engine.ColReal:
		return "0"
	case engine.ColBool:
		if d == SQLite {
			return "0"
		}
		return "false"
	case engine.ColJSON:
		if d == SQLite {
			return "'[]'"
		}
		return "'[]'::jsonb"
	case engine.ColTime:
		if d == SQLite {
			return "'0001-01-01T00:00:00.000000000Z'"
		}
		return "'0001-01-01 00:00:00+00'"
	}
	return "''"
}

// placeholder is the i-th (1-based) parameter of a statement, cast for a
// column of type t.
func (d Dialect) placeholder(i int, t engine.ColumnType) string {
	if d == SQLite {
		// Numbered: an UPDATE names the key's parameters after the others.
		p := "?" + strconv.Itoa(i)
		if t == engine.ColJSON {
			return "json(" + p + ")"
		}
		return p
	}
	p := "$" + strconv.Itoa(i)
	switch t {
	case engine.ColJSON:
		return p + "::text::jsonb"
	case engine.ColTime:
		return p + "::timestamptz"
	case engine.ColInt:
		return p + "::bigint"
	case engine.ColReal:
		return p + "::double precision"
	case engine.ColBool:
		return p + "::boolean"
	}
	return p + "::text"
}

// quote quotes an identifier (names are the definitions', never input).
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// columnDDL is a column's definition.
func (d Dialect) columnDDL(c engine.Column) string {
	s := quote(c.Name) + " " + d.sqlType(c.Type)
	if c.NotNull {
		z := d.zero(c.Type)
		if c.Type == engine.ColJSON && c.Merge != engine.MergeAppend {
			z = strings.Replace(z, "[]", "{}", 1)
		}
		s += " NOT NULL DEFAULT " + z
	}
	return s
}

// CreateTable returns the statements that create t if it does not exist,
// with its key, its reference to debates (every table but debates: ON
// DELETE CASCADE) and its indexes.
func (d Dialect) CreateTable(t engine.Table) []string {
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (\n", quote(t.Name))
	for _, c := range t.Columns {
		fmt.Fprintf(&b, "\t%s,\n", d.columnDDL(c))
	}
	if t.Name != TableDebates {
		fmt.Fprintf(&b, "\tFOREIGN KEY (\"debate_id\") REFERENCES \"debates\" (\"id\") ON DELETE CASCADE,\n")
	}
	fmt.Fprintf(&b, "\tPRIMARY KEY (%s)\n)", quoteAll(t.Key))
	out := []string{b.String()}
	for _, ix := range t.Indexes {
		out = append(out, fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)",
			quote(t.Name+"_"+strings.Join(ix, "_")), quote(t.Name), quoteAll(ix)))
	}
	return out
}

// AddColumns returns the statements that add t's columns to a table of an
// earlier schema that lacks them. PostgreSQL has ADD COLUMN IF NOT EXISTS;
// SQLite does not, so for it they are plain ADD COLUMNs, for the columns
// missing ([Dialect.Upgrade] finds which, given the ones there).
func (d Dialect) AddColumns(t engine.Table, have []string) []string {
	var out []string
	for _, c := range t.Columns {
		if slices.Contains(have, c.Name) {
			continue
		}
		ine := ""
		if d == Postgres {
			ine = "IF NOT EXISTS "
		}
		out = append(out, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s%s", quote(t.Name), ine, d.columnDDL(c)))
	}
	return out
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote(n)
	}
	return strings.Join(q, ", ")
}

// stmtKey identifies the SQL of a row's statement: its table, the columns
// it sets, and whether it only updates.
type stmtKey struct {
	d      Dialect
	table  string
	cols   string
	update bool
}

var sqlCache sync.Map // stmtKey -> string

// rowSQL is the statement that writes a row of t with the columns cols (in
// t's order, the key's among them).
func (d Dialect) rowSQL(t *engine.Table, cols []*engine.Column, update bool) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	k := stmtKey{d, t.Name, strings.Join(names, ","), update}
	if s, ok := sqlCache.Load(k); ok {
		return s.(string)
	}
	var s string
	if update {
		s = d.updateSQL(t, cols)
	} else {
		s = d.upsertSQL(t, cols)
	}
	sqlCache.Store(k, s)
	return s
}

func (d Dialect) upsertSQL(t *engine.Table, cols []*engine.Column) string {
	var names, vals, sets []string
	for i, c := range cols {
		names = append(names, quote(c.Name))
		vals = append(vals, d.placeholder(i+1, c.Type))
		if slices.Contains(t.Key, c.Name) {
			continue
		}
		sets = append(sets, quote(c.Name)+" = "+d.merged(t.Name, c))
	}
	s := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s) ON CONFLICT (%s) DO ", quote(t.Name), strings.Join(names, ", "),
		strings.Join(vals, ", "), quoteAll(t.Key))
	if len(sets) == 0 {
		return s + "NOTHING"
	}
	return s + "UPDATE SET " + strings.Join(sets, ", ")
}

// merged is the value of column c of a row of table that meets the one
// given (excluded), by c's Merge.
func (d Dialect) merged(table string, c *engine.Column) string {
	old, nu := quote(table)+"."+quote(c.Name), "excluded."+quote(c.Name)
	switch c.Merge {
	case engine.MergeAdd:
		return fmt.Sprintf("COALESCE(%s, 0) + COALESCE(%s, 0)", old, nu)
	case engine.MergeAppend:
		return d.appendJSON(old, nu)
	}
	return nu
}

// appendJSON is the JSON array old with the elements of the array nu
// appended (either may be NULL).
func (d Dialect) appendJSON(old, nu string) string {
	if d == Postgres {
		return fmt.Sprintf("COALESCE(%s, '[]'::jsonb) || COALESCE(%s, '[]'::jsonb)", old, nu)
	}
	// SQLite: both are minified arrays (json()), "[...]": splice the texts.
	return fmt.Sprintf(`CASE WHEN %[1]s IS NULL OR json_array_length(%[1]s) = 0 THEN COALESCE(%[2]s, '[]') `+
		`WHEN %[2]s IS NULL OR json_array_length(%[2]s) = 0 THEN %[1]s `+
		`ELSE json(substr(%[1]s, 1, length(%[1]s) - 1) || ',' || substr(%[2]s, 2)) END`, old, nu)
}

func (d Dialect) updateSQL(t *engine.Table, cols []*engine.Column) string {
	var sets, where []string
	for i, c := range cols {
		p := d.placeholder(i+1, c.Type)
		if slices.Contains(t.Key, c.Name) {
			where = append(where, quote(c.Name)+" = "+p)
			continue
		}
		v := p
		switch c.Merge {
		case engine.MergeAdd:
			v = fmt.Sprintf("COALESCE(%s, 0) + %s", quote(c.Name), p)
		case engine.MergeAppend:
			v = d.appendJSON(quote(c.Name), p)
		}
		sets = append(sets, quote(c.Name)+" = "+v)
	}
	if len(sets) == 0 {
		return ""
	}
	return fmt.Sprintf("UPDATE %s SET %s WHERE %s", quote(t.Name), strings.Join(sets, ", "), strings.Join(where, " AND "))
}

// value is v, a row's value for a column of type t, as d's driver takes it,
// by the rules both dialects share: text without NUL (PostgreSQL cannot
// hold it: U+FFFD), JSON without the escape \u0000, finite numbers (NaN
// and the infinities are NULL), times from the year 1 on.
func (d Dialect) value(v any, t engine.ColumnType) (any, error) {
	if v == nil {
		return nil, nil
	}
	v = plain(v)
	switch t {
	case engine.ColJSON:
		var raw []byte
		switch x := v.(type) {
		case json.RawMessage:
			raw = x
		case []byte:
			raw = x
		default:
			b, err := json.Marshal(x)
			if err != nil {
				return nil, err
			}
			raw = b
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil, nil
		}
		if !json.Valid(raw) {
			return nil, fmt.Errorf("not JSON: %.40q", raw)
		}
		return jsonText(raw), nil
	case engine.ColTime:
		tm, ok := v.(time.Time)
		if !ok {
			return nil, fmt.Errorf("%T is not a time.Time", v)
		}
		if lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC); tm.Before(lo) {
			tm = lo
		}
		if d == SQLite {
			return tm.UTC().Format("2006-01-02T15:04:05.000000000Z07:00"), nil
		}
		return tm, nil
	case engine.ColBool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%T is not a bool", v)
		}
		if d == SQLite {
			if b {
				return int64(1), nil
			}
			return int64(0), nil
		}
		return b, nil
	case engine.ColInt:
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case int64:
			return x, nil
		case int32:
			return int64(x), nil
		case *int64:
			if x == nil {
				return nil, nil
			}
			return *x, nil
		}
		return nil, fmt.Errorf("%T is not an integer", v)
	case engine.ColReal:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		case int:
			f = float64(x)
		case int64:
			f = float64(x)
		default:
			return nil, fmt.Errorf("%T is not a number", v)
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, nil
		}
		return f, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case *string:
		if x == nil {
			return nil, nil
		}
		s = *x
	case fmt.Stringer:
		s = x.String()
	default:
		return nil, fmt.Errorf("%T is not text", v)
	}
	return Text(s), nil
}

// plain is v with a named type of a basic kind (a Framework, a Quality)
// turned into its kind's type.
func plain(v any) any {
	switch v.(type) {
	case string, int, int64, float64, bool, json.RawMessage, []byte, time.Time:
		return v
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	case reflect.Bool:
		return rv.Bool()
	}
	return v
}

// Text is s as both dialects' text columns hold it: each NUL becomes
// U+FFFD (PostgreSQL text cannot hold NUL). The record log keeps the
// original.
func Text(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// jsonText returns JSON text both jsonb and SQLite's JSON functions take:
// the escape \u0000 (jsonb cannot hold it) becomes \ufffd.
func jsonText(raw []byte) string {
	const nul = `\u0000`
	if !bytes.Contains(raw, []byte(nul)) {
		return string(raw)
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			b.WriteByte(c)
			continue
		}
		if bytes.HasPrefix(raw[i:], []byte(nul)) {
			b.WriteString(`\ufffd`)
			i += len(nul) - 1
			continue
		}
		b.WriteByte(c)
		b.WriteByte(raw[i+1])
		i++
	}
	return b.String()
}
