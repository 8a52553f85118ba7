package gateway

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// A 2026-07-28 client has no session and no GET stream: it opens a
// subscriptions/listen request, whose response stream carries the
// notifications it opted in to until it hangs up. mcp-go (v1.2.1) serves
// the stream, acknowledges the filter and delivers the list_changed
// broadcasts; resource updates are the router's to deliver, since the
// upstreams' subscriptions are its own (one per URI, shared by every
// subscriber). A listener takes a session's place among a URI's
// subscribers, under a key of its own.

// listener is one open subscriptions/listen stream.
type listener struct {
	key string          // its place among a URI's subscribers ("listen-N")
	ctx context.Context // the listen request's, carrying its session
}

type listenerKey struct{}

func listenerFrom(ctx context.Context) *listener {
	l, _ := ctx.Value(listenerKey{}).(*listener)
	return l
}

// listenRequest is what the router reads of a subscriptions/listen.
type listenRequest struct {
	Params struct {
		Notifications mcp.SubscriptionFilter `json:"notifications"`
		Meta          *mcp.Meta              `json:"_meta"`
	} `json:"params"`
}

// serveListen runs before mcp-go serves a 2026-07-28 client's
// subscriptions/listen: each resource URI the client asks to follow goes
// through the chain as a resources/subscribe (scope, gate, policy: a URI
// the caller may not use refuses the request, as a subscribe would be),
// and the stream is made a subscriber of each until it closes. A legacy
// client's listen is mcp-go's to refuse.
func (g *Gateway) serveListen(ctx context.Context, raw json.RawMessage) error {
	var req listenRequest
	if json.Unmarshal(raw, &req) != nil {
		return nil // mcp-go answers a malformed request
	}
	client := clientOf(ctx, req.Params.Meta)
	if !client.Modern || client.Session == nil {
		return nil
	}
	uris := req.Params.Notifications.ResourceSubscriptions
	if len(uris) == 0 {
		return nil
	}
	g.subs.mu.Lock()
	g.subs.listenSeq++
	l := &listener{key: "listen-" + strconv.FormatUint(g.subs.listenSeq, 10), ctx: ctx}
	if g.subs.listeners == nil {
		g.subs.listeners = map[string]*listener{}
	}
	g.subs.listeners[l.key] = l
	g.subs.mu.Unlock()
	lctx := context.WithValue(ctx, listenerKey{}, l)
	for _, uri := range uris {
		r := &pipeline.Request{Method: pipeline.MethodSubscribe, Client: client, Server: g.resourceOwner(uri),
			Item: uri, Target: uri, Params: map[string]any{"uri": uri}}
		if _, err := g.chain.Serve(lctx, r); err != nil {
			g.dropListener(l)
			return pipeline.Unlogged(err)
		}
	}
	// The request's context ends when its stream does (the client hung
	// up, or mcp-go answered): then the listener's subscriptions end too.
	go func() {
		<-ctx.Done()
		g.dropListener(l)
	}()
	return nil
}

// dropListener ends a listen stream's subscriptions.
func (g *Gateway) dropListener(l *listener) {
	g.subs.mu.Lock()
	delete(g.subs.listeners, l.key)
	g.subs.mu.Unlock()
	g.dropSession(l.key)
}

// notifySubscriber sends a resource's notification to one of its
// subscribers: a session by id, or a listen stream by its key.
func (g *Gateway) notifySubscriber(key, method string, params map[string]any) error {
	g.subs.mu.Lock()
	l := g.subs.listeners[key]
	g.subs.mu.Unlock()
	if l != nil {
		return g.srv.SendNotificationToClient(l.ctx, method, params)
	}
	return g.srv.SendNotificationToSpecificClient(key, method, params)
}
