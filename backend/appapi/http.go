package appapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"path"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/auth"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Paths of the browser UI, all under PathUI.
const (
	PathUI      = "/ui/"
	pathAPI     = "/ui/api/"
	PathCall    = "/ui/api/call/"
	PathEvents  = "/ui/api/events"
	PathSession = "/ui/api/session"
)

// MaxCallBytes bounds one call's JSON body (a hook script may be 1 MB).
const MaxCallBytes = 4 << 20

// HTTPOptions configure Handler.
type HTTPOptions struct {
	// Assets is the built frontend (the contents of frontend/dist). Nil in
	// builds without one: pages then answer 404 with a message saying so.
	Assets fs.FS
	// NoAuth turns auth off whatever the auth setting says (`mcp-router
	// serve --no-auth`): the API then needs no token from this machine, and
	// still needs an admin token from any other address.
	NoAuth bool
	// Heartbeat is how often an idle event stream sends a comment so
	// proxies keep it open; default 25 s.
	Heartbeat time.Duration
}

// Handler serves the browser UI: the pages at /ui/, and the API the pages
// call (docs/ui-api.md): POST /ui/api/call/<Method> with a JSON array of
// arguments (Content-Type: application/json), GET /ui/api/events
// (Server-Sent Events) and GET /ui/api/session. The API answers only the
// pages the router serves and clients that are no browser page
// (ownOriginOnly). Calls reach exactly the exported methods of *API, by
// reflection, so the browser and the desktop window (whose Wails bindings
// are generated from the same methods) can never drift apart. The calls
// and the events need an admin token (see admin); the pages and the
// session need none and carry no data. Mount it at /ui/ behind the
// Host/Origin guard of /mcp (core.ServeOptions.UI does).
func Handler(a *API, o HTTPOptions) http.Handler {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 25 * time.Second
	}
	h := &uiHandler{a: a, o: o, methods: boundMethods()}
	api := http.NewServeMux()
	api.Handle(PathCall, h.admin(http.HandlerFunc(h.call)))
	api.Handle(PathEvents, h.admin(http.HandlerFunc(h.events)))
	api.HandleFunc(PathSession, h.session)
	api.HandleFunc(pathAPI, func(w http.ResponseWriter, r *http.Request) {
		writeJSONError(w, http.StatusNotFound, "no such UI API endpoint: "+r.URL.Path)
	})
	mux := http.NewServeMux()
	// Before the token check: with auth off it is the only check.
	mux.Handle(pathAPI, ownOriginOnly(api))
	mux.HandleFunc(PathUI, h.static)
	return mux
}

type uiHandler struct {
	a       *API
	o       HTTPOptions
	methods map[string]reflect.Method
}

// boundMethods are the methods both shells expose: every exported method
// of *API.
func boundMethods() map[string]reflect.Method {
	t := reflect.TypeFor[*API]()
	out := make(map[string]reflect.Method, t.NumMethod())
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		out[m.Name] = m
	}
	return out
}

// Methods lists the names of the methods the UI can call, sorted.
func Methods() []string {
	t := reflect.TypeFor[*API]()
	out := make([]string, 0, t.NumMethod())
	for i := 0; i < t.NumMethod(); i++ {
		out = append(out, t.Method(i).Name)
	}
	return out
}

func (h *uiHandler) authOn(ctx context.Context) bool {
	return !h.o.NoAuth && h.a.core.Settings.AuthEnabled(ctx)
}

// open reports whether r may use the API without a token: auth is off
// (the setting, or `serve --no-auth`) and r comes from this machine. With
// auth off the MCP endpoint takes anyone who reaches it, but the API can
// start processes and change the configuration, so from another address
// it still needs an admin token.
func (h *uiHandler) open(r *http.Request) bool {
	return !h.authOn(r.Context()) && fromLoopback(r)
}

