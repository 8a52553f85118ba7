package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// Sessions are bounded and owned (docs/limits.md, "Sessions").
//
// Every streamable HTTP and legacy SSE session belongs to the credential
// that opened it (the token, the JWT's issuer and subject, or the anonymous
// identity with auth off): a request, GET stream or DELETE naming it from
// any other credential is answered exactly as for a session that does not
// exist. A credential may hold SessionLimits.PerCredential sessions and all
// credentials together SessionLimits.Total; past either, a new session is
// refused with a JSON-RPC error naming the cap and its setting. A refused
// client loses nothing it had, and no other credential loses anything.
//
// mcp-go (v1.2.1) knows neither owners nor caps, so the gateway gives out
// the session ids itself (sessionTable is /mcp's SessionIdManagerResolver
// and /sse's id generator) and stands in front of both transports
// (mcpHandler, sseHandler, messageHandler): an id is minted only under a
// slot the front reserved for the request's credential, and mcp-go's own
// checks of an id (POST, the fast path) ask whose it is.

// Defaults of the session limits (backend/settings/sessions.go holds the
// settings that change them).
const (
	// DefaultSessionsPerCredential is far above what one client needs (it
	// holds one session; a restart leaves one behind until the idle
	// timeout) and far below what hurts the router (about 16 KB each).
	DefaultSessionsPerCredential = 100
	// DefaultSessionsTotal bounds what all sessions hold together to about
	// 16 MB (docs/limits.md has the figures measured).
	DefaultSessionsTotal = 1000
	// DefaultSessionIdleTTL is how long a streamable HTTP session may go
	// with no request and no open stream before the router ends it.
	//
	// Most clients never end their session: the TypeScript SDK's client,
	// for one, just closes its connections when its process exits. With
	// the event store, mcp-go keeps such a session (its registration, its
	// GET stream's pump, its stored events) until a DELETE, so a router
	// running for weeks would collect one per client restart, each holding
	// one of its credential's slots. A live client keeps its GET stream
	// open, which keeps its session however long it stays quiet; one
	// without a stream that comes back after the TTL gets 404 and, as the
	// transport spec requires, initializes a new session.
	DefaultSessionIdleTTL = 10 * time.Minute
)

// The settings that raise each cap, named in the refusals (the keys of
// backend/settings/sessions.go; core's tests hold them equal).
const (
	SettingSessionsPerCredential = "sessionsPerCredential"
	SettingSessionsTotal         = "sessionsTotal"
	SettingSessionIdleTimeout    = "sessionIdleTimeout"
)

// SessionLimits bound the HTTP sessions (streamable and legacy SSE); zero
// fields are the defaults.
type SessionLimits struct {
	PerCredential int           // sessions one credential may hold at once
	Total         int           // sessions all credentials together may hold
	IdleTTL       time.Duration // a streamable session with no request and no open stream this long is ended
}

func (l SessionLimits) withDefaults() SessionLimits {
	if l.PerCredential <= 0 {
		l.PerCredential = DefaultSessionsPerCredential
	}
	if l.Total <= 0 {
		l.Total = DefaultSessionsTotal
	}
	if l.IdleTTL <= 0 {
		l.IdleTTL = DefaultSessionIdleTTL
	}
	return l
}

// sessionIDPrefix keeps the ids in the form mcp-go gave out before.
const sessionIDPrefix = "mcp-session-"

// errUnknownSession is what mcp-go hears of an id that is not a live
// session of the request's credential; it answers 404, as for any unknown
// id.
var errUnknownSession = errors.New("no such session")

