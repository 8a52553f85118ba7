// Package electronimport carries a user of the Electron MCP Router
// (github.com/mcp-router/mcp-router, apps/electron; ended with v0.6.4) over
// to this router: its servers, their per-tool toggles and its Projects, read
// from the app's SQLite database (never written: a copy is read) or from a
// file its Export wrote. Its access tokens are not carried (see Plan.Tokens).
//
// Where the app keeps things, as read in its source (commit c9fb16da of
// mcp-router/mcp-router): the database is <userData>/mcprouter.db, whose
// `workspaces` table names each workspace's database file relative to
// userData (the first workspace, "local-default", is mcprouter.db itself on
// installs that predate workspaces, else workspaces/local-default/database.db);
// userData is "<config dir>/MCP Router" (Electron's app.getPath("userData")
// with productName "MCP Router"). The servers table is
// modules/mcp-server-manager/mcp-server-manager.repository.ts's, projects
// modules/projects/projects.repository.ts's.
package electronimport

import (
	"fmt"
	"time"
)

// Caps of an import (docs/limits.md#electron-import). They are fixed: an
// Electron router with more than this is not a desktop user's.
const (
	// MaxDatabaseBytes bounds the database file and its -wal file, each:
	// both are copied before they are read. The app's request log lives
	// in the same file, so a long-used one is large.
	MaxDatabaseBytes = 1 << 30
	// MaxExportBytes bounds an Export file.
	MaxExportBytes = 16 << 20
	// MaxServers bounds the servers read (rows or export entries).
	MaxServers = 2000
	// MaxProjects bounds the projects read.
	MaxProjects = 500
	// MaxWorkspaces bounds the workspaces listed.
	MaxWorkspaces = 100
	// MaxValueBytes bounds one column value of a row (an env JSON, the
	// tool toggles JSON, a name, …).
	MaxValueBytes = 1 << 20
	// MaxTableBytes bounds the values of a table read, all rows together
	// (they are held at once).
	MaxTableBytes = 64 << 20
)

// ReadDeadline bounds the queries of one database read (the copy is not
// counted): a few thousand rows take milliseconds.
const ReadDeadline = time.Minute

// Server types of the Electron app (MCPServerConfig.serverType).
const (
	typeLocal            = "local"             // stdio
	typeRemote           = "remote"            // legacy HTTP+SSE (SSEClientTransport)
	typeRemoteStreamable = "remote-streamable" // streamable HTTP
)

// Server is one server as the Electron app stored it, decoded but not yet
// mapped to this router's definition.
type Server struct {
	ID          string
	Name        string
	Type        string // local, remote, remote-streamable
	Command     string
	Args        []string
	Env         map[string]string
	URL         string
	BearerToken string
	Headers     map[string]string
	Disabled    bool
	// ToolPermissions: tool → enabled; false is a tool toggled off.
	ToolPermissions map[string]bool
	ProjectID       string
	// Sensitive names the input parameters the app marked sensitive:
	// env entries of those names become secret entries here.
	Sensitive []string
	// InputDefaults are the input parameters' defaults, which the app put
	// into {NAME} / ${NAME} placeholders of the args when it ran the server.
	InputDefaults map[string]string
	Dev           bool // the app's dev mode (watch and restart), not carried
}

// Project is one of the app's Projects.
type Project struct {
	ID   string
	Name string
}

// Workspace is a workspace the app's meta database lists.
type Workspace struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"` // local or remote
	Active   bool   `json:"active"`
	Database string `json:"database"` // its database file, absolute
}

// Source is what was read: the file, and the app's data in it.
type Source struct {
	Kind      string // "database" or "export"
	Path      string
	Workspace string // the workspace read ("" for an export)
	Servers   []Server
	Projects  []Project
	// Tokens counts the app's access tokens found (database table and
	// shared-config.json): never carried.
	Tokens int
	// Workspaces are the others the meta database lists, not read.
	OtherWorkspaces []Workspace
	// Projectless: the source cannot carry projects (a client-format export).
	Projectless bool
}

// capError is an error naming the cap it hit.
func capError(what string, n, limit int64, name string) error {
	return fmt.Errorf("%s has %d %s, more than the cap of %d (%s, fixed; docs/limits.md#electron-import)", what, n, unit(name), limit, name)
}

func unit(name string) string {
	switch name {
	case "MaxDatabaseBytes", "MaxExportBytes", "MaxValueBytes", "MaxTableBytes":
		return "bytes"
	case "MaxServers":
		return "servers"
	case "MaxProjects":
		return "projects"
	}
	return "workspaces"
}
