package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// inflight is one call being served by an upstream.
type inflight struct {
	server      string
	session     server.ClientSession // nil for a sessionless (stateless) client
	clientToken any                  // the client's own progress token, or nil
	routerToken string
	touch       func() // restarts the upstream timeout
	// client is who made the call, as soleClient counts clients (see
	// askerKey); "" for a call made inside the router, a client of its own.
	client string
	// callCtx is the context the call is served under (mcp-go's handler
	// context on its path); stream is the fast path's response stream of
	// the call, nil on mcp-go's path. Both carry what the upstream asks
	// during the call to the call's own response (callstream.go).
	callCtx context.Context
	stream  *callStream
	// held is the call of a 2026-07-28 client, whose questions become an
	// input_required result (mrtr.go); nil for any other.
	held *heldCall
}

// callRegistry knows which client each upstream call belongs to. Upstream
// connections are shared by all clients, so progress tokens are rewritten
// to router-unique ones on the way up and back on the way down, and a
// request an upstream sends us (sampling, elicitation, roots) goes to the
// client whose call caused it, or to nobody when that cannot be known
// (soleClient).
type callRegistry struct {
	mu       sync.Mutex
	seq      uint64
	byToken  map[string]*inflight
	byServer map[string][]*inflight
	// sessions: each session client's session, by its client key
	// (askerKey), for what a per-client instance asks outside its
	// client's calls; dropped with the session (forgetSession).
	sessions map[string]server.ClientSession
}

func newCallRegistry() *callRegistry {
	return &callRegistry{byToken: map[string]*inflight{}, byServer: map[string][]*inflight{},
		sessions: map[string]server.ClientSession{}}
}

func (r *callRegistry) begin(ctx context.Context, upstreamName, client string, session server.ClientSession, clientToken any, touch func()) *inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	f := &inflight{server: upstreamName, session: session, clientToken: clientToken, touch: touch,
		callCtx: ctx, stream: callStreamFrom(ctx), held: heldCallFrom(ctx)}
	if clientToken != nil {
		f.routerToken = "mcpr-" + strconv.FormatUint(r.seq, 10)
		r.byToken[f.routerToken] = f
	}
	r.byServer[upstreamName] = append(r.byServer[upstreamName], f)
	f.client = client
	if session != nil && session.SessionID() != "" && client != "" {
		r.sessions[client] = session
	}
	return f
}

func (r *callRegistry) end(f *inflight) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.byToken, f.routerToken)
	// In place, in order (soleClient takes the oldest): the list is read
	// only under mu, and keeping its array saves an allocation per call.
	list := r.byServer[f.server]
	for i, x := range list {
		if x == f {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			list = list[:len(list)-1]
			r.byServer[f.server] = list
			break
		}
	}
	if len(list) == 0 && cap(list) > maxIdleCalls {
		delete(r.byServer, f.server) // a burst's array goes once it is over
	}
}

// maxIdleCalls is the largest array of a server's calls kept while it has
// none in flight.
const maxIdleCalls = 64

func (r *callRegistry) byProgressToken(token string) *inflight {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byToken[token]
}

// soleClient is the call to ask on behalf of an upstream whose request
// carries no link to a call (a stdio upstream, an HTTP upstream's GET
// stream): the oldest call in flight there when every call in flight there
// is of one client, else nil. clients is how many clients have calls in
// flight there (askerKey says who a call's client is).
func (r *callRegistry) soleClient(upstreamName string) (f *inflight, clients int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[any]bool{}
	for _, x := range r.byServer[upstreamName] {
		var id any = x.client
		if x.client == "" {
			id = x // a call made inside the router: a client of its own
		}
		if !seen[id] {
			seen[id] = true
			if f == nil {
				f = x
			}
		}
	}
	if len(seen) != 1 {
		return nil, len(seen)
	}
	// Of that client's calls, one parked for its retry (mrtr.go) waits for
	// answers to questions it already asked: a new question comes from
	// another of its calls.
	for _, x := range r.byServer[upstreamName] {
		if x.held == nil || !x.held.parked() {
			return x, 1
		}
	}
	return f, 1
}

// askerKey names the client of a call for soleClient: its session; for a
// 2026-07-28 request, which has none, its credential and the client name it
// declares (two stateless clients of one credential and name cannot be told
// apart, and are one client); "" for a call made inside the router (the chat
// panel), which has neither and no client to ask.
func (g *Gateway) askerKey(ctx context.Context, c pipeline.Client) string {
	if id := c.SessionID(); id != "" {
		return "session\x00" + id
	}
	if c.Modern {
		return "stateless\x00" + g.sessions.credential(ctx) + "\x00" + c.Name
	}
	return ""
}

