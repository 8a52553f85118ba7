// Package profile holds the router's profiles (issue 27): a profile is a
// named set of servers, with per-tool selections and a discovery mode,
// served at its own endpoint (/mcp/<name>, `stdio --profile`, `connect
// --profile`). A profile narrows what a caller reaches in the pipeline's
// identity step; it never widens a token's scope. The default profile —
// plain /mcp — is everything the token reaches, as before profiles.
package profile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Discovery modes: how a profile's tools reach a client.
const (
	// ModeAll lists every tool of the profile.
	ModeAll = "all"
	// ModeGated treats every server of the profile as gated (seed 000):
	// its tools are refused until the client activates it.
	ModeGated = "gated"
	// ModeSearch lists the router's search_tools, call_tool and add_tools
	// only; the profile's tools are found and called through them.
	ModeSearch = "search"
)

// Modes lists the discovery modes.
var Modes = []string{ModeAll, ModeGated, ModeSearch}

// Caps on what a profile holds (docs/limits.md, "Profiles"). They are
// fixed: a profile is written by an admin, and these are far above what a
// client can use (Cursor lists at most 80 tools, VS Code 128).
const (
	MaxProfiles       = 256
	MaxServers        = 1024
	MaxTools          = 10000 // tool selections of one profile, all servers together
	MaxDescriptionLen = 1024
)

// Reserved names no profile may take: plain /mcp is the default profile,
// and /mcp/server-card is the router's server card (backend/discovery).
var reserved = []string{"default", "server-card"}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// ErrNotFound is the error of an unknown profile.
var ErrNotFound = store.ErrNotFound

// CheckName reports whether name can name a profile; the error wraps
// store.ErrInvalid.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%w: bad profile name %q: use 1-64 letters, digits, '_' or '-', starting with a letter or digit",
			store.ErrInvalid, name)
	}
	if slices.Contains(reserved, strings.ToLower(name)) {
		return fmt.Errorf("%w: the profile name %q is reserved (plain /mcp is the default profile; /mcp/server-card is the server card)", store.ErrInvalid, name)
	}
	return nil
}

// Profile is one profile, ready for the checks of every request.
type Profile struct {
	store.Profile
	servers map[string]bool
	tools   map[string]map[string]bool // server → selected tools; absent: all
}

func compile(p store.Profile) *Profile {
	c := &Profile{Profile: p, servers: make(map[string]bool, len(p.Servers)), tools: map[string]map[string]bool{}}
	for _, s := range p.Servers {
		c.servers[s] = true
	}
	for s, names := range p.Tools {
		if len(names) == 0 {
			continue
		}
		set := make(map[string]bool, len(names))
		for _, n := range names {
			set[n] = true
		}
		c.tools[s] = set
	}
	return c
}

// HasServer reports whether server is one of the profile's.
func (p *Profile) HasServer(server string) bool { return p.servers[server] }

// HasTool reports whether the tool item (the upstream's own name) of
// server is in the profile: its server is, and the profile selects all of
// that server's tools or this one.
func (p *Profile) HasTool(server, item string) bool {
	if !p.servers[server] {
		return false
	}
	sel, some := p.tools[server]
	return !some || sel[item]
}

// Check reports what is wrong with p, or nil; servers are the names of
// the servers that exist. Errors wrap store.ErrInvalid.
func Check(p store.Profile, servers []string) error {
	if err := CheckName(p.Name); err != nil {
		return err
	}
	if !slices.Contains(Modes, p.Mode) {
		return fmt.Errorf("%w: profile %q: mode %q: want %s", store.ErrInvalid, p.Name, p.Mode, strings.Join(Modes, ", "))
	}
	if len(p.Description) > MaxDescriptionLen {
		return fmt.Errorf("%w: profile %q: the description has %d bytes, more than the cap of %d (MaxDescriptionLen, fixed)",
			store.ErrInvalid, p.Name, len(p.Description), MaxDescriptionLen)
	}
	if len(p.Servers) > MaxServers {
		return fmt.Errorf("%w: profile %q names %d servers, more than the cap of %d (fixed)", store.ErrInvalid, p.Name, len(p.Servers), MaxServers)
	}
	seen := map[string]bool{}
	for _, s := range p.Servers {
		if seen[s] {
			return fmt.Errorf("%w: profile %q names server %q twice", store.ErrInvalid, p.Name, s)
		}
		seen[s] = true
		if !slices.Contains(servers, s) {
			return fmt.Errorf("%w: profile %q: no server %q (mcp-router servers list)", store.ErrInvalid, p.Name, s)
		}
	}
	total := 0
	for s, names := range p.Tools {
		if !seen[s] {
			return fmt.Errorf("%w: profile %q selects tools of %q, which is not one of its servers", store.ErrInvalid, p.Name, s)
		}
		for _, n := range names {
			if n == "" || len(n) > 256 {
				return fmt.Errorf("%w: profile %q: server %q: a tool name must have 1-256 bytes", store.ErrInvalid, p.Name, s)
			}
		}
		total += len(names)
	}
	if total > MaxTools {
		return fmt.Errorf("%w: profile %q selects %d tools, more than the cap of %d (fixed); select whole servers instead",
			store.ErrInvalid, p.Name, total, MaxTools)
	}
	return nil
}

