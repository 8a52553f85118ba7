package electronimport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Plan is what an import will do, worked out before anything is written:
// the dry run prints it, and Apply writes exactly its Servers and Profiles.
type Plan struct {
	Source    string           `json:"source"`
	Kind      string           `json:"kind"` // database or export
	Workspace string           `json:"workspace,omitempty"`
	Servers   []PlannedServer  `json:"servers"`
	Profiles  []PlannedProfile `json:"profiles"`
	Skipped   []Skip           `json:"skipped"`
	// Tokens counts the app's access tokens: none is carried (Notes says
	// why and what to do).
	Tokens     int    `json:"tokens"`
	TokensNote string `json:"tokensNote,omitempty"`
	// Notes: the rest that is not carried over (other workspaces, dev mode).
	Notes []string `json:"notes"`

	defs     []spec.Server
	profiles []store.Profile
}

// PlannedServer is a server the import adds.
type PlannedServer struct {
	Name          string   `json:"name"`
	From          string   `json:"from"` // its name in the Electron app
	Transport     string   `json:"transport"`
	Target        string   `json:"target"` // command line or URL
	Enabled       bool     `json:"enabled"`
	DisabledTools []string `json:"disabledTools"`
	SecretEnv     []string `json:"secretEnv,omitempty"`
	SecretHeaders []string `json:"secretHeaders,omitempty"`
	Project       string   `json:"project,omitempty"`
}

// PlannedProfile is a profile the import adds for one of the app's Projects.
type PlannedProfile struct {
	Name    string   `json:"name"`
	From    string   `json:"from"` // the project's name in the app
	Servers []string `json:"servers"`
}

// Skip is something the import leaves out, and why.
type Skip struct {
	Kind   string `json:"kind"` // server or project
	Name   string `json:"name"` // its name in the Electron app
	Reason string `json:"reason"`
}

// Skip reasons a caller may compare with.
const (
	ReasonAlreadyImported = "already here with the same command or URL (imported before): left as it is"
	ReasonProfileExists   = "a profile of that name exists here: left as it is"
)

