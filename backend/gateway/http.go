package gateway

import (
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/server"
)

// MaxBodyBytes bounds one HTTP request body; larger ones are refused
// before they are read into memory.
const MaxBodyBytes = 4 << 20

// Paths of the HTTP endpoints.
const (
	PathMCP     = "/mcp"     // streamable HTTP
	PathSSE     = "/sse"     // legacy HTTP+SSE: the event stream
	PathMessage = "/message" // legacy HTTP+SSE: where the client posts
)

var quietSlog = slog.New(slog.DiscardHandler)

// HTTPHandler serves the gateway over streamable HTTP at /mcp and the
// legacy SSE transport at /sse. auth wraps both (nil: no authentication);
// it runs after the DNS-rebinding guard.
func (g *Gateway) HTTPHandler(auth func(http.Handler) http.Handler) http.Handler {
	if auth == nil {
		auth = func(h http.Handler) http.Handler { return h }
	}
	// Real sessions: notifications (list_changed, progress) and
	// server-initiated requests need a session to go to, and an unknown
	// session must get 404 so the client re-initializes. The session
	// table gives out the ids, each owned by a credential and within the
	// caps (sessions.go).
	streamable := server.NewStreamableHTTPServer(g.srv,
		server.WithEndpointPath(PathMCP),
		server.WithSessionIdManagerResolver(g.sessions),
		// Resumable streams, and no notification lost to the answer's
		// race (eventstore.go).
		server.WithEventStore(newEventStore(DefaultEventStoreBytes)),
		server.WithStreamableHTTPLogger(quietSlog))
	sse := server.NewSSEServer(g.srv,
		server.WithSSEEndpoint(PathSSE),
		// A stream opened at /sse/<profile> posts to /message/<profile>:
		// mcp-go joins the base path and the message endpoint, so the
		// whole path is the base ("/" joins to nothing).
		server.WithMessageEndpoint("/"),
		server.WithDynamicBasePath(func(r *http.Request, _ string) string { return messagePathFor(r.URL.Path) }),
		server.WithUseFullURLForMessageEndpoint(false),
		server.WithSessionIDGenerator(g.sessions.sseSessionID))
	g.sessions.endThrough(streamable)
	mux := http.NewServeMux()
	mcpHandler := auth(limitBody(g.clusterFront(g.mcpHandler(streamable))))
	mux.Handle(PathMCP, mcpHandler)
	// /mcp/<profile>: the same endpoint, narrowed to a profile by what
	// auth wraps it in (backend/core/profiles.go).
	mux.Handle(PathMCP+"/", mcpHandler)
	sseHandler := auth(g.sseHandler(sse.SSEHandler()))
	messageHandler := auth(limitBody(g.messageHandler(sse.MessageHandler())))
	mux.Handle(PathSSE, sseHandler)
	mux.Handle(PathMessage, messageHandler)
	// /sse/<profile> and its /message/<profile>, as /mcp/<profile>: the
	// profile comes from what auth wraps them in; a session belongs to
	// the profile it was opened at (its credential names it), so its
	// messages posted to another profile's path, or to plain /message,
	// find no session.
	mux.Handle(PathSSE+"/", sseHandler)
	mux.Handle(PathMessage+"/", messageHandler)
	return guardLocal(mux)
}

// messagePathFor is where the client of the SSE stream at ssePath posts:
// /message, or /message/<profile> for a stream at /sse/<profile>.
func messagePathFor(ssePath string) string {
	if rest, ok := strings.CutPrefix(ssePath, PathSSE+"/"); ok && strings.Trim(rest, "/") != "" {
		return PathMessage + "/" + strings.Trim(rest, "/")
	}
	return PathMessage
}

func limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBodyBytes {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// GuardLocal wraps next in the same DNS-rebinding guard as /mcp, for other
// handlers served on the endpoint's listener (the browser UI at /ui/).
func GuardLocal(next http.Handler) http.Handler { return guardLocal(next) }

// guardLocal refuses DNS-rebinding requests: on a loopback listener the
// Host must be a loopback name, and a browser's Origin, when sent, must be
// a loopback origin too — otherwise any web page could drive the router.
func guardLocal(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local != nil && loopbackAddr(local) {
			if !isLoopback(r.Host) {
				http.Error(w, "forbidden: Host "+r.Host+" is not a loopback address", http.StatusForbidden)
				return
			}
			if origin := r.Header.Get("Origin"); origin != "" && !loopbackOrigin(origin) {
				http.Error(w, "forbidden: Origin "+origin+" may not use this router", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if u.Scheme == "wails" { // the desktop window's own pages
		return true
	}
	return (u.Scheme == "http" || u.Scheme == "https") && isLoopback(u.Host)
}

// loopbackAddr is isLoopback(a.String()), without the string for a TCP
// address (its IP's String, then JoinHostPort, allocated per request): an
// address without a zone is a loopback one exactly when its IP is, which
// is what ParseIP of that string finds (a zone makes ParseIP fail).
func loopbackAddr(a net.Addr) bool {
	if t, ok := a.(*net.TCPAddr); ok && t != nil && t.Zone == "" {
		return t.IP.IsLoopback()
	}
	return isLoopback(a.String())
}

func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	switch host {
	case "127.0.0.1", "::1", "localhost":
		return true // the usual Host of a local client, without ParseIP's allocation
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
