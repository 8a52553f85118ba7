// Package oauthclient makes the router an OAuth 2.1 client of the HTTP
// upstreams that ask for a login (an HTTP 401, as the MCP authorization
// spec describes): the authorization code flow with PKCE through the
// user's browser and a loopback redirect, client registration by Client ID
// Metadata Document, dynamic registration (RFC 7591) or a client id the
// user gives, and tokens kept per server in the OS keychain, else a 0600
// file (backend/secrets), refreshed before they expire.
//
// The protocol steps (protected-resource and authorization-server
// discovery with their checks, dynamic registration, the authorization
// URL, the code exchange, the refresh) are mcp-go's OAuthHandler
// (client/transport/oauth.go), the library the router already speaks MCP
// with; this package holds what is the router's: where tokens live, when
// they are refreshed, the loopback listener, and telling the upstream
// service (upstream.Authorizer) what to send.
package oauthclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/secrets"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// FileName is the fallback file of the logins in the data dir.
const FileName = "upstream-logins.json"

// Ways a client is registered with an authorization server.
const (
	RegisteredByMetadataDocument = "client-id-metadata-document"
	RegisteredDynamically        = "dynamic"
	RegisteredByUser             = "client-id"
)

// Sentinel errors.
var (
	// ErrNotLoginable: a stdio or built-in server, which has no HTTP login.
	ErrNotLoginable = errors.New("only HTTP and SSE servers log in")
	// ErrNoOAuth: the server answered without credentials, or refused
	// them without publishing where to log in.
	ErrNoOAuth = errors.New("the server does not ask for an OAuth login")
	// ErrNeedsClientID: the authorization server offers no way to
	// register the router; the user must give a client id.
	ErrNeedsClientID = errors.New("the authorization server offers no client registration")
	// ErrState: a redirect to the loopback listener whose state is not
	// the login's (refused).
	ErrState = errors.New("the state of the redirect does not match the login's")
	// ErrNoLogin: nothing stored for the server.
	ErrNoLogin = errors.New("no login stored")
)

// Options configure a Manager; zero values are the defaults.
type Options struct {
	// DataDir holds the fallback file (FileName).
	DataDir string
	Logger  logrus.FieldLogger
	// HTTPClient reaches the upstreams and authorization servers; default:
	// 30 s timeout.
	HTTPClient *http.Client
	// ClientName is the client_name registered; default "MCP Router".
	ClientName string
	// ClientMetadataURL is the https URL of the router's Client ID
	// Metadata Document, used as its client id where the authorization
	// server supports it; "" (or nil) when the router has none.
	ClientMetadataURL func() string
	// Changed runs after a login is saved or removed (the store's
	// generation; the server's reconnection).
	Changed func(server string)
	// Now is the clock; default time.Now.
	Now func() time.Time
}

// record is what is stored for one server's login (as JSON, in the
// keychain or the 0600 file): never in the database, a log or a UI answer.
type record struct {
	URL          string           `json:"url"` // the server URL it was made for: a changed URL needs a new login
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthMethod   string           `json:"authMethod,omitempty"`
	Registration string           `json:"registration"`
	PRM          string           `json:"protectedResourceMetadata,omitempty"`
	Issuer       string           `json:"issuer"`
	Scopes       []string         `json:"scopes,omitempty"`
	RedirectURI  string           `json:"redirectUri"`
	Token        *transport.Token `json:"token"`
	LoggedInAt   time.Time        `json:"loggedInAt"`
}

// entry is a server's login in memory.
type entry struct {
	mu      sync.Mutex              // one refresh at a time (a refresh token may be good once)
	rec     *record                 // nil: no login
	ended   string                  // why the login ended (the refresh was refused); "" while it holds
	handler *transport.OAuthHandler // for refreshes, made on the first one
	store   *tokenStore             // where handler puts a refreshed token
}

// Manager holds the logins; it is the upstream service's Authorizer.
type Manager struct {
	o       Options
	log     logrus.FieldLogger
	secrets *secrets.Store

	mu      sync.Mutex
	entries map[string]*entry
	flows   map[string]*Flow // logins waiting for the browser, by server
}

var _ upstream.Authorizer = (*Manager)(nil)