// Service reads and writes profiles and keeps them in memory for the
// checks of every request; Reload re-reads them (core calls it when the
// configuration revision moves, so a CLI change reaches a running router).
type Service struct {
	st *store.Store

	mu     sync.RWMutex
	byName map[string]*Profile
	sig    string // of the profiles last loaded, to tell a real change
}

// New returns the profile service of st; call Reload before use.
func New(st *store.Store) *Service { return &Service{st: st, byName: map[string]*Profile{}} }

// Reload re-reads every profile from the store.
func (s *Service) Reload(ctx context.Context) error {
	_, err := s.ReloadChanged(ctx)
	return err
}

// ReloadChanged is Reload, reporting whether any profile changed since the
// last ReloadChanged (its clients then re-list). Create, Update and Remove
// apply a change at once but leave it to be reported here, so the change
// reaches the clients whoever made it.
func (s *Service) ReloadChanged(ctx context.Context) (changed bool, err error) {
	return s.load(ctx, true)
}

func (s *Service) load(ctx context.Context, report bool) (changed bool, err error) {
	rows, err := s.st.Profiles().List(ctx)
	if err != nil {
		return false, err
	}
	m := make(map[string]*Profile, len(rows))
	for _, r := range rows {
		m[r.Name] = compile(r)
	}
	sig, err := json.Marshal(rows)
	if err != nil {
		return false, fmt.Errorf("profiles: %w", err)
	}
	s.mu.Lock()
	s.byName = m
	if report {
		changed = s.sig != string(sig)
		s.sig = string(sig)
	}
	s.mu.Unlock()
	return changed, nil
}

// Lookup returns the named profile as last loaded.
func (s *Service) Lookup(name string) (*Profile, bool) {
	s.mu.RLock()
	p, ok := s.byName[name]
	s.mu.RUnlock()
	return p, ok
}

// List returns the stored profiles.
func (s *Service) List(ctx context.Context) ([]store.Profile, error) {
	return s.st.Profiles().List(ctx)
}

// Get returns the stored profile name.
func (s *Service) Get(ctx context.Context, name string) (store.Profile, error) {
	return s.st.Profiles().Get(ctx, name)
}

func (s *Service) check(ctx context.Context, p store.Profile) error {
	rows, err := s.st.Servers().List(ctx)
	if err != nil {
		return fmt.Errorf("check profile %q: %w", p.Name, err)
	}
	names := make([]string, 0, len(rows))
	for _, r := range rows {
		names = append(names, r.Name)
	}
	return Check(p, names)
}

// Create checks and stores a new profile (mode "" is all).
func (s *Service) Create(ctx context.Context, p store.Profile) (store.Profile, error) {
	if p.Mode == "" {
		p.Mode = ModeAll
	}
	if err := s.check(ctx, p); err != nil {
		return store.Profile{}, err
	}
	rows, err := s.st.Profiles().List(ctx)
	if err != nil {
		return store.Profile{}, err
	}
	if len(rows) >= MaxProfiles {
		return store.Profile{}, fmt.Errorf("%w: there are %d profiles, the cap (%d, fixed); remove one first", store.ErrInvalid, len(rows), MaxProfiles)
	}
	out, err := s.st.Profiles().Create(ctx, p)
	if err != nil {
		return store.Profile{}, err
	}
	_, err = s.load(ctx, false)
	return out, err
}

// Update checks and replaces the stored profile of p.Name.
func (s *Service) Update(ctx context.Context, p store.Profile) (store.Profile, error) {
	if err := s.check(ctx, p); err != nil {
		return store.Profile{}, err
	}
	out, err := s.st.Profiles().Update(ctx, p)
	if err != nil {
		return store.Profile{}, err
	}
	_, err = s.load(ctx, false)
	return out, err
}

// Remove deletes the named profile. Tokens bound to it reach nothing
// until a profile of that name exists again.
func (s *Service) Remove(ctx context.Context, name string) error {
	if err := s.st.Profiles().Delete(ctx, name); err != nil {
		return err
	}
	_, err := s.load(ctx, false)
	return err
}

// IsNotFound reports whether err says a profile does not exist.
func IsNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

type selectedKey struct{}

// WithSelected makes ctx carry the name of the profile a request came
// through ("" — the default profile).
func WithSelected(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, selectedKey{}, name)
}

// Selected returns the profile name WithSelected put in ctx.
func Selected(ctx context.Context) (string, bool) {
	n, ok := ctx.Value(selectedKey{}).(string)
	return n, ok && n != ""
}
