package gateway

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"
)

// DefaultSessionIdleTTL is how long a streamable HTTP session may go with
// no request and no open stream before the router ends it.
//
// Most clients never end their session: the TypeScript SDK's client, for
// one, just closes its connections when its process exits. With the event
// store, mcp-go keeps such a session (its registration, its GET stream's
// pump, its stored events) until a DELETE, so a router running for weeks
// would collect one per client restart. A live client keeps its GET stream
// open, which keeps its session however long it stays quiet; one without a
// stream that comes back after the TTL gets 404 and, as the transport spec
// requires, initializes a new session.
const DefaultSessionIdleTTL = time.Hour

// idleSessions follows the activity of the streamable HTTP sessions made
// through /mcp and ends those idle for longer than ttl. Sweeps run when a
// new session is made, the moment a restarted client leaves its old one,
// and at most every ttl/4; between them a router holds at most the
// sessions abandoned since the last one.
type idleSessions struct {
	ttl       time.Duration
	end       func(id string) // ends the session as the client's DELETE would
	log       logrus.FieldLogger
	sessions  sync.Map // session id → *sessionActivity
	lastSweep atomic.Int64
	sweeping  atomic.Bool
	swept     atomic.Uint64 // sessions ended (tests read it)
}

type sessionActivity struct {
	last atomic.Int64 // unix nanoseconds: when the latest request started or ended
	open atomic.Int32 // requests in progress, GET streams included
}

func (a *sessionActivity) touch() { a.last.Store(time.Now().UnixNano()) }

// newIdleSessions ends sessions through streamable, which must be mcp-go's
// handler for /mcp. ttl ≤ 0 turns the sweeps off.
func newIdleSessions(ttl time.Duration, streamable http.Handler, log logrus.FieldLogger) *idleSessions {
	return &idleSessions{ttl: ttl, log: log, end: func(id string) {
		req, _ := http.NewRequest(http.MethodDelete, "http://127.0.0.1"+PathMCP, nil)
		req.Header.Set(server.HeaderKeySessionID, id)
		streamable.ServeHTTP(discardResponse{header: http.Header{}}, req)
	}}
}

// track wraps the /mcp handler. A session is known from the initialize
// answer that gave out its id, so ids the router never issued take no
// room here.
func (s *idleSessions) track(next http.Handler) http.Handler {
	if s.ttl <= 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(server.HeaderKeySessionID)
		if id == "" {
			next.ServeHTTP(w, r)
			if id = w.Header().Get(server.HeaderKeySessionID); id != "" {
				a := &sessionActivity{}
				a.touch()
				s.sessions.LoadOrStore(id, a)
				s.sweep()
			}
			return
		}
		v, ok := s.sessions.Load(id)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		a := v.(*sessionActivity)
		a.touch()
		a.open.Add(1)
		defer func() {
			a.touch()
			a.open.Add(-1)
			if r.Method == http.MethodDelete {
				s.sessions.Delete(id)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// sweep ends, in the background, every session with nothing open and no
// request for longer than ttl.
func (s *idleSessions) sweep() {
	now := time.Now().UnixNano()
	if last := s.lastSweep.Load(); now-last < int64(s.ttl/4) || !s.lastSweep.CompareAndSwap(last, now) {
		return
	}
	if !s.sweeping.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer s.sweeping.Store(false)
		cutoff := time.Now().Add(-s.ttl).UnixNano()
		s.sessions.Range(func(k, v any) bool {
			a := v.(*sessionActivity)
			if a.open.Load() == 0 && a.last.Load() < cutoff {
				s.sessions.Delete(k)
				s.end(k.(string))
				s.swept.Add(1)
				s.log.WithField("session", k).Infof("ended a session with no request and no open stream for over %s", s.ttl)
			}
			return true
		})
	}()
}

// discardResponse takes the answer to a DELETE the router sends itself.
type discardResponse struct{ header http.Header }

func (d discardResponse) Header() http.Header         { return d.header }
func (d discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d discardResponse) WriteHeader(int)             {}
