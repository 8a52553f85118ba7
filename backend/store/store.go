// Package store persists the router's state in one SQLite file that both the
// running app and the CLI open at the same time. Everything above it talks to
// small repositories; only this package knows about GORM and SQL.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/mcp-router/mcp-router/backend/filemode"
)

// Sentinel errors callers test with errors.Is; messages name the record.
var (
	ErrNotFound  = errors.New("not found")
	ErrDuplicate = errors.New("already exists")
	// ErrInvalid marks bad input to the hook and token repositories (servers
	// use spec.ErrInvalid, which their validation already wraps).
	ErrInvalid = errors.New("invalid input")
	// ErrNewerDatabase means the file was migrated by a newer MCP Router; we
	// refuse to touch it rather than guess at a schema we don't know.
	ErrNewerDatabase = errors.New("database was written by a newer version of MCP Router")
)

// maxOpenConns leaves room for several WAL readers plus the connection that
// Revision keeps; writers serialize on SQLite's lock anyway.
const maxOpenConns = 8

// Store is one open database. It is safe for concurrent use.
type Store struct {
	db     *gorm.DB
	sql    *sql.DB
	engine string     // engineSQLite ("" too) or enginePostgres
	pgw    *pgWatch   // PostgreSQL's change listener; nil on SQLite
	logs   *logWriter // the request log's writes on SQLite; nil on PostgreSQL

	revMu    sync.Mutex
	revConn  *sql.Conn
	revOK    bool  // revDV and revValue were read on revConn
	revDV    int64 // PRAGMA data_version (PostgreSQL: notifications seen) at the last read
	revValue int64 // config_revision at the last read
}

// Options tune OpenWith.
type Options struct {
	// Logger receives the warnings of modes made private at open; default
	// logrus' standard logger.
	Logger logrus.FieldLogger
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date. A database written by a newer version is refused with
// ErrNewerDatabase. It is OpenWith with the default options.
func Open(path string) (*Store, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options. Before SQLite opens the database, its
// directory (the data dir) is made 0700 and the database with its -wal and
// -shm 0600, whatever their modes were (each change is logged as a
// warning): the database holds servers' env and header values.
func OpenWith(path string, o Options) (*Store, error) {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database path %q: %w", path, err)
	}
	if err := makePrivate(abs, o.Logger); err != nil {
		return nil, err
	}
	// Two processes opening a new database at once (the app starting while
	// a CLI command runs) can meet SQLite's WAL switch or recovery, which
	// answers SQLITE_BUSY at once instead of waiting on the busy timeout;
	// opening again a moment later succeeds.
	deadline := time.Now().Add(busyTimeout)
	for wait := 10 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		s, err := open(abs)
		if err == nil || !isBusy(err) || time.Now().Add(wait).After(deadline) {
			return s, err
		}
		time.Sleep(wait)
	}
}

// makePrivate makes the database's directory 0700 and the database, its
// -wal and -shm (and a rollback -journal, should one be left) 0600 before
// SQLite opens them. SQLite creates the -wal and -shm with the database
// file's mode, so a database created 0600 here keeps them 0600 whatever
// the umask. A mode that cannot be changed (a file of another user) is
// logged, not fatal: the router still starts.
func makePrivate(db string, log logrus.FieldLogger) error {
	warn := func(what string, c *filemode.Change, err error) {
		switch {
		case err != nil:
			log.Warnf("%s: %v", what, err)
		case c != nil:
			log.Warnf("%s: %s", what, c)
		}
	}
	c, err := filemode.MakeDir(filepath.Dir(db))
	if err != nil && !isModeError(err) {
		return fmt.Errorf("create data directory: %w", err)
	}
	warn("data directory (it holds secrets)", c, err)
	c, err = filemode.Create(db)
	if err != nil && !isModeError(err) {
		return fmt.Errorf("create database %s: %w", db, err)
	}
	warn("database (it holds servers' env and header values)", c, err)
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		c, err := filemode.Protect(db + suffix)
		warn("database", c, err)
	}
	return nil
}

// isModeError reports whether err is a failure to change a mode (the
// directory or file exists and is usable).
func isModeError(err error) bool { return errors.Is(err, filemode.ErrMode) }

