package store

import (
	"context"
	"database/sql"
	"sync"
)

// logWriter is the request log's write path on SQLite: a connection of its
// own and the INSERTs prepared on it.
//
// Its own connection (a pool of one, opened on first use) because its
// durability is its own: it runs with synchronous=NORMAL (logDSN), every
// other connection with SQLite's default FULL. In WAL mode NORMAL skips the
// fsync of the WAL at each commit; the database cannot be corrupted, but a
// power cut or OS crash may lose the log's last commits (those since the
// WAL was last synced: by the next checkpoint, or by any commit of another
// connection, which syncs the whole WAL). The request log is already best
// effort — a batch waits in memory for up to a flush interval and a full
// buffer drops entries — while servers, settings and tokens keep FULL.
// The fsync was about a twelfth of the write's CPU (docs/benchmarks.md).
// One connection also keeps its page cache warm between batches (no
// other connection's commit in between makes it read pages again) and
// holds the prepared statements for good.
type logWriter struct {
	db *sql.DB

	mu    sync.Mutex
	stmts [insertChunkLog2 + 1]*sql.Stmt // stmts[k] inserts 1<<k rows
}

// prepared returns the prepared INSERTs, stmts[k] for 1<<k rows, preparing
// them on first use. Prepared once (database/sql prepares them again on a
// new connection should the old one break), so a batch parses nothing:
// before, the full chunk's statement was prepared once per transaction and
// every tail once per batch. Call it before beginning the transaction: the
// pool has one connection, which the transaction then holds.
func (w *logWriter) prepared(ctx context.Context) (*[insertChunkLog2 + 1]*sql.Stmt, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, st := range w.stmts {
		if st == nil {
			st, err := w.db.PrepareContext(ctx, insertSQL(1<<k))
			if err != nil {
				return nil, err
			}
			w.stmts[k] = st
		}
	}
	return &w.stmts, nil
}

// close releases the statements and the connection (none on PostgreSQL,
// where w is nil).
func (w *logWriter) close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, st := range w.stmts {
		if st != nil {
			st.Close()
			w.stmts[k] = nil
		}
	}
	return w.db.Close()
}

// logDSN is the log connection's DSN: the store's, with synchronous=NORMAL
// (see logWriter).
func logDSN(abs string) string { return dsn(abs) + "&_sync=NORMAL" }

// openLogWriter opens (lazily: nothing connects before the first batch)
// the log's connection.
func openLogWriter(abs string) (*logWriter, error) {
	db, err := sql.Open(driverName, logDSN(abs))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	return &logWriter{db: db}, nil
}

func (r LogRepo) insertRaw(ctx context.Context, entries []RequestLog) error {
	if isPostgres(r.db) {
		sqlDB, err := r.db.DB()
		if err != nil {
			return err
		}
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback() //nolint:errcheck // a no-op after Commit
		return pgInsertLogs(ctx, tx, entries)
	}
	stmts, err := r.w.prepared(ctx)
	if err != nil {
		return err
	}
	tx, err := r.w.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	args := make([]any, 0, insertCols*min(len(entries), insertChunk))
	for len(entries) > 0 {
		// insertChunk rows at a time, then the rest by falling powers of
		// two: every statement is one of the few prepared ones.
		k := insertChunkLog2
		for 1<<k > len(entries) {
			k--
		}
		chunk := entries[:1<<k]
		entries = entries[len(chunk):]
		args = appendSQLiteLogArgs(args[:0], chunk)
		res, err := tx.StmtContext(ctx, stmts[k]).ExecContext(ctx, args...)
		if err != nil {
			return err
		}
		// The rows of one INSERT get consecutive ids inside the write
		// transaction; the last one is the last insert id.
		last, err := res.LastInsertId()
		if err != nil {
			return err
		}
		for i := range chunk {
			chunk[i].ID = uint(last - int64(len(chunk)-1-i))
		}
	}
	return tx.Commit()
}

// appendSQLiteLogArgs is appendLogArgs for SQLite's statement
// (insertFirstRow, insertNextRow): the time already formatted as the driver
// would store it (appendLogTime), and the strings bound as little as
// possible, since binding one makes the driver copy it to C memory, bind
// it, unbind and free it after the statement, each with SQLite's mutex,
// where a NULL is one call. In the first row an empty string is nil, which
// the statement's coalesce stores as the same empty text (most entries
// have three or more: error, backend_tool, instance). In the rows after,
// a string equal to the first row's is nil, which the statement replaces
// with the first row's value (a batch repeats its clients, servers,
// methods, statuses and targets); any other string is bound, empty or
// not. A string bound equal to the previous one bound in its column
// reuses that boxed value: each boxing is an allocation.
func appendSQLiteLogArgs(args []any, entries []RequestLog) []any {
	var tbuf [64]byte
	var prev [insertCols]any
	str := func(col int, s, ref string) any {
		if s == ref {
			return nil
		}
		if p, ok := prev[col].(string); ok && p == s {
			return prev[col]
		}
		prev[col] = s
		return prev[col]
	}
	var none RequestLog
	for i := range entries {
		e, ref := &entries[i], &entries[0]
		if i == 0 {
			ref = &none // nil stands for ''
		}
		args = append(args, string(appendLogTime(tbuf[:0], e.Time)), str(1, e.Client, ref.Client),
			str(2, e.Server, ref.Server), str(3, e.Method, ref.Method), str(4, e.Target, ref.Target), e.DurationMs,
			str(6, e.Status, ref.Status), str(7, e.Error, ref.Error), str(8, e.Request, ref.Request),
			str(9, e.Response, ref.Response), str(10, e.BackendTool, ref.BackendTool), str(11, e.Instance, ref.Instance))
	}
	return args
}
