package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// LogRepo stores request logs. The gateway batches writes, so Insert takes a
// slice and commits it once.
type LogRepo struct {
	db *gorm.DB
	w  *logWriter // SQLite's write connection and statements, shared by the Store's LogRepos
}

// LogFilter selects request logs; zero fields don't filter.
type LogFilter struct {
	Client   string
	Server   string
	Method   string
	Status   string
	Since    time.Time // inclusive
	Until    time.Time // exclusive
	Limit    int       // 0 means DefaultLogLimit
	BeforeID uint      // keyset cursor: only entries older than this ID
}

// DefaultLogLimit bounds a List without a Limit, so a UI can't load a
// year of logs by accident.
const DefaultLogLimit = 200

// Insert writes all entries in one transaction and fills in their IDs.
// Times are stored in UTC because SQLite compares them as text.
func (r LogRepo) Insert(ctx context.Context, entries []RequestLog) error {
	if len(entries) == 0 {
		return nil
	}
	for i := range entries {
		entries[i].ID = 0
		if entries[i].Time.IsZero() {
			entries[i].Time = time.Now()
		}
		entries[i].Time = entries[i].Time.UTC()
	}
	if err := r.insertRaw(ctx, entries); err != nil {
		return fmt.Errorf("insert request logs: %w", err)
	}
	return nil
}

// insertSQL is the statement the hot logging path runs, for up to
// insertChunk rows at a time. It bypasses gorm: its per-row reflection was
// about a sixth of the router's CPU under load (see docs/benchmarks.md),
// and this table's shape is fixed by migrations 0001, 0700 and 1000. One statement per
// chunk rather than per row: each execution is a cgo round trip.
const (
	insertInto = "INTO request_logs (time, client, server, method, target, duration_ms, status, error, request, response, backend_tool, instance) VALUES "
	insertHead = "INSERT " + insertInto // PostgreSQL's (pgInsertLogsSQL)
	// SQLite's: OR ROLLBACK, because a multi-row INSERT that may abort
	// halfway inside a longer transaction makes SQLite keep a statement
	// journal (a copy of every page it changes) to undo just that
	// statement: about a sixth of the write's CPU in BenchmarkLogInsert. A failed statement fails the
	// whole batch anyway (insertRaw rolls the transaction back), so rolling
	// back at once changes nothing a caller sees.
	sqliteInsertHead = "INSERT OR ROLLBACK " + insertInto
	// SQLite's rows: a string is bound as NULL for '' in the first row,
	// and in the others for the first row's value, which ?2 … ?12 refer
	// to by number ('' is then bound as ''): see appendSQLiteLogArgs.
	insertFirstRow = "(?, coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), ?, " +
		"coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''), coalesce(?, ''))"
	insertNextRow = "(?, coalesce(?, ?2, ''), coalesce(?, ?3, ''), coalesce(?, ?4, ''), coalesce(?, ?5, ''), ?, " +
		"coalesce(?, ?7, ''), coalesce(?, ?8, ''), coalesce(?, ?9, ''), coalesce(?, ?10, ''), coalesce(?, ?11, ''), coalesce(?, ?12, ''))"
	insertCols = 12
	// insertChunk is the most rows one statement inserts: 64 rows are 768
	// parameters, far below SQLite's limit of 32,766.
	insertChunkLog2 = 6
	insertChunk     = 1 << insertChunkLog2
)

// appendLogArgs appends the values of entries in insertHead's column order
// (insertCols a row), for PostgreSQL's statement (SQLite's:
// appendSQLiteLogArgs).
func appendLogArgs(args []any, entries []RequestLog) []any {
	for i := range entries {
		e := &entries[i]
		args = append(args, e.Time, e.Client, e.Server, e.Method, e.Target, e.DurationMs,
			e.Status, e.Error, e.Request, e.Response, e.BackendTool, e.Instance)
	}
	return args
}

// insertSQL is SQLite's statement for n rows. SQLite numbers each ? one
// above the highest number so far, and the ?2 … ?12 of the later rows
// refer back to the first row's without numbering anything, so the
// arguments are still insertCols a row, in order.
func insertSQL(n int) string {
	var b strings.Builder
	b.Grow(len(sqliteInsertHead) + len(insertFirstRow) + (n-1)*(len(insertNextRow)+2))
	b.WriteString(sqliteInsertHead)
	b.WriteString(insertFirstRow)
	for i := 1; i < n; i++ {
		b.WriteString(", ")
		b.WriteString(insertNextRow)
	}
	return b.String()
}

