package electronimport

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // database/sql driver "sqlite", as the store's
)

// ReadDatabase reads the Electron app's data from its database file at
// path: the app's meta database (mcprouter.db, which lists workspaces; the
// active local workspace is read) or a workspace's own database file.
//
// The file is never opened where it is: it and its -wal file are copied to
// a temporary directory first and the copy is read (SQLite folds the WAL
// into the copy), so neither a running Electron app nor this import can
// change what the other sees, and the original's bytes and times stay as
// they were.
func ReadDatabase(ctx context.Context, path string) (Source, error) {
	// Every query within ReadDeadline: a database built to be slow to read
	// is given up on, not waited for.
	ctx, cancel := context.WithTimeout(ctx, ReadDeadline)
	defer cancel()
	abs, err := filepath.Abs(path)
	if err != nil {
		return Source{}, err
	}
	db, cleanup, err := openCopy(ctx, abs)
	if err != nil {
		return Source{}, err
	}
	defer cleanup()
	tables, err := tableNames(ctx, db)
	if err != nil {
		return Source{}, fmt.Errorf("%s: %w", abs, err)
	}
	src := Source{Kind: "database", Path: abs}
	target, targetDB := abs, db
	if tables["workspaces"] {
		all, err := readWorkspaces(ctx, db, filepath.Dir(abs))
		if err != nil {
			return Source{}, fmt.Errorf("%s: %w", abs, err)
		}
		chosen, ok := chooseWorkspace(all)
		if !ok {
			return Source{}, fmt.Errorf("%s: its workspaces table lists no local workspace to import", abs)
		}
		src.Workspace = chosen.Name
		for _, w := range all {
			if w.ID != chosen.ID {
				src.OtherWorkspaces = append(src.OtherWorkspaces, w)
			}
		}
		if chosen.Database != abs {
			wdb, wcleanup, err := openCopy(ctx, chosen.Database)
			if err != nil {
				return Source{}, fmt.Errorf("workspace %q: %w", chosen.Name, err)
			}
			defer wcleanup()
			target, targetDB = chosen.Database, wdb
			if tables, err = tableNames(ctx, wdb); err != nil {
				return Source{}, fmt.Errorf("%s: %w", target, err)
			}
			// The meta database's own tokens table (older versions kept
			// the tokens there for every workspace).
			src.Tokens += countRows(ctx, db, "tokens")
		}
	}
	if !tables["servers"] {
		return Source{}, fmt.Errorf("%s: no servers table: not a database of the Electron MCP Router", target)
	}
	if src.Servers, err = readServers(ctx, targetDB); err != nil {
		return Source{}, fmt.Errorf("%s: %w", target, err)
	}
	if tables["projects"] {
		if src.Projects, err = readProjects(ctx, targetDB); err != nil {
			return Source{}, fmt.Errorf("%s: %w", target, err)
		}
	}
	src.Tokens += countRows(ctx, targetDB, "tokens")
	src.Tokens += sharedConfigTokens(filepath.Join(filepath.Dir(abs), "shared-config.json"))
	return src, nil
}

