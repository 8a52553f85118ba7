package electronimport

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// The Electron app's tables as its code creates them (mcp-router/mcp-router
// at c9fb16da: apps/electron/src/main/modules/mcp-server-manager/
// mcp-server-manager.repository.ts, modules/projects/projects.repository.ts,
// modules/workspace/workspace.service.ts, infrastructure/database/schema/
// tables/tokens.ts, infrastructure/database/main-database-migration.ts).
const (
	appServersTable = `CREATE TABLE IF NOT EXISTS servers (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      command TEXT,
      args TEXT,
      env TEXT,
      auto_start INTEGER NOT NULL,
      disabled INTEGER NOT NULL,
      auto_approve TEXT,
      context_path TEXT,
      server_type TEXT NOT NULL DEFAULT 'local',
      remote_url TEXT,
      bearer_token TEXT,
      input_params TEXT,
      description TEXT,
      version TEXT,
      latest_version TEXT,
      verification_status TEXT,
      required_params TEXT,
      project_id TEXT,
      tool_permissions TEXT,
      dev TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`
	appServersIndexes = `CREATE INDEX IF NOT EXISTS idx_servers_name ON servers(name);
CREATE INDEX IF NOT EXISTS idx_servers_project_id ON servers(project_id)`
	appProjectsTable = `CREATE TABLE IF NOT EXISTS projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
CREATE INDEX IF NOT EXISTS idx_projects_name ON projects(name)`
	appWorkspacesTable = `CREATE TABLE IF NOT EXISTS workspaces (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        type TEXT NOT NULL CHECK(type IN ('local', 'remote')),
        isActive INTEGER NOT NULL DEFAULT 0,
        createdAt TEXT NOT NULL,
        lastUsedAt TEXT NOT NULL,
        localConfig TEXT, -- JSON
        remoteConfig TEXT, -- JSON
        displayInfo TEXT   -- JSON
      )`
	appTokensTable = `CREATE TABLE IF NOT EXISTS tokens (
      id TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      issued_at INTEGER NOT NULL,
      server_ids TEXT NOT NULL,
      scopes TEXT DEFAULT '[]'
    );
CREATE INDEX IF NOT EXISTS idx_tokens_client_id ON tokens(client_id)`
	appMigrationsTable = `CREATE TABLE IF NOT EXISTS migrations (
        id TEXT PRIMARY KEY,
        executed_at INTEGER NOT NULL
      )`
)

// appServer is the app's MCPServerConfig, written into a row the way its
// repository's mapEntityToRow does.
type appServer struct {
	ID, Name, ServerType, Command, RemoteURL, BearerToken string
	Args                                                  []string
	Env                                                   map[string]any
	AutoStart, Disabled                                   bool
	InputParams                                           map[string]map[string]any
	ToolPermissions                                       map[string]bool
	ProjectID                                             string
	Dev                                                   map[string]any
}

// appDB is an Electron-app database being built, opened as better-sqlite3
// opens it (WAL, foreign keys on).
type appDB struct {
	t  *testing.T
	db *sql.DB
}

func newAppDB(t *testing.T, path string, tables ...string) *appDB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	a := &appDB{t: t, db: db}
	for _, sqlText := range append([]string{appMigrationsTable}, tables...) {
		a.exec(sqlText)
	}
	return a
}

func (a *appDB) exec(q string, args ...any) {
	a.t.Helper()
	if _, err := a.db.Exec(q, args...); err != nil {
		a.t.Fatalf("%s: %v", q, err)
	}
}

func jsonText(t *testing.T, v any) any {
	t.Helper()
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (a *appDB) addServer(s appServer) {
	a.t.Helper()
	now := time.Now().UnixMilli()
	if s.ServerType == "" {
		s.ServerType = "local"
	}
	if s.Env == nil {
		s.Env = map[string]any{}
	}
	if s.Args == nil {
		s.Args = []string{}
	}
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var input, perms, dev any
	if s.InputParams != nil {
		input = jsonText(a.t, s.InputParams)
	}
	if s.ToolPermissions != nil {
		perms = jsonText(a.t, s.ToolPermissions)
	}
	if s.Dev != nil {
		dev = jsonText(a.t, s.Dev)
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	a.exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, server_type, remote_url,
		bearer_token, input_params, project_id, tool_permissions, dev, description, version, latest_version,
		verification_status, required_params, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, '[]', ?, ?)`,
		s.ID, s.Name, nullable(s.Command), jsonText(a.t, s.Args), jsonText(a.t, s.Env), b2i(s.AutoStart), b2i(s.Disabled),
		s.ServerType, nullable(s.RemoteURL), nullable(s.BearerToken), input, nullable(s.ProjectID), perms, dev, now, now)
}

func (a *appDB) addProject(id, name string) {
	now := time.Now().UnixMilli()
	a.exec("INSERT INTO projects (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", id, name, now, now)
}

func (a *appDB) addWorkspace(id, name, typ string, active bool, dbPath string) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	act := 0
	if active {
		act = 1
	}
	a.exec(`INSERT INTO workspaces (id, name, type, isActive, createdAt, lastUsedAt, localConfig) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, name, typ, act, now, now, jsonText(a.t, map[string]string{"databasePath": dbPath}))
}

func (a *appDB) addToken(id, client string) {
	a.exec("INSERT INTO tokens (id, client_id, issued_at, server_ids, scopes) VALUES (?, ?, ?, ?, '[]')",
		id, client, time.Now().Unix(), `["s1"]`)
}