// fromLoopback reports whether the request's peer is a loopback address.
func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// admin guards every method of the API and its event stream: they need an
// admin token (auth.RequireAdmin: 401 without a good token, 403 for a
// client token), unless open says otherwise. The event stream may carry
// the token as ?token= (EventSource cannot set headers). The desktop
// window never comes here: it calls the methods in-process.
func (h *uiHandler) admin(next http.Handler) http.Handler {
	strict := h.a.core.Auth.RequireAdmin(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.open(r) {
			next.ServeHTTP(w, r.WithContext(auth.WithIdentity(r.Context(), auth.Anonymous)))
			return
		}
		if t := r.URL.Query().Get("token"); t != "" && r.Header.Get("Authorization") == "" && r.URL.Path == PathEvents {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+t)
		}
		strict.ServeHTTP(w, r)
	})
}

// Session tells the login page whether it needs a token and whether the
// one it has (Authorization header or ?token=) opens the UI: only an admin
// token does.
type Session struct {
	AuthRequired bool `json:"authRequired"`
	Valid        bool `json:"valid"`
	// Role of the token presented, when it is one the router knows and
	// has not revoked: "client" or "admin".
	Role store.Role `json:"role,omitempty"`
	// Error says why the token presented cannot open the UI, and Hint how
	// to get one that can; both empty when no token was presented.
	Error string `json:"error,omitempty"`
	Hint  string `json:"hint,omitempty"`
}

func (h *uiHandler) session(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeJSONError(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	s := Session{AuthRequired: !h.open(r)}
	if !s.AuthRequired {
		s.Valid = true
		writeJSON(w, http.StatusOK, s)
		return
	}
	tok, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		tok = r.URL.Query().Get("token")
	}
	if tok != "" {
		id, err := h.a.core.Auth.Verify(r.Context(), tok)
		switch {
		case err != nil:
			s.Error = err.Error()
		case !id.IsAdmin() || len(id.Servers) > 0:
			s.Role, s.Error = id.Role, auth.NotAdminError(id).Error()
		default:
			s.Role, s.Valid = id.Role, true
		}
		if !s.Valid {
			s.Hint = auth.AdminHint
		}
	}
	writeJSON(w, http.StatusOK, s)
}

func (h *uiHandler) call(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, PathCall)
	m, ok := h.methods[name]
	if !ok {
		writeJSONError(w, http.StatusNotFound, fmt.Sprintf("no method %q (see docs/ui-api.md for the methods)", name))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSONError(w, http.StatusMethodNotAllowed, "call a method with POST and a JSON array of its arguments")
		return
	}
	if !isJSONBody(w, r) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxCallBytes))
	if err != nil {
		writeJSONError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the arguments are larger than %d bytes", MaxCallBytes))
		return
	}
	args, err := decodeArgs(m, body)
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, name+": "+err.Error())
		return
	}
	result, err := invoke(h.a, m, args)
	if err != nil {
		writeJSONError(w, errorStatus(err), err.Error())
		return
	}
	writeJSON(w, http.StatusOK, result)
}

// decodeArgs turns a JSON array into the method's arguments.
func decodeArgs(m reflect.Method, body []byte) ([]reflect.Value, error) {
	want := m.Type.NumIn() - 1 // the receiver is In(0)
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("[]")
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, fmt.Errorf("the body must be a JSON array of the %d argument(s): %v", want, err)
	}
	if len(raw) != want {
		return nil, fmt.Errorf("takes %d argument(s) (%s), got %d", want, describeParams(m), len(raw))
	}
	args := make([]reflect.Value, want)
	for i := range want {
		t := m.Type.In(i + 1)
		v := reflect.New(t)
		if err := json.Unmarshal(raw[i], v.Interface()); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return nil, fmt.Errorf("argument %d must be %s, not a JSON %s", i+1, jsonKind(t), te.Value)
			}
			return nil, fmt.Errorf("argument %d: %v", i+1, err)
		}
		args[i] = v.Elem()
	}
	return args, nil
}

