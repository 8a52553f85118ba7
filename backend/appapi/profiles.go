package appapi

import (
	"errors"
	"fmt"

	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/store"
)

// ProfileView is one profile as the Profiles page shows and edits it
// (docs/profiles.md).
type ProfileView struct {
	Name        string              `json:"name"`
	Description string              `json:"description"`
	Mode        string              `json:"mode"` // all, gated or search
	Servers     []string            `json:"servers"`
	Tools       map[string][]string `json:"tools"` // server → selected tools (the upstream's own names); absent: all
	Path        string              `json:"path"`  // its endpoint's path: /mcp/<name>
}

func profileView(p store.Profile) ProfileView {
	v := ProfileView{Name: p.Name, Description: p.Description, Mode: p.Mode, Servers: p.Servers, Tools: p.Tools,
		Path: "/mcp/" + p.Name}
	if v.Servers == nil {
		v.Servers = []string{}
	}
	if v.Tools == nil {
		v.Tools = map[string][]string{}
	}
	return v
}

func (v ProfileView) toStore() store.Profile {
	tools := map[string][]string{}
	for s, names := range v.Tools {
		if len(names) > 0 {
			tools[s] = names
		}
	}
	if len(tools) == 0 {
		tools = nil
	}
	return store.Profile{Name: v.Name, Description: v.Description, Mode: v.Mode, Servers: v.Servers, Tools: tools}
}

// ListProfiles returns every profile, by name.
func (a *API) ListProfiles() ([]ProfileView, error) {
	rows, err := a.core.Profiles.List(bg())
	if err != nil {
		return nil, err
	}
	out := make([]ProfileView, 0, len(rows))
	for _, r := range rows {
		out = append(out, profileView(r))
	}
	return out, nil
}

// CreateProfile adds a profile (mode "" is all); the endpoint serves it at
// once.
func (a *API) CreateProfile(p ProfileView) (ProfileView, error) {
	out, err := a.core.Profiles.Create(bg(), p.toStore())
	if errors.Is(err, store.ErrDuplicate) {
		return ProfileView{}, fmt.Errorf("a profile named %q already exists", p.Name)
	}
	if err != nil {
		return ProfileView{}, err
	}
	return profileView(out), nil
}

// UpdateProfile replaces the profile named p.Name.
func (a *API) UpdateProfile(p ProfileView) (ProfileView, error) {
	out, err := a.core.Profiles.Update(bg(), p.toStore())
	if err != nil {
		return ProfileView{}, err
	}
	return profileView(out), nil
}

// RemoveProfile deletes a profile; tokens bound to it reach nothing until
// a profile of that name exists again.
func (a *API) RemoveProfile(name string) error {
	return a.core.Profiles.Remove(bg(), name)
}

// ProfileSnippet is Snippet for a profile's endpoint (/mcp/<name>).
// upstreamAuth as for Snippet.
func (a *API) ProfileSnippet(name, client, mode, token string, upstreamAuth []string) (string, error) {
	if _, ok := a.core.Profiles.Lookup(name); !ok {
		if err := profile.CheckName(name); err != nil {
			return "", err
		}
		return "", fmt.Errorf("no profile %q", name)
	}
	return a.snippetAt(name, client, mode, token, upstreamAuth)
}

// UpdateTokenProfile binds a client token to a profile ("" — none): it
// then reaches /mcp/<profile> only, and plain /mcp is that profile.
func (a *API) UpdateTokenProfile(name, profileName string) (TokenView, error) {
	if profileName != "" {
		if _, ok := a.core.Profiles.Lookup(profileName); !ok {
			return TokenView{}, fmt.Errorf("no profile %q", profileName)
		}
	}
	t, err := a.core.Auth.SetProfile(bg(), name, profileName)
	if err != nil {
		return TokenView{}, err
	}
	return tokenView(t), nil
}