// errAmbiguousAsk is why an upstream's request went to no client: it came
// outside any call's own stream while no client, or more than one, had
// calls in flight there, so whose it is cannot be known.
var errAmbiguousAsk = errors.New("cannot tell which client it is for")

// askSole is the client and call to ask for an upstream's request that
// came outside any call's own stream: the only client with calls in
// flight there. With none, or with two or more, the request is refused
// (an error the upstream gets as its JSON-RPC error) and logged: asking
// one of them would be a guess, and another client's question or
// sampling prompt, or its roots, must never reach the wrong client.
func (g *Gateway) askSole(upstreamName, what string) (server.ClientSession, *inflight, error) {
	f, n := g.call.soleClient(upstreamName)
	g.suggestPerClient(upstreamName, what, n)
	if f != nil {
		return f.session, f, nil
	}
	err := fmt.Errorf("%s: the router refused the %s request: %d clients have calls in flight on this server, and the request came on no call's own stream, so the router %w (docs/endpoint.md, \"Where server-to-client requests go\")",
		upstreamName, what, n, errAmbiguousAsk)
	g.log.WithField("server", upstreamName).WithField("clients", n).
		Warnf("%s request of server %s refused: %d clients had calls in flight there, and it came on no call's own stream", what, upstreamName, n)
	return nil, nil, err
}

// Notify receives an upstream's notifications when where they came from is
// not known (upstream.Options.OnNotification).
func (g *Gateway) Notify(upstreamName string, n mcp.JSONRPCNotification) {
	g.NotifyFrom(upstreamName, upstream.Origin{}, n)
}

// NotifyFrom receives an upstream's notifications (wire it to
// upstream.Options.OnNotificationFrom). Progress goes back to the client
// that asked for it, under that client's own token; a log message to the
// client it is about (logMessage).
func (g *Gateway) NotifyFrom(upstreamName string, from upstream.Origin, n mcp.JSONRPCNotification) {
	switch n.Method {
	case string(mcp.MethodNotificationProgress):
	case string(mcp.MethodNotificationResourceUpdated):
		g.resourceUpdated(n)
		return
	case string(mcp.MethodNotificationMessage):
		g.logMessage(upstreamName, from, n)
		return
	case string(mcp.MethodNotificationTasksStatus):
		g.taskStatus(upstreamName, n)
		return
	default:
		return
	}
	params := n.Params.AdditionalFields
	token := fmt.Sprint(params["progressToken"])
	f := g.call.byProgressToken(token)
	if f == nil || f.session == nil {
		return
	}
	f.touch()
	out := make(map[string]any, len(params))
	for k, v := range params {
		out[k] = v
	}
	out["progressToken"] = f.clientToken
	if err := g.sendToCaller(f, n.Method, out); err != nil {
		g.log.WithField("server", upstreamName).Debugf("progress not delivered: %v", err)
	}
}

// sendToCaller sends a notification about call f to the client that made
// it. A call answered on a response stream of its own (shareResponse says
// why) gets it there, ahead of its answer; once the call is answered, the
// notification has nothing left to report and is dropped. A 2026-07-28
// request is served by a session of its own that mcp-go registers nowhere
// (it has no id), so a notification for it goes to the session in the
// call's context, whose channel mcp-go writes on the request's own
// response stream ahead of the answer; a session's notification goes
// through the server's registry as before.
func (g *Gateway) sendToCaller(f *inflight, method string, params map[string]any) error {
	if f.stream != nil {
		msg, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
			Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
		if err != nil {
			return err
		}
		return f.stream.sink.writeEvent(msg)
	}
	if f.session.SessionID() == "" && f.callCtx != nil && server.ClientSessionFromContext(f.callCtx) == f.session {
		return g.srv.SendNotificationToClient(f.callCtx, method, params)
	}
	return g.srv.SendNotificationToSpecificClient(f.session.SessionID(), method, params)
}

