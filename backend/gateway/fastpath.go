package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/gate"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// The fast path is a front end of the forwarding pipeline for the
// commonest request, a plain tools/call on an existing streamable HTTP
// session, that skips mcp-go's server: the message is parsed once for what
// routing needs, the pipeline runs on the raw arguments (identity, gate,
// policy, hooks, send, log — the same chain mcp-go's handlers call), and
// the upstream's result bytes go back to the client as they came, under the
// client's id. Everything else goes to mcp-go (fastPathEligible). Both paths
// answer the same request with the same result, the same errors
// (pipeline/errors.go) and the same request-log entry; the tests hold them
// to it.

// fastSessions are the streamable HTTP sessions mcp-go has registered
// (initialized and not yet deleted), by id. mcp-go keeps its own table
// private, so the gateway follows its register and unregister hooks.
type fastSessions struct {
	m sync.Map // session id → server.ClientSession
}

// trackSessions follows mcp-go's streamable HTTP sessions.
func (g *Gateway) trackSessions(h *server.Hooks) {
	h.AddOnRegisterSession(func(_ context.Context, s server.ClientSession) {
		if isStreamableSession(s) {
			g.fast.sessions.m.Store(s.SessionID(), s)
		}
	})
	h.AddOnUnregisterSession(func(_ context.Context, s server.ClientSession) {
		g.fast.sessions.m.Delete(s.SessionID())
	})
}

// isStreamableSession tells mcp-go's streamable HTTP sessions from its SSE
// and stdio ones (whose ids must never open the fast path of /mcp).
func isStreamableSession(s server.ClientSession) bool {
	_, ok := s.(interface{ UpgradeToSSEWhenReceiveNotification() })
	return ok
}

// fastCalls are the fast path's calls in flight, for notifications/cancelled:
// session id + "\x00" + raw request id → the call's cancel. A map under a
// mutex rather than a sync.Map: that boxes the key and allocates an entry
// per store, and every call stores once and deletes once.
type fastCalls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

func (f *fastCalls) store(key string, cancel context.CancelFunc) {
	f.mu.Lock()
	if f.m == nil {
		f.m = make(map[string]context.CancelFunc)
	}
	f.m[key] = cancel
	f.mu.Unlock()
}

func (f *fastCalls) delete(key string) {
	f.mu.Lock()
	delete(f.m, key)
	f.mu.Unlock()
}

func (f *fastCalls) load(key string) context.CancelFunc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

// fastPath is the gateway's state for the fast path.
type fastPath struct {
	sessions fastSessions
	inflight fastCalls
	disabled atomic.Bool
	served   atomic.Uint64 // calls the fast path answered (tests read it)
	listed   atomic.Uint64 // list requests the fast path answered (tests read it)
	toolJSON toolJSONCache // the published tools' JSON, for the pages of tools/list
}

// EnvFastPath, set to "off" in the router's environment, sends every
// request through mcp-go: a switch to compare the two paths (make bench
// does) or to rule the fast path out when something looks wrong.
const EnvFastPath = "MCPR_FAST_PATH"

// SetFastPath turns the fast path on (the default) or off; off, every
// request goes through mcp-go. For tests and comparisons.
func (g *Gateway) SetFastPath(on bool) { g.fast.disabled.Store(!on) }

// message is what the fast path reads of a JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      json.RawMessage `json:"_meta"`
		Task      json.RawMessage `json:"task"`
		RequestID json.RawMessage `json:"requestId"` // notifications/cancelled
	} `json:"params"`
	// A client's answer to a request the gateway sent on a call's stream.
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

var bodyPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// postState is what servePost reuses from one POST to the next: the body's
// buffer and the message read from it. Neither outlives the POST: what
// the rest of the router keeps of the message (its id, arguments, …) are
// copies the envelope scanner made, not the message itself.
type postState struct {
	buf bytes.Buffer
	m   message
}

var postPool = sync.Pool{New: func() any { return new(postState) }}

// mcpHandler is the front of /mcp, before mcp-go's streamable HTTP
// handler next: whose sessions are whose and how many (sessions.go), how
// long they have been idle (idle.go), and the fast path. A POST's body is
// read once here, for all three.
func (g *Gateway) mcpHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			g.servePost(w, r, next)
		case http.MethodGet, http.MethodDelete:
			if mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
				next.ServeHTTP(w, r) // that revision has no sessions: mcp-go answers 405
				return
			}
			// mcp-go would open a session for a GET without an id (or with
			// an id it never gave out), past every cap and owner.
			sid := r.Header.Get(server.HeaderKeySessionID)
			if sid == "" {
				http.Error(w, "Bad Request: Mcp-Session-Id header is required", http.StatusBadRequest)
				return
			}
			s := g.sessions.owned(g.sessions.credential(r.Context()), sid, false)
			if s == nil {
				unknownSession(w)
				return
			}
			s.begin()
			defer s.end()
			next.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// envelope is what mcp-go reads of every POST before it decides what to
