package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// A connection on 2026-07-28: an HTTP upstream whose server/discover
// answer names that revision (discover.go) is used without initialize and
// without a session. Every request carries the revision, the client's
// identity and capabilities in _meta, and Mcp-Method / Mcp-Name headers;
// list_changed and resource updates come on a subscriptions/listen stream
// the connection keeps open; ping, gone in this revision, is a
// server/discover.

// modernState is what a connection on 2026-07-28 keeps besides the
// transport.
type modernState struct {
	clientInfo   mcp.Implementation
	capabilities mcp.ClientCapabilities

	mu sync.Mutex
	// resources: the URIs subscribed to with resources/subscribe, which
	// on this revision go in the listen stream's filter.
	resources []string
	// relisten: capacity 1; the filter changed, open the stream again.
	relisten chan struct{}
	// logLevel: the level of the last logging/setLevel, which this
	// revision no longer has: it goes in each request's _meta instead
	// (the connection is shared, so the last level set wins, as on a
	// session); "" none.
	logLevel string
}

// maxResourceSubscriptions bounds the URIs one upstream connection on
// 2026-07-28 listens to (each resources/subscribe of a client adds one to
// the listen stream's filter, which goes in one request).
const maxResourceSubscriptions = 1024

// declaredCapabilities is what the router can answer for its clients, as
// it declares it in initialize (the handlers of ClientSide).
func (cs ClientSide) declaredCapabilities() mcp.ClientCapabilities {
	var caps mcp.ClientCapabilities
	if cs.Sampling != nil {
		caps.Sampling = &mcp.SamplingCapability{}
	}
	if cs.Elicitation != nil {
		caps.Elicitation = &mcp.ElicitationCapability{}
	}
	if cs.Roots != nil {
		caps.Roots = &struct {
			ListChanged bool `json:"listChanged,omitempty"`
		}{}
	}
	return caps
}

// useModern sets the connection up on 2026-07-28 from the server/discover
// answer d: what initialize would have said is taken from it.
func (c *conn) useModern(d discovery, o dialOptions) {
	c.modernEra = &modernState{
		clientInfo:   o.clientInfo,
		capabilities: o.clientSide.declaredCapabilities(),
		relisten:     make(chan struct{}, 1),
	}
	c.init = &mcp.InitializeResult{
		ProtocolVersion: modernProtocol,
		Capabilities:    d.capabilities,
		ServerInfo:      d.serverInfo,
		Instructions:    d.instructions,
	}
	if st, ok := c.tr.(*streamTransport); ok {
		st.SetProtocolVersion(modernProtocol)
	}
}

// requireModern fails the connect of a server whose protocol setting is
// 2026-07-28 when its server/discover answer d does not name that
// revision: the setting is a requirement, never a guess, so the server is
// not used on the handshake instead.
func (c *conn) requireModern(d discovery) error {
	if d.offersModern() {
		return nil
	}
	answer := "it named no revision"
	switch {
	case len(d.versions) > 0:
		answer = "it names only " + strings.Join(d.versions, ", ")
	case d.err != nil:
		answer = "it did not answer server/discover: " + d.err.Error()
	}
	return fmt.Errorf("connect: the server does not speak protocol 2026-07-28, which its protocol setting requires (%s); set protocol to auto or 2025-11-25 (servers update NAME --protocol auto)", answer)
}

// canSpeakModern: the transports the router speaks 2026-07-28 on: a pipe,
// and HTTP on its own transport (not mcp-go's, used through a proxy).
func (c *conn) canSpeakModern() error {
	if _, own := c.tr.(*streamTransport); own || c.proc != nil {
		return nil
	}
	return fmt.Errorf("connect: protocol 2026-07-28 (the server's protocol setting) needs a stdio server or an http server on the router's own transport, not one reached through a proxy; set protocol to auto or 2025-11-25")
}

// cancelsByClosing: a request given up on is cancelled by closing its
// stream (2026-07-28 over the router's own HTTP transport), not with
// notifications/cancelled (a pipe, or a session).
func (c *conn) cancelsByClosing() bool {
	_, own := c.tr.(*streamTransport)
	return c.modernEra != nil && own
}

