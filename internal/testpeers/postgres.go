package testpeers

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// PostgresCluster is a throwaway PostgreSQL cluster (trust auth, user
// "reg", no fsync) on a free loopback port. StartPostgres ties one to a
// test; a package that shares one cluster among its tests starts it in
// TestMain and stops it there.
type PostgresCluster struct {
	URL    string // postgres://reg@127.0.0.1:<port>/postgres?sslmode=disable
	Addr   string // 127.0.0.1:<port>
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// PostgresBin finds PostgreSQL's server binaries (Debian keeps them in
// /usr/lib/postgresql/N/bin, off PATH); "" when none is installed.
func PostgresBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err == nil {
			return filepath.Dir(p)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

// StartPostgresCluster initializes and starts a cluster with the binaries in
// bin and waits until it listens. Stop ends it and removes its files.
func StartPostgresCluster(bin string) (_ *PostgresCluster, err error) {
	dir, err := os.MkdirTemp("", "mcpr-pg-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = os.RemoveAll(dir)
		}
	}()
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "reg", "--no-sync", "-E", "UTF8")
	uid, gid, err := postgresUser(initdb)
	if err != nil {
		return nil, err
	}
	if uid >= 0 {
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	initdb.Dir = dir
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var log SyncBuffer
	pg := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", fmt.Sprint(port), "-k", dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=100")
	if _, _, err := postgresUser(pg); err != nil {
		return nil, err
	}
	pg.Dir = dir
	pg.Stdout, pg.Stderr = &log, &log
	if err := pg.Start(); err != nil {
		return nil, err
	}
	c := &PostgresCluster{Addr: fmt.Sprintf("127.0.0.1:%d", port), dir: dir, cmd: pg, exited: make(chan struct{})}
	c.URL = "postgres://reg@" + c.Addr + "/postgres?sslmode=disable"
	go func() { _ = pg.Wait(); close(c.exited) }()
	isReady := pgIsReady(bin)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-c.exited:
			return nil, fmt.Errorf("postgres exited: %s", log.String())
		default:
		}
		// Listening is not yet accepting ("the database system is
		// starting up"); pg_isready asks the server itself.
		nc, err := net.Dial("tcp", c.Addr)
		if err == nil {
			nc.Close()
			if isReady == "" || exec.Command(isReady, "-q", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "-U", "reg").Run() == nil {
				return c, nil
			}
		}
		if time.Now().After(deadline) {
			c.Stop()
			return nil, fmt.Errorf("timed out after 30s waiting for PostgreSQL to listen: %s", log.String())
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// Stop ends the cluster (SIGINT: fast shutdown, the postmaster ends its
// children first) and removes its files.
func (c *PostgresCluster) Stop() {
	_ = c.cmd.Process.Signal(os.Interrupt)
	select {
	case <-c.exited:
	case <-time.After(15 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
	_ = os.RemoveAll(c.dir)
}

// pgIsReady finds pg_isready beside the server, on PATH or in Debian's
// directory; "" if none (then listening counts as ready).
func pgIsReady(bin string) string {
	if p := filepath.Join(bin, "pg_isready"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("pg_isready"); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_isready")
	if len(dirs) > 0 {
		return dirs[len(dirs)-1]
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