// MakePlan works out the import of src into st: which servers and
// profiles are added and what is skipped, with reasons. refuse names why
// a server must not be added (the loop guard: it points at this router);
// nil refuses nothing. A source that cannot be imported as it is (a server
// in a project that does not exist) is an error, and nothing is planned.
func MakePlan(ctx context.Context, st *store.Store, src Source, refuse config.Refuse) (Plan, error) {
	existing, err := st.Servers().List(ctx)
	if err != nil {
		return Plan{}, fmt.Errorf("import: %w", err)
	}
	here := make(map[string]spec.Server, len(existing))
	for _, r := range existing {
		here[r.Name] = r.Server
	}
	profiles, err := st.Profiles().List(ctx)
	if err != nil {
		return Plan{}, fmt.Errorf("import: %w", err)
	}
	profileHere := map[string]bool{}
	for _, p := range profiles {
		profileHere[p.Name] = true
	}
	projects := make(map[string]Project, len(src.Projects))
	for _, p := range src.Projects {
		projects[p.ID] = p
	}
	var errs []error
	for _, s := range src.Servers {
		if s.ProjectID != "" && !src.Projectless {
			if _, ok := projects[s.ProjectID]; !ok {
				errs = append(errs, fmt.Errorf("server %q is in project %q, which the projects table does not have", s.Name, s.ProjectID))
			}
		}
	}
	if len(errs) > 0 {
		return Plan{}, errors.Join(errs...)
	}

	p := Plan{Source: src.Path, Kind: src.Kind, Workspace: src.Workspace, Tokens: src.Tokens,
		Servers: []PlannedServer{}, Profiles: []PlannedProfile{}, Skipped: []Skip{}, Notes: []string{}}
	members := map[string][]string{} // project id → server names here
	batch := map[string]string{}     // name here → its name in the app
	for _, s := range src.Servers {
		def, reason := toDefinition(s)
		if reason == "" && refuse != nil {
			reason = refuse(def)
		}
		if reason == "" {
			if other, ok := batch[def.Name]; ok {
				reason = fmt.Sprintf("its name here, %q, is also that of %q, imported above", def.Name, other)
			} else if cur, ok := here[def.Name]; ok {
				if sameTarget(cur, def) {
					if s.ProjectID != "" {
						members[s.ProjectID] = append(members[s.ProjectID], def.Name)
					}
					reason = ReasonAlreadyImported
				} else {
					reason = fmt.Sprintf("a different server named %q exists here: left as it is (rename or remove it, then import again)", def.Name)
				}
			}
		}
		if reason != "" {
			p.Skipped = append(p.Skipped, Skip{Kind: "server", Name: s.Name, Reason: reason})
			continue
		}
		batch[def.Name] = s.Name
		if s.ProjectID != "" {
			members[s.ProjectID] = append(members[s.ProjectID], def.Name)
		}
		ps := PlannedServer{Name: def.Name, From: s.Name, Transport: string(def.Transport), Target: def.Target(),
			Enabled: def.Enabled, DisabledTools: orEmpty(def.DisabledTools), SecretEnv: def.SecretEnv, SecretHeaders: def.SecretHeaders}
		if pr, ok := projects[s.ProjectID]; ok {
			ps.Project = pr.Name
		}
		p.Servers = append(p.Servers, ps)
		p.defs = append(p.defs, def)
		if s.Dev {
			p.Notes = append(p.Notes, fmt.Sprintf("%s: the app's dev mode (watch and restart) is not carried over", def.Name))
		}
	}

	known := slices.Collect(maps.Keys(here))
	for name := range batch {
		known = append(known, name)
	}
	taken := map[string]string{}
	for _, pr := range src.Projects {
		name := safeName(pr.Name, 64)
		if name == "" {
			name = fallbackName("project", pr.ID, 64)
		}
		servers := members[pr.ID]
		sort.Strings(servers)
		reason := ""
		switch {
		case profile.CheckName(name) != nil:
			reason = fmt.Sprintf("its name cannot be made a profile name (%v)", profile.CheckName(name))
		case taken[name] != "":
			reason = fmt.Sprintf("its name here, %q, is also that of project %q, imported above", name, taken[name])
		case profileHere[name]:
			reason = ReasonProfileExists
		case len(servers) == 0:
			reason = "none of its servers is imported"
		case len(profiles)+len(p.profiles) >= profile.MaxProfiles:
			reason = fmt.Sprintf("this router has %d profiles, the cap (profile.MaxProfiles, fixed): remove one and import again", profile.MaxProfiles)
		}
		if reason == "" {
			prof := store.Profile{Name: name, Mode: profile.ModeAll, Servers: servers,
				Description: fmt.Sprintf("Project %q of the Electron MCP Router", truncate(pr.Name, 200))}
			if err := profile.Check(prof, known); err != nil {
				reason = err.Error()
			} else {
				taken[name] = pr.Name
				p.Profiles = append(p.Profiles, PlannedProfile{Name: name, From: pr.Name, Servers: servers})
				p.profiles = append(p.profiles, prof)
				continue
			}
		}
		p.Skipped = append(p.Skipped, Skip{Kind: "project", Name: pr.Name, Reason: reason})
	}

	if src.Projectless {
		p.Notes = append(p.Notes, "this export is in the client-config shape (mcpServers): it has servers only, no projects or tool toggles")
	}
	if src.Tokens > 0 {
		p.TokensNote = fmt.Sprintf("%d access token(s) of the Electron app are not carried over: the app stores them hashed, so their values cannot be read, and a client needs a token of this router anyway; create new ones with `mcp-router tokens create NAME` (Connect page: New token) and give them to your clients", src.Tokens)
	}
	for _, w := range src.OtherWorkspaces {
		if w.Type == "remote" {
			p.Notes = append(p.Notes, fmt.Sprintf("workspace %q is a remote (team) workspace: not imported", w.Name))
			continue
		}
		p.Notes = append(p.Notes, fmt.Sprintf("workspace %q was not read; import it with --db %q", w.Name, w.Database))
	}
	return p, nil
}