// refreshAfterGap: after a listen stream that ended unasked is opened
// again, the lists it covers are read again (as on a list_changed).
func (o dialOptions) refreshAfterGap() func(mcp.SubscriptionFilter) {
	return func(f mcp.SubscriptionFilter) {
		if o.onNotification == nil {
			return
		}
		for _, method := range listChangesOf(f) {
			o.onNotification(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{Method: method}})
		}
	}
}

// withRequestMeta returns params with the per-request keys of 2026-07-28
// in _meta: the revision always; the client's identity and capabilities
// when the request does not carry them already (a 2026-07-28 client's own
// are forwarded; for a client with a session, and for the router's own
// requests, they are the router's, as its initialize would declare). The
// result is JSON.
func (m *modernState) withRequestMeta(params any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, fmt.Errorf("encoding the request's params: %w", err)
		}
		if string(b) != "null" {
			if err := json.Unmarshal(b, &fields); err != nil {
				return nil, fmt.Errorf("the request's params are not a JSON object: %w", err)
			}
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("the request's _meta is not a JSON object: %w", err)
		}
	}
	set := func(key string, v any, always bool) error {
		if _, ok := meta[key]; ok && !always {
			return nil
		}
		b, err := json.Marshal(v)
		meta[key] = b
		return err
	}
	if err := errors.Join(
		set(mcp.MetaKeyProtocolVersion, modernProtocol, true),
		set(mcp.MetaKeyClientInfo, m.clientInfo, false),
		set(mcp.MetaKeyClientCapabilities, m.capabilities, false),
	); err != nil {
		return nil, err
	}
	m.mu.Lock()
	level := m.logLevel
	m.mu.Unlock()
	if level != "" {
		if err := set(mcp.MetaKeyLogLevel, level, false); err != nil {
			return nil, err
		}
	}
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = mb
	return json.Marshal(fields)
}

// standardHeaders are the Mcp-Method and Mcp-Name headers 2026-07-28
// wants on each HTTP request (SEP-2243), mirroring the body. mcp-go's
// encoding writes a name that is not plain visible ASCII as base64, so no
// value can break a header line; one that still would is left out (the
// server then refuses the request, -32020, rather than reading a header
// the router did not mean).
func standardHeaders(method string, params json.RawMessage) http.Header {
	h := http.Header{}
	for k, v := range mcp.StandardHeaders(modernProtocol, mcp.MCPMethod(method), params) {
		if headerValueSafe(v) {
			h.Set(k, v)
		}
	}
	return h
}

// headerValueSafe: printable ASCII and spaces only (no CR, LF or other
// control characters).
func headerValueSafe(v string) bool {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return false
		}
	}
	return v != ""
}

