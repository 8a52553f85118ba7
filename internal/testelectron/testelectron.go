// Package testelectron builds databases of the Electron MCP Router
// (github.com/mcp-router/mcp-router) for tests of the import from it: its
// tables as its code creates them, rows as its repositories write them.
package testelectron

import (
	"database/sql"
	"encoding/json"
	_ "modernc.org/sqlite" // the driver "sqlite"
	"os"
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
	ServersTable = `CREATE TABLE IF NOT EXISTS servers (
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
	ServersIndexes = `CREATE INDEX IF NOT EXISTS idx_servers_name ON servers(name);
CREATE INDEX IF NOT EXISTS idx_servers_project_id ON servers(project_id)`
	ProjectsTable = `CREATE TABLE IF NOT EXISTS projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
CREATE INDEX IF NOT EXISTS idx_projects_name ON projects(name)`
	WorkspacesTable = `CREATE TABLE IF NOT EXISTS workspaces (
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
	TokensTable = `CREATE TABLE IF NOT EXISTS tokens (
      id TEXT PRIMARY KEY,
      client_id TEXT NOT NULL,
      issued_at INTEGER NOT NULL,
      server_ids TEXT NOT NULL,
      scopes TEXT DEFAULT '[]'
    );
CREATE INDEX IF NOT EXISTS idx_tokens_client_id ON tokens(client_id)`
	MigrationsTable = `CREATE TABLE IF NOT EXISTS migrations (
        id TEXT PRIMARY KEY,
        executed_at INTEGER NOT NULL
      )`
)

// Server is the app's MCPServerConfig, written into a row the way its
// repository's mapEntityToRow does.
type Server struct {
	ID, Name, ServerType, Command, RemoteURL, BearerToken string
	Args                                                  []string
	Env                                                   map[string]any
	AutoStart, Disabled                                   bool
	InputParams                                           map[string]map[string]any
	ToolPermissions                                       map[string]bool
	ProjectID                                             string
	Dev                                                   map[string]any
}

// DB is an Electron-app database being built, opened as better-sqlite3
// opens it (WAL, foreign keys on).
type DB struct {
	t  *testing.T
	db *sql.DB
}

// New creates the database at path as better-sqlite3 opens it (WAL,
// foreign keys on) with tables, and closes it when the test ends.
func New(t *testing.T, path string, tables ...string) *DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.ToSlash(path)+"?_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { _ = db.Close() })
	a := &DB{t: t, db: db}
	for _, sqlText := range append([]string{MigrationsTable}, tables...) {
		a.Exec(sqlText)
	}
	return a
}

// Exec runs q on the database.
func (a *DB) Exec(q string, args ...any) {
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

// AddServer inserts s as mapEntityToRow writes it.
func (a *DB) AddServer(s Server) {
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
	a.Exec(`INSERT INTO servers (id, name, command, args, env, auto_start, disabled, server_type, remote_url,
		bearer_token, input_params, project_id, tool_permissions, dev, description, version, latest_version,
		verification_status, required_params, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, '[]', ?, ?)`,
		s.ID, s.Name, nullable(s.Command), jsonText(a.t, s.Args), jsonText(a.t, s.Env), b2i(s.AutoStart), b2i(s.Disabled),
		s.ServerType, nullable(s.RemoteURL), nullable(s.BearerToken), input, nullable(s.ProjectID), perms, dev, now, now)
}

// AddProject inserts a project.
func (a *DB) AddProject(id, name string) {
	now := time.Now().UnixMilli()
	a.Exec("INSERT INTO projects (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)", id, name, now, now)
}

// AddWorkspace inserts a workspace whose database is dbPath (relative to userData).
func (a *DB) AddWorkspace(id, name, typ string, active bool, dbPath string) {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	act := 0
	if active {
		act = 1
	}
	a.Exec(`INSERT INTO workspaces (id, name, type, isActive, createdAt, lastUsedAt, localConfig) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, name, typ, act, now, now, jsonText(a.t, map[string]string{"databasePath": dbPath}))
}

// AddToken inserts a token row.
func (a *DB) AddToken(id, client string) {
	a.Exec("INSERT INTO tokens (id, client_id, issued_at, server_ids, scopes) VALUES (?, ?, ?, ?, '[]')",
		id, client, time.Now().Unix(), `["s1"]`)
}

// UserData builds the Electron app's data directory of a user who has used
// it since before workspaces: mcprouter.db is both the meta database and
// the local-default workspace's, with a second local workspace beside it.
// The app stays "running": its connection is open, so recent writes sit in
// the -wal file, as they do while the app is up.
func UserData(t *testing.T) (dir string, app *DB) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "MCP Router")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	app = New(t, filepath.Join(dir, "mcprouter.db"),
		ServersTable, ServersIndexes, ProjectsTable, WorkspacesTable, TokensTable)
	app.AddWorkspace("local-default", "Local", "local", true, "mcprouter.db")
	app.AddWorkspace("7d1c", "Team B", "local", false, "workspaces/7d1c/database.db")
	app.AddProject("p-web", "Web Dev")
	app.AddProject("p-empty", "Empty Project")
	app.AddProject("p-notes", "Notes & Docs")
	app.AddServer(Server{ID: "s1", Name: "GitHub MCP", Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-github"},
		Env:  map[string]any{"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret1"}, AutoStart: true,
		InputParams:     map[string]map[string]any{"GITHUB_PERSONAL_ACCESS_TOKEN": {"title": "Token", "sensitive": true}},
		ToolPermissions: map[string]bool{"create_issue": false, "search_repositories": true, "delete_repo": false},
		ProjectID:       "p-web"})
	app.AddServer(Server{ID: "s2", Name: "filesystem", Command: "npx",
		Args:        []string{"-y", "@modelcontextprotocol/server-filesystem", "{ROOT_DIR}"},
		InputParams: map[string]map[string]any{"ROOT_DIR": {"type": "directory", "default": "/home/u/work"}},
		Disabled:    true, ProjectID: "p-notes"})
	app.AddServer(Server{ID: "s3", Name: "Remote SSE", ServerType: "remote",
		RemoteURL: "https://mcp.example.com/sse", BearerToken: "tok-123", ProjectID: "p-web"})
	app.AddServer(Server{ID: "s4", Name: "streamable", ServerType: "remote-streamable",
		RemoteURL: "https://api.example.com/mcp", Env: map[string]any{"PORT": 8080}})
	app.AddServer(Server{ID: "s5", Name: "keep", Command: "theirs"})
	app.AddServer(Server{ID: "s6", Name: "nocmd"})
	app.AddServer(Server{ID: "s7", Name: "bundle", ServerType: "dxt", Command: "node"})
	app.AddServer(Server{ID: "s8", Name: "dev server", Command: "node", Args: []string{"index.js"},
		Dev: map[string]any{"enabled": true, "watch": []string{"src"}}})
	app.AddToken("mcpr_aaaa", "claude")
	app.AddToken("mcpr_bbbb", "cursor")
	if err := os.WriteFile(filepath.Join(dir, "shared-config.json"),
		[]byte(`{"settings": {}, "mcpApps": {"tokens": [{"id": "mcpr_cccc", "clientId": "vscode"}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, app
}