func describeParams(m reflect.Method) string {
	var parts []string
	for i := 1; i < m.Type.NumIn(); i++ {
		parts = append(parts, jsonKind(m.Type.In(i)))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// invoke calls the method and splits its (T, error) or (error) results.
// A panic becomes an error rather than taking the router down.
func invoke(a *API, m reflect.Method, args []reflect.Value) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, &internalError{fmt.Sprintf("internal error in %s: %v", m.Name, p)}
		}
	}()
	out := m.Func.Call(append([]reflect.Value{reflect.ValueOf(a)}, args...))
	if last := out[len(out)-1]; last.Type() == reflect.TypeFor[error]() {
		if !last.IsNil() {
			return nil, last.Interface().(error)
		}
		out = out[:len(out)-1]
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out[0].Interface(), nil
}

type internalError struct{ msg string }

func (e *internalError) Error() string { return e.msg }

// errorStatus: a method's error is about its input (400), or names
// something that does not exist (404); a panic is 500.
func errorStatus(err error) int {
	var ie *internalError
	switch {
	case errors.As(err, &ie):
		return http.StatusInternalServerError
	case errors.Is(err, store.ErrNotFound), errors.Is(err, upstream.ErrUnknownServer):
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "cannot encode the result: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func writeJSONError(w http.ResponseWriter, code int, msg string) {
	data, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// sseEmitter queues events for one event stream. A client that falls too
// far behind is dropped (its stream ends); EventSource reconnects and the
// page refetches, which is better than holding events in memory forever.
type sseEmitter struct {
	ch      chan []byte
	once    sync.Once
	overrun chan struct{}
}

func (e *sseEmitter) Emit(event string, data any) {
	payload, err := json.Marshal(data)
	if err != nil {
		payload = []byte("null")
	}
	msg := []byte("event: " + event + "\ndata: " + string(payload) + "\n\n")
	select {
	case e.ch <- msg:
	default:
		e.once.Do(func() { close(e.overrun) })
	}
}

func (h *uiHandler) events(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeJSONError(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSONError(w, http.StatusInternalServerError, "streaming is not supported")
		return
	}
	em := &sseEmitter{ch: make(chan []byte, 1024), overrun: make(chan struct{})}
	detach := Attach(h.a, em)
	defer detach()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, "retry: 2000\n: connected\n\n")
	flusher.Flush()
	beat := time.NewTicker(h.o.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-em.overrun:
			_, _ = io.WriteString(w, ": too far behind; reconnect and refetch\n\n")
			flusher.Flush()
			return
		case msg := <-em.ch:
			if _, err := w.Write(msg); err != nil {
				return
			}
			flusher.Flush()
		case <-beat.C:
			if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
				return
			}
			flusher.Flush()
		}
	}
}

// static serves the built pages. Unknown paths get index.html, so a page
// reloaded at a deep link still opens; index.html gets a <base href="/ui/">
// so its relative asset URLs resolve under /ui/ from any depth.
func (h *uiHandler) static(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeJSONError(w, http.StatusMethodNotAllowed, "use GET")
		return
	}
	if h.o.Assets == nil {
		http.Error(w, "this build of mcp-router has no web UI (it was built without the frontend, e.g. -tags nogui); "+
			"the MCP endpoint at /mcp works as usual", http.StatusNotFound)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, PathUI)), "/")
	if name == "" || name == "index.html" {
		h.index(w, r)
		return
	}
	st, err := fs.Stat(h.o.Assets, name)
	if err != nil || st.IsDir() {
		if path.Ext(name) != "" {
			http.Error(w, "not found: "+r.URL.Path, http.StatusNotFound)
			return
		}
		h.index(w, r)
		return
	}
	if strings.HasPrefix(name, "assets/") {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // hashed names
	}
	http.ServeFileFS(w, r, h.o.Assets, name)
}

func (h *uiHandler) index(w http.ResponseWriter, r *http.Request) {
	data, err := fs.ReadFile(h.o.Assets, "index.html")
	if err != nil {
		http.Error(w, "the web UI is missing from this build (no index.html; run `make build`)", http.StatusNotFound)
		return
	}
	if !bytes.Contains(data, []byte("<base ")) {
		data = bytes.Replace(data, []byte("<head>"), []byte(`<head><base href="/ui/">`), 1)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}
