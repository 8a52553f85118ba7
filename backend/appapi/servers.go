package appapi

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/gateway"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// ServerTool is one upstream tool on a server's page.
type ServerTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Enabled     bool   `json:"enabled"`
	FinalName   string `json:"finalName"` // the name clients see; for a disabled tool, the name it would get
}

// ListServers returns every configured server with its live state.
func (a *API) ListServers() ([]ServerView, error) {
	rows, err := a.core.Store.Servers().List(bg())
	if err != nil {
		return nil, err
	}
	out := make([]ServerView, 0, len(rows))
	for _, r := range rows {
		out = append(out, a.serverView(r.Server))
	}
	return out, nil
}

func (a *API) serverView(def spec.Server) ServerView {
	st, err := a.core.Servers.Status(def.Name)
	if err != nil {
		// Stored but not yet picked up by the supervisor.
		st = upstream.Status{Name: def.Name, Transport: def.Transport, Enabled: def.Enabled, State: upstream.StateStopped}
	}
	return makeView(a.core.ResolveStart(def), st, a.loggedIn(def))
}

// GetServer returns a server's stored definition, for the edit form.
func (a *API) GetServer(name string) (spec.Server, error) {
	r, err := a.core.Store.Servers().Get(bg(), name)
	if err != nil {
		return spec.Server{}, err
	}
	return r.Server, nil
}

// AddServer stores a new server (the Add form) and starts it if enabled.
// A definition that points at this router is refused.
func (a *API) AddServer(cfg spec.Server) (ServerView, error) {
	// Only an install makes a bundle's server: a definition claiming a
	// bundle would have its removal delete that bundle's files.
	cfg.Bundle = nil
	if err := a.loopGuard().Check(bg(), cfg); err != nil {
		return ServerView{}, err
	}
	// Secret values go to the keychain, their placeholders to the
	// database; a taken name is refused before a value is written under it.
	if err := a.core.Store.Servers().Free(bg(), strings.TrimSpace(cfg.Name)); err != nil {
		return ServerView{}, err
	}
	var r store.Server
	_, err := a.core.ServerSecrets.Save(nil, cfg, func(def spec.Server) (err error) {
		r, err = a.core.Store.Servers().Create(bg(), def)
		return err
	})
	if err != nil {
		return ServerView{}, err
	}
	return a.applied(r.Server)
}

// UpdateServer replaces the definition of name with cfg; cfg.Name may
// differ (a rename). The server restarts if how to reach it changed.
func (a *API) UpdateServer(name string, cfg spec.Server) (ServerView, error) {
	if cfg.Name == "" {
		cfg.Name = name
	}
	if err := a.loopGuard().Check(bg(), cfg); err != nil {
		return ServerView{}, err
	}
	cur, err := a.core.Store.Servers().Get(bg(), name)
	if err != nil {
		return ServerView{}, err
	}
	// The edit form does not carry where a server came from: a bundle's
	// server stays one, so removing it still removes the bundle's files.
	cfg.Bundle = cur.Bundle
	if to := strings.TrimSpace(cfg.Name); to != name {
		// Refused before a value moves under another server's name.
		if err := a.core.Store.Servers().Free(bg(), to); err != nil {
			return ServerView{}, err
		}
	}
	// A secret entry sent with its placeholder (or empty) keeps its value;
	// a rename moves the values (secrets.ServerValues.SaveAll).
	var r store.Server
	_, err = a.core.ServerSecrets.Save(&cur.Server, cfg, func(def spec.Server) (err error) {
		r, err = a.core.Store.Servers().Replace(bg(), name, def)
		return err
	})
	if err != nil {
		return ServerView{}, err
	}
	v, err := a.applied(r.Server)
	if cfg.Name != name {
		// A login is kept by name: the old name's would wait for whichever
		// server is given that name next. The renamed server logs in again.
		a.forgetLogin(name)
	}
	return v, err
}

// applied applies the stored definitions at once (instead of on the next
// database poll) and tells every window about def's new row.
func (a *API) applied(def spec.Server) (ServerView, error) {
	if err := a.core.SyncServers(bg()); err != nil {
		return ServerView{}, err
	}
	v := a.serverView(def)
	a.hub.emit(EventServersChanged, v)
	return v, nil
}

