package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// as is the credential header of headerCaller.
func as(who string) http.Header { return http.Header{"X-Caller": {who}} }

const initializeBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// neverIssued is a well-formed session id the router never gave out.
const neverIssued = "mcp-session-00000000-0000-0000-0000-000000000000"

// request sends one request to url as who, naming session sid unless it
// is "", and returns its status, headers and body. A GET's stream is read
// for at most a moment: only its status and first bytes matter here.
func request(t *testing.T, method, url, who, sid, body string, header map[string]string) (int, http.Header, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("X-Caller", who)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(server.HeaderKeySessionID, sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") == "text/event-stream" {
		return resp.StatusCode, resp.Header, nil // a stream: never ends by itself
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// A session belongs to the credential that opened it: bob, knowing alice's
// Mcp-Session-Id, gets for every request naming it exactly the answer for a
// session that does not exist — a call on the fast path and on mcp-go's, a
// list, the GET stream (fresh and resumed), and the DELETE — and nothing he
// sends reaches the upstream. Alice's session works on as before.
func TestSessionOfAnotherCredentialIsUnknown(t *testing.T) {
	r := newRig(t, []spec.Server{recorder("rec", false)}, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	r.waitTool(t, "rec__echo")
	alice := newRawHTTPAs(t, r.url, as("alice"))
	if status, _, _ := alice.listen(""); status != http.StatusOK {
		t.Fatalf("alice's GET stream: HTTP %d", status)
	}
	before := len(received(t, r, "rec"))

	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rec__echo","arguments":{}}}`
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	type attempt struct {
		name, method, body string
		header             map[string]string
	}
	attempts := []attempt{
		{"a call", http.MethodPost, call, nil},
		{"a list", http.MethodPost, list, nil},
		{"the initialized notification", http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{"the GET stream", http.MethodGet, "", nil},
		{"a resumed GET stream", http.MethodGet, "", map[string]string{"Last-Event-ID": "1"}},
		{"the DELETE", http.MethodDelete, "", nil},
	}
	for _, fast := range []bool{true, false} {
		r.gw.SetFastPath(fast)
		for _, a := range attempts {
			wantStatus, _, wantBody := request(t, a.method, r.url, "bob", neverIssued, a.body, a.header)
			status, hdr, body := request(t, a.method, r.url, "bob", alice.sid, a.body, a.header)
			if status != http.StatusNotFound || wantStatus != http.StatusNotFound || string(body) != string(wantBody) {
				t.Errorf("fast path %v: bob's %s in alice's session: HTTP %d %q (%s); an unknown session's: HTTP %d %q",
					fast, a.name, status, body, hdr.Get("Content-Type"), wantStatus, wantBody)
			}
		}
	}
	r.gw.SetFastPath(true)

	// mcp-go's own checks of an id (its POST, its DELETE, the fast
	// path's) ask whose it is too, behind the front's.
	asBob := httptest.NewRequest(http.MethodPost, PathMCP, nil)
	asBob = asBob.WithContext(context.WithValue(asBob.Context(), callerKey{}, "bob"))
	ids := r.gw.sessions.ResolveSessionIdManager(asBob)
	if _, err := ids.Validate(alice.sid); err == nil {
		t.Error("mcp-go's check takes alice's session for bob's")
	}
	if _, err := ids.Terminate(alice.sid); err == nil {
		t.Error("mcp-go's DELETE would end alice's session for bob")
	}

	// Alice's session is whole: its calls on both paths, its stream.
	served := r.gw.fast.served.Load()
	if body := alice.call(3, "rec__echo", "{}"); !strings.Contains(string(body), `"result"`) {
		t.Fatalf("alice's call after bob's attempts: %s", body)
	}
	if r.gw.fast.served.Load() != served+1 {
		t.Error("alice's call did not take the fast path")
	}
	r.gw.SetFastPath(false)
	if body := alice.call(4, "rec__echo", "{}"); !strings.Contains(string(body), `"result"`) {
		t.Fatalf("alice's call on mcp-go's path: %s", body)
	}
	r.gw.SetFastPath(true)
	// The upstream saw alice's two calls and nothing of bob's (its console
	// shows each request it read, in order).
	testpeers.Eventually(t, 10*time.Second, "alice's calls at the upstream", func() bool {
		return len(received(t, r, "rec")) >= before+2
	})
	if got := received(t, r, "rec")[before:]; len(got) != 2 {
		t.Errorf("the upstream read %v after alice's session opened, want her two calls only", got)
	}
	if status, _, _ := alice.listen(""); status != http.StatusOK {
		t.Errorf("alice's GET stream after bob's attempts: HTTP %d", status)
	}
	if status, _, body := request(t, http.MethodDelete, r.url, "alice", alice.sid, "", nil); status != http.StatusOK {
		t.Errorf("alice's DELETE: HTTP %d %s", status, body)
	}
}

// sseStream opens a legacy SSE stream as who; it returns the message
// endpoint's path (with the session id) and the stream's data lines.
func sseStream(t *testing.T, base, who string) (endpoint string, data <-chan string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+PathSSE, nil)
	req.Header.Set("X-Caller", who)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("GET /sse as %s: HTTP %d %s", who, resp.StatusCode, b)
	}
	out := make(chan string, 16)
	go func() {
		defer close(out)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				out <- strings.TrimSpace(d)
			}
		}
	}()
	select {
	case endpoint = <-out:
	case <-time.After(10 * time.Second):
		t.Fatal("no endpoint event on /sse")
	}
	return endpoint, out
}