// List returns matching entries newest first (by ID, which follows insertion
// order). Pass the last ID of a page as BeforeID to get the next page.
func (r LogRepo) List(ctx context.Context, f LogFilter) ([]RequestLog, error) {
	q := f.apply(r.db.WithContext(ctx).Model(&RequestLog{}))
	var out []RequestLog
	if err := q.Order("id DESC").Limit(f.limit()).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list request logs: %w", err)
	}
	return out, nil
}

// Get returns one entry by ID.
func (r LogRepo) Get(ctx context.Context, id uint) (RequestLog, error) {
	var e RequestLog
	err := r.db.WithContext(ctx).Where("id = ?", id).Take(&e).Error
	return e, translate(err, "request log", fmt.Sprintf("#%d", id))
}

// DeleteOlderThan enforces retention and reports how many entries went.
func (r LogRepo) DeleteOlderThan(ctx context.Context, t time.Time) (int64, error) {
	res := r.db.WithContext(ctx).Where("time < ?", t.UTC()).Delete(&RequestLog{})
	if res.Error != nil {
		return 0, fmt.Errorf("delete old request logs: %w", res.Error)
	}
	return res.RowsAffected, nil
}

// ListAfter returns matching entries with an ID above afterID, oldest first:
// the keyset query for following the log as it grows. f.BeforeID, if set,
// is an exclusive upper bound, so a caller can read up to a MaxID it took
// earlier and know that nothing below it can still appear. f.Limit bounds
// the page as in List.
func (r LogRepo) ListAfter(ctx context.Context, f LogFilter, afterID uint) ([]RequestLog, error) {
	q := f.apply(r.db.WithContext(ctx).Model(&RequestLog{}))
	q = q.Where("id > ?", afterID)
	var out []RequestLog
	if err := q.Order("id ASC").Limit(f.limit()).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list request logs: %w", err)
	}
	return out, nil
}

// MaxID is the ID of the newest entry, 0 if there is none. IDs are never
// reused (AUTOINCREMENT) and writers commit one at a time, so every entry
// with an ID up to MaxID is already visible when it returns.
func (r LogRepo) MaxID(ctx context.Context) (uint, error) {
	var id *uint
	if err := r.db.WithContext(ctx).Model(&RequestLog{}).Select("MAX(id)").Scan(&id).Error; err != nil {
		return 0, fmt.Errorf("newest request log: %w", err)
	}
	if id == nil {
		return 0, nil
	}
	return *id, nil
}

// apply adds the filter's conditions (all but Limit) to q.
func (f LogFilter) apply(q *gorm.DB) *gorm.DB {
	if f.Client != "" {
		q = q.Where("client = ?", f.Client)
	}
	if f.Server != "" {
		q = q.Where("server = ?", f.Server)
	}
	if f.Method != "" {
		q = q.Where("method = ?", f.Method)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	if !f.Since.IsZero() {
		q = q.Where("time >= ?", f.Since.UTC())
	}
	if !f.Until.IsZero() {
		q = q.Where("time < ?", f.Until.UTC())
	}
	if f.BeforeID != 0 {
		q = q.Where("id < ?", f.BeforeID)
	}
	return q
}

func (f LogFilter) limit() int {
	if f.Limit <= 0 {
		return DefaultLogLimit
	}
	return f.Limit
}

// pgInsertLogs is insertRaw on PostgreSQL: $n placeholders, and the ids
// from RETURNING (it has no last insert id). The advisory lock makes
// writers commit one at a time, as SQLite's write lock does, so MaxID never
// passes an entry that is not visible yet.
func pgInsertLogs(ctx context.Context, tx *sql.Tx, entries []RequestLog) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", pgLockLogWrite); err != nil {
		return err
	}
	args := make([]any, 0, insertCols*min(len(entries), insertChunk))
	for len(entries) > 0 {
		chunk := entries[:min(len(entries), insertChunk)]
		entries = entries[len(chunk):]
		args = appendLogArgs(args[:0], chunk)
		rows, err := tx.QueryContext(ctx, pgInsertLogsSQL(len(chunk)), args...)
		if err != nil {
			return err
		}
		// The identity values of one INSERT … VALUES are drawn in the
		// order of its rows; ORDER BY would need a CTE, so check instead.
		i := 0
		for rows.Next() {
			var id uint
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			if i < len(chunk) {
				chunk[i].ID = id
			}
			i++
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if i != len(chunk) {
			return fmt.Errorf("insert request logs: %d ids returned for %d rows", i, len(chunk))
		}
	}
	return tx.Commit()
}

// pgInsertLogsSQL is insertSQL for n rows with PostgreSQL's placeholders.
func pgInsertLogsSQL(n int) string {
	var b strings.Builder
	b.WriteString(insertHead)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for c := 0; c < insertCols; c++ {
			if c > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", i*insertCols+c+1)
		}
		b.WriteByte(')')
	}
	b.WriteString(" RETURNING id")
	return b.String()
}
