package appapi

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The UI API starts processes and changes the configuration, so no page but
// the UI's own may reach it, whatever the auth setting (with auth off, from
// this machine, it needs no token: only these checks stand between a page
// on another localhost port and AddServersFromJSON). Browsers mark what a
// page sends: Origin on every POST and on a cross-origin GET (EventSource
// included), Sec-Fetch-Site on every request. A client that is not a
// browser (curl, a script) sends neither and is no cross-site vector; it
// goes on to the token check as before.

// ownOriginOnly refuses, with 403, a request that a browser says comes from
// a page other than the UI's own: an Origin that is not this router's own
// (the scheme, host and port the request was sent to; another port of
// localhost is another origin), or a Sec-Fetch-Site other than same-origin
// (none: the user typed the URL). The desktop window never comes here: it
// calls the methods through the Wails bindings.
func ownOriginOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkOwnOrigin(r); err != nil {
			writeJSONError(w, http.StatusForbidden, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

func checkOwnOrigin(r *http.Request) error {
	if origin := r.Header.Get("Origin"); origin != "" && !isOwnOrigin(origin, r) {
		return fmt.Errorf("forbidden: Origin %s is not this router's own (%s): the UI API answers only the pages the router serves at %s",
			origin, requestOrigin(r), PathUI)
	}
	switch site := r.Header.Get("Sec-Fetch-Site"); site {
	case "", "same-origin", "none":
		return nil
	default:
		return fmt.Errorf("forbidden: a %s request (Sec-Fetch-Site): the UI API answers only the pages the router serves at %s", site, PathUI)
	}
}

// requestScheme is the scheme the request came in on.
func requestScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

func requestOrigin(r *http.Request) string { return requestScheme(r) + "://" + r.Host }

// isOwnOrigin reports whether origin names the host and port r was sent
// to. Ports are compared as used (an absent port is the scheme's default),
// so http://localhost:8080 is not the origin of a router on
// localhost:3282. The schemes are not compared: one port speaks one of
// http and https, so an origin on the same host and port is this router's
// (or a TLS proxy's in front of it, which keeps the Host).
func isOwnOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	host, port := hostPort(u.Host, u.Scheme)
	ownHost, ownPort := hostPort(r.Host, requestScheme(r))
	return host != "" && strings.EqualFold(host, ownHost) && port == ownPort
}

// hostPort splits host[:port], the port defaulting to the scheme's.
func hostPort(hostport, scheme string) (host, port string) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return strings.TrimSuffix(host, "."), port
}

// isJSONBody reports whether the call's body is declared application/json;
// if not it answers 415. A page can send text/plain, a form or multipart to
// any origin without asking first (a "simple request"); application/json
// needs a CORS preflight, which this router never grants.
func isJSONBody(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return true
	}
	if ct == "" {
		ct = "none"
	}
	writeJSONError(w, http.StatusUnsupportedMediaType,
		fmt.Sprintf("a UI API call needs Content-Type: application/json (got %s)", ct))
	return false
}
