package gateway

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// This file forwards the smaller parts of the protocol: argument
// completion, log levels and log messages, and resource subscriptions.

// CompletePromptArgument forwards completion/complete for a prompt argument
// to the prompt's server, under the server's own prompt name.
func (g *Gateway) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	g.mu.RLock()
	un, ok := g.prompts[prompt]
	g.mu.RUnlock()
	if !ok {
		return nil, pipeline.UnknownPrompt(prompt)
	}
	return g.complete(ctx, un.Server, prompt, map[string]any{"type": "ref/prompt", "name": un.Item}, arg, cc)
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
	if !ok {
		return nil, pipeline.UnknownResource(uri, clientOf(ctx, nil).Modern)
	}
	return g.complete(ctx, owner, uri, map[string]any{"type": "ref/resource", "uri": uri}, arg, cc)
}

func (g *Gateway) complete(ctx context.Context, upstreamName, target string, ref map[string]any, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	params := map[string]any{"ref": ref, "argument": arg}
	if len(cc.Arguments) > 0 {
		params["context"] = cc
	}
	r := &pipeline.Request{Method: pipeline.MethodComplete, Client: clientOf(ctx, nil), Server: upstreamName,
		Target: target, Params: params, Decode: decodeCompletion}
	res, err := g.chain.Serve(ctx, r)
	if err != nil {
		return nil, err
	}
	c, err := typed[*mcp.Completion](r, res)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func decodeCompletion(raw json.RawMessage) (any, error) {
	var res struct {
		Completion mcp.Completion `json:"completion"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, err
	}
	if res.Completion.Values == nil {
		res.Completion.Values = []string{}
	}
	return &res.Completion, nil
}

// forwardLevel passes a client's logging/setLevel, which mcp-go has applied
// to the session, through the chain to every running server: a fan-out
// request whose candidates the steps narrow to the servers the client may
// reach.
func (g *Gateway) forwardLevel(ctx context.Context, req *mcp.SetLevelRequest) {
	var items []pipeline.ListItem
	for _, name := range g.runningServers() {
		items = append(items, pipeline.ListItem{Server: name})
	}
	if len(items) == 0 {
		return
	}
	r := &pipeline.Request{Method: pipeline.MethodSetLevel, Client: clientOf(ctx, nil),
		Params: map[string]any{"level": req.Params.Level}, List: &pipeline.List{Items: items}}
	if _, err := g.chain.Serve(ctx, r); err != nil {
		g.log.Debugf("logging/setLevel: %v", err)
	}
}

func (g *Gateway) runningServers() []string {
	var names []string
	for _, st := range g.ups.Statuses() {
		if st.State == upstream.StateRunning {
			names = append(names, st.Name)
		}
	}
	return names
}

// subscriptions tracks which sessions want notifications/resources/updated
// for which URI, and subscribes upstream once per URI.
type subscriptions struct {
	mu    sync.Mutex
	byURI map[string]map[string]bool // URI → session IDs (or listen streams' keys, listen.go)
	// listeners are the open subscriptions/listen streams that follow
	// resources, by key; listenSeq numbers them.
	listeners map[string]*listener
	listenSeq uint64
}

// serveSubscription runs a resources/subscribe or unsubscribe through the
// chain before mcp-go records it for the session: a refusal refuses the
// request, so a client out of scope or locked out never reaches the
// upstream. mcp-go (v1.2.1) can refuse a request only at this point, and
// answers that refusal with -32600 and the message alone (no data).
func (g *Gateway) serveSubscription(ctx context.Context, method string, raw json.RawMessage) error {
	var req struct {
		Params struct {
			URI  string    `json:"uri"`
			Meta *mcp.Meta `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Params.URI == "" {
		return nil // mcp-go answers a malformed request
	}
	client := clientOf(ctx, req.Params.Meta)
	if client.Modern || client.Session == nil {
		return nil // mcp-go refuses: the 2026-07-28 revision has no subscriptions
	}
	uri := req.Params.URI
	r := &pipeline.Request{Method: method, Client: client, Server: g.resourceOwner(uri), Item: uri, Target: uri,
		Params: map[string]any{"uri": uri}}
	if _, err := g.chain.Serve(ctx, r); err != nil {
		return pipeline.Unlogged(err)
	}
	return nil
}

// resourceOwner is the server that offers uri, as a resource or through a
// template; "" if none does.
func (g *Gateway) resourceOwner(uri string) string {
	g.mu.RLock()
	owner, ok := g.resources[uri]
	g.mu.RUnlock()
	if ok {
		return owner
	}
	return g.templateOwner(uri)
}

// sendSubscription records a session's subscription and subscribes the
// upstream for the first subscriber (or unsubscribes it after the last).
func (g *Gateway) sendSubscription(ctx context.Context, r *pipeline.Request) (pipeline.Result, error) {
	if r.Server == "" {
		return pipeline.Result{}, pipeline.UnknownResource(r.Item, r.Client.Modern)
	}
	subscriber := r.Client.SessionID()
	if l := listenerFrom(ctx); l != nil {
		subscriber = l.key // a listen stream's URI (listen.go)
	}
	if r.Method == pipeline.MethodSubscribe {
		g.subscribe(subscriber, r.Item)
	} else {
		g.unsubscribe(subscriber, r.Item)
	}
	return pipeline.Result{Value: &mcp.EmptyResult{}}, nil
}

func (g *Gateway) subscribe(sessionID, uri string) {
	g.subs.mu.Lock()
	first := len(g.subs.byURI[uri]) == 0
	if g.subs.byURI[uri] == nil {
		g.subs.byURI[uri] = map[string]bool{}
	}
	g.subs.byURI[uri][sessionID] = true
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
	owner := g.resourceOwner(uri)
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
		_ = g.notifySubscriber(id, n.Method, n.Params.AdditionalFields)
	}
}

// logMessage sends an upstream's log message to the client it is about,
// by the rule of server-to-client requests (docs/endpoint.md, "Where
// server-to-client requests go"), since a log line can carry one client's
// paths, queries or data: the call on whose answer stream it came; for a
// per-client instance, its own client; else the one client with calls in
// flight there. With none, or two or more, it reaches nobody (a debug line
// in the router's log). During a fast-path call it goes on the call's own
// response, ahead of the answer (upstreams deliver a call's notifications
// before its answer), as mcp-go's path sends it on the POST's stream.
func (g *Gateway) logMessage(upstreamName string, from upstream.Origin, n mcp.JSONRPCNotification) {
	s, f := g.logTarget(upstreamName, from)
	if s == nil {
		g.log.WithField("server", upstreamName).Debug("an upstream log message went to no client: it is not tied to one call, and not exactly one client has calls in flight there")
		return
	}
	params := make(map[string]any, len(n.Params.AdditionalFields)+1)
	for k, v := range n.Params.AdditionalFields {
		params[k] = v
	}
	if _, ok := params["logger"]; !ok {
		params["logger"] = upstreamName
	}
	if f != nil && f.stream != nil {
		if fast, ok := f.stream.sink.(*fastResponse); ok {
			msg, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
				Notification: mcp.Notification{Method: n.Method, Params: mcp.NotificationParams{AdditionalFields: params}}})
			if err == nil && fast.writeEvent(msg) == nil {
				return
			}
		}
	}
	_ = g.srv.SendNotificationToSpecificClient(s.SessionID(), n.Method, params)
}

// logTarget is the client (and call, if one) a log message is for; nil
// when that cannot be known.
func (g *Gateway) logTarget(upstreamName string, from upstream.Origin) (server.ClientSession, *inflight) {
	if from.Call != nil {
		if f := inflightFrom(from.Call); f != nil && f.server == upstreamName && f.session != nil {
			return f.session, f
		}
	}
	if from.Client != "" {
		if f := g.call.callOfClient(upstreamName, from.Client); f != nil {
			return f.session, f
		}
		return g.call.sessionOf(from.Client), nil
	}
	if f, _ := g.call.soleClient(upstreamName); f != nil && f.session != nil {
		return f.session, f
	}
	return nil, nil
}