// sessionTable is every HTTP session the gateway gave out: its owner, its
// transport and its activity, and how many each credential holds. It is
// also mcp-go's SessionIdManagerResolver for /mcp.
type sessionTable struct {
	limits     func() SessionLimits
	credential func(ctx context.Context) string // whose a request is
	label      func(ctx context.Context) string // who, in a refusal's words
	log        logrus.FieldLogger
	end        func(id string) // ends a streamable session as the client's DELETE would; set by HTTPHandler
	// cluster, when set, mints the streamable ids (<replica>.<random>.<mac>)
	// and records their owner in Redis (clusterfront.go).
	cluster *cluster.Cluster

	mu      sync.RWMutex
	byID    map[string]*ownedSession
	byOwner map[string]int // sessions and reserved slots per credential
	total   int

	lastSweep atomic.Int64
	sweeping  atomic.Bool
	swept     atomic.Uint64 // sessions ended idle (tests read it)
	refused   atomic.Uint64 // sessions refused at a cap (tests read it)
	lastNote  atomic.Int64  // when a refusal was last logged
}

// ownedSession is one session given out.
type ownedSession struct {
	id, owner  string
	legacySSE  bool // /sse's: lives exactly as long as its stream
	registered bool // mcp-go registered it (initialized); under the table's mu
	last       atomic.Int64
	open       atomic.Int32 // requests in progress, GET streams included
	claimed    atomic.Int64 // when its owner was last recorded in Redis (clusterfront.go)
}

func (s *ownedSession) touch() { s.last.Store(time.Now().UnixNano()) }

// sessionTicket is a slot reserved for one request that may open a
// session; minted is the id given out under it ("" until then; under the
// table's mu).
type sessionTicket struct {
	owner  string
	sse    bool
	minted string
}

type ticketKey struct{}

// systemKey marks the requests the gateway sends itself (the idle sweep's
// DELETE): they may end any session.
type systemKey struct{}

func newSessionTable(limits func() SessionLimits, credential, label func(context.Context) string,
	log logrus.FieldLogger, h *server.Hooks) *sessionTable {
	t := &sessionTable{limits: limits, credential: credential, label: label, log: log,
		byID: map[string]*ownedSession{}, byOwner: map[string]int{}}
	h.AddOnRegisterSession(t.registered)
	h.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) { t.forget(cs.SessionID()) })
	return t
}

func (t *sessionTable) currentLimits() SessionLimits {
	if t.limits == nil {
		return SessionLimits{}.withDefaults()
	}
	return t.limits().withDefaults()
}

// sessionRefusal is why a new session was refused: the cap reached, the
// number held, and the setting that raises it.
type sessionRefusal struct {
	setting string
	limit   int
	who     string // "" for the total cap
}

func (r *sessionRefusal) Error() string {
	if r.who == "" {
		return fmt.Sprintf("too many sessions: the router holds %d, the most it keeps for all clients together (setting %s); "+
			"sessions with no open stream end after %s of no requests, or raise the cap: mcp-router settings set %s N",
			r.limit, r.setting, SettingSessionIdleTimeout, r.setting)
	}
	return fmt.Sprintf("too many sessions: the credential %q already holds %d, the most one credential may hold (setting %s); "+
		"end the sessions it no longer uses (DELETE), wait for idle ones to end (setting %s), or raise the cap: mcp-router settings set %s N",
		r.who, r.limit, r.setting, SettingSessionIdleTimeout, r.setting)
}

// jsonrpc is the refusal as a JSON-RPC error answering id.
func (r *sessionRefusal) jsonrpc(id mcp.RequestId) mcp.JSONRPCError {
	return mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: id,
		Error: mcp.NewJSONRPCErrorDetails(pipeline.CodeSessionLimit, r.Error(),
			map[string]any{"reason": pipeline.ReasonSessionLimit, "setting": r.setting, "limit": r.limit})}
}