// do with it: a body it fails to read as this fails here too.
type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// servePost answers a POST to /mcp: an initialize opens a session under a
// slot of the caller's credential (or is refused at a cap), any other
// message must name a session of that credential, and a tools/call may
// take the fast path.
func (g *Gateway) servePost(w http.ResponseWriter, r *http.Request, next http.Handler) {
	st := postPool.Get().(*postState)
	buf := &st.buf
	buf.Reset()
	defer func() {
		if buf.Cap() <= 64<<10 {
			st.m = message{} // holds nothing of this POST's in the pool
			postPool.Put(st)
		}
	}()
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	if _, err := buf.ReadFrom(r.Body); err != nil {
		// Let mcp-go answer a body it cannot read, as it always has.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{err}))
		next.ServeHTTP(w, r)
		return
	}
	body := buf.Bytes()
	toMCPGo := func(r *http.Request) {
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	}
	m := &st.m
	*m = message{}
	parsed := decodeMessage(body, m) // json.Unmarshal(body, m) == nil, cheaper
	method, id := m.Method, m.ID
	if !parsed {
		var env envelope
		if json.Unmarshal(body, &env) != nil {
			toMCPGo(r) // mcp-go answers a parse error, before any session
			return
		}
		method, id = env.Method, env.ID
	}
	// The headers the fast path reads, read once.
	proto := r.Header.Get(mcp.HeaderProtocolVersion)
	modern := mcp.IsModernProtocol(proto)
	if method == string(mcp.MethodInitialize) && !modern {
		tk, refusal := g.sessions.reserve(r.Context(), false)
		if refusal != nil {
			writeRefusal(w, id, refusal)
			return
		}
		defer g.sessions.settle(tk)
		toMCPGo(r.WithContext(context.WithValue(r.Context(), ticketKey{}, tk)))
		return
	}
	// A 2026-07-28 client's tasks (taskmodern.go).
	if modern && parsed && g.serveModernTask(w, r, m, body) {
		return
	}
	// A 2026-07-28 retry of a call another replica holds (clusterfront.go).
	if modern && g.forwardHeldRetry(w, r, body) {
		return
	}
	sid := r.Header.Get(server.HeaderKeySessionID)
	h := postHeaders{proto: proto, sid: sid}
	if sid == "" || modern {
		if modern && method == string(mcp.MethodSubscriptionsListen) {
			w, r = wrapListen(w, r) // it gets only the list_changed its caller may see (listen.go)
		}
		toMCPGo(r) // mcp-go answers 404 to a missing id; that revision has none
		return
	}
	s := g.sessions.owned(g.sessions.credential(r.Context()), sid, false)
	if s == nil {
		unknownSession(w)
		return
	}
	s.begin()
	defer s.end()
	if parsed {
		// An answer to a request the gateway sent on a call's stream
		// (callstream.go), taken only from the session it asked.
		if m.Method == "" && g.deliverAnswer(r, m) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		// Tasks are passed on to the upstream that created them
		// (taskfront.go), whichever path plain calls take.
		if g.serveTaskRequest(w, r, m, body) {
			return
		}
		if g.fast.disabled.Load() {
			// every request takes mcp-go's path
		} else if m.Method == string(mcp.MethodNotificationCancelled) {
			g.cancelFast(r, m.Params.RequestID)
		} else if cs, ok := g.fastPathEligible(r, h, m, s); ok && g.serveFast(w, r, cs, m) {
			return
		} else if cs, ok := g.fastListEligible(r, h, m, s); ok && g.serveFastList(w, r, cs, m, body) {
			return
		}
		if shared := g.shareResponse(w, r, m); shared != nil {
			defer shared.finish()
			w, r = shared, r.WithContext(withCallStream(r.Context(),
				&callStream{asks: g.asks, sessionID: sid, sink: shared}))
		}
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	next.ServeHTTP(w, r)
}

// writeRefusal answers an initialize refused at a session cap: HTTP 200
// with the JSON-RPC error, as every other error of a request on /mcp, so
// that clients show its message (which names the setting) to their user;
// no session id is given out.
func writeRefusal(w http.ResponseWriter, id json.RawMessage, refusal *sessionRefusal) {
	e := refusal.jsonrpc(mcp.NewRequestId(nil))
	if len(bytes.TrimSpace(id)) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{mcp.JSONRPC_VERSION, id, e.Error})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(body, '\n'))
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// fastPathEligible decides whether a POST to /mcp may take the fast path:
// a single tools/call request, with a plain id, on a live streamable HTTP
// session of the 2025 protocol revisions, with nothing that needs mcp-go —
// no progress token or other _meta (progress needs the SSE stream), no
// task, and no notifications queued for the session (mcp-go sends them
// ahead of its answer). Batches, notifications and other methods go to
// mcp-go too, which answers them as before (a session that is not the
// caller's never gets here: the front answers 404). Controls on the
// call (scope, gate, policy, hooks) are steps of the pipeline, which both
// paths run; only what the transport itself needs belongs here.
//
// A client is eligible whatever it declared: the requests an upstream
// sends during the call (sampling, elicitation, roots) and its log messages
// go on the call's own response, which then becomes an event stream
// (callstream.go), as on mcp-go's path. TestServerRequestsReachTheCallingClient
// and TestGoSDKClientWithoutGETStreamGetsServerRequestsOnTheCall hold both
// paths to it.
func (g *Gateway) fastPathEligible(r *http.Request, h postHeaders, m *message, owned *ownedSession) (server.ClientSession, bool) {
	if m.Method != string(mcp.MethodToolsCall) || m.Params.Name == "" {
		return nil, false
	}
	return g.fastSession(r, h, m, owned)
}

