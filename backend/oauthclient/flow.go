package oauthclient

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// LoginOptions tune one login.
type LoginOptions struct {
	// ClientID is a client id registered for the router by the user; it
	// comes first. Without it: a Client ID Metadata Document where the
	// authorization server supports one and the router has one, else
	// dynamic registration, else ErrNeedsClientID.
	ClientID string
	// Scopes asked for; default: the 401's scope, else the protected
	// resource's scopes_supported.
	Scopes []string
	// Timeout bounds the wait for the browser; default 5 minutes.
	Timeout time.Duration
}

// DefaultLoginTimeout is how long a login waits for the browser.
const DefaultLoginTimeout = 5 * time.Minute

// Flow is one login waiting for the browser's redirect to its loopback
// listener.
type Flow struct {
	Server string
	// URL is the authorization URL to open in the browser.
	URL string
	// RedirectURI is the loopback listener's callback.
	RedirectURI string
	// Registration says how the client was registered (Registered…).
	Registration string

	done   chan struct{}
	err    error
	finish sync.Once
	srv    *http.Server
	cancel context.CancelFunc
}

// Wait returns when the login is done: nil once the token is stored, else
// why it failed (the browser's error, the timeout, Cancel).
func (f *Flow) Wait(ctx context.Context) error {
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		f.end(ctx.Err())
		<-f.done
		return f.err
	}
}

// Done is closed when the login has ended.
func (f *Flow) Done() <-chan struct{} { return f.done }

// Err is why the login failed, once Done is closed (nil: logged in).
func (f *Flow) Err() error {
	<-f.done
	return f.err
}

// Cancel ends a login that is still waiting.
func (f *Flow) Cancel() { f.end(errors.New("login cancelled")) }

func (f *Flow) end(err error) {
	f.finish.Do(func() {
		f.err = err
		f.cancel()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = f.srv.Shutdown(ctx)
		}()
		close(f.done)
	})
}

// Begin starts a login to s: it asks the server (which must answer 401),
// discovers its authorization server, registers the router, opens the
// loopback listener and returns the authorization URL to open. The login
// ends when the browser comes back (Wait).
func (m *Manager) Begin(ctx context.Context, s spec.Server, o LoginOptions) (*Flow, error) {
	if s.Transport != spec.HTTP && s.Transport != spec.SSE {
		return nil, fmt.Errorf("server %q is a %s server: %w", s.Name, s.Transport, ErrNotLoginable)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultLoginTimeout
	}
	challenge, err := m.probe(ctx, s)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("open the loopback listener for the login: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			ln.Close()
		}
	}()
	rec := &record{URL: s.URL, Scopes: o.Scopes,
		RedirectURI: fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)}
	rec.PRM = sameOriginPRM(challenge, s.URL)
	prm, err := m.protectedResource(ctx, rec.PRM, s.URL)
	if err != nil {
		return nil, fmt.Errorf("server %q answered 401 without OAuth protected-resource metadata (%v), so %w: set the credential it expects in its headers instead", s.Name, err, ErrNoOAuth)
	}
	if len(rec.Scopes) == 0 {
		rec.Scopes = challengeScopes(challenge)
	}
	if len(rec.Scopes) == 0 {
		rec.Scopes = prm.ScopesSupported
	}
	store := &tokenStore{}
	h := m.handlerFor(rec, "", store)
	meta, err := h.GetServerMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("find the authorization server of %q: %w", s.Name, err)
	}
	rec.Issuer = meta.Issuer
	switch cimd := m.clientMetadataURL(); {
	case o.ClientID != "":
		rec.Registration, rec.ClientID = RegisteredByUser, o.ClientID
	case cimd != "" && m.supportsCIMD(ctx, meta.Issuer):
		rec.Registration, rec.ClientID = RegisteredByMetadataDocument, cimd
	case meta.RegistrationEndpoint != "":
		if err := h.RegisterClient(ctx, m.o.ClientName); err != nil {
			return nil, fmt.Errorf("register with the authorization server %s: %w", meta.Issuer, err)
		}
		rec.Registration, rec.ClientID = RegisteredDynamically, h.GetClientID()
		rec.ClientSecret, rec.AuthMethod = h.GetClientSecret(), h.GetTokenEndpointAuthMethod()
	default:
		return nil, fmt.Errorf("%w (%s): give the client id registered there for the router (--client-id)", ErrNeedsClientID, meta.Issuer)
	}
	if rec.Registration != RegisteredDynamically {
		h = m.handlerFor(rec, rec.ClientID, store)
	}
	verifier, err := transport.GenerateCodeVerifier()
	if err != nil {
		return nil, err
	}
	state, err := transport.GenerateState()
	if err != nil {
		return nil, err
	}
	authURL, err := h.GetAuthorizationURL(ctx, state, transport.GenerateCodeChallenge(verifier))
	if err != nil {
		return nil, fmt.Errorf("the authorization URL of %q: %w", s.Name, err)
	}
	fctx, cancel := context.WithCancel(context.Background())
	f := &Flow{Server: s.Name, URL: authURL, RedirectURI: rec.RedirectURI, Registration: rec.Registration,
		done: make(chan struct{}), cancel: cancel}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(state)) != 1 {
			// Not this login's redirect (another page, a forged link):
			// refused, and the login keeps waiting for its own.
			m.log.WithField("server", s.Name).Warn("login: a redirect with the wrong state was refused")
			page(w, http.StatusBadRequest, "Refused", ErrState.Error()+".")
			return
		}
		select {
		case <-f.done:
			page(w, http.StatusGone, "Login over", "This login has already ended.")
			return
		default:
		}
		if e := q.Get("error"); e != "" {
			err := fmt.Errorf("the authorization server refused the login: %s", oneLine(e+" "+q.Get("error_description")))
			f.end(err)
			page(w, http.StatusOK, "Login failed", err.Error())
			return
		}
		code := q.Get("code")
		if code == "" {
			page(w, http.StatusBadRequest, "Refused", "The redirect carries no code.")
			return
		}
		if err := h.ProcessAuthorizationResponse(fctx, code, state, verifier); err != nil {
			err = fmt.Errorf("exchange the code for a token: %w", err)
			f.end(err)
			page(w, http.StatusOK, "Login failed", err.Error())
			return
		}
		rec.Token = store.token
		rec.LoggedInAt = m.o.Now().UTC()
		if err := m.install(s.Name, rec); err != nil {
			f.end(err)
			page(w, http.StatusOK, "Login failed", err.Error())
			return
		}
		f.end(nil)
		page(w, http.StatusOK, "Logged in", "MCP Router is logged in to "+s.Name+". You can close this window.")
	})
	f.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	go func() {
		t := time.NewTimer(o.Timeout)
		defer t.Stop()
		select {
		case <-t.C:
			f.end(fmt.Errorf("no answer from the browser within %s", o.Timeout))
		case <-f.done:
		}
	}()
	ok = true
	return f, nil
}