// The legacy SSE transport: a message for alice's session from bob is
// answered as one for a session that does not exist, and alice's session
// answers her as before.
func TestSSESessionOfAnotherCredentialIsUnknown(t *testing.T) {
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	base := strings.TrimSuffix(r.url, PathMCP)
	endpoint, events := sseStream(t, base, "alice")
	if !strings.Contains(endpoint, "sessionId=") {
		t.Fatalf("endpoint event %q", endpoint)
	}
	wantStatus, _, wantBody := request(t, http.MethodPost, base+PathMessage+"?sessionId="+neverIssued, "bob", "", initializeBody, nil)
	status, _, body := request(t, http.MethodPost, base+endpoint, "bob", "", initializeBody, nil)
	if status != wantStatus || string(body) != string(wantBody) || status < 400 {
		t.Errorf("bob's message in alice's SSE session: HTTP %d %s; an unknown session's: HTTP %d %s", status, body, wantStatus, wantBody)
	}
	if status, _, body := request(t, http.MethodPost, base+endpoint, "alice", "", initializeBody, nil); status != http.StatusAccepted {
		t.Fatalf("alice's message: HTTP %d %s", status, body)
	}
	select {
	case d := <-events:
		if !strings.Contains(d, `"serverInfo"`) {
			t.Errorf("alice's stream carried %s, want her initialize's answer", d)
		}
	case <-time.After(10 * time.Second):
		t.Error("no answer on alice's stream")
	}
}

// refusalOf reads a session cap's refusal.
func refusalOf(t *testing.T, body []byte) rpcError {
	t.Helper()
	e := errorOf(t, body)
	if e.Code != pipeline.CodeSessionLimit || e.Data["reason"] != pipeline.ReasonSessionLimit {
		t.Fatalf("not a session cap's refusal: %+v", e)
	}
	return e
}

// A credential holds at most SessionLimits.PerCredential sessions, streamable
// and legacy SSE together. Past the cap its initialize is answered with a
// JSON-RPC error naming the cap and the setting that raises it, and no
// session; its /sse with 429 and the same error. Another credential opens
// sessions as before, and the first gets a slot back when it ends one.
func TestSessionCapPerCredential(t *testing.T) {
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader,
		sessions: SessionLimits{PerCredential: 3, Total: 10}})
	base := strings.TrimSuffix(r.url, PathMCP)
	var held []*rawHTTP
	for range 2 {
		held = append(held, newRawHTTPAs(t, r.url, as("alice")))
	}
	sseStream(t, base, "alice")

	status, hdr, body := request(t, http.MethodPost, r.url, "alice", "", initializeBody, nil)
	if status != http.StatusOK || hdr.Get(server.HeaderKeySessionID) != "" {
		t.Fatalf("initialize past the cap: HTTP %d, session %q", status, hdr.Get(server.HeaderKeySessionID))
	}
	e := refusalOf(t, body)
	if e.Data["setting"] != SettingSessionsPerCredential || e.Data["limit"] != float64(3) ||
		!strings.Contains(e.Message, `"alice"`) || !strings.Contains(e.Message, "mcp-router settings set sessionsPerCredential") {
		t.Errorf("refusal %+v", e)
	}
	status, hdr, body = request(t, http.MethodGet, base+PathSSE, "alice", "", "", nil)
	if status != http.StatusTooManyRequests || hdr.Get("Content-Type") != "application/json" {
		t.Fatalf("/sse past the cap: HTTP %d %s", status, hdr.Get("Content-Type"))
	}
	if e := refusalOf(t, body); e.Data["setting"] != SettingSessionsPerCredential {
		t.Errorf("/sse refusal %+v", e)
	}
	if mine, _ := r.gw.sessions.held(credentialKey("alice")); mine != 3 {
		t.Errorf("alice holds %d sessions, want 3", mine)
	}

	// Others are not held back by alice's cap.
	newRawHTTPAs(t, r.url, as("bob"))
	sseStream(t, base, "bob")

	// A session ended is a slot back.
	if status, _, body := request(t, http.MethodDelete, r.url, "alice", held[0].sid, "", nil); status != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d %s", status, body)
	}
	newRawHTTPAs(t, r.url, as("alice"))
}

