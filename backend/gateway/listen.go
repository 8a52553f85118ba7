package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

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
	key    string          // its place among a URI's subscribers ("listen-N")
	ctx    context.Context // the listen request's, carrying its session and caller
	stream *listenStream   // its response, which lets through only the list_changed it is owed
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
	stream, _ := ctx.Value(listenStreamKey{}).(*listenStream)
	if len(uris) == 0 && stream == nil {
		return nil
	}
	g.subs.mu.Lock()
	g.subs.listenSeq++
	l := &listener{key: "listen-" + strconv.FormatUint(g.subs.listenSeq, 10), ctx: ctx, stream: stream}
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

// A list_changed reaches a listen stream only when the list its caller
// sees may have changed: mcp-go broadcasts every catalog change to every
// stream, and a change among servers the caller's scope or policy hides
// would tell it about servers it cannot see. The router owes a stream the
// notification (listenStream.owe) before the broadcast, and the stream
// lets through the first list_changed of a kind it is owed, and no other.

type listenStreamKey struct{}

// listenStream is the response writer of a 2026-07-28 client's
// subscriptions/listen. mcp-go writes each SSE event in one Write.
type listenStream struct {
	http.ResponseWriter
	mu   sync.Mutex
	owed map[string]bool // list_changed methods the router owes the stream
}

// wrapListen gives a subscriptions/listen request its filtering response
// writer, and its context the writer for serveListen to find.
func wrapListen(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request) {
	s := &listenStream{ResponseWriter: w, owed: map[string]bool{}}
	return s, r.WithContext(context.WithValue(r.Context(), listenStreamKey{}, s))
}

func (s *listenStream) owe(method string) {
	s.mu.Lock()
	s.owed[method] = true
	s.mu.Unlock()
}

var listChangedMarker = []byte("/list_changed")

func (s *listenStream) Write(p []byte) (int, error) {
	if bytes.Contains(p, listChangedMarker) {
		if m := sseMethod(p); m != "" {
			s.mu.Lock()
			owed := s.owed[m]
			delete(s.owed, m)
			s.mu.Unlock()
			if !owed {
				return len(p), nil // not for this caller: swallowed whole
			}
		}
	}
	return s.ResponseWriter.Write(p)
}

func (s *listenStream) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (mcp-go sets
// write deadlines through it).
func (s *listenStream) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// sseMethod is the method of the list_changed notification an SSE event
// carries, "" for anything else.
func sseMethod(event []byte) string {
	for _, line := range bytes.Split(event, []byte("\n")) {
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(bytes.TrimSpace(data), &m) != nil || len(m.ID) > 0 {
			return ""
		}
		switch m.Method {
		case string(mcp.MethodNotificationToolsListChanged), string(mcp.MethodNotificationPromptsListChanged),
			string(mcp.MethodNotificationResourcesListChanged):
			return m.Method
		}
		return ""
	}
	return ""
}

// listChangeStreams returns the open listen streams with a filtering
// writer, nil when there are none (the rebuild then skips its diff).
func (g *Gateway) listChangeStreams() []*listener {
	g.subs.mu.Lock()
	defer g.subs.mu.Unlock()
	var out []*listener
	for _, l := range g.subs.listeners {
		if l.stream != nil {
			out = append(out, l)
		}
	}
	return out
}

// listKind is one kind of list that changed: its notification, its list
// method, and the items of the servers whose items changed.
type listKind struct {
	method, list string
	items        []pipeline.ListItem
}

// oweListChanges tells each listen stream which list_changed it is owed
// for a catalog change from old to new: a kind whose items changed on a
// server its caller may list (the union of the items before and after,
// through the chain's identity, gate and policy steps, as a list request
// of the caller's would be). Called before the change is published.
func (g *Gateway) oweListChanges(listeners []*listener, old, new catalogLists, changed map[string]bool) {
	var kinds []listKind
	if changed["tools"] {
		kinds = append(kinds, listKind{string(mcp.MethodNotificationToolsListChanged), pipeline.MethodToolsList, changedItems(old.tools, new.tools)})
	}
	if changed["prompts"] {
		kinds = append(kinds, listKind{string(mcp.MethodNotificationPromptsListChanged), pipeline.MethodPromptsList, changedItems(old.prompts, new.prompts)})
	}
	if changed["resources"] {
		kinds = append(kinds, listKind{string(mcp.MethodNotificationResourcesListChanged), pipeline.MethodResourcesList,
			append(changedItems(old.resources, new.resources), changedItems(old.templates, new.templates)...)})
	}
	for _, k := range kinds {
		if len(k.items) == 0 {
			continue
		}
		for _, l := range listeners {
			if g.mayList(l.ctx, k.list, k.items) {
				l.stream.owe(k.method)
			}
		}
	}
}

// oweAllListChanges owes every listen stream every list_changed (a policy
// change may show or hide anything).
func (g *Gateway) oweAllListChanges() {
	for _, l := range g.listChangeStreams() {
		for _, m := range []mcp.MCPMethod{mcp.MethodNotificationToolsListChanged, mcp.MethodNotificationPromptsListChanged,
			mcp.MethodNotificationResourcesListChanged} {
			l.stream.owe(string(m))
		}
	}
}

// mayList reports whether a list request of method by the caller of ctx
// would keep any of items. The chain's identity, gate and policy steps
// decide, as for the caller's own list requests; hooks (user code) and
// the request log are left out: nobody asked for a list.
func (g *Gateway) mayList(ctx context.Context, method string, items []pipeline.ListItem) bool {
	kept := false
	chain := pipeline.New(pipeline.Steps{Identity: pipeline.Identity{CallerFrom: g.o.CallerFrom}, Gate: g.gate,
		Policy: pipeline.PolicyStep{Current: g.o.Policy}}, func(_ context.Context, r *pipeline.Request) (pipeline.Result, error) {
		kept = len(r.List.Items) > 0
		return pipeline.Result{}, nil
	})
	r := &pipeline.Request{Method: method, Client: clientOf(ctx, nil),
		List: &pipeline.List{Items: append([]pipeline.ListItem(nil), items...)}}
	if _, err := chain.Serve(ctx, r); err != nil {
		return false
	}
	return kept
}

// changedItems are the items, before and after, of every server whose
// items in a list differ between old and new.
func changedItems[T any](old, new []listed[T]) []pipeline.ListItem {
	before, after := serverSignatures(old), serverSignatures(new)
	differs := map[string]bool{}
	for s, sig := range before {
		if after[s] != sig {
			differs[s] = true
		}
	}
	for s, sig := range after {
		if before[s] != sig {
			differs[s] = true
		}
	}
	var out []pipeline.ListItem
	for _, l := range [][]listed[T]{old, new} {
		for _, e := range l {
			if differs[e.item.Server] {
				out = append(out, e.item)
			}
		}
	}
	return out
}

// serverSignatures sums up each server's items of a list: names and
// definitions, in list order.
func serverSignatures[T any](l []listed[T]) map[string]string {
	var b = map[string]*bytes.Buffer{}
	for _, e := range l {
		buf := b[e.item.Server]
		if buf == nil {
			buf = &bytes.Buffer{}
			b[e.item.Server] = buf
		}
		raw, _ := json.Marshal(e.value)
		buf.WriteString(e.item.Name)
		buf.WriteByte(0)
		buf.Write(raw)
		buf.WriteByte(0)
	}
	out := make(map[string]string, len(b))
	for s, buf := range b {
		out[s] = buf.String()
	}
	return out
}

// listsNow is the catalog the lists are answered from.
func (g *Gateway) listsNow() catalogLists {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.catalog
}