// reserve takes a slot for a session of ctx's credential, or says which cap
// refuses it. The slot is the ticket's until settle.
func (t *sessionTable) reserve(ctx context.Context, sse bool) (*sessionTicket, *sessionRefusal) {
	// A credential at its cap waits for the sweep to end what it left
	// idle: it runs on attempts too, not only on new sessions.
	defer t.sweep()
	owner := t.credential(ctx)
	lim := t.currentLimits()
	t.mu.Lock()
	var refusal *sessionRefusal
	switch {
	case t.byOwner[owner] >= lim.PerCredential:
		refusal = &sessionRefusal{setting: SettingSessionsPerCredential, limit: lim.PerCredential, who: t.label(ctx)}
	case t.total >= lim.Total:
		refusal = &sessionRefusal{setting: SettingSessionsTotal, limit: lim.Total}
	default:
		t.byOwner[owner]++
		t.total++
	}
	t.mu.Unlock()
	if refusal != nil {
		t.noteRefusal(refusal)
		return nil, refusal
	}
	return &sessionTicket{owner: owner, sse: sse}, nil
}

// noteRefusal logs refusals, at most one line every ten seconds: a flood
// of them must not flood the log as well.
func (t *sessionTable) noteRefusal(r *sessionRefusal) {
	n := t.refused.Add(1)
	now := time.Now().UnixNano()
	if last := t.lastNote.Load(); now-last >= int64(10*time.Second) && t.lastNote.CompareAndSwap(last, now) {
		t.log.Warnf("refused a new session (%d refused so far): %v", n, r)
	}
}

// mint gives out a new session id under ctx's ticket. Without one (a path
// that opens a session the front did not foresee) the session is still
// owned and counted, past the caps if need be, and logged.
func (t *sessionTable) mint(ctx context.Context, sse bool) string {
	id := sessionIDPrefix + uuid.NewString()
	if t.cluster != nil && !sse {
		id = t.cluster.MintSessionID()
	}
	tk, _ := ctx.Value(ticketKey{}).(*sessionTicket)
	s := &ownedSession{id: id, legacySSE: sse}
	s.touch()
	t.mu.Lock()
	defer t.mu.Unlock()
	if tk != nil && tk.minted == "" && tk.sse == sse {
		tk.minted = id
		s.owner = tk.owner
	} else {
		s.owner = t.credential(ctx)
		t.byOwner[s.owner]++
		t.total++
		t.log.Warnf("a session was opened without a reserved slot (session %s)", id)
	}
	t.byID[id] = s
	return id
}

// settle gives back a ticket's slot if no session holds it: none was
// minted, or the one minted was never registered (the client went away
// during its initialize).
func (t *sessionTable) settle(tk *sessionTicket) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tk.minted == "" {
		t.releaseLocked(tk.owner)
		return
	}
	if s := t.byID[tk.minted]; s != nil && !s.registered {
		t.removeLocked(s)
	}
}

func (t *sessionTable) releaseLocked(owner string) {
	if t.byOwner[owner]--; t.byOwner[owner] <= 0 {
		delete(t.byOwner, owner)
	}
	t.total--
}

func (t *sessionTable) removeLocked(s *ownedSession) {
	delete(t.byID, s.id)
	t.releaseLocked(s.owner)
}

// registered follows mcp-go's registrations. A streamable session
// registered after it was ended (a DELETE racing its initialize's answer)
// is ended again, or mcp-go would keep it with nobody able to reach it.
func (t *sessionTable) registered(_ context.Context, cs server.ClientSession) {
	id := cs.SessionID()
	t.mu.Lock()
	s := t.byID[id]
	if s != nil {
		s.registered = true
		s.touch()
	}
	t.mu.Unlock()
	switch {
	case s != nil:
		t.claim(s)
		t.sweep()
	case isStreamableSession(cs) && t.end != nil:
		go t.end(id)
	}
}

// forget lets a session go (ended by its client, the sweep, or its stream).
func (t *sessionTable) forget(id string) {
	t.mu.Lock()
	s := t.byID[id]
	if s != nil {
		t.removeLocked(s)
	}
	t.mu.Unlock()
	if s != nil && !s.legacySSE && t.cluster != nil {
		go t.cluster.ReleaseSession(context.Background(), id)
	}
}

// owned returns the session id names if owner holds it on that transport.
func (t *sessionTable) owned(owner, id string, sse bool) *ownedSession {
	t.mu.RLock()
	s := t.byID[id]
	t.mu.RUnlock()
	if s == nil || s.owner != owner || s.legacySSE != sse {
		return nil
	}
	return s
}