// install stores a new login and makes it the one in use.
func (m *Manager) install(server string, rec *record) error {
	if err := m.save(server, rec); err != nil {
		return err
	}
	m.mu.Lock()
	m.entries[server] = &entry{rec: rec}
	m.mu.Unlock()
	if m.o.Changed != nil {
		m.o.Changed(server)
	}
	return nil
}

// Login starts a login in the background (the UI's way): the browser is
// the user's, and the server reconnects when the login completes. A login
// of the same server still waiting is cancelled.
func (m *Manager) Login(ctx context.Context, s spec.Server, o LoginOptions) (*Flow, error) {
	f, err := m.Begin(ctx, s, o)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	old := m.flows[s.Name]
	m.flows[s.Name] = f
	m.mu.Unlock()
	if old != nil {
		old.Cancel()
	}
	go func() {
		err := f.Err()
		m.mu.Lock()
		if m.flows[s.Name] == f {
			delete(m.flows, s.Name)
		}
		m.mu.Unlock()
		if err != nil {
			m.log.WithField("server", s.Name).Warnf("login: %v", err)
		} else {
			m.log.WithField("server", s.Name).Infof("logged in (%s)", f.Registration)
		}
	}()
	return f, nil
}

// Logout removes server's login; ErrNoLogin when none is stored.
func (m *Manager) Logout(server string) error {
	if _, err := m.secrets.Get(server); err != nil {
		if errors.Is(err, ErrNoLogin) || isNotFound(err) {
			return fmt.Errorf("%w for %q", ErrNoLogin, server)
		}
		return err
	}
	if err := m.secrets.Delete(server); err != nil {
		return err
	}
	m.mu.Lock()
	m.entries[server] = &entry{}
	m.mu.Unlock()
	if m.o.Changed != nil {
		m.o.Changed(server)
	}
	return nil
}

// handlerFor is an mcp-go OAuthHandler for rec's server and client.
func (m *Manager) handlerFor(rec *record, clientID string, store transport.TokenStore) *transport.OAuthHandler {
	h := transport.NewOAuthHandler(transport.OAuthConfig{
		ClientID: clientID, ClientSecret: rec.ClientSecret, TokenEndpointAuthMethod: rec.AuthMethod,
		RedirectURI: rec.RedirectURI, Scopes: rec.Scopes, TokenStore: store, PKCEEnabled: true,
		ProtectedResourceMetadataURL: rec.PRM, HTTPClient: m.o.HTTPClient,
	})
	h.SetBaseURL(rec.URL)
	return h
}

func (m *Manager) clientMetadataURL() string {
	if m.o.ClientMetadataURL == nil {
		return ""
	}
	return m.o.ClientMetadataURL()
}

