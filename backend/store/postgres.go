package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/sirupsen/logrus"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
)

// PostgreSQL as the store (--database postgres://…): a team's replicas share
// one database. See docs/team.md.

// pgConnectTimeout bounds the first connection and each reconnection of the
// listener, so an unreachable server is an error rather than a hang.
const pgConnectTimeout = 10 * time.Second

// Advisory lock keys (pg_advisory_xact_lock): one for migrate, so replicas
// starting together migrate one at a time; one that serializes the request
// log's writers, so ids commit in order (LogRepo.MaxID relies on it).
const (
	pgLockMigrate  = 0x6d637072_0001 // "mcpr" 1
	pgLockLogWrite = 0x6d637072_0002
	pgLockAudit    = 0x6d637072_0003
)

// ErrDatabaseURL marks a --database value that is not a PostgreSQL URL.
var ErrDatabaseURL = errors.New("bad database URL")

// IsPostgresURL reports whether s is a postgres:// or postgresql:// URL.
func IsPostgresURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "postgres://") || strings.HasPrefix(l, "postgresql://")
}

// RedactURL is u with its password (if any) replaced by "xxxxx", for logs and
// errors. A value that does not parse as a URL is not echoed at all.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(unparsable URL)"
	}
	return p.Redacted()
}

// OpenPostgres connects to the PostgreSQL database at dsn (a postgres:// or
// postgresql:// URL), brings its schema up to date under an advisory lock,
// and starts listening for other processes' changes (Revision). Errors name
// the URL without its password, and never carry it.
func OpenPostgres(ctx context.Context, dsn string, o Options) (*Store, error) {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	s, err := openPostgres(ctx, dsn)
	if err != nil {
		return nil, redactError(err, dsn)
	}
	return s, nil
}

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	shown := RedactURL(dsn)
	if !IsPostgresURL(dsn) {
		return nil, CheckDatabaseURL(dsn)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrDatabaseURL, shown, err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = pgConnectTimeout
	}
	// The pool opens its connections from cfg, with its connect timeout.
	db, err := gorm.Open(postgres.New(postgres.Config{Conn: stdlib.OpenDB(*cfg, stdlib.OptionAfterConnect(scanTimesInUTC))}), &gorm.Config{
		Logger:               newGormLogger(logrus.StandardLogger()),
		TranslateError:       true,
		DisableAutomaticPing: true, // pinged below, with a timeout
		// PostgreSQL keeps microseconds: a time handed back to the caller
		// (CreatedAt) must equal the one read later.
		NowFunc: func() time.Time { return time.Now().UTC().Truncate(time.Microsecond) },
	})
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(maxOpenConns)
	sqlDB.SetMaxIdleConns(maxOpenConns)
	pctx, cancel := context.WithTimeout(ctx, pgConnectTimeout)
	defer cancel()
	if err := sqlDB.PingContext(pctx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to database %s (within %s): %w", shown, pgConnectTimeout, err)
	}
	s := &Store{db: db, sql: sqlDB, engine: enginePostgres}
	if err := migrate(ctx, db); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	if s.pgw, err = startPGWatch(ctx, cfg); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("listen for changes on database %s: %w", shown, err)
	}
	if err := s.pgw.countWrites(db); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// scanTimesInUTC makes a connection return timestamptz values in UTC, as the
// SQLite store returns its times, whatever the process's time zone (pgx
// returns them in time.Local otherwise, and the API would show them so).
func scanTimesInUTC(_ context.Context, conn *pgx.Conn) error {
	conn.TypeMap().RegisterType(&pgtype.Type{Name: "timestamptz", OID: pgtype.TimestamptzOID,
		Codec: &pgtype.TimestamptzCodec{ScanLocation: time.UTC}})
	return nil
}

// redactError keeps err's chain (errors.Is still works) but removes the
// URL's password from its text, whatever layer put it there.
func redactError(err error, dsn string) error {
	p, perr := url.Parse(dsn)
	if perr != nil {
		return redactedError{err: err, secrets: []string{dsn}}
	}
	pw, ok := p.User.Password()
	if !ok || pw == "" {
		return err
	}
	return redactedError{err: err, secrets: []string{pw, url.QueryEscape(pw), url.PathEscape(pw)}}
}

type redactedError struct {
	err     error
	secrets []string
}

func (e redactedError) Error() string {
	msg := e.err.Error()
	for _, s := range e.secrets {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, "xxxxx")
		}
	}
	return msg
}

func (e redactedError) Unwrap() error { return e.err }

// pgWatch holds one connection LISTENing on configChannel and dataChannel
// and counts what arrives. A lost connection counts as a change on both
// (a notification may have been missed) and is replaced.
type pgWatch struct {
	config atomic.Int64
	data   atomic.Int64
	// local counts this Store's own writes (gorm callbacks, before their
	// commit): Revision right after a write here sees it, as on SQLite,
	// without waiting for the notification. A look between a write and its
	// commit reads the old value; the notification after the commit makes
	// the next look read again.
	local  atomic.Int64
	wake   chan struct{} // Changes: one pending wake-up at most
	cancel context.CancelFunc
	done   chan struct{}
	conn   *pgx.Conn
}