// New returns the manager of the logins stored under o.DataDir.
func New(o Options) *Manager {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.ClientName == "" {
		o.ClientName = "MCP Router"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Manager{o: o, log: o.Logger, secrets: secrets.New(o.DataDir, FileName, "upstream-login:", "login"),
		entries: map[string]*entry{}, flows: map[string]*Flow{}}
}

// Backend says where logins are kept (secrets.InKeychain or InFile).
func (m *Manager) Backend() string { return m.secrets.Backend() }

// File is the fallback file's path.
func (m *Manager) File() string { return m.secrets.File() }

// entry returns server's login, read from the store the first time.
func (m *Manager) entry(server string) *entry {
	m.mu.Lock()
	if e, ok := m.entries[server]; ok {
		m.mu.Unlock()
		return e
	}
	// Locked before anyone else can see it: they wait for the load.
	e := &entry{}
	e.mu.Lock()
	m.entries[server] = e
	m.mu.Unlock()
	defer e.mu.Unlock()
	rec, err := m.load(server)
	if err != nil && !errors.Is(err, ErrNoLogin) {
		m.log.WithField("server", server).Warnf("read the login: %v", err)
	}
	e.rec = rec
	return e
}

func (m *Manager) load(server string) (*record, error) {
	v, err := m.secrets.Get(server)
	if errors.Is(err, secrets.ErrNotFound) {
		return nil, fmt.Errorf("%w for %q", ErrNoLogin, server)
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal([]byte(v), &rec); err != nil || rec.Token == nil {
		return nil, fmt.Errorf("the stored login of %q is damaged: log in again", server)
	}
	return &rec, nil
}

func (m *Manager) save(server string, rec *record) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return m.secrets.Set(server, string(b))
}

// Forget drops what is held in memory for server, so the next request
// reads the store again (a login made by another process).
func (m *Manager) Forget(server string) {
	m.mu.Lock()
	delete(m.entries, server)
	m.mu.Unlock()
}

// HasLogin reports whether a login is stored for server and has not ended.
func (m *Manager) HasLogin(server string) bool {
	e := m.entry(server)
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.rec != nil && e.ended == ""
}

// refreshMargin is how long before its expiry a token is refreshed: a
// minute, or a fifth of a shorter lifetime.
func refreshMargin(t *transport.Token) time.Duration {
	d := time.Minute
	if t.ExpiresIn > 0 && time.Duration(t.ExpiresIn)*time.Second/5 < d {
		d = time.Duration(t.ExpiresIn) * time.Second / 5
	}
	return d
}

// Authorization is the upstream.Authorizer: the bearer value of server's
// login, refreshed first when it is near its expiry.
func (m *Manager) Authorization(ctx context.Context, server, url string) (string, error) {
	e := m.entry(server)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rec == nil || e.rec.URL != url {
		// A login is for the URL it was made at: a server moved elsewhere
		// logs in again rather than hand its token to the new address.
		return "", nil
	}
	if e.ended != "" {
		return "", fmt.Errorf("%w: %s", upstream.ErrNeedsLogin, e.ended)
	}
	t := e.rec.Token
	if !t.ExpiresAt.IsZero() && m.o.Now().After(t.ExpiresAt.Add(-refreshMargin(t))) {
		if err := m.refresh(ctx, server, e); err != nil {
			return "", err
		}
		t = e.rec.Token
	}
	return bearer(t), nil
}

func bearer(t *transport.Token) string {
	typ := t.TokenType
	if typ == "" || strings.EqualFold(typ, "bearer") {
		typ = "Bearer"
	}
	return typ + " " + t.AccessToken
}

// Rejected is the upstream.Authorizer: the server refused value (401), so
// the token is refreshed before the next request.
func (m *Manager) Rejected(server, value string) {
	e := m.entry(server)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.rec == nil || e.ended != "" || bearer(e.rec.Token) != value {
		return // already replaced
	}
	if e.rec.Token.RefreshToken == "" {
		e.ended = "the server refused the token, and there is no refresh token"
		return
	}
	t := *e.rec.Token
	t.ExpiresAt = m.o.Now().Add(-time.Second)
	e.rec.Token = &t
}

// refresh replaces e's token with a refreshed one, under e.mu. A refusal
// by the authorization server ends the login (upstream.ErrNeedsLogin); a
// failure to reach it is an error of its own (the upstream retries).
func (m *Manager) refresh(ctx context.Context, server string, e *entry) error {
	rec := e.rec
	if rec.Token.RefreshToken == "" {
		e.ended = "the token has expired and there is no refresh token"
		return fmt.Errorf("%w: %s", upstream.ErrNeedsLogin, e.ended)
	}
	if e.handler == nil {
		e.store = &tokenStore{}
		e.handler = m.handlerFor(rec, rec.ClientID, e.store)
	}
	tok, err := e.handler.RefreshToken(ctx, rec.Token.RefreshToken)
	var oerr transport.OAuthError
	switch {
	case errors.As(err, &oerr):
		e.ended = "the authorization server refused the refresh (" + oerr.ErrorCode + ")"
		m.log.WithField("server", server).Warnf("login ended: %s", e.ended)
		return fmt.Errorf("%w: %s", upstream.ErrNeedsLogin, e.ended)
	case err != nil:
		return fmt.Errorf("refresh the login of %q: %w", server, err)
	}
	next := *rec
	next.Token = tok
	if err := m.save(server, &next); err != nil {
		// The new token is used for this run; the next start finds the
		// old refresh token, which may be spent.
		m.log.WithField("server", server).Warnf("store the refreshed login: %v", err)
	}
	e.rec = &next
	return nil
}

// tokenStore is the mcp-go TokenStore of one exchange: it catches the
// token the handler saves.
type tokenStore struct {
	mu    sync.Mutex
	token *transport.Token
}

func (s *tokenStore) GetToken(ctx context.Context) (*transport.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.token == nil {
		return nil, transport.ErrNoToken
	}
	return s.token, nil
}

func (s *tokenStore) SaveToken(ctx context.Context, t *transport.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = t
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, secrets.ErrNotFound) }

// ClientMetadataPath is where the router serves its Client ID Metadata
// Document (core): under an https publicURL, that URL is the router's
// client id at authorization servers that support one.
const ClientMetadataPath = "/oauth/client-metadata.json"

// ClientMetadataURL is the router's Client ID Metadata Document URL for a
// publicURL setting: only an https one, the one address an authorization
// server can fetch it from; "" otherwise.
func ClientMetadataURL(publicURL string) string {
	if !strings.HasPrefix(publicURL, "https://") {
		return ""
	}
	return strings.TrimSuffix(publicURL, "/") + ClientMetadataPath
}
