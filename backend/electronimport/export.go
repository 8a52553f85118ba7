package electronimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// exportLimits bound an Export file: its size, and its nesting before it
// is decoded.
func exportLimits() filelimit.Limits {
	return filelimit.Limits{What: "saved export of the Electron MCP Router", MaxBytes: MaxExportBytes}.WithDefaults()
}

// ReadExport reads a file the Electron app's Export wrote.
func ReadExport(path string) (Source, error) {
	data, _, err := exportLimits().ReadFile(path)
	if err != nil {
		return Source{}, fmt.Errorf("%s: %w", path, err)
	}
	src, err := ParseExport(data)
	if err != nil {
		return Source{}, fmt.Errorf("%s: %w", path, err)
	}
	src.Path = path
	return src, nil
}

// ParseExport reads an Export in either shape the app writes or reads
// (docs/import.md): its servers as MCPServerConfig records — a JSON array,
// or {"servers": [...], "projects": [...]} — which carry the tool toggles
// and project of each, or the client-config shape {"mcpServers": {NAME:
// {command, args, env} | {url, type, headers}}} that its server import
// reads, which carries servers only.
func ParseExport(data []byte) (Source, error) {
	l := exportLimits()
	if err := l.CheckSize(len(data)); err != nil {
		return Source{}, err
	}
	if err := l.CheckJSON(data); err != nil {
		return Source{}, err
	}
	src := Source{Kind: "export"}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var recs []exportRecord
		if err := json.Unmarshal(trimmed, &recs); err != nil {
			return Source{}, jsonError(err)
		}
		return fromRecords(src, recs, nil)
	}
	var top struct {
		MCPServers map[string]clientEntry `json:"mcpServers"`
		Servers    []exportRecord         `json:"servers"`
		Projects   []exportProject        `json:"projects"`
		Tokens     []json.RawMessage      `json:"tokens"`
	}
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return Source{}, jsonError(err)
	}
	src.Tokens = len(top.Tokens)
	switch {
	case top.Servers != nil && top.MCPServers != nil:
		return Source{}, errors.New(`the file has both "servers" and "mcpServers": keep one`)
	case top.Servers != nil:
		return fromRecords(src, top.Servers, top.Projects)
	case top.MCPServers != nil:
		return fromClientEntries(src, top.MCPServers)
	}
	return Source{}, errors.New(`not an export of the Electron MCP Router: want a JSON array of servers, {"servers": [...]} or {"mcpServers": {...}}`)
}

func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("%s is a JSON %s, want %s", te.Field, te.Value, describeType(te.Type.String()))
	}
	return fmt.Errorf("not valid JSON: %w", err)
}

func describeType(t string) string {
	switch t {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "[]string":
		return "an array of strings"
	case "map[string]string":
		return "an object of strings"
	case "map[string]bool":
		return "an object of true/false"
	}
	return t
}

// exportRecord is the app's MCPServerConfig (packages/shared mcp-types.ts)
// as JSON.stringify writes it.
type exportRecord struct {
	ID              string            `json:"id"`
	Name            string            `json:"name"`
	ServerType      string            `json:"serverType"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Env             map[string]any    `json:"env"`
	RemoteURL       string            `json:"remoteUrl"`
	BearerToken     string            `json:"bearerToken"`
	Headers         map[string]string `json:"headers"`
	Disabled        bool              `json:"disabled"`
	ToolPermissions map[string]bool   `json:"toolPermissions"`
	ProjectID       *string           `json:"projectId"`
	InputParams     map[string]struct {
		Sensitive bool `json:"sensitive"`
		Default   any  `json:"default"`
	} `json:"inputParams"`
}

type exportProject struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// clientEntry is one entry of the client-config shape.
type clientEntry struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]any    `json:"env"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

func fromRecords(src Source, recs []exportRecord, projects []exportProject) (Source, error) {
	if len(recs) > MaxServers {
		return Source{}, capError("the export", int64(len(recs)), MaxServers, "MaxServers")
	}
	if len(projects) > MaxProjects {
		return Source{}, capError("the export", int64(len(projects)), MaxProjects, "MaxProjects")
	}
	var errs []error
	for i, rec := range recs {
		r := row{id: fmt.Sprint(i + 1), name: rec.Name}
		s := Server{ID: rec.ID, Name: rec.Name, Type: rec.ServerType, Command: rec.Command, Args: rec.Args,
			URL: rec.RemoteURL, BearerToken: rec.BearerToken, Headers: rec.Headers, Disabled: rec.Disabled,
			ToolPermissions: rec.ToolPermissions}
		if s.Type == "" {
			s.Type = typeLocal
		}
		if rec.ProjectID != nil {
			s.ProjectID = *rec.ProjectID
		}
		s.Env = r.stringMap("env", rec.Env)
		for name, p := range rec.InputParams {
			if p.Sensitive {
				s.Sensitive = append(s.Sensitive, name)
			}
			if d, ok := scalar(p.Default); ok && p.Default != nil {
				if s.InputDefaults == nil {
					s.InputDefaults = map[string]string{}
				}
				s.InputDefaults[name] = d
			}
		}
		if rec.Name == "" {
			r.fail("name", "is empty")
		}
		if len(r.errs) > 0 {
			errs = append(errs, errors.Join(r.errs...))
			continue
		}
		src.Servers = append(src.Servers, s)
	}
	for i, p := range projects {
		if p.ID == "" || p.Name == "" {
			errs = append(errs, fmt.Errorf("projects[%d]: a project needs an id and a name", i))
			continue
		}
		src.Projects = append(src.Projects, Project(p))
	}
	if len(errs) > 0 {
		return Source{}, errors.Join(errs...)
	}
	return src, nil
}

func fromClientEntries(src Source, entries map[string]clientEntry) (Source, error) {
	if len(entries) > MaxServers {
		return Source{}, capError("the export", int64(len(entries)), MaxServers, "MaxServers")
	}
	src.Projectless = true
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	sort.Strings(names)
	var errs []error
	for _, name := range names {
		e := entries[name]
		r := row{id: name, name: name}
		s := Server{Name: name, Command: e.Command, Args: e.Args, URL: e.URL, Headers: e.Headers, Disabled: e.Disabled}
		s.Env = r.stringMap("env", e.Env)
		switch {
		case e.URL != "" && (e.Type == "sse"):
			s.Type = typeRemote
		case e.URL != "":
			s.Type = typeRemoteStreamable
		default:
			s.Type = typeLocal
		}
		if len(r.errs) > 0 {
			errs = append(errs, errors.Join(r.errs...))
			continue
		}
		src.Servers = append(src.Servers, s)
	}
	if len(errs) > 0 {
		return Source{}, errors.Join(errs...)
	}
	return src, nil
}
