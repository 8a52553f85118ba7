package appapi

import (
	"fmt"
	"time"

	"github.com/mcp-router/mcp-router/backend/clients"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/profile"
)

// ClientAddPlan is what "Add to client" would change, for the confirm
// dialog: the client's config file and the diff.
type ClientAddPlan struct {
	Client    string `json:"client"`
	Path      string `json:"path"`
	Exists    bool   `json:"exists"`    // false: the file is created
	Replaces  bool   `json:"replaces"`  // the router's entry is there and is replaced
	Unchanged bool   `json:"unchanged"` // the file already holds exactly this
	Diff      string `json:"diff"`
}

// ClientAddResult is a written "Add to client".
type ClientAddResult struct {
	Path   string `json:"path"`
	Backup string `json:"backup,omitempty"` // "" when the file was new
}

// addOptions are the options of an Add for profile ("" the default
// endpoint). A file is not written with the placeholder token: with auth
// on, a client token must be given (the page creates one).
func (a *API) addOptions(profileName, client, mode, token string) (config.SnippetOptions, error) {
	if profileName != "" {
		if err := a.checkProfile(profileName); err != nil {
			return config.SnippetOptions{}, err
		}
	}
	o, err := a.snippetOptions(profileName, client, mode, token, nil)
	if err != nil {
		return o, err
	}
	if o.Token == TokenPlaceholder {
		return o, fmt.Errorf("auth is on: create or paste a client token first, so that %s's config gets a working one", client)
	}
	return o, nil
}

func (a *API) checkProfile(name string) error {
	if _, ok := a.core.Profiles.Lookup(name); !ok {
		if err := profile.CheckName(name); err != nil {
			return err
		}
		return fmt.Errorf("no profile %q", name)
	}
	return nil
}

func (a *API) planAdd(profileName, client, mode, token string) (*clients.Plan, error) {
	o, err := a.addOptions(profileName, client, mode, token)
	if err != nil {
		return nil, err
	}
	entry, err := config.Entry(client, mode, o)
	if err != nil {
		return nil, err
	}
	host, err := clients.HostEnv()
	if err != nil {
		return nil, err
	}
	path, err := host.Path(client, entry.Name)
	if err != nil {
		return nil, err
	}
	return clients.Prepare(client, path, entry)
}

// PlanAddToClient shows what AddToClient would write into client's own
// config file (its user-wide one, docs/clients.md), writing nothing.
func (a *API) PlanAddToClient(profileName, client, mode, token string) (ClientAddPlan, error) {
	p, err := a.planAdd(profileName, client, mode, token)
	if err != nil {
		return ClientAddPlan{}, err
	}
	return ClientAddPlan{Client: client, Path: p.Path, Exists: p.Exists, Replaces: p.Replaces, Unchanged: p.Unchanged(), Diff: p.Diff}, nil
}

// AddToClient writes the router's entry into client's config file, after a
// backup, if the change is still the diff the user confirmed (shownDiff,
// from PlanAddToClient); a file changed since is not written.
func (a *API) AddToClient(profileName, client, mode, token, shownDiff string) (ClientAddResult, error) {
	p, err := a.planAdd(profileName, client, mode, token)
	if err != nil {
		return ClientAddResult{}, err
	}
	if p.Diff != shownDiff {
		return ClientAddResult{}, fmt.Errorf("%s changed since the diff was shown; nothing was written — look at the new diff", p.Path)
	}
	backup, err := p.Write(time.Now())
	if err != nil {
		return ClientAddResult{}, err
	}
	return ClientAddResult{Path: p.Path, Backup: backup}, nil
}

// InstallLink is the link that has client (cursor, vscode, lmstudio) add
// the router, for profile ("" the default endpoint).
func (a *API) InstallLink(profileName, client, mode, token string) (string, error) {
	if profileName != "" {
		if err := a.checkProfile(profileName); err != nil {
			return "", err
		}
	}
	o, err := a.snippetOptions(profileName, client, mode, token, nil)
	if err != nil {
		return "", err
	}
	return config.InstallLink(client, mode, o)
}