// AddServersFromJSON imports pasted client config JSON ({"mcpServers": …}
// or VS Code's {"servers": …}; comments and trailing commas allowed).
// Existing names are skipped, never overwritten, and so is an entry that
// points at this router (the snippet it printed); the others are imported.
func (a *API) AddServersFromJSON(text string) (config.ImportReport, error) {
	if strings.TrimSpace(text) == "" {
		return config.ImportReport{}, errors.New(`paste a JSON config such as {"mcpServers": {"name": {"command": "npx", "args": […]}}}`)
	}
	servers, err := config.ParseClientConfig([]byte(text))
	if err != nil {
		return config.ImportReport{}, err
	}
	return a.importServers(servers)
}

// ImportClientConfig imports the servers of a client's config file.
func (a *API) ImportClientConfig(path string) (config.ImportReport, error) {
	if strings.TrimSpace(path) == "" {
		return config.ImportReport{}, errors.New("which file? the path is empty")
	}
	servers, err := config.ReadClientConfigFor(clientOfPath(path), path)
	if err != nil {
		return config.ImportReport{}, err
	}
	return a.importServers(servers)
}

func (a *API) importServers(servers []spec.Server) (config.ImportReport, error) {
	// Secret entries without a value (an export's placeholders) are
	// imported and reported in NeedsSecrets: the UI asks for them
	// (SetServerSecret); until then the server waits, errored.
	rep, err := config.ImportServersWith(bg(), a.core.Store.Servers(), servers, config.ImportOptions{
		Refuse: a.loopGuard().Refuse(bg()), Secrets: a.core.ServerSecrets, AllowMissingSecrets: true})
	if err != nil {
		return config.ImportReport{}, err
	}
	if rep.NeedsSecrets == nil {
		rep.NeedsSecrets = []spec.SecretRef{}
	}
	if rep.Added == nil {
		rep.Added = []string{}
	}
	if rep.Skipped == nil {
		rep.Skipped = []config.Skipped{}
	}
	if len(rep.Added) > 0 {
		if err := a.core.SyncServers(bg()); err != nil {
			return rep, err
		}
		for _, name := range rep.Added {
			if r, err := a.core.Store.Servers().Get(bg(), name); err == nil {
				a.hub.emit(EventServersChanged, a.serverView(r.Server))
			}
		}
	}
	return rep, nil
}

// RemoveServer deletes a server and stops it.
func (a *API) RemoveServer(name string) error {
	r, err := a.core.Store.Servers().Get(bg(), name)
	if err != nil {
		return err
	}
	if err := a.core.Store.Servers().Delete(bg(), name); err != nil {
		return err
	}
	// Sync emits servers:removed once the server is stopped; its login and
	// secret values go after it, so nothing reconnects a server being
	// removed, and neither outlives it.
	err = a.core.SyncServers(bg())
	a.forgetLogin(name)
	if ferr := a.core.ServerSecrets.Forget(r.Server); ferr != nil {
		a.core.Log.Warnf("remove the secret values of %q: %v", name, ferr)
	}
	a.removeBundleFiles(r.Server) // bundles.go
	return err
}

// SetServerSecret sets the value of one secret entry of a server — kind
// "env" (stdio) or "header" (HTTP/SSE) — making the entry secret if it was
// plain or absent: the value goes to the keychain, never to the database.
// The import asks for the values of NeedsSecrets this way. The server
// restarts with it.
func (a *API) SetServerSecret(server, kind, name, value string) (ServerView, error) {
	k := spec.SecretKind(kind)
	if k != spec.KindEnv && k != spec.KindHeader {
		return ServerView{}, fmt.Errorf("secret kind %q: want env or header", kind)
	}
	if strings.TrimSpace(name) == "" {
		return ServerView{}, errors.New("which entry? the name is empty")
	}
	if value == "" {
		return ServerView{}, fmt.Errorf("%s: the value is empty", spec.SecretRef{Server: server, Kind: k, Name: name})
	}
	cur, err := a.core.Store.Servers().Get(bg(), server)
	if err != nil {
		return ServerView{}, err
	}
	in := cur.Server
	in.Env, in.Headers = maps.Clone(in.Env), maps.Clone(in.Headers)
	in.SetEntry(k, name, value)
	if k == spec.KindHeader {
		in.SecretHeaders = append(slices.Clone(in.SecretHeaders), name)
	} else {
		in.SecretEnv = append(slices.Clone(in.SecretEnv), name)
	}
	var r store.Server
	_, err = a.core.ServerSecrets.Save(&cur.Server, in, func(def spec.Server) (err error) {
		r, err = a.core.Store.Servers().Update(bg(), def)
		return err
	})
	if err != nil {
		return ServerView{}, err
	}
	return a.applied(r.Server)
}

