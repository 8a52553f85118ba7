package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// This file forwards the smaller parts of the protocol: argument
// completion, log levels and log messages, and resource subscriptions.

// CompletePromptArgument forwards completion/complete for a prompt argument
// to the prompt's server, under the server's own prompt name.
func (g *Gateway) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	g.mu.RLock()
	un, ok := g.prompts[prompt]
	g.mu.RUnlock()
	if !ok || !g.o.CallerFrom(ctx).allows(un.Server) {
		return nil, fmt.Errorf("prompt '%s' not found", prompt)
	}
	return g.complete(ctx, un.Server, map[string]any{"type": "ref/prompt", "name": un.Item}, arg, cc)
}

// CompleteResourceArgument forwards completion/complete for a resource
// template argument to the server that offers the template.
func (g *Gateway) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	g.mu.RLock()
	owner, ok := g.templates[uri]
	if !ok {
		owner, ok = g.resources[uri]
	}
	g.mu.RUnlock()
	if !ok || !g.o.CallerFrom(ctx).allows(owner) {
		return nil, fmt.Errorf("resource %s not found", uri)
	}
	return g.complete(ctx, owner, map[string]any{"type": "ref/resource", "uri": uri}, arg, cc)
}

func (g *Gateway) complete(ctx context.Context, upstreamName string, ref map[string]any, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	params := map[string]any{"ref": ref, "argument": arg}
	if len(cc.Arguments) > 0 {
		params["context"] = cc
	}
	hc := g.newHookCall(ctx, "Complete", string(mcp.MethodCompletionComplete), upstreamName, "", params)
	raw, err := g.forward(ctx, hc, params, func(p map[string]any) map[string]any { return p })
	if err != nil {
		return nil, g.failure(upstreamName, err)
	}
	var res struct {
		Completion mcp.Completion `json:"completion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, badResponse(upstreamName, "completion/complete", err)
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res.Completion, nil
}

// forwardLevel passes a client's logging/setLevel on to every running
// server it may use. Upstream connections are shared, so the last level
// set wins there; the router's own per-session level still filters.
func (g *Gateway) forwardLevel(ctx context.Context, level mcp.LoggingLevel) {
	caller := g.o.CallerFrom(ctx)
	var wg sync.WaitGroup
	for _, name := range g.runningServers() {
		if !caller.allows(name) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			// A server without logging answers "method not found": fine.
			_, _ = g.ups.Request(rctx, name, string(mcp.MethodSetLogLevel), map[string]any{"level": level})
		}()
	}
	wg.Wait()
}

func (g *Gateway) runningServers() []string {
	var names []string
	for _, st := range g.ups.Statuses() {
		if st.State == "running" {
			names = append(names, st.Name)
		}
	}
	return names
}

// subscriptions tracks which sessions want notifications/resources/updated
// for which URI, and subscribes upstream once per URI.
type subscriptions struct {
	mu    sync.Mutex
	byURI map[string]map[string]bool // URI → session IDs
}

func (g *Gateway) subscribe(ctx context.Context, uri string) {
	s := server.ClientSessionFromContext(ctx)
	if s == nil {
		return
	}
	g.subs.mu.Lock()
	first := len(g.subs.byURI[uri]) == 0
	if g.subs.byURI[uri] == nil {
		g.subs.byURI[uri] = map[string]bool{}
	}
	g.subs.byURI[uri][s.SessionID()] = true
	g.subs.mu.Unlock()
	if first {
		g.forwardSubscription(uri, string(mcp.MethodResourcesSubscribe))
	}
}

func (g *Gateway) unsubscribe(sessionID, uri string) {
	g.subs.mu.Lock()
	subs := g.subs.byURI[uri]
	had := subs[sessionID]
	delete(subs, sessionID)
	last := had && len(subs) == 0
	if len(subs) == 0 {
		delete(g.subs.byURI, uri)
	}
	g.subs.mu.Unlock()
	if last {
		g.forwardSubscription(uri, string(mcp.MethodResourcesUnsubscribe))
	}
}

// dropSession forgets a closed session's subscriptions.
func (g *Gateway) dropSession(sessionID string) {
	g.subs.mu.Lock()
	var uris []string
	for uri, subs := range g.subs.byURI {
		if subs[sessionID] {
			uris = append(uris, uri)
		}
	}
	g.subs.mu.Unlock()
	for _, uri := range uris {
		g.unsubscribe(sessionID, uri)
	}
}

func (g *Gateway) forwardSubscription(uri, method string) {
	g.mu.RLock()
	owner, ok := g.resources[uri]
	g.mu.RUnlock()
	if !ok {
		owner = g.templateOwner(uri)
	}
	if owner == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := g.ups.Request(ctx, owner, method, map[string]any{"uri": uri}); err != nil {
		g.log.WithField("server", owner).Warnf("%s %s: %v", method, uri, err)
	}
}

// templateOwner finds the server whose resource template matches uri.
func (g *Gateway) templateOwner(uri string) string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	for _, t := range g.templateRoutes {
		if t.template.Regexp().MatchString(uri) {
			return t.server
		}
	}
	return ""
}

// templateRoute is a resource template and the server that offers it.
type templateRoute struct {
	template *mcp.URITemplate
	server   string
}

// resourceUpdated tells the sessions subscribed to a URI that it changed.
func (g *Gateway) resourceUpdated(n mcp.JSONRPCNotification) {
	uri, _ := n.Params.AdditionalFields["uri"].(string)
	g.subs.mu.Lock()
	var sessions []string
	for id := range g.subs.byURI[uri] {
		sessions = append(sessions, id)
	}
	g.subs.mu.Unlock()
	for _, id := range sessions {
		_ = g.srv.SendNotificationToSpecificClient(id, n.Method, n.Params.AdditionalFields)
	}
}

// logMessage sends an upstream's log message to the client it most likely
// concerns: the one with a call in flight there, else its last caller.
func (g *Gateway) logMessage(upstreamName string, n mcp.JSONRPCNotification) {
	s := g.call.sessionFor(upstreamName)
	if s == nil {
		return
	}
	params := make(map[string]any, len(n.Params.AdditionalFields)+1)
	for k, v := range n.Params.AdditionalFields {
		params[k] = v
	}
	if _, ok := params["logger"]; !ok {
		params["logger"] = upstreamName
	}
	_ = g.srv.SendNotificationToSpecificClient(s.SessionID(), n.Method, params)
}
