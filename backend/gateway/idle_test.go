package gateway

import (
	"net/http"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

func (s *rawHTTP) listStatus() int {
	s.t.Helper()
	status, _, _ := s.post(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	return status
}

func (r *rig) trackedSessions() int {
	_, n := r.gw.sessions.held("")
	return n
}

// A client that goes away without a DELETE leaves its session behind; the
// router ends it once it has been idle for the TTL, so a router running for
// weeks does not collect one per client restart. Sessions with an open GET
// stream, or with a recent request, are kept however long they stay quiet.
func TestIdleSessionsAreEnded(t *testing.T) {
	const ttl = time.Second
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{sessions: SessionLimits{IdleTTL: ttl}})

	abandoned := newRawHTTP(t, r.url)
	listening := newRawHTTP(t, r.url)
	if status, _, _ := listening.listen(""); status != http.StatusOK {
		t.Fatalf("GET stream: HTTP %d", status)
	}
	busy := newRawHTTP(t, r.url)
	if _, ok := r.gw.fast.sessions.m.Load(abandoned.sid); !ok {
		t.Fatal("the gateway does not know the session it just made")
	}

	// An id the router never gave out is answered as before and not tracked.
	before := r.trackedSessions()
	stranger := &rawHTTP{url: r.url, t: t, sid: "mcp-session-00000000-0000-0000-0000-000000000000"}
	if status := stranger.listStatus(); status != http.StatusNotFound && status != http.StatusBadRequest {
		t.Errorf("unknown session: HTTP %d", status)
	}
	if n := r.trackedSessions(); n != before {
		t.Errorf("tracked sessions went from %d to %d for an unknown id", before, n)
	}

	time.Sleep(ttl + ttl/5)
	if status := busy.listStatus(); status != http.StatusOK {
		t.Fatalf("busy session: HTTP %d", status)
	}
	newRawHTTP(t, r.url) // a new session is when the router sweeps

	testpeers.Eventually(t, 5*time.Second, "the abandoned session ended", func() bool {
		return r.gw.sessions.swept.Load() > 0 && !r.gw.sessions.sweeping.Load()
	})
	if n := r.gw.sessions.swept.Load(); n != 1 {
		t.Errorf("%d sessions ended, want only the abandoned one", n)
	}
	if status := abandoned.listStatus(); status != http.StatusNotFound {
		t.Errorf("the ended session answered HTTP %d, want 404 so the client initializes again", status)
	}
	if _, ok := r.gw.fast.sessions.m.Load(abandoned.sid); ok {
		t.Error("the gateway still holds the ended session")
	}
	for name, s := range map[string]*rawHTTP{"with an open stream": listening, "with a recent request": busy} {
		if status := s.listStatus(); status != http.StatusOK {
			t.Errorf("the session %s was ended: HTTP %d", name, status)
		}
	}
}

// A session the client ends itself is let go at once, without a sweep.
func TestDeletedSessionIsNoLongerTracked(t *testing.T) {
	r := newRig(t, []spec.Server{everything(t, "everything", spec.PrefixAlways)}, rigOptions{sessions: SessionLimits{IdleTTL: time.Hour}})
	s := newRawHTTP(t, r.url)
	if n := r.trackedSessions(); n != 1 {
		t.Fatalf("%d sessions tracked after one initialize", n)
	}
	req, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	req.Header.Set(server.HeaderKeySessionID, s.sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	if n := r.trackedSessions(); n != 0 {
		t.Errorf("%d sessions still tracked after the client's DELETE", n)
	}
	if n := r.gw.sessions.swept.Load(); n != 0 {
		t.Errorf("the sweep ended %d sessions", n)
	}
}