// SetServerEnabled enables (and starts) or disables (and stops) a server.
func (a *API) SetServerEnabled(name string, enabled bool) error {
	if err := a.core.Store.Servers().SetEnabled(bg(), name, enabled); err != nil {
		return err
	}
	return a.core.SyncServers(bg())
}

// StartServer starts an enabled server that is stopped. Runtime only.
func (a *API) StartServer(name string) error {
	if err := a.known(name); err != nil {
		return err
	}
	return a.core.Servers.Start(name)
}

// StopServer stops a server until it is started again, cancelling a start
// in progress. Runtime only: it stays enabled and starts with the app.
func (a *API) StopServer(name string) error {
	if err := a.known(name); err != nil {
		return err
	}
	return a.core.Servers.Stop(name)
}

// RestartServer reconnects a running server, or starts a stopped one.
func (a *API) RestartServer(name string) error {
	if err := a.known(name); err != nil {
		return err
	}
	def, err := a.core.Servers.Definition(name)
	if err != nil {
		return err
	}
	if !def.Enabled {
		return fmt.Errorf("%w: %q (enable it to start it)", upstream.ErrDisabled, name)
	}
	return a.core.Servers.Restart(name)
}

// known makes sure the supervisor has the stored server (a server added by
// the CLI a moment ago is stored before the poll picks it up).
func (a *API) known(name string) error {
	if _, err := a.core.Servers.Status(name); err == nil {
		return nil
	}
	if _, err := a.core.Store.Servers().Get(bg(), name); err != nil {
		return err
	}
	return a.core.SyncServers(bg())
}

// ServerTools lists a server's upstream tools (while it runs) with their
// enabled flag and final names.
func (a *API) ServerTools(name string) ([]ServerTool, error) {
	r, err := a.core.Store.Servers().Get(bg(), name)
	if err != nil {
		return nil, err
	}
	out := []ServerTool{}
	cat, err := a.core.Servers.Catalog(name)
	if err != nil {
		return out, nil // not picked up yet: no tools to show
	}
	final := map[string]string{}
	for published := range a.core.Gateway.Server().ListTools() {
		if srv, tool, ok := a.core.Gateway.ToolRoute(published); ok && srv == name {
			final[tool] = published
		}
	}
	sep := a.core.Settings.Separator(bg())
	for _, t := range cat.Tools {
		f, ok := final[t.Name]
		if !ok {
			f = gateway.PrefixedName(name, t.Name, sep, r.PrefixMode)
		}
		out = append(out, ServerTool{Name: t.Name, Description: t.Description, Enabled: r.ToolEnabled(t.Name), FinalName: f})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SetToolEnabled hides (false) or shows (true) one upstream tool.
func (a *API) SetToolEnabled(server, tool string, enabled bool) error {
	r, err := a.core.Store.Servers().Get(bg(), server)
	if err != nil {
		return err
	}
	if strings.TrimSpace(tool) == "" {
		return errors.New("which tool? the name is empty")
	}
	def := r.Server
	def.DisabledTools = slices.DeleteFunc(slices.Clone(def.DisabledTools), func(t string) bool { return t == tool })
	if !enabled {
		def.DisabledTools = append(def.DisabledTools, tool)
		sort.Strings(def.DisabledTools)
	}
	if _, err := a.core.Store.Servers().Update(bg(), def); err != nil {
		return err
	}
	return a.core.SyncServers(bg())
}

// SetPrefixMode sets whether the server's tool names get "<server><sep>".
func (a *API) SetPrefixMode(server, mode string) error {
	switch spec.PrefixMode(mode) {
	case spec.PrefixAlways, spec.PrefixNever:
	default:
		return fmt.Errorf("prefix mode %q: want always or never", mode)
	}
	r, err := a.core.Store.Servers().Get(bg(), server)
	if err != nil {
		return err
	}
	def := r.Server
	def.PrefixMode = spec.PrefixMode(mode)
	if _, err := a.core.Store.Servers().Update(bg(), def); err != nil {
		return err
	}
	return a.core.SyncServers(bg())
}

// ServerConsole returns the server's stderr ring, oldest first.
func (a *API) ServerConsole(name string) ([]string, error) {
	lines, err := a.core.Servers.Console(name)
	if errors.Is(err, upstream.ErrUnknownServer) {
		if _, serr := a.core.Store.Servers().Get(bg(), name); serr != nil {
			return nil, serr
		}
		return []string{}, nil // stored, never started
	}
	if err != nil {
		return nil, err
	}
	if lines == nil {
		lines = []string{}
	}
	return lines, nil
}