// credentialKey is the credential headerCaller's requests carry (the
// gateway's default: the caller's name).
func credentialKey(who string) string { return who }

// All credentials together hold at most SessionLimits.Total sessions.
func TestSessionCapInTotal(t *testing.T) {
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader,
		sessions: SessionLimits{PerCredential: 10, Total: 2}})
	base := strings.TrimSuffix(r.url, PathMCP)
	newRawHTTPAs(t, r.url, as("alice"))
	sseStream(t, base, "bob")
	_, _, body := request(t, http.MethodPost, r.url, "carol", "", initializeBody, nil)
	if e := refusalOf(t, body); e.Data["setting"] != SettingSessionsTotal ||
		!strings.Contains(e.Message, "mcp-router settings set sessionsTotal") {
		t.Errorf("refusal %+v", e)
	}
	if status, _, body := request(t, http.MethodGet, base+PathSSE, "carol", "", "", nil); status != http.StatusTooManyRequests ||
		refusalOf(t, body).Data["setting"] != SettingSessionsTotal {
		t.Errorf("/sse past the total: HTTP %d %s", status, body)
	}
}

// mcp-go opens a session for a GET without a session id (or with one it
// never gave out); the router answers 400 (404) and opens none.
func TestGETOpensNoSession(t *testing.T) {
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	if status, _, _ := request(t, http.MethodGet, r.url, "alice", "", "", nil); status != http.StatusBadRequest {
		t.Errorf("GET without a session id: HTTP %d, want 400", status)
	}
	if status, _, _ := request(t, http.MethodGet, r.url, "alice", "made-up", "", nil); status != http.StatusNotFound {
		t.Errorf("GET with an id never given out: HTTP %d, want 404", status)
	}
	registered := 0
	r.gw.fast.sessions.m.Range(func(any, any) bool { registered++; return true })
	if _, total := r.gw.sessions.held(""); total != 0 || registered != 0 {
		t.Errorf("%d sessions held, %d registered with mcp-go, after GETs only", total, registered)
	}
}

// A credential at its cap gets back the slots of the sessions it left idle
// once they pass the idle timeout: a refused attempt starts the sweep.
func TestIdleSessionsFreeTheirSlots(t *testing.T) {
	const ttl = 500 * time.Millisecond
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader,
		sessions: SessionLimits{PerCredential: 2, IdleTTL: ttl}})
	newRawHTTPAs(t, r.url, as("alice"))
	newRawHTTPAs(t, r.url, as("alice"))
	_, _, body := request(t, http.MethodPost, r.url, "alice", "", initializeBody, nil)
	refusalOf(t, body)
	time.Sleep(ttl + ttl/2)
	testpeers.Eventually(t, 5*time.Second, "a new session for alice", func() bool {
		_, hdr, _ := request(t, http.MethodPost, r.url, "alice", "", initializeBody, nil)
		return hdr.Get(server.HeaderKeySessionID) != ""
	})
	if n := r.gw.sessions.swept.Load(); n < 1 {
		t.Errorf("%d sessions swept", n)
	}
}