func startPGWatch(ctx context.Context, cfg *pgx.ConnConfig) (*pgWatch, error) {
	conn, err := pgListen(ctx, cfg)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithCancel(context.Background())
	w := &pgWatch{wake: make(chan struct{}, 1), cancel: cancel, done: make(chan struct{}), conn: conn}
	go w.run(wctx, cfg)
	return w, nil
}

func pgListen(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	for _, ch := range []string{configChannel, dataChannel} {
		if _, err := conn.Exec(ctx, "LISTEN "+ch); err != nil {
			conn.Close(context.Background())
			return nil, err
		}
	}
	return conn, nil
}

func (w *pgWatch) run(ctx context.Context, cfg *pgx.ConnConfig) {
	defer close(w.done)
	conn := w.conn
	wait := 100 * time.Millisecond
	for {
		if conn == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			var err error
			if conn, err = pgListen(ctx, cfg); err != nil {
				wait = min(2*wait, 2*time.Second)
				continue
			}
			wait = 100 * time.Millisecond
			// Changes made while nobody listened: read everything again.
			w.config.Add(1)
			w.data.Add(1)
			w.signal()
		}
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			conn.Close(context.Background())
			conn = nil
			if ctx.Err() != nil {
				return
			}
			continue
		}
		switch n.Channel {
		case configChannel:
			w.config.Add(1)
		case dataChannel:
			w.data.Add(1)
		}
		w.signal()
	}
}

func (w *pgWatch) signal() {
	select {
	case w.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// Changes delivers a value soon after another process changed the
// database (PostgreSQL's notifications), so a watcher polling Revisions
// can look at once instead of at its next tick. nil on SQLite, which has
// nothing to push: a receive from it blocks, and the tick does the work.
func (s *Store) Changes() <-chan struct{} {
	if s.pgw == nil {
		return nil
	}
	return s.pgw.wake
}

// countWrites counts every create, update, delete and raw statement made
// through db in w.local.
func (w *pgWatch) countWrites(db *gorm.DB) error {
	count := func(*gorm.DB) { w.local.Add(1) }
	cb := db.Callback()
	for _, err := range []error{
		cb.Create().After("gorm:create").Register("mcpr:count_create", count),
		cb.Update().After("gorm:update").Register("mcpr:count_update", count),
		cb.Delete().After("gorm:delete").Register("mcpr:count_delete", count),
		cb.Raw().After("gorm:raw").Register("mcpr:count_raw", count),
	} {
		if err != nil {
			return fmt.Errorf("register write counter: %w", err)
		}
	}
	return nil
}

func (w *pgWatch) close() {
	w.cancel()
	<-w.done
}

// pgRevisions is Revisions on PostgreSQL: config_revision is read again
// only after a notification on configChannel, a reconnect or a write by
// this Store; Data counts the notifications on dataChannel and this
// Store's writes.
func (s *Store) pgRevisions(ctx context.Context) (Revisions, error) {
	s.revMu.Lock()
	defer s.revMu.Unlock()
	// Loaded before the read: a notification landing during it shows as a
	// new count next time, so it is never missed.
	seen := s.pgw.config.Load() + s.pgw.local.Load()
	data := s.pgw.data.Load() + s.pgw.local.Load()
	if s.revOK && seen == s.revDV {
		return Revisions{Config: s.revValue, Data: data}, nil
	}
	var v int64
	if err := s.sql.QueryRowContext(ctx, "SELECT value FROM config_revision WHERE id = 1").Scan(&v); err != nil {
		return Revisions{}, fmt.Errorf("revision: %w", err)
	}
	s.revDV, s.revValue, s.revOK = seen, v, true
	return Revisions{Config: v, Data: data}, nil
}

// OpenDatabase opens the store a --database value names: "" the SQLite file
// at sqlitePath (the data dir's, as always), a postgres:// or
// postgresql:// URL that PostgreSQL database. Anything else is
// ErrDatabaseURL, without echoing a password.
func OpenDatabase(ctx context.Context, database, sqlitePath string, o Options) (*Store, error) {
	switch {
	case database == "":
		return OpenWith(sqlitePath, o)
	case IsPostgresURL(database):
		return OpenPostgres(ctx, database, o)
	}
	return nil, CheckDatabaseURL(database)
}

// CheckDatabaseURL reports a --database value OpenDatabase would refuse
// (nil for "" and PostgreSQL URLs).
func CheckDatabaseURL(database string) error {
	if database == "" || IsPostgresURL(database) {
		return nil
	}
	return fmt.Errorf("%w %s: want postgres://user:password@host:port/database (or none: the SQLite file in the data dir)",
		ErrDatabaseURL, RedactURL(database))
}