// postHeaders are a POST's headers the fast path reads, read once by
// servePost: its protocol revision and session id.
type postHeaders struct {
	proto string // Mcp-Protocol-Version
	sid   string // Mcp-Session-Id
}

// fastSession is the session of a request that may skip mcp-go, whatever
// its method: a single request with a plain id, JSON, of the 2025
// revisions, on a live session of the caller's, with nothing queued for it.
func (g *Gateway) fastSession(r *http.Request, h postHeaders, m *message, owned *ownedSession) (server.ClientSession, bool) {
	if m.JSONRPC != mcp.JSONRPC_VERSION || !plainID(m.ID) || len(m.Params.Task) > 0 || !emptyMeta(m.Params.Meta) {
		return nil, false
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return nil, false
		}
	}
	if v := h.proto; v != "" && (!mcp.IsValidProtocolVersion(v) || mcp.IsModernProtocol(v)) {
		return nil, false
	}
	// A session of the caller's credential (the front found it: owned),
	// the one the request names, and registered (initialized, not
	// deleted).
	sid := h.sid
	if owned == nil || sid == "" || owned.id != sid {
		return nil, false
	}
	v, ok := g.fast.sessions.m.Load(sid)
	if !ok {
		return nil, false
	}
	s := v.(server.ClientSession)
	// Notifications waiting for a POST to carry them (a client without a
	// GET stream): mcp-go's answer delivers them first.
	if len(s.NotificationChannel()) > 0 {
		return nil, false
	}
	return s, true
}