// openCopy copies the database file at path (and its -wal file, if any) to
// a new temporary directory and opens the copy. cleanup closes it and
// removes the directory.
func openCopy(ctx context.Context, path string) (*sql.DB, func(), error) {
	dir, err := os.MkdirTemp("", "mcpr-electron-import-")
	if err != nil {
		return nil, nil, err
	}
	remove := func() { _ = os.RemoveAll(dir) }
	dst := filepath.Join(dir, "copy.db")
	if err := copyCapped(path, dst, true); err != nil {
		remove()
		return nil, nil, err
	}
	if err := copyCapped(path+"-wal", dst+"-wal", false); err != nil {
		remove()
		return nil, nil, err
	}
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(dst)+"?_pragma=busy_timeout(1000)")
	if err != nil {
		remove()
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	// SQLite reads the header lazily: a file that is not a database fails here.
	if err := db.PingContext(ctx); err == nil {
		_, err = db.ExecContext(ctx, "SELECT count(*) FROM sqlite_master")
		if err != nil {
			_ = db.Close()
			remove()
			return nil, nil, fmt.Errorf("%s: not a readable SQLite database: %w", path, err)
		}
	} else {
		_ = db.Close()
		remove()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, func() { _ = db.Close(); remove() }, nil
}

// copyCapped copies src to dst within MaxDatabaseBytes; a missing src is
// an error only when required.
func copyCapped(src, dst string, required bool) error {
	st, err := os.Stat(src)
	if errors.Is(err, os.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", src)
	}
	if st.Size() > MaxDatabaseBytes {
		return fmt.Errorf("%s: %w", src, capError("the file", st.Size(), MaxDatabaseBytes, "MaxDatabaseBytes"))
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	// The file may grow while it is copied: read one byte past the cap.
	n, err := io.Copy(out, io.LimitReader(in, MaxDatabaseBytes+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if n > MaxDatabaseBytes {
		return fmt.Errorf("%s: %w", src, capError("the file", n, MaxDatabaseBytes, "MaxDatabaseBytes"))
	}
	return nil
}

func tableNames(ctx context.Context, db *sql.DB) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'")
	if err != nil {
		return nil, fmt.Errorf("not a readable SQLite database: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// columnNames lists a table's columns. A generated column is refused: the
// app creates none, and one (zeroblob(900000000)) would make every read of
// the row build a value of the database's choosing.
func columnNames(ctx context.Context, db *sql.DB, table string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, "SELECT name, hidden FROM pragma_table_xinfo(?)", table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		var hidden int
		if err := rows.Scan(&name, &hidden); err != nil {
			return nil, err
		}
		if hidden != 0 {
			return nil, fmt.Errorf("table %s has a generated or hidden column %q: not a table the Electron MCP Router creates", table, name)
		}
		out[name] = true
	}
	return out, rows.Err()
}

// countRows counts a table's rows; a missing or unreadable table counts 0
// (only the summary's note on tokens uses it).
func countRows(ctx context.Context, db *sql.DB, table string) int {
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+table+`"`).Scan(&n); err != nil {
		return 0
	}
	return n
}

// checkTable refuses a table with more rows than limit, or with a value
// in cols longer than MaxValueBytes, before any row is read.
func checkTable(ctx context.Context, db *sql.DB, table string, cols []string, limit int, capName string) error {
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM "`+table+`"`).Scan(&n); err != nil {
		return fmt.Errorf("table %s: %w", table, err)
	}
	if n > int64(limit) {
		return fmt.Errorf("table %s: %w", table, capError("it", n, int64(limit), capName))
	}
	lens := make([]string, len(cols))
	for i, c := range cols {
		lens[i] = `coalesce(length(CAST("` + c + `" AS BLOB)), 0)`
	}
	expr := lens[0]
	if len(lens) > 1 {
		expr = "max(" + strings.Join(lens, ", ") + ")"
	}
	var rowid, size int64
	err := db.QueryRowContext(ctx, `SELECT rowid, `+expr+` AS size FROM "`+table+`" ORDER BY size DESC LIMIT 1`).Scan(&rowid, &size)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("table %s: %w", table, err)
	}
	if size > MaxValueBytes {
		return fmt.Errorf("table %s, row %d: %w", table, rowid, capError("a value", size, MaxValueBytes, "MaxValueBytes"))
	}
	// All of it is held at once: bounded as a whole too.
	var total int64
	if err := db.QueryRowContext(ctx, `SELECT coalesce(sum(`+strings.Join(lens, " + ")+`), 0) FROM "`+table+`"`).Scan(&total); err != nil {
		return fmt.Errorf("table %s: %w", table, err)
	}
	if total > MaxTableBytes {
		return fmt.Errorf("table %s: %w", table, capError("its values", total, MaxTableBytes, "MaxTableBytes"))
	}
	return nil
}

// serverColumns are the servers columns the import reads; the app added
// most of them by migrations, so an older database lacks some (read as
// NULL). headers is read where a version has it.
var serverColumns = []string{"id", "name", "command", "args", "env", "disabled", "server_type", "remote_url",
	"bearer_token", "headers", "input_params", "project_id", "tool_permissions", "dev"}

func readServers(ctx context.Context, db *sql.DB) ([]Server, error) {
	have, err := columnNames(ctx, db, "servers")
	if err != nil {
		return nil, err
	}
	if !have["id"] || !have["name"] {
		return nil, errors.New("table servers has no id or name column: not a database of the Electron MCP Router")
	}
	var cols, exprs []string
	for _, c := range serverColumns {
		if have[c] {
			cols = append(cols, c)
			exprs = append(exprs, `"`+c+`"`)
		} else {
			exprs = append(exprs, "NULL")
		}
	}
	if err := checkTable(ctx, db, "servers", cols, MaxServers, "MaxServers"); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT rowid, "+strings.Join(exprs, ", ")+" FROM servers ORDER BY rowid")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Server
	var errs []error
	for rows.Next() {
		vals := make([]any, len(serverColumns)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := row{id: fmt.Sprint(vals[0]), vals: map[string]any{}}
		for i, c := range serverColumns {
			r.vals[c] = vals[i+1]
		}
		s, err := r.server()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// row is one servers row as read, its values of SQLite's dynamic types.
type row struct {
	id   string // rowid
	name string // for messages, once read
	vals map[string]any
	errs []error
}

func (r *row) fail(col, format string, args ...any) {
	who := "row " + r.id
	if r.name != "" {
		who = fmt.Sprintf("server %q (row %s)", r.name, r.id)
	}
	r.errs = append(r.errs, fmt.Errorf("%s: column %s: %s", who, col, fmt.Sprintf(format, args...)))
}

// text reads a TEXT column; NULL is "".
func (r *row) text(col string) string {
	switch v := r.vals[col].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		r.fail(col, "is %s, not text", sqlType(v))
		return ""
	}
}

// flag reads an INTEGER 0/1 column; NULL is false.
func (r *row) flag(col string) bool {
	switch v := r.vals[col].(type) {
	case nil:
		return false
	case int64:
		return v != 0
	default:
		r.fail(col, "is %s, not an integer", sqlType(v))
		return false
	}
}

// jsonOf decodes a JSON-encoded TEXT column into dst; NULL or "" leaves
// dst as it is.
func (r *row) jsonOf(col string, dst any, want string) {
	s := r.text(col)
	if s == "" {
		return
	}
	if err := json.Unmarshal([]byte(s), dst); err != nil {
		r.fail(col, "is not %s: %v", want, err)
	}
}

func sqlType(v any) string {
	switch v.(type) {
	case int64:
		return "an integer"
	case float64:
		return "a real"
	case []byte:
		return "a blob"
	case string:
		return "text"
	}
	return fmt.Sprintf("%T", v)
}

func (r *row) server() (Server, error) {
	s := Server{ID: r.text("id"), Name: r.text("name")}
	r.name = s.Name
	if strings.TrimSpace(s.Name) == "" && len(r.errs) == 0 {
		r.fail("name", "is empty")
	}
	s.Command = r.text("command")
	s.Type = r.text("server_type")
	if s.Type == "" {
		s.Type = typeLocal // the column's default
	}
	s.URL = r.text("remote_url")
	s.BearerToken = r.text("bearer_token")
	s.ProjectID = r.text("project_id")
	s.Disabled = r.flag("disabled")
	r.jsonOf("args", &s.Args, "a JSON array of strings")
	var env map[string]any
	r.jsonOf("env", &env, "a JSON object")
	s.Env = r.stringMap("env", env)
	r.jsonOf("headers", &s.Headers, "a JSON object of strings")
	r.jsonOf("tool_permissions", &s.ToolPermissions, "a JSON object of tool name → true/false")
	var params map[string]struct {
		Sensitive bool `json:"sensitive"`
		Default   any  `json:"default"`
	}
	r.jsonOf("input_params", &params, "a JSON object of input parameters")
	for name, p := range params {
		if p.Sensitive {
			s.Sensitive = append(s.Sensitive, name)
		}
		if d, ok := scalar(p.Default); ok && p.Default != nil {
			if s.InputDefaults == nil {
				s.InputDefaults = map[string]string{}
			}
			s.InputDefaults[name] = d
		}
	}
	var dev struct {
		Enabled bool `json:"enabled"`
	}
	r.jsonOf("dev", &dev, "a JSON object")
	s.Dev = dev.Enabled
	if len(r.errs) > 0 {
		return Server{}, errors.Join(r.errs...)
	}
	return s, nil
}

// stringMap turns the app's env object (Record<string, any>) into strings
// as the app's stdio transport passed them; an object or array value is
// refused.
func (r *row) stringMap(col string, m map[string]any) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := scalar(v)
		if !ok {
			r.fail(col, "entry %q is a JSON %T, not a string", k, v)
			continue
		}
		out[k] = s
	}
	return out
}

// scalar renders a JSON string, number or boolean as text (null is "").
func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", true
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func readProjects(ctx context.Context, db *sql.DB) ([]Project, error) {
	if _, err := columnNames(ctx, db, "projects"); err != nil {
		return nil, err
	}
	if err := checkTable(ctx, db, "projects", []string{"id", "name"}, MaxProjects, "MaxProjects"); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT rowid, id, name FROM projects ORDER BY rowid")
	if err != nil {
		return nil, fmt.Errorf("table projects: %w", err)
	}
	defer rows.Close()
	var out []Project
	var errs []error
	for rows.Next() {
		var rowid int64
		var id, name any
		if err := rows.Scan(&rowid, &id, &name); err != nil {
			return nil, err
		}
		r := row{id: strconv.FormatInt(rowid, 10), vals: map[string]any{"id": id, "name": name}}
		p := Project{ID: r.text("id"), Name: r.text("name")}
		if len(r.errs) > 0 {
			errs = append(errs, fmt.Errorf("table projects: %w", errors.Join(r.errs...)))
			continue
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

// readWorkspaces lists the meta database's workspaces; userData is the
// directory their database paths are relative to.
func readWorkspaces(ctx context.Context, db *sql.DB, userData string) ([]Workspace, error) {
	if _, err := columnNames(ctx, db, "workspaces"); err != nil {
		return nil, err
	}
	if err := checkTable(ctx, db, "workspaces", []string{"id", "name", "type", "localConfig"}, MaxWorkspaces, "MaxWorkspaces"); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT rowid, id, name, type, isActive, localConfig FROM workspaces ORDER BY rowid")
	if err != nil {
		return nil, fmt.Errorf("table workspaces: %w", err)
	}
	defer rows.Close()
	var out []Workspace
	for rows.Next() {
		var rowid int64
		var id, name, typ, active, local any
		if err := rows.Scan(&rowid, &id, &name, &typ, &active, &local); err != nil {
			return nil, err
		}
		r := row{id: strconv.FormatInt(rowid, 10), vals: map[string]any{"id": id, "name": name, "type": typ, "isActive": active, "localConfig": local}}
		w := Workspace{ID: r.text("id"), Name: r.text("name"), Type: r.text("type"), Active: r.flag("isActive")}
		var cfg struct {
			DatabasePath string `json:"databasePath"`
		}
		r.jsonOf("localConfig", &cfg, "a JSON object")
		if len(r.errs) > 0 {
			return nil, fmt.Errorf("table workspaces: %w", errors.Join(r.errs...))
		}
		rel := cfg.DatabasePath
		if rel == "" {
			rel = filepath.Join("workspaces", w.ID, "database.db") // the app's own fallback
		}
		// The path is the app's, relative to userData: one that leaves it
		// (absolute, or with ..) is not followed.
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return nil, fmt.Errorf("table workspaces: workspace %q: its databasePath %q leaves the app's data directory; give the file with --db", w.Name, rel)
		}
		w.Database = filepath.Join(userData, filepath.FromSlash(rel))
		out = append(out, w)
	}
	return out, rows.Err()
}

// chooseWorkspace picks what the app would open: the active local
// workspace, else the first one, local-default.
func chooseWorkspace(all []Workspace) (Workspace, bool) {
	for _, w := range all {
		if w.Active && w.Type == "local" {
			return w, true
		}
	}
	for _, w := range all {
		if w.ID == "local-default" {
			return w, true
		}
	}
	for _, w := range all {
		if w.Type == "local" {
			return w, true
		}
	}
	return Workspace{}, false
}

// sharedConfigTokens counts the tokens of the app's shared-config.json
// (later versions keep them there); a missing or unreadable file counts 0.
func sharedConfigTokens(path string) int {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxExportBytes {
		return 0
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var cfg struct {
		MCPApps struct {
			Tokens []json.RawMessage `json:"tokens"`
		} `json:"mcpApps"`
	}
	if json.Unmarshal(data, &cfg) != nil {
		return 0
	}
	return len(cfg.MCPApps.Tokens)
}
