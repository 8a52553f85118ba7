// Package auth issues and checks the access tokens that clients present to
// the router's HTTP endpoint as `Authorization: Bearer mcpr_…`.
//
// Only a SHA-256 hash of each secret is stored (store.HashToken). Verify is
// on the path of every request, so verified tokens are cached in memory by
// hash; the cache is dropped whenever the database changes (store.Revision,
// checked at most every RefreshInterval), which makes a revoke done by the
// CLI in another process take effect in a running router within about half
// a second. Last-used times are written in the background, at most once per
// TouchInterval per token, so a request never waits on a write.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// SecretPrefix starts every token secret, so a leaked one is recognisable
// (and findable by secret scanners).
const SecretPrefix = "mcpr_"

const (
	secretBytes = 32
	// SecretLen is the length of a secret: the prefix and 32 random bytes
	// in unpadded base64url.
	SecretLen = len(SecretPrefix) + (secretBytes*8+5)/6
	// DisplayPrefixLen is how much of a secret is kept to tell tokens apart.
	DisplayPrefixLen = 12
)

// RefreshInterval bounds how often Verify asks the store whether anything
// changed; TouchInterval how often one token's last-used time is written.
const (
	RefreshInterval = 500 * time.Millisecond
	TouchInterval   = time.Minute
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName reports whether name can name a token.
// The error wraps store.ErrInvalid.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return nameError(name)
	}
	return nil
}

type nameError string

func (e nameError) Error() string {
	return fmt.Sprintf("bad token name %q: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", string(e))
}
func (e nameError) Unwrap() error { return store.ErrInvalid }

// Identity is who a request acts for.
type Identity struct {
	TokenName string   // "" for Anonymous
	Servers   []string // servers the token may use; empty means all
	// Role of the token: store.RoleClient or store.RoleAdmin; "" for
	// Anonymous, whose reach the surface decides (the MCP endpoint lets it
	// in when auth is off; see appapi for the UI).
	Role store.Role
	// Roles are the token's own roles (roles.go): matched by built-in
	// servers (state_gate), never by what decides the token's reach.
	Roles []string
	// Of a JWT access token (oauth.go): its sub, its iss and its scopes.
	// TokenName is then SubjectPrefix + Subject.
	Subject string
	Issuer  string
	Scopes  []string
	// Profile is the profile the token is bound to ("" none): it reaches
	// that profile's endpoint only (backend/core/profiles.go).
	Profile string
	// Scoped: Servers (and Tools) are the whole scope even when empty (a
	// JWT with no mcp scope reaches no server), not "all servers".
	Scoped bool
	// Tools are the single tools a JWT's mcp:tool:<server>/<tool> scopes
	// reach on servers it does not reach whole: server → the upstream's
	// own tool names. Only a Scoped identity has them.
	Tools map[string][]string
}

// Anonymous is the identity of every request when auth is off: no token,
// all servers, no role.
var Anonymous = Identity{}

// IsAnonymous reports whether the identity carries no token.
func (i Identity) IsAnonymous() bool { return i.TokenName == "" }

// IsAdmin reports whether the identity is an admin token.
func (i Identity) IsAdmin() bool { return i.TokenName != "" && i.Role == store.RoleAdmin }

// Label names the identity for logs: the token name, or "anonymous".
func (i Identity) Label() string {
	if i.TokenName == "" {
		return "anonymous"
	}
	return i.TokenName
}

// Allows reports whether the identity may use server.
func (i Identity) Allows(server string) bool {
	if len(i.Servers) == 0 && !i.Scoped {
		return true
	}
	for _, s := range i.Servers {
		if s == server {
			return true
		}
	}
	return false
}

// AllowsTool reports whether the identity may call tool (the upstream's
// own name) of server: the whole server, or that one tool.
func (i Identity) AllowsTool(server, tool string) bool {
	return i.Allows(server) || slices.Contains(i.Tools[server], tool)
}

// ReachesNothing reports whether a scoped identity reaches no server and
// no tool at all.
func (i Identity) ReachesNothing() bool {
	return i.Scoped && len(i.Servers) == 0 && len(i.Tools) == 0
}

// Errors. Every Verify failure wraps ErrUnauthorized and one of the three
// kinds below; its message is meant for the client's user.
var (
	ErrUnauthorized = errors.New("unauthorized")
	ErrMissingToken = &authError{msg: "missing bearer token"}
	ErrInvalidToken = &authError{msg: "unknown token"}
	ErrRevokedToken = &authError{msg: "token was revoked"}
	// ErrAlreadyRevoked is returned by Revoke for a revoked token.
	ErrAlreadyRevoked = errors.New("already revoked")
)