// ClientSide answers upstream requests by asking the right client (wire it
// to upstream.Options.ClientSide). The client is the one whose call caused
// the request: known exactly when the upstream sent it under the call's
// own context (an HTTP upstream's request on the call's answer stream),
// else taken to be the only client with calls in flight there; with none,
// or two or more, the request is refused (askSole). A request made during
// a call goes on that call's own response stream (callstream.go), so a
// client that holds no GET stream still gets it.
func (g *Gateway) ClientSide() upstream.ClientSide {
	target := func(ctx context.Context, upstreamName, what string) (server.ClientSession, *inflight, error) {
		f := inflightFrom(ctx)
		var s server.ClientSession
		if ic, ok := upstream.InstanceClientFrom(ctx); ok {
			// A per-client instance: its own client, or nobody.
			var err error
			if s, f, err = g.instanceTarget(ctx, upstreamName, what, ic); err != nil {
				return nil, nil, err
			}
		} else if f != nil && f.server == upstreamName && f.session != nil {
			s = f.session
			_, n := g.call.soleClient(upstreamName)
			g.suggestPerClient(upstreamName, what, n)
		} else {
			var err error
			if s, f, err = g.askSole(upstreamName, what); err != nil {
				return nil, nil, err
			}
		}
		if s == nil {
			return nil, nil, fmt.Errorf("%s: no connected client to ask for %s", upstreamName, what)
		}
		if !declares(s, what) {
			if f != nil && f.held != nil {
				// A stateless client's call fails with -32021 naming what
				// it lacks; the upstream's request is refused.
				f.held.finish(pipeline.Result{}, missingCapability(what))
			}
			return nil, nil, fmt.Errorf("%s: the client did not declare the %s capability", upstreamName, what)
		}
		return s, f, nil
	}
	return upstream.ClientSide{
		Sampling: func(ctx context.Context, name string, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			s, f, err := target(ctx, name, "sampling")
			if err != nil {
				return nil, err
			}
			if f != nil && (f.stream != nil || f.held != nil) {
				raw, err := f.ask(ctx, string(mcp.MethodSamplingCreateMessage), req.CreateMessageParams)
				if err != nil {
					return nil, err
				}
				var res mcp.CreateMessageResult
				if err := json.Unmarshal(raw, &res); err != nil {
					return nil, fmt.Errorf("the client's sampling answer: %w", err)
				}
				if res.Content, err = mcp.ParseSamplingContent(res.Content); err != nil {
					return nil, fmt.Errorf("the client's sampling answer: %w", err)
				}
				return &res, nil
			}
			return g.srv.RequestSampling(g.srv.WithContext(withCallValues(ctx, f), s), req)
		},
		Elicitation: func(ctx context.Context, name string, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
			s, f, err := target(ctx, name, "elicitation")
			if err != nil {
				return nil, err
			}
			if f != nil && (f.stream != nil || f.held != nil) {
				if err := req.Params.Validate(); err != nil {
					return nil, err
				}
				raw, err := f.ask(ctx, string(mcp.MethodElicitationCreate), req.Params)
				if err != nil {
					return nil, err
				}
				var res mcp.ElicitationResult
				if err := json.Unmarshal(raw, &res); err != nil {
					return nil, fmt.Errorf("the client's elicitation answer: %w", err)
				}
				return &res, nil
			}
			return g.srv.RequestElicitation(g.srv.WithContext(withCallValues(ctx, f), s), req)
		},
		Roots: func(ctx context.Context, name string, req mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
			s, f, err := target(ctx, name, "roots")
			if err != nil {
				return nil, err
			}
			if f != nil && (f.stream != nil || f.held != nil) {
				raw, err := f.ask(ctx, string(mcp.MethodListRoots), req.Params)
				if err != nil {
					return nil, err
				}
				var res mcp.ListRootsResult
				if err := json.Unmarshal(raw, &res); err != nil {
					return nil, fmt.Errorf("the client's roots answer: %w", err)
				}
				return &res, nil
			}
			return g.srv.RequestRoots(g.srv.WithContext(withCallValues(ctx, f), s), req)
		},
	}
}

// ask puts an upstream's request to the client of call f: in the
// input_required result of a stateless client's call, else on the call's
// own response stream.
func (f *inflight) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if f.held != nil {
		return f.held.ask(ctx, method, params)
	}
	return f.stream.ask(ctx, f.callCtx.Done(), method, params)
}

// declares reports whether the client of session announced capability what
// in its initialize request; asking a client for something it did not
// offer only earns an error, late.
func declares(session server.ClientSession, what string) bool {
	withInfo, ok := session.(server.SessionWithClientInfo)
	if !ok {
		return false
	}
	caps := withInfo.GetClientCapabilities()
	switch what {
	case "sampling":
		return caps.Sampling != nil
	case "elicitation":
		return caps.Elicitation != nil
	case "roots":
		return caps.Roots != nil
	}
	return false
}
