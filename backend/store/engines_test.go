package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx", for CREATE DATABASE

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The store's tests run on both engines: forEachEngine runs a test once on
// a SQLite file and once on a fresh PostgreSQL database. One throwaway
// PostgreSQL cluster serves the package run (started by the first test
// that needs it, stopped by TestMain); each test gets its own database.
// Without PostgreSQL installed the PostgreSQL half skips, unless
// MCPR_REQUIRE_PEERS=1 (make test), where it fails.
//
// Tests of SQLite itself stay SQLite-only: file modes (filemode_test.go),
// PRAGMAs and WAL (TestPragmas), data_version across connections
// (TestRevisionSeesOtherStoreWrites, TestConcurrentStores), the query
// plans (logs_plan_test.go), the path handling of Open and the fixtures of
// older SQLite files (testdata/). Their PostgreSQL counterparts are in
// postgres_test.go.

var pg struct {
	once    sync.Once
	cluster *testpeers.PostgresCluster
	err     error
	n       atomic.Int64

	templateOnce sync.Once
	templateErr  error
}

// templateDatabase is migrated once per package run; migratedPostgresDatabase
// copies it (CREATE DATABASE … TEMPLATE), which is faster than migrating
// every test's database. Tests of migration itself use
// freshPostgresDatabase.
const templateDatabase = "store_test_template"

func TestMain(m *testing.M) {
	code := m.Run()
	if pg.cluster != nil {
		pg.cluster.Stop()
	}
	os.Exit(code)
}

// opener opens a new Store on the engine and database of the running test
// (twice gives two Stores on one database, as two processes would).
type opener func(t *testing.T) *Store

func forEachEngine(t *testing.T, fn func(t *testing.T, open opener)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "data", "mcp-router.db")
		fn(t, func(t *testing.T) *Store {
			t.Helper()
			s, err := Open(path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := migratedPostgresDatabase(t)
		fn(t, func(t *testing.T) *Store {
			t.Helper()
			return openPostgresTest(t, dsn)
		})
	})
}

func openPostgresTest(t *testing.T, dsn string) *Store {
	t.Helper()
	s, err := OpenPostgres(context.Background(), dsn, Options{})
	if err != nil {
		t.Fatalf("OpenPostgres: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// postgresCluster is the package run's cluster, started on first use.
func postgresCluster(t *testing.T) *testpeers.PostgresCluster {
	t.Helper()
	bin := testpeers.PostgresBin()
	if bin == "" {
		msg := "PostgreSQL is not installed (apt package postgresql, scripts/install-system-deps.sh)"
		if os.Getenv("MCPR_REQUIRE_PEERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	pg.once.Do(func() { pg.cluster, pg.err = testpeers.StartPostgresCluster(bin) })
	if pg.err != nil {
		t.Fatalf("start PostgreSQL: %v", pg.err)
	}
	return pg.cluster
}

// migratedPostgresDatabase is a database at the current schema for the test
// (a copy of templateDatabase, dropped when the test ends).
func migratedPostgresDatabase(t *testing.T) string {
	t.Helper()
	c := postgresCluster(t)
	pg.templateOnce.Do(func() {
		pg.templateErr = func() error {
			admin, err := sql.Open("pgx", c.URL)
			if err != nil {
				return err
			}
			defer admin.Close()
			if _, err := admin.Exec("CREATE DATABASE " + templateDatabase); err != nil {
				return err
			}
			s, err := OpenPostgres(context.Background(), databaseURL(c, templateDatabase), Options{})
			if err != nil {
				return err
			}
			return s.Close()
		}()
	})
	if pg.templateErr != nil {
		t.Fatalf("template database: %v", pg.templateErr)
	}
	return createDatabase(t, c, "TEMPLATE "+templateDatabase)
}

// freshPostgresDatabase creates an empty database for the test (dropped when
// it ends, after its Stores closed) and returns its URL.
func freshPostgresDatabase(t *testing.T) string {
	t.Helper()
	return createDatabase(t, postgresCluster(t), "")
}

func createDatabase(t *testing.T, c *testpeers.PostgresCluster, options string) string {
	t.Helper()
	admin, err := sql.Open("pgx", c.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	name := fmt.Sprintf("store_test_%d", pg.n.Add(1))
	if _, err := admin.Exec("CREATE DATABASE " + name + " " + options); err != nil {
		t.Fatalf("create database: %v", err)
	}
	// Registered before the test's Stores, so it runs after they closed.
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE " + name + " WITH (FORCE)") })
	return databaseURL(c, name)
}

func databaseURL(c *testpeers.PostgresCluster, name string) string {
	u, _ := url.Parse(c.URL)
	u.Path = "/" + name
	return u.String()
}