type authError struct {
	msg  string
	kind error // nil for the sentinels themselves
}

func (e *authError) Error() string { return e.msg }
func (e *authError) Unwrap() error {
	if e.kind != nil {
		return e.kind
	}
	return ErrUnauthorized
}

func revoked(name string) error {
	return &authError{msg: fmt.Sprintf("token %q was revoked", name), kind: ErrRevokedToken}
}

// Service creates, lists, revokes and verifies tokens. Build one per
// process with New; it is safe for concurrent use. Close it before closing
// the store so that pending last-used writes finish.
type Service struct {
	st  *store.Store
	log logrus.FieldLogger
	now func() time.Time

	mu        sync.Mutex
	rev       int64
	revOK     bool
	checkedAt time.Time
	gen       uint64                 // bumped on every invalidation
	known     map[string]store.Token // by hash: tokens found, revoked ones included
	unknown   map[string]struct{}    // by hash: secrets with no token

	oauthMu  sync.Mutex
	oauthCfg func(ctx context.Context) OAuthConfig
	keysMu   sync.Mutex
	issuers  map[string]*issuerKeys // by issuer: its JWKS
	bg       context.Context        // ends the JWKS refreshers on Close
	stopBg   context.CancelFunc

	touchMu sync.Mutex
	touched map[string]time.Time // by token name: last write of last-used
	closed  bool
	wg      sync.WaitGroup
}

// maxUnknown bounds the negative cache; it is cleared when full.
const maxUnknown = 4096

// New returns the token service of st.
func New(st *store.Store) *Service {
	bg, stop := context.WithCancel(context.Background())
	return &Service{st: st, log: logrus.StandardLogger().WithField("component", "auth"), now: time.Now,
		known: map[string]store.Token{}, unknown: map[string]struct{}{}, touched: map[string]time.Time{},
		issuers: map[string]*issuerKeys{}, bg: bg, stopBg: stop}
}

// SetLogger replaces the logger.
func (s *Service) SetLogger(l logrus.FieldLogger) { s.log = l }

// Close waits for pending last-used writes and stops new ones.
func (s *Service) Close() {
	s.touchMu.Lock()
	s.closed = true
	s.touchMu.Unlock()
	s.stopBg()
	s.wg.Wait()
}