// subscription answers resources/subscribe and resources/unsubscribe on a
// connection on 2026-07-28, where they are no longer methods: the URI is
// added to (or dropped from) the listen stream's filter, and the stream
// opened again with it.
func (c *conn) subscription(method string, params any) ([]byte, error) {
	caps := c.init.Capabilities.Resources
	if caps == nil || !caps.Subscribe {
		return nil, &RPCError{Code: mcp.METHOD_NOT_FOUND, Message: fmt.Sprintf("%s: the server does not offer resource subscriptions", method)}
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var p struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal(b, &p); err != nil || p.URI == "" {
		return nil, &RPCError{Code: mcp.INVALID_PARAMS, Message: method + ": no uri"}
	}
	m := c.modernEra
	m.mu.Lock()
	i := slices.Index(m.resources, p.URI)
	switch {
	case method == string(mcp.MethodResourcesSubscribe) && i < 0:
		if len(m.resources) >= maxResourceSubscriptions {
			m.mu.Unlock()
			return nil, fmt.Errorf("%s: this server's connection already listens to %d resources (maxResourceSubscriptions, a constant)", method, maxResourceSubscriptions)
		}
		m.resources = append(m.resources, p.URI)
	case method == string(mcp.MethodResourcesUnsubscribe) && i >= 0:
		m.resources = slices.Delete(m.resources, i, i+1)
	default:
		m.mu.Unlock()
		return []byte("{}"), nil
	}
	m.mu.Unlock()
	select {
	case m.relisten <- struct{}{}:
	default:
	}
	return []byte("{}"), nil
}

// setLevel answers logging/setLevel on a connection on 2026-07-28, where
// it is no longer a method: the level goes in the _meta of the requests
// that follow (a 2026-07-28 client's own logLevel is kept on its own).
func (c *conn) setLevel(params any) ([]byte, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var p struct {
		Level string `json:"level"`
	}
	if err := json.Unmarshal(b, &p); err != nil || !validLogLevel(p.Level) {
		return nil, &RPCError{Code: mcp.INVALID_PARAMS, Message: fmt.Sprintf("logging/setLevel: unknown level %q", p.Level)}
	}
	m := c.modernEra
	m.mu.Lock()
	m.logLevel = p.Level
	m.mu.Unlock()
	return []byte("{}"), nil
}

// validLogLevel: the levels of RFC 5424 that MCP names.
func validLogLevel(l string) bool {
	switch mcp.LoggingLevel(l) {
	case mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelNotice, mcp.LoggingLevelWarning,
		mcp.LoggingLevelError, mcp.LoggingLevelCritical, mcp.LoggingLevelAlert, mcp.LoggingLevelEmergency:
		return true
	}
	return false
}

// filter is what the listen stream asks for: the list changes the server
// has lists for, and the subscribed resources.
func (c *conn) listenFilter() mcp.SubscriptionFilter {
	caps := c.init.Capabilities
	m := c.modernEra
	m.mu.Lock()
	defer m.mu.Unlock()
	return mcp.SubscriptionFilter{
		ToolsListChanged:      caps.Tools != nil,
		PromptsListChanged:    caps.Prompts != nil,
		ResourcesListChanged:  caps.Resources != nil,
		ResourceSubscriptions: slices.Clone(m.resources),
	}
}

// listenRetryMax bounds the wait before the listen stream is opened again
// after it failed (it doubles from a second).
const listenRetryMax = 30 * time.Second

// listen keeps a subscriptions/listen stream open for the connection's
// life (life), opened again when it ends or its filter changes. The
// notifications on it reach the connection's handler as on the GET stream
// of 2025-11-25. A stream that ends unasked may have missed changes: the
// lists are refreshed after it is opened again (onReopen).
func (c *conn) listen(life context.Context, onReopen func(mcp.SubscriptionFilter)) {
	m := c.modernEra
	wait := time.Second
	reopened := false
	for life.Err() == nil {
		f := c.listenFilter()
		if f.IsEmpty() {
			select {
			case <-life.Done():
				return
			case <-m.relisten:
				continue
			}
		}
		lctx, cancel := context.WithCancel(life)
		changed := make(chan struct{})
		go func() {
			select {
			case <-m.relisten:
				close(changed)
				cancel()
			case <-lctx.Done():
			}
		}()
		if reopened && onReopen != nil {
			onReopen(f)
		}
		started := time.Now()
		_, err := c.request(lctx, string(mcp.MethodSubscriptionsListen), mcp.SubscriptionsListenParams{Notifications: f})
		cancel()
		select {
		case <-changed:
			reopened = false // asked: nothing was missed that a refresh would find
			continue
		default:
		}
		if life.Err() != nil {
			return
		}
		reopened = true
		var rpcErr *RPCError
		if errors.As(err, &rpcErr) && rpcErr.Code == mcp.METHOD_NOT_FOUND {
			// No listen stream on this server: wait for a new filter.
			select {
			case <-life.Done():
				return
			case <-m.relisten:
				continue
			}
		}
		if time.Since(started) > listenRetryMax {
			wait = time.Second
		}
		t := time.NewTimer(wait)
		select {
		case <-life.Done():
			t.Stop()
			return
		case <-t.C:
		case <-m.relisten:
			t.Stop()
		}
		wait = min(2*wait, listenRetryMax)
	}
}

// listChangesOf are the list_changed notifications f asks for, for a
// refresh after a gap in the stream.
func listChangesOf(f mcp.SubscriptionFilter) []string {
	var out []string
	if f.ToolsListChanged {
		out = append(out, string(mcp.MethodNotificationToolsListChanged))
	}
	if f.PromptsListChanged {
		out = append(out, string(mcp.MethodNotificationPromptsListChanged))
	}
	if f.ResourcesListChanged {
		out = append(out, string(mcp.MethodNotificationResourcesListChanged))
	}
	return out
}

// isSubscriptionMethod: resources/subscribe and resources/unsubscribe,
// which 2026-07-28 folds into subscriptions/listen.
func isSubscriptionMethod(method string) bool {
	return method == string(mcp.MethodResourcesSubscribe) || method == string(mcp.MethodResourcesUnsubscribe)
}