// A slot reserved for a request that opened no session (a modern-era
// request, a client gone mid-initialize) is given back.
func TestUnusedSlotIsGivenBack(t *testing.T) {
	tab := newSessionTable(func() SessionLimits { return SessionLimits{PerCredential: 1} },
		func(context.Context) string { return "alice" }, func(context.Context) string { return "alice" },
		logrus.New(), &server.Hooks{})
	tk, refusal := tab.reserve(context.Background(), false)
	if refusal != nil {
		t.Fatal(refusal)
	}
	if _, refusal := tab.reserve(context.Background(), false); refusal == nil {
		t.Fatal("a second slot past a cap of 1")
	}
	tab.settle(tk)
	minted, refusal := tab.reserve(context.Background(), false)
	if refusal != nil {
		t.Fatalf("the slot was not given back: %v", refusal)
	}
	id := tab.mint(context.WithValue(context.Background(), ticketKey{}, minted), false)
	tab.settle(minted) // minted, never registered: the client went away
	if mine, total := tab.held("alice"); mine != 0 || total != 0 || tab.known(id) {
		t.Errorf("after an unregistered session: alice holds %d, all %d, id known %v", mine, total, tab.known(id))
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rssKB is the process's resident set (Linux; 0 elsewhere).
func rssKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}

// The flood of issue 24: one token opening sessions as fast as it can (it
// opened 60,000 in 33 s, RSS 51 → 971 MB). With the default caps it gets
// exactly DefaultSessionsPerCredential; every other initialize is refused
// with the cap's error; the heap grows by the sessions held and not by the
// refusals; and another token still opens a session. MCPR_SESSION_FLOOD
// sets the number of initializes (default 4,000; the 60,000 run in
// about a minute on two cores).
func TestSessionFloodIsCapped(t *testing.T) {
	flood := 4000
	if v, err := strconv.Atoi(os.Getenv("MCPR_SESSION_FLOOD")); err == nil && v > 0 {
		flood = v
	}
	r := newRig(t, nil, rigOptions{auth: headerCaller, callerFrom: callerFromHeader})
	transport := &http.Transport{MaxIdleConnsPerHost: 32}
	defer transport.CloseIdleConnections()
	httpc := &http.Client{Transport: transport, Timeout: 30 * time.Second}

	// Warm up the paths (the first session, the first refusal) before
	// measuring, then measure the flood alone.
	newRawHTTPAs(t, r.url, as("warm"))
	heapBefore, rssBefore := heapInUse(), rssKB()
	start := time.Now()

	var opened, refused, other atomic.Int64
	var firstOther atomic.Value
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(initializeBody))
				req.Header.Set("X-Caller", "flood")
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := httpc.Do(req)
				if err != nil {
					other.Add(1)
					firstOther.CompareAndSwap(nil, err.Error())
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				var answer struct {
					Error *rpcError `json:"error"`
				}
				_ = json.Unmarshal(b, &answer)
				switch {
				case resp.Header.Get(server.HeaderKeySessionID) != "":
					opened.Add(1)
				case answer.Error != nil && answer.Error.Code == pipeline.CodeSessionLimit &&
					answer.Error.Data["setting"] == SettingSessionsPerCredential:
					refused.Add(1)
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, "HTTP "+strconv.Itoa(resp.StatusCode)+": "+string(b))
				}
			}
		}()
	}
	for range flood {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	elapsed := time.Since(start)
	transport.CloseIdleConnections()

	if opened.Load() != DefaultSessionsPerCredential || refused.Load() != int64(flood-DefaultSessionsPerCredential) || other.Load() != 0 {
		t.Fatalf("%d initializes: %d sessions opened, %d refused at the cap, %d otherwise (first: %v); want %d opened",
			flood, opened.Load(), refused.Load(), other.Load(), firstOther.Load(), DefaultSessionsPerCredential)
	}
	if mine, _ := r.gw.sessions.held("flood"); mine != DefaultSessionsPerCredential {
		t.Errorf("the flooding credential holds %d sessions", mine)
	}
	heapAfter, rssAfter := heapInUse(), rssKB()
	grown := int64(heapAfter) - int64(heapBefore)
	t.Logf("%d initializes in %s: %d sessions held, heap %+d KB (%d bytes a session held), RSS %d → %d MB",
		flood, elapsed.Round(time.Millisecond), opened.Load(), grown>>10, grown/DefaultSessionsPerCredential, rssBefore>>10, rssAfter>>10)
	// What the sessions held may take (about 16 KB each, measured) with
	// room to spare, and nothing for the refusals: without the cap the
	// same flood keeps 4,000 sessions, some 64 MB.
	const bound = DefaultSessionsPerCredential*64<<10 + 4<<20
	if grown > bound {
		t.Errorf("the heap grew by %d KB under the flood, more than the %d KB bound", grown>>10, bound>>10)
	}

	// Another token is not held back.
	newRawHTTPAs(t, r.url, as("bob"))
}