// held counts the sessions and reserved slots of one credential, and of
// all (tests read it).
// SessionCount is how many client sessions are open (HTTP and SSE).
func (g *Gateway) SessionCount() int {
	g.sessions.mu.RLock()
	defer g.sessions.mu.RUnlock()
	return g.sessions.total
}

func (t *sessionTable) held(owner string) (mine, total int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byOwner[owner], t.total
}

// ResolveSessionIdManager gives mcp-go the ids of the request's
// credential: it validates and ends only that credential's sessions. The
// gateway's own requests (and mcp-go's, with no request) may end any.
func (t *sessionTable) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
		return sessionIDs{t: t, ctx: context.Background(), system: true}
	}
	ctx := r.Context()
	if ctx.Value(systemKey{}) != nil {
		return sessionIDs{t: t, ctx: ctx, system: true}
	}
	return sessionIDs{t: t, ctx: ctx, owner: t.credential(ctx)}
}

var _ server.SessionIdManagerResolver = (*sessionTable)(nil)

// sessionIDs is the table seen by one request.
type sessionIDs struct {
	t      *sessionTable
	ctx    context.Context
	owner  string
	system bool
}

func (m sessionIDs) Generate() string { return m.t.mint(m.ctx, false) }

func (m sessionIDs) Validate(id string) (isTerminated bool, err error) {
	if m.t.owned(m.owner, id, false) == nil && !(m.system && m.t.known(id)) {
		return false, errUnknownSession
	}
	return false, nil
}

// Terminate ends the request's own session (mcp-go then cleans it up);
// another credential's stays as it was.
func (m sessionIDs) Terminate(id string) (isNotAllowed bool, err error) {
	if !m.system && m.t.owned(m.owner, id, false) == nil {
		return false, errUnknownSession
	}
	m.t.forget(id)
	return false, nil
}

func (t *sessionTable) known(id string) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byID[id] != nil
}

// sseSessionID is /sse's id generator: ids under the stream request's
// ticket.
func (t *sessionTable) sseSessionID(ctx context.Context, _ *http.Request) (string, error) {
	return t.mint(ctx, true), nil
}

// begin and end bracket a request on session s: it is kept from the idle
// sweep while one runs.
func (s *ownedSession) begin() {
	s.touch()
	s.open.Add(1)
}

func (s *ownedSession) end() {
	s.touch()
	s.open.Add(-1)
}

// unknownSession answers a streamable HTTP request naming a session that is
// not the caller's, in the words and status mcp-go uses for an id it does
// not know.
func unknownSession(w http.ResponseWriter) {
	http.Error(w, "Invalid session ID", http.StatusNotFound)
}

// unknownSSESession answers a legacy SSE message naming a session that is
// not the caller's, as mcp-go answers one for a session it does not know.
func unknownSSESession(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(nil),
		Error: mcp.NewJSONRPCErrorDetails(mcp.INVALID_PARAMS, "Invalid session ID", nil)})
}

// sseHandler wraps /sse: each stream is a session, opened under a slot of
// its credential or refused with 429 and the refusal as a JSON-RPC error.
func (g *Gateway) sseHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r) // mcp-go answers 405
			return
		}
		tk, refusal := g.sessions.reserve(r.Context(), true)
		if refusal != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			_ = json.NewEncoder(w).Encode(refusal.jsonrpc(mcp.NewRequestId(nil)))
			return
		}
		defer g.sessions.settle(tk)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ticketKey{}, tk)))
	})
}

// messageHandler wraps /message: a message for a session of another
// credential is answered as one for a session that does not exist.
func (g *Gateway) messageHandler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.URL.Query().Get("sessionId"); id != "" && r.Method == http.MethodPost &&
			g.sessions.owned(g.sessions.credential(r.Context()), id, true) == nil {
			unknownSSESession(w)
			return
		}
		next.ServeHTTP(w, r)
	})
}