// probe sends the server what a client without credentials sends first
// (initialize; for SSE the GET of its stream) and returns the 401.
func (m *Manager) probe(ctx context.Context, s spec.Server) (*http.Response, error) {
	method, body := http.MethodPost, []byte(nil)
	if s.Transport == spec.SSE {
		method = http.MethodGet
	} else {
		body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
			"protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "mcp-router", "version": "login"}}})
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("server %q: bad URL: %w", s.Name, err)
	}
	for k, v := range s.Headers {
		if !strings.EqualFold(k, "Authorization") {
			req.Header.Set(k, v)
		}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	// The answer's head is all that is needed: an SSE stream is not read.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := m.o.HTTPClient.Do(req.WithContext(pctx))
	if err != nil {
		return nil, fmt.Errorf("reach %q: %w", s.Name, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return nil, fmt.Errorf("server %q answered HTTP %d without credentials: %w", s.Name, resp.StatusCode, ErrNoOAuth)
	}
	return resp, nil
}

// sameOriginPRM is the 401's resource_metadata when it is on the server's
// own origin (as mcp-go's HandleUnauthorizedResponse checks), else "".
func sameOriginPRM(resp *http.Response, serverURL string) string {
	base, err := url.Parse(serverURL)
	if err != nil {
		return ""
	}
	for _, h := range resp.Header.Values("WWW-Authenticate") {
		v := authParam(h, "resource_metadata")
		if v == "" {
			continue
		}
		u, err := url.Parse(v)
		if err == nil && strings.EqualFold(u.Scheme, base.Scheme) && strings.EqualFold(u.Host, base.Host) {
			return v
		}
	}
	return ""
}

// authParam is a parameter of a WWW-Authenticate challenge.
func authParam(h, name string) string {
	for rest := h; ; {
		i := strings.Index(rest, name+"=")
		if i < 0 {
			return ""
		}
		if i > 0 && rest[i-1] != ' ' && rest[i-1] != ',' {
			rest = rest[i+len(name)+1:]
			continue
		}
		v := rest[i+len(name)+1:]
		if strings.HasPrefix(v, `"`) {
			if end := strings.Index(v[1:], `"`); end >= 0 {
				return v[1 : 1+end]
			}
			return ""
		}
		if end := strings.IndexAny(v, ", "); end >= 0 {
			v = v[:end]
		}
		return v
	}
}

// challengeScopes is the 401's scope parameter (MCP authorization, scope
// selection: it comes first).
func challengeScopes(challenge *http.Response) []string {
	for _, h := range challenge.Header.Values("WWW-Authenticate") {
		if v := authParam(h, "scope"); v != "" {
			return strings.Fields(v)
		}
	}
	return nil
}

// prmDoc is what the login reads of protected-resource metadata itself;
// mcp-go's discovery reads and checks the rest.
type prmDoc struct {
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// protectedResource finds the server's protected-resource metadata (RFC
// 9728): at the 401's resource_metadata, else at the well-known URLs. A
// server that publishes none is no OAuth resource the router can log in to
// (the MCP authorization spec requires it).
func (m *Manager) protectedResource(ctx context.Context, advertised, serverURL string) (prmDoc, error) {
	var urls []string
	if advertised != "" {
		urls = append(urls, advertised)
	} else {
		u, err := url.Parse(serverURL)
		if err != nil {
			return prmDoc{}, err
		}
		root := u.Scheme + "://" + u.Host + "/.well-known/oauth-protected-resource"
		if p := strings.TrimSuffix(u.EscapedPath(), "/"); p != "" {
			urls = append(urls, root+p)
		}
		urls = append(urls, root)
	}
	var last error
	for _, u := range urls {
		var doc prmDoc
		if err := m.getJSON(ctx, u, &doc); err != nil {
			last = fmt.Errorf("%s: %w", u, err)
			continue
		}
		if len(doc.AuthorizationServers) == 0 {
			last = fmt.Errorf("%s names no authorization server", u)
			continue
		}
		return doc, nil
	}
	return prmDoc{}, last
}

// supportsCIMD: the authorization server's metadata says
// client_id_metadata_document_supported.
func (m *Manager) supportsCIMD(ctx context.Context, issuer string) bool {
	u, err := url.Parse(issuer)
	if err != nil {
		return false
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	for _, doc := range []string{
		u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path,
		u.Scheme + "://" + u.Host + "/.well-known/openid-configuration" + path,
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration",
	} {
		var meta struct {
			Supported bool `json:"client_id_metadata_document_supported"`
		}
		if m.getJSON(ctx, doc, &meta) == nil {
			return meta.Supported
		}
	}
	return false
}

func (m *Manager) getJSON(ctx context.Context, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.o.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(v)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// page answers the browser with a short HTML page.
func page(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1><p>%s</p>", html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}