// plainID is an id both paths write back byte for byte: an integer mcp-go
// keeps exact, or a string of characters no JSON encoder escapes.
func plainID(id json.RawMessage) bool {
	n := len(id)
	if n == 0 {
		return false
	}
	if id[0] == '"' {
		if n < 2 || id[n-1] != '"' {
			return false
		}
		for _, c := range id[1 : n-1] {
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func emptyMeta(meta json.RawMessage) bool {
	t := bytes.TrimSpace(meta)
	return len(t) == 0 || string(t) == "null" || string(t) == "{}"
}

// asksProgress reports whether a request's _meta carries a progress token.
func asksProgress(meta json.RawMessage) bool {
	if emptyMeta(meta) {
		return false
	}
	var m struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	}
	return json.Unmarshal(meta, &m) == nil && len(m.ProgressToken) > 0 && string(m.ProgressToken) != "null"
}

// requestID is the mcp-go id of a plain raw id.
func requestID(raw json.RawMessage) mcp.RequestId {
	if raw[0] == '"' {
		return mcp.NewRequestId(string(raw[1 : len(raw)-1]))
	}
	n, _ := strconv.ParseInt(string(raw), 10, 64)
	return mcp.NewRequestId(n)
}

// serveFast answers a tools/call through the pipeline. It reports false,
// having written nothing, when the tool is unknown (mcp-go then answers,
// exactly as for any unknown tool), needs a task, or is a gate's activate
// tool (whose answer may come with tools/list_changed, which mcp-go's
// answer carries to a client without a GET stream).
func (g *Gateway) serveFast(w http.ResponseWriter, r *http.Request, s server.ClientSession, m *message) bool {
	g.mu.RLock()
	un, ok := g.tools[m.Params.Name]
	taskOnly := g.taskOnly[m.Params.Name]
	_, ability := g.abilities[m.Params.Name]
	g.mu.RUnlock()
	// An ability's arguments are checked and mapped on mcp-go's path.
	if !ok || taskOnly || ability || un.Item == gate.ActivateItem {
		return false
	}
	// So does the policy's question to the client (human approval): only
	// mcp-go's path writes it on the POST's stream, which a client reads
	// whether or not it holds a GET stream.
	if g.o.AsksClient != nil && declares(s, "elicitation") && g.o.AsksClient(g.o.CallerFrom(r.Context()), un.Server, un.Item, m.Params.Name) {
		return false
	}
	g.fast.served.Add(1)
	sid := s.SessionID()
	key := sid + "\x00" + string(m.ID)
	ctx, cancel := context.WithCancel(r.Context())
	// The call's response, stream and request in one allocation.
	c := &fastCall{resp: fastResponse{w: w}}
	c.stream = callStream{asks: g.asks, sessionID: sid, sink: &c.resp}
	ctx = withCallStream(ctx, &c.stream)
	g.fast.inflight.store(key, cancel)
	req := &c.req
	*req = pipeline.Request{Method: pipeline.MethodToolsCall, Client: pipeline.Client{Session: s},
		Server: un.Server, Item: un.Item, Target: m.Params.Name}
	if a := bytes.TrimSpace(m.Params.Arguments); len(a) > 0 && string(a) != "null" {
		req.Args = a
	}
	sent := *req
	res, err := g.chain.Serve(ctx, req)
	if err == nil {
		res, err = g.bridgeInput(ctx, sent, s, res)
	}
	g.fast.inflight.delete(key)
	cancel()

	out := bodyPool.Get().(*bytes.Buffer)
	out.Reset()
	defer bodyPool.Put(out)
	var raw json.RawMessage
	if err == nil {
		raw, err = res.JSON()
	}
	if err != nil {
		// The same encoder, struct and escaping as mcp-go's response.
		_ = json.NewEncoder(out).Encode(jsonrpcError(requestID(m.ID), err))
	} else {
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(m.ID)
		out.WriteString(`,"result":`)
		out.Write(raw)
		out.WriteString("}\n")
	}
	c.resp.answer(out.Bytes())
	return true
}

// fastCall is what a fast-path call allocates for itself.
type fastCall struct {
	resp   fastResponse
	stream callStream
	req    pipeline.Request
}

// shareResponse gives mcp-go a response writer the gateway can also write
// the call's server requests and progress on, for a request that reaches
// an upstream, made on a session of the 2025 revisions whose client
// declared sampling, elicitation or roots or that asks for progress; nil
// for any other. Progress goes on the call's own stream because mcp-go
// (v1.2.1) has one notification channel per session, read both by the
// POST's handler and by the session's GET stream: a notification sent
// through it just before the answer could leave on the GET stream and
// reach the client after the answer.
func (g *Gateway) shareResponse(w http.ResponseWriter, r *http.Request, m *message) *sharedResponse {
	switch m.Method {
	case string(mcp.MethodToolsCall), string(mcp.MethodPromptsGet), string(mcp.MethodResourcesRead):
	default:
		return nil
	}
	if len(m.ID) == 0 || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
		return nil
	}
	v, ok := g.fast.sessions.m.Load(r.Header.Get(server.HeaderKeySessionID))
	if !ok {
		return nil
	}
	s := v.(server.ClientSession)
	if !declares(s, "sampling") && !declares(s, "elicitation") && !declares(s, "roots") && !asksProgress(m.Params.Meta) {
		return nil
	}
	return newSharedResponse(w)
}

// deliverAnswer hands a client's JSON-RPC response to the request the
// gateway sent on a fast-path call's stream, if it is the answer to one,
// from the session that was asked.
func (g *Gateway) deliverAnswer(r *http.Request, m *message) bool {
	if len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0) {
		return false
	}
	sid := r.Header.Get(server.HeaderKeySessionID)
	return sid != "" && g.asks.deliver(sid, bytes.TrimSpace(m.ID), m.Result, m.Error)
}

// jsonrpcError is the error answer mcp-go's path gives for err: a routing
// error in the router's format, anything else (a hook's block) as mcp-go
// words a handler's error.
func jsonrpcError(id mcp.RequestId, err error) mcp.JSONRPCError {
	var re *pipeline.RouteError
	if errors.As(err, &re) {
		return re.JSONRPCError(id)
	}
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
		Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, err.Error(), nil)}
}

var contentTypeJSON = []string{"application/json"}

// cancelFast cancels a fast-path call named by a client's
// notifications/cancelled (mcp-go cancels its own).
func (g *Gateway) cancelFast(r *http.Request, id json.RawMessage) {
	sid := r.Header.Get(server.HeaderKeySessionID)
	if sid == "" || len(id) == 0 {
		return
	}
	if c := g.fast.inflight.load(sid + "\x00" + string(bytes.TrimSpace(id))); c != nil {
		c()
	}
}