// NewSecret returns a fresh secret: "mcpr_" and 32 random bytes in
// unpadded base64url, safe in URLs and headers.
func NewSecret() (string, error) {
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// Create makes a client token and returns its secret, which is not stored
// and cannot be recovered. A client token reaches the MCP endpoint only.
// servers are stored as given (empty: all servers); the caller checks that
// they exist. A taken name gives an error wrapping store.ErrDuplicate.
func (s *Service) Create(ctx context.Context, name string, servers []string) (string, store.Token, error) {
	return s.CreateToken(ctx, NewToken{Name: name, Servers: servers})
}

// CreateAdmin makes an admin token, which also opens the browser UI and
// its API: it can start processes and change the configuration. It is
// never limited to some servers.
func (s *Service) CreateAdmin(ctx context.Context, name string) (string, store.Token, error) {
	return s.CreateToken(ctx, NewToken{Name: name, Admin: true})
}

// NewToken is what CreateToken makes.
type NewToken struct {
	Name    string
	Servers []string // a client token's servers (empty: all); the caller checks that they exist
	Roles   []string // its own roles (CheckRoles)
	Admin   bool     // an admin token: never limited to some servers
	// Profile binds a client token to one profile (the caller checks it
	// exists): the token reaches that profile's endpoint only.
	Profile string
}

// CreateToken makes a token and returns its secret, which is not stored and
// cannot be recovered (Create and CreateAdmin are the usual ways in).
func (s *Service) CreateToken(ctx context.Context, nt NewToken) (string, store.Token, error) {
	if err := ValidName(nt.Name); err != nil {
		return "", store.Token{}, err
	}
	roles, err := CheckRoles(nt.Roles)
	if err != nil {
		return "", store.Token{}, err
	}
	role := store.RoleClient
	if nt.Admin {
		role = store.RoleAdmin
	}
	secret, err := NewSecret()
	if err != nil {
		return "", store.Token{}, err
	}
	if nt.Admin && nt.Profile != "" {
		return "", store.Token{}, fmt.Errorf("%w: token %q: an admin token manages every profile, so it cannot be bound to one", store.ErrInvalid, nt.Name)
	}
	servers := nt.Servers
	if len(servers) == 0 {
		servers = nil
	}
	tok, err := s.st.Tokens().Create(ctx, store.Token{Name: nt.Name, Hash: store.HashToken(secret),
		Prefix: secret[:DisplayPrefixLen], Servers: servers, Role: role, Roles: roles, Profile: nt.Profile})
	if err != nil {
		return "", store.Token{}, err
	}
	return secret, tok, nil
}

// HasAdmin reports whether an unrevoked admin token exists.
func (s *Service) HasAdmin(ctx context.Context) (bool, error) {
	toks, err := s.st.Tokens().List(ctx)
	if err != nil {
		return false, err
	}
	for _, t := range toks {
		if t.Role == store.RoleAdmin && t.RevokedAt == nil {
			return true, nil
		}
	}
	return false, nil
}

// List returns every token, revoked ones included, ordered by name.
func (s *Service) List(ctx context.Context) ([]store.Token, error) {
	return s.st.Tokens().List(ctx)
}

// Get returns the named token (error wrapping store.ErrNotFound if none).
func (s *Service) Get(ctx context.Context, name string) (store.Token, error) {
	return s.st.Tokens().Get(ctx, name)
}

// Revoke revokes the named token. An unknown name wraps store.ErrNotFound;
// a token already revoked wraps ErrAlreadyRevoked.
func (s *Service) Revoke(ctx context.Context, name string) error {
	t, err := s.st.Tokens().Get(ctx, name)
	if err != nil {
		return err
	}
	if t.RevokedAt != nil {
		return fmt.Errorf("token %q: %w on %s", name, ErrAlreadyRevoked, t.RevokedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := s.st.Tokens().Revoke(ctx, name, s.now()); err != nil {
		return err
	}
	s.invalidate()
	return nil
}

// Delete removes the named token for good, revoked or not: it stops
// working at once and its name can be used again. An unknown name wraps
// store.ErrNotFound.
func (s *Service) Delete(ctx context.Context, name string) error {
	if err := s.st.Tokens().Delete(ctx, name); err != nil {
		return err
	}
	s.invalidate()
	return nil
}

// SetServers changes the servers a client token may use (empty: all); the
// caller checks that they exist. An unknown name wraps store.ErrNotFound;
// a revoked token wraps ErrAlreadyRevoked; an admin token, which is never
// limited to some servers, wraps store.ErrInvalid.
func (s *Service) SetServers(ctx context.Context, name string, servers []string) (store.Token, error) {
	t, err := s.st.Tokens().Get(ctx, name)
	if err != nil {
		return store.Token{}, err
	}
	if t.RevokedAt != nil {
		return store.Token{}, fmt.Errorf("token %q: %w on %s", name, ErrAlreadyRevoked, t.RevokedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if len(servers) == 0 {
		servers = nil
	}
	if t.Role == store.RoleAdmin && servers != nil {
		return store.Token{}, fmt.Errorf("%w: token %q is an admin token, which reaches every server: make a client token for fewer", store.ErrInvalid, name)
	}
	if err := s.st.Tokens().SetServers(ctx, name, servers); err != nil {
		return store.Token{}, err
	}
	s.invalidate()
	t.Servers = servers
	return t, nil
}

// SetRoles replaces a token's own roles (none: clear them). An unknown
// name wraps store.ErrNotFound; a revoked token wraps ErrAlreadyRevoked; a
// role CheckRoles refuses wraps store.ErrInvalid.
func (s *Service) SetRoles(ctx context.Context, name string, roles []string) (store.Token, error) {
	roles, err := CheckRoles(roles)
	if err != nil {
		return store.Token{}, fmt.Errorf("token %q: %w", name, err)
	}
	t, err := s.st.Tokens().Get(ctx, name)
	if err != nil {
		return store.Token{}, err
	}
	if t.RevokedAt != nil {
		return store.Token{}, fmt.Errorf("token %q: %w on %s", name, ErrAlreadyRevoked, t.RevokedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := s.st.Tokens().SetRoles(ctx, name, roles); err != nil {
		return store.Token{}, err
	}
	s.invalidate()
	t.Roles = roles
	return t, nil
}

// SetProfile binds the named client token to profile ("" — none; the
// caller checks the profile exists). An admin token manages every
// profile, so it is never bound; a revoked token is refused.
func (s *Service) SetProfile(ctx context.Context, name, profile string) (store.Token, error) {
	t, err := s.st.Tokens().Get(ctx, name)
	if err != nil {
		return store.Token{}, err
	}
	if t.RevokedAt != nil {
		return store.Token{}, fmt.Errorf("token %q: %w on %s", name, ErrAlreadyRevoked, t.RevokedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if t.Role == store.RoleAdmin && profile != "" {
		return store.Token{}, fmt.Errorf("%w: token %q is an admin token: it manages every profile, so it cannot be bound to one", store.ErrInvalid, name)
	}
	if err := s.st.Tokens().SetProfile(ctx, name, profile); err != nil {
		return store.Token{}, err
	}
	s.invalidate()
	t.Profile = profile
	return t, nil
}

func (s *Service) invalidate() {
	s.mu.Lock()
	s.clearLocked()
	s.revOK = false
	s.mu.Unlock()
}

func (s *Service) clearLocked() {
	s.gen++
	clear(s.known)
	clear(s.unknown)
}

// wellFormed reports whether secret could be one of ours, so that garbage
// never reaches the database.
func wellFormed(secret string) bool {
	if len(secret) != SecretLen || secret[:len(SecretPrefix)] != SecretPrefix {
		return false
	}
	for i := len(SecretPrefix); i < len(secret); i++ {
		c := secret[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// Verify returns the identity of secret: an mcpr_ token, or a JWT access
// token of a configured issuer (oauth.go). Failures wrap ErrUnauthorized and
// ErrMissingToken, ErrInvalidToken or ErrRevokedToken; any other error is
// the store failing.
func (s *Service) Verify(ctx context.Context, secret string) (Identity, error) {
	if secret == "" {
		return Identity{}, ErrMissingToken
	}
	if !strings.HasPrefix(secret, SecretPrefix) && looksLikeJWT(secret) {
		return s.verifyJWT(ctx, secret)
	}
	if !wellFormed(secret) {
		return Identity{}, ErrInvalidToken
	}
	hash := store.HashToken(secret)
	tok, found, gen, err := s.cached(ctx, hash)
	if err != nil {
		return Identity{}, err
	}
	if !found {
		tok, err = s.st.Tokens().Lookup(ctx, hash)
		notFound := errors.Is(err, store.ErrNotFound)
		if err != nil && !notFound {
			return Identity{}, err
		}
		s.remember(gen, hash, tok, notFound)
		if notFound {
			return Identity{}, ErrInvalidToken
		}
	}
	if tok.Name == "" { // negative cache hit
		return Identity{}, ErrInvalidToken
	}
	if subtle.ConstantTimeCompare([]byte(hash), []byte(tok.Hash)) != 1 {
		return Identity{}, ErrInvalidToken
	}
	if tok.RevokedAt != nil {
		return Identity{}, revoked(tok.Name)
	}
	s.touch(tok.Name)
	role := store.RoleClient // anything but admin is a client
	if tok.Role == store.RoleAdmin {
		role = store.RoleAdmin
	}
	return Identity{TokenName: tok.Name, Servers: append([]string(nil), tok.Servers...), Role: role, Roles: usableRoles(tok.Roles),
		Profile: tok.Profile}, nil
}

// cached looks hash up in memory after dropping the cache if the database
// changed. found with a zero Token means "known not to exist".
func (s *Service) cached(ctx context.Context, hash string) (store.Token, bool, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if !s.revOK || now.Sub(s.checkedAt) >= RefreshInterval {
		rev, err := s.st.Revision(ctx)
		if err != nil {
			return store.Token{}, false, 0, err
		}
		if !s.revOK || rev != s.rev {
			s.clearLocked()
		}
		s.rev, s.revOK, s.checkedAt = rev, true, now
	}
	if t, ok := s.known[hash]; ok {
		return t, true, s.gen, nil
	}
	if _, ok := s.unknown[hash]; ok {
		return store.Token{}, true, s.gen, nil
	}
	return store.Token{}, false, s.gen, nil
}

// remember caches a lookup unless the cache was invalidated since it began.
func (s *Service) remember(gen uint64, hash string, tok store.Token, notFound bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	if notFound {
		if len(s.unknown) >= maxUnknown {
			clear(s.unknown)
		}
		s.unknown[hash] = struct{}{}
		return
	}
	s.known[hash] = tok
}

// touch records the use of a token in the background, at most once per
// TouchInterval per token.
func (s *Service) touch(name string) {
	now := s.now()
	s.touchMu.Lock()
	defer s.touchMu.Unlock()
	if s.closed {
		return
	}
	if last, ok := s.touched[name]; ok && now.Sub(last) < TouchInterval {
		return
	}
	s.touched[name] = now
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.st.Tokens().Touch(ctx, name, now); err != nil {
			s.log.WithError(err).Debugf("recording last use of token %q", name)
		}
	}()
}