// Empty reports whether the plan adds nothing.
func (p Plan) Empty() bool { return len(p.defs) == 0 && len(p.profiles) == 0 }

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// toDefinition maps one of the app's servers to a definition here, or
// says why it cannot be.
func toDefinition(s Server) (spec.Server, string) {
	name := safeName(s.Name, 48)
	if name == "" {
		// A name of no ASCII letter or digit ("ファイル"): named after its id.
		name = fallbackName("server", s.ID, 48)
	}
	if !spec.ValidName(name) {
		return spec.Server{}, fmt.Sprintf("its name cannot be made a server name here (1-48 letters, digits, '-' or '_'; got %q)", name)
	}
	def := spec.Server{Name: name, Enabled: !s.Disabled}
	switch s.Type {
	case typeLocal:
		if strings.TrimSpace(s.Command) == "" {
			return spec.Server{}, "a local server without a command"
		}
		def.Transport = spec.Stdio
		def.Command = s.Command
		def.Args = substituteArgs(s.Args, s.Env, s.InputDefaults)
		def.Env = maps.Clone(s.Env)
		for _, k := range s.Sensitive {
			if def.Env[k] != "" {
				def.SecretEnv = append(def.SecretEnv, k)
			}
		}
		if leaked := sensitiveInArgs(s); len(leaked) > 0 {
			return spec.Server{}, fmt.Sprintf("its arguments take the sensitive value of %s (a {NAME} placeholder): "+
				"stored in the arguments it would not be a secret here; add the server by hand with the value in a secret env entry",
				strings.Join(leaked, ", "))
		}
		sort.Strings(def.SecretEnv)
	case typeRemote, typeRemoteStreamable:
		if strings.TrimSpace(s.URL) == "" {
			return spec.Server{}, "a remote server without a URL"
		}
		def.Transport = spec.HTTP
		if s.Type == typeRemote {
			def.Transport = spec.SSE
		}
		def.URL = s.URL
		def.Headers = maps.Clone(s.Headers)
		if s.BearerToken != "" && !hasHeader(def.Headers, "Authorization") {
			if def.Headers == nil {
				def.Headers = map[string]string{}
			}
			def.Headers["Authorization"] = "Bearer " + s.BearerToken
			// A credential: into the keychain, not the database.
			def.SecretHeaders = []string{"Authorization"}
		}
	default:
		return spec.Server{}, fmt.Sprintf("unsupported server type %q (this router runs local (stdio) and remote (streamable HTTP, SSE) servers)", s.Type)
	}
	for tool, on := range s.ToolPermissions {
		if !on {
			def.DisabledTools = append(def.DisabledTools, tool)
		}
	}
	sort.Strings(def.DisabledTools)
	def.Normalize()
	if err := def.Validate(); err != nil {
		return spec.Server{}, err.Error()
	}
	return def, ""
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// sameTarget: a server here runs what def would (the same transport and
// command line, or URL): the mark of an earlier import of it.
func sameTarget(cur, def spec.Server) bool {
	return cur.Transport == def.Transport && cur.Command == def.Command && slices.Equal(cur.Args, def.Args) && cur.URL == def.URL
}

// sensitiveInArgs names the sensitive parameters whose values the args'
// placeholders would take.
func sensitiveInArgs(s Server) []string {
	var out []string
	for _, name := range s.Sensitive {
		if s.Env[name] == "" && s.InputDefaults[name] == "" {
			continue
		}
		for _, a := range s.Args {
			if strings.Contains(a, "{"+name+"}") {
				out = append(out, name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// substituteArgs fills the {NAME} and ${NAME} placeholders of args as the
// app did when it started the server (substituteArgsParameters in its
// mcp-client-util.ts): with the env value of NAME, else the input
// parameter's default; first the parameters', then the env's.
func substituteArgs(args []string, env, defaults map[string]string) []string {
	if len(args) == 0 {
		return nil
	}
	out := make([]string, len(args))
	params := slices.Sorted(maps.Keys(defaults))
	envs := slices.Sorted(maps.Keys(env))
	for i, a := range args {
		for _, name := range params {
			v, ok := env[name]
			if !ok || v == "" {
				v = defaults[name]
			}
			a = strings.ReplaceAll(a, "${"+name+"}", v)
			a = strings.ReplaceAll(a, "{"+name+"}", v)
		}
		for _, name := range envs {
			a = strings.ReplaceAll(a, "${"+name+"}", env[name])
			a = strings.ReplaceAll(a, "{"+name+"}", env[name])
		}
		out[i] = a
	}
	return out
}

var unsafeRun = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// safeName makes an app's name (any text: "GitHub MCP") one of this
// router's (letters, digits, '-', '_'; "GitHub-MCP"), at most max bytes.
func safeName(name string, max int) string {
	s := unsafeRun.ReplaceAllString(strings.TrimSpace(name), "-")
	s = strings.Trim(s, "-_")
	if len(s) > max {
		s = strings.TrimRight(s[:max], "-_")
	}
	return s
}

// fallbackName names a thing whose own name has no usable character after
// its id: "server-1a2b3c4d".
func fallbackName(kind, id string, max int) string {
	id = safeName(id, 8)
	if id == "" {
		return ""
	}
	return safeName(kind+"-"+id, max)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