// busyTimeout is how long a statement waits for another connection's lock
// (_busy_timeout in dsn) and how long Open retries a busy database.
const busyTimeout = 5 * time.Second

func open(abs string) (*Store, error) {
	db, err := gorm.Open(dialector(dsn(abs)), &gorm.Config{
		Logger:         newGormLogger(logrus.StandardLogger()),
		TranslateError: true,
		// UTC everywhere keeps stored timestamps comparable as text.
		NowFunc: func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(maxOpenConns)
	sqlDB.SetMaxIdleConns(maxOpenConns)
	if err := migrate(context.Background(), db); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	logs, err := openLogWriter(abs)
	if err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: %w", abs, err)
	}
	return &Store{db: db, sql: sqlDB, logs: logs}, nil
}

// dsn builds a file: URI so that any character in the path (a '?' or '#' in a
// user's directory name) reaches SQLite intact. The options are mattn's:
// immediate transactions take the write lock up front, so two writers wait
// on the busy timeout instead of failing with SQLITE_BUSY on lock upgrade.
func dsn(abs string) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows drive letter: file:///C:/...
	}
	p = strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(p)
	return "file://" + p + "?_busy_timeout=" + strconv.Itoa(int(busyTimeout.Milliseconds())) + "&_journal_mode=WAL&_foreign_keys=on&_txlock=immediate"
}

// Close releases the database. The Store must not be used afterwards.
func (s *Store) Close() error {
	s.revMu.Lock()
	if s.revConn != nil {
		s.revConn.Close()
		s.revConn = nil
	}
	s.revMu.Unlock()
	if s.pgw != nil {
		s.pgw.close()
	}
	logErr := s.logs.close()
	return errors.Join(s.sql.Close(), logErr)
}

// DB exposes GORM for queries the repositories don't cover. Writes through it
// bypass validation.
func (s *Store) DB() *gorm.DB { return s.db }

// Repositories are cheap views over the same connection pool.
func (s *Store) Servers() ServerRepo   { return ServerRepo{db: s.db} }
func (s *Store) Settings() SettingRepo { return SettingRepo{db: s.db} }
func (s *Store) Hooks() HookRepo       { return HookRepo{db: s.db} }
func (s *Store) Tokens() TokenRepo     { return TokenRepo{db: s.db} }
func (s *Store) Profiles() ProfileRepo { return ProfileRepo{db: s.db} }
func (s *Store) Logs() LogRepo         { return LogRepo{db: s.db, w: s.logs} }

// notFound and duplicate keep messages uniform: `server "x": not found`.
func notFound(kind, name string) error { return fmt.Errorf("%s %q: %w", kind, name, ErrNotFound) }
func duplicate(kind, name string) error {
	return fmt.Errorf("%s %q: %w", kind, name, ErrDuplicate)
}

// translate maps driver errors for one named record onto our sentinels.
func translate(err error, kind, name string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return duplicate(kind, name)
	case errors.Is(err, gorm.ErrRecordNotFound):
		return notFound(kind, name)
	}
	return fmt.Errorf("%s %q: %w", kind, name, err)
}

// gormLogger sends GORM's own warnings and slow queries to logrus. Query
// errors are not logged: they are returned to the caller, who decides.
type gormLogger struct {
	log  *logrus.Logger
	slow time.Duration
}

func newGormLogger(l *logrus.Logger) logger.Interface {
	return gormLogger{log: l, slow: time.Second}
}

func (g gormLogger) LogMode(logger.LogLevel) logger.Interface { return g }
func (g gormLogger) Info(context.Context, string, ...any)     {}
func (g gormLogger) Warn(_ context.Context, msg string, args ...any) {
	g.log.WithField("component", "store").Warnf(msg, args...)
}
func (g gormLogger) Error(_ context.Context, msg string, args ...any) {
	g.log.WithField("component", "store").Warnf(msg, args...)
}
func (g gormLogger) Trace(_ context.Context, begin time.Time, fc func() (string, int64), _ error) {
	if d := time.Since(begin); d >= g.slow {
		q, rows := fc()
		g.log.WithFields(logrus.Fields{"component": "store", "duration": d, "rows": rows}).Warnf("slow query: %s", q)
	}
}
