package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// A configuration write by one Store (another replica) reaches a second
// Store's Revision within a second, through LISTEN/NOTIFY: the second one
// writes nothing itself, so only the notification makes it read again.
func TestPostgresRevisionSeesAnotherReplicasWrite(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	writer, watcher := openPostgresTest(t, dsn), openPostgresTest(t, dsn)
	ctx := context.Background()
	before, err := watcher.Revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Not configuration: the request log moves neither counter here.
	if err := writer.Logs().Insert(ctx, []RequestLog{{Client: "c", Server: "s", Method: "tools/call"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Servers().Create(ctx, spec.Server{Name: "fs", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	written := time.Now()
	for {
		r, err := watcher.Revisions(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r.Config != before.Config {
			if r.Data == before.Data {
				t.Errorf("Data did not move with the configuration change (%d)", r.Data)
			}
			t.Logf("seen after %s", time.Since(written))
			break
		}
		if time.Since(written) > time.Second {
			t.Fatalf("the other Store's write was not seen within 1 s (revision %d)", r.Config)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A state_gate run is not configuration, but followers of Data see it.
	r1, _ := watcher.Revisions(ctx)
	if err := writer.DB().Exec(`INSERT INTO stategate_definitions (hash, process_id, version, source, created_at) VALUES ('h', 'p', '1', 's', now())`).Error; err != nil {
		t.Fatal(err)
	}
	if err := writer.DB().Exec(`INSERT INTO stategate_runs (id, process_id, process_version, definition_hash, state, workspace, created_at, updated_at)
		VALUES ('r1', 'p', '1', 'h', 'start', '/w', now(), now())`).Error; err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second)
	for {
		r2, _ := watcher.Revisions(ctx)
		if r2.Data != r1.Data {
			if r2.Config != r1.Config {
				t.Errorf("a state_gate run moved the configuration revision")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a state_gate run written by the other Store did not move Data within 1 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Three replicas starting at once on an empty database: one migrates, the
// others wait on the advisory lock and then find everything done.
func TestPostgresConcurrentMigrate(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 3)
	stores := make([]*Store, 3)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = OpenPostgres(context.Background(), dsn, Options{})
		}()
	}
	wg.Wait()
	for i, s := range stores {
		if s != nil {
			defer s.Close()
		}
		if errs[i] != nil {
			t.Errorf("store %d: %v", i, errs[i])
		}
	}
	if t.Failed() {
		return
	}
	var n int64
	if err := stores[0].DB().Table(migrationTable).Count(&n).Error; err != nil || int(n) != len(migrations) {
		t.Errorf("migrations recorded: %d (%v), want %d", n, err, len(migrations))
	}
}

// A database migrated by a newer build is refused, naming the migration.
func TestPostgresRefusesNewerDatabase(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	s := openPostgresTest(t, dsn)
	if err := s.DB().Exec("INSERT INTO migrations (id) VALUES ('9999_from_the_future')").Error; err != nil {
		t.Fatal(err)
	}
	_, err := OpenPostgres(context.Background(), dsn, Options{})
	if !errors.Is(err, ErrNewerDatabase) || !strings.Contains(err.Error(), "9999_from_the_future") {
		t.Fatalf("OpenPostgres = %v, want ErrNewerDatabase naming 9999_from_the_future", err)
	}
}

// The URL's password appears in no error and no log line, whatever fails:
// a bad URL, an unreachable server, a missing database, a wrong scheme.
func TestPostgresPasswordNeverShown(t *testing.T) {
	const pw = "s3cr3t-Pw"
	c := postgresCluster(t)
	closed := closedPort(t)
	var logs bytes.Buffer
	std := logrus.StandardLogger()
	out := std.Out
	std.SetOutput(&logs)
	t.Cleanup(func() { std.SetOutput(out) })
	for _, tc := range []struct {
		name, dsn string
		want      []string
		is        error
	}{
		{"wrong scheme", "mysql://reg:" + pw + "@" + c.Addr + "/x", []string{"bad database URL", "want postgres://"}, ErrDatabaseURL},
		{"bad option", "postgres://reg:" + pw + "@" + c.Addr + "/x?sslmode=sometimes", []string{"bad database URL"}, ErrDatabaseURL},
		{"unreachable", "postgres://reg:" + pw + "@127.0.0.1:" + fmt.Sprint(closed) + "/x?sslmode=disable", []string{"connect to database", "127.0.0.1:" + fmt.Sprint(closed)}, nil},
		{"no such database", "postgres://reg:" + pw + "@" + c.Addr + "/nope?sslmode=disable", []string{"connect to database", "nope"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			s, err := OpenPostgres(context.Background(), tc.dsn, Options{})
			if err == nil {
				s.Close()
				t.Fatal("OpenPostgres succeeded")
			}
			if time.Since(start) > pgConnectTimeout+2*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
			if strings.Contains(err.Error(), pw) {
				t.Errorf("error shows the password: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
	if strings.Contains(logs.String(), pw) {
		t.Errorf("a log line shows the password: %s", logs.String())
	}
	if got := RedactURL("postgres://reg:" + pw + "@h/db"); strings.Contains(got, pw) || !strings.Contains(got, "reg:xxxxx@h/db") {
		t.Errorf("RedactURL = %q", got)
	}
}

// redactError scrubs a password some lower layer put in an error's text,
// and keeps the chain.
func TestRedactErrorScrubsThePassword(t *testing.T) {
	base := errors.New("dial postgres://u:p%40ss@h/db failed (p@ss)")
	err := redactError(fmt.Errorf("open: %w", base), "postgres://u:p%40ss@h/db")
	if strings.Contains(err.Error(), "p@ss") || strings.Contains(err.Error(), "p%40ss") || !errors.Is(err, base) {
		t.Errorf("redactError = %q (is base: %v)", err, errors.Is(err, base))
	}
}

func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// Two replicas appending to the audit trail at once keep one chain: the
// advisory lock orders them across processes, as auditMu does within one.
func TestPostgresAuditAppendsFromTwoReplicas(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	stores := []*Store{openPostgresTest(t, dsn), openPostgresTest(t, dsn)}
	ctx := context.Background()
	var wg sync.WaitGroup
	for i, s := range stores {
		// Each its own mutex, as two processes would have.
		repo := AuditRepo{db: s.db, mu: &sync.Mutex{}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				if _, err := repo.Append(ctx, AuditRow{Client: fmt.Sprint("r", i), Server: "s", Tool: "t", Status: "ok"}, time.Time{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rep, err := stores[1].Audit().Verify(ctx)
	if err != nil || !rep.OK() || rep.Rows != 20 {
		t.Errorf("Verify = %+v, %v", rep, err)
	}
}

// The listening connection killed (a PostgreSQL restart, a proxy's idle
// cut): the Store reconnects, and a change made meanwhile or after is seen.
func TestPostgresListenerReconnects(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	writer, watcher := openPostgresTest(t, dsn), openPostgresTest(t, dsn)
	ctx := context.Background()
	before, err := watcher.Revision(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res := writer.DB().Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`)
	if res.Error != nil || res.RowsAffected < 2 {
		t.Fatalf("terminate the listeners: %v (%d)", res.Error, res.RowsAffected)
	}
	if err := writer.Settings().Set(ctx, "theme", "dark"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := watcher.Revision(ctx)
		if err == nil && r != before {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("change not seen 5 s after the listener was killed (revision %d, %v)", r, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Anyone who can connect may NOTIFY the channels; a storm of them makes a
// Store read config_revision again, never believe the configuration moved.
func TestPostgresNotifyStormMovesNothing(t *testing.T) {
	dsn := freshPostgresDatabase(t)
	s := openPostgresTest(t, dsn)
	other := openPostgresTest(t, dsn)
	ctx := context.Background()
	before, err := s.Revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		if err := other.DB().Exec(`SELECT pg_notify('mcpr_config', 'x')`).Error; err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(200 * time.Millisecond)
	for i := 0; i < 5; i++ {
		r, err := s.Revisions(ctx)
		if err != nil || r.Config != before.Config {
			t.Fatalf("Revisions = %+v, %v; before %+v", r, err, before)
		}
	}
}

// Times come back in UTC, as from SQLite, even where the process's zone is
// another (pgx would return time.Local).
func TestPostgresTimesAreUTC(t *testing.T) {
	local := time.Local
	time.Local = time.FixedZone("JST", 9*3600)
	t.Cleanup(func() { time.Local = local })
	s := openPostgresTest(t, migratedPostgresDatabase(t))
	ctx := context.Background()
	if _, err := s.Servers().Create(ctx, spec.Server{Name: "fs", Command: "x"}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Servers().Get(ctx, "fs")
	if err != nil {
		t.Fatal(err)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt in %v, want UTC", got.CreatedAt.Location())
	}
}
