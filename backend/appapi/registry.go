package appapi

import (
	"github.com/mcp-router/mcp-router/backend/registry"
	"strings"
)

// The Catalog page (docs/registry.md): the MCP Registry of the registryURL
// setting, browsed and installed from. The logic is backend/registry's;
// these are its thin facade.

// RegistryTargetView is one package or remote of an entry, with what
// installing it asks for, or why it cannot be installed.
type RegistryTargetView struct {
	Target      registry.Target  `json:"target"`
	Label       string           `json:"label"` // "npm @scope/pkg 1.2.3", "streamable-http https://…"
	Installable bool             `json:"installable"`
	Reason      string           `json:"reason,omitempty"` // why not installable
	Fields      []registry.Field `json:"fields"`
}

// RegistryEntryView is one version of a registry server, for the detail
// pane and the install dialog.
type RegistryEntryView struct {
	Entry   registry.Entry       `json:"entry"`
	Targets []RegistryTargetView `json:"targets"`
	// DefaultName: the server name an install takes unless told another.
	DefaultName string `json:"defaultName"`
}

func (a *API) registryClient(base string) (*registry.Client, error) {
	if base == "" {
		base = a.core.Settings.RegistryURL(bg())
	}
	return registry.New(registry.Options{BaseURL: base, MaxBytes: a.core.Settings.RegistryMaxBytes(bg())})
}

// RegistrySearch is one page of the registry's servers whose name contains
// query (latest versions); cursor "" is the first page, limit 0 the
// default.
func (a *API) RegistrySearch(query, cursor string, limit int) (registry.Page, error) {
	c, err := a.registryClient("")
	if err != nil {
		return registry.Page{}, err
	}
	p, err := c.Search(bg(), query, cursor, limit)
	if p.Servers == nil {
		p.Servers = []registry.Entry{}
	}
	return p, err
}

// RegistryShow is one version of a server ("" is the latest), with each
// package and remote and what installing it asks.
func (a *API) RegistryShow(name, version string) (RegistryEntryView, error) {
	c, err := a.registryClient("")
	if err != nil {
		return RegistryEntryView{}, err
	}
	e, err := c.Get(bg(), name, version)
	if err != nil {
		return RegistryEntryView{}, err
	}
	v := RegistryEntryView{Entry: e, Targets: []RegistryTargetView{}, DefaultName: registry.DefaultName(e.Server.Name)}
	add := func(t registry.Target, label string) {
		tv := RegistryTargetView{Target: t, Label: registry.Printable(label), Installable: true, Fields: []registry.Field{}}
		if t.Kind == "package" {
			if err := registry.Installable(e.Server.Packages[t.Index-1]); err != nil {
				tv.Installable, tv.Reason = false, strings.TrimPrefix(err.Error(), registry.ErrUnsupported.Error()+": ")
				v.Targets = append(v.Targets, tv)
				return
			}
		}
		if _, fields, err := registry.Fields(e.Server, t); err != nil {
			tv.Installable, tv.Reason = false, err.Error()
		} else if fields != nil {
			tv.Fields = fields
		}
		v.Targets = append(v.Targets, tv)
	}
	for i, p := range e.Server.Packages {
		label := p.RegistryType + " " + p.Identifier
		if p.Version != "" {
			label += " " + p.Version
		}
		add(registry.Target{Kind: "package", Index: i + 1}, label)
	}
	for i, r := range e.Server.Remotes {
		add(registry.Target{Kind: "remote", Index: i + 1}, r.Type+" "+r.URL)
	}
	return v, nil
}

// RegistryInstall installs target of name@version as the server
// serverName ("" derives one) from answers, as AddServer adds a server:
// secret values to the keychain, refused if it points at this router. A
// required value missing is an error naming each.
func (a *API) RegistryInstall(name, version string, target registry.Target, serverName string, answers registry.Answers) (ServerView, error) {
	c, err := a.registryClient("")
	if err != nil {
		return ServerView{}, err
	}
	e, err := c.Get(bg(), name, version)
	if err != nil {
		return ServerView{}, err
	}
	plan, err := registry.Build(c.BaseURL(), e.Server, target, serverName, answers)
	if err != nil {
		return ServerView{}, err
	}
	return a.AddServer(plan.Server)
}

// OutdatedServers asks each server's registry (the one it was installed
// from) for its latest version; every server installed from a registry is
// listed, Outdated set where the registry has a newer one.
func (a *API) OutdatedServers() ([]registry.Check, error) {
	rows, err := a.core.Store.Servers().List(bg())
	if err != nil {
		return nil, err
	}
	out := []registry.Check{}
	clients := map[string]*registry.Client{}
	for _, r := range rows {
		if r.Source.IsZero() {
			continue
		}
		c, ok := clients[r.Source.Registry]
		if !ok {
			if c, err = a.registryClient(r.Source.Registry); err != nil {
				out = append(out, registry.Check{Server: r.Name, Source: r.Source, Error: err.Error()})
				continue
			}
			clients[r.Source.Registry] = c
		}
		out = append(out, registry.CheckLatest(bg(), c, r.Name, r.Source))
	}
	return out, nil
}
