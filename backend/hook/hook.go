// Package hook runs the user's JavaScript hooks around every MCP request.
//
// A hook is a function body compiled once (goja) and run with `context` in
// scope: pre hooks before the request is routed, post hooks after the
// upstream answered or failed, "both" hooks in both phases, in ascending
// executionOrder (ties by name). A hook can block the request, modify it or
// its response, or just observe (console.*). Each hook runs in its own
// runtimes (a small pool), whose builtins and global object are frozen; a
// time limit, a heap-growth limit, a call-depth limit and size guards on the
// builtins contain hostile scripts. See docs/hooks.md.
package hook

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Phases.
const (
	PhasePre  = "pre"
	PhasePost = "post"
)

// Defaults for Options.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultMaxCallStack = 1000
	DefaultMaxMemory    = 256 << 20
)

// ServerInfo is what getServerInfo(name) returns to a script.
type ServerInfo struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Status    string   `json:"status"`
	Tools     []string `json:"tools"`
}

// Options configure a Service. Zero values take the defaults.
type Options struct {
	Timeout      time.Duration // per hook run; default 5s
	MaxCallStack int           // JS call depth; default 1000
	// MaxMemory is how far the Go heap may grow during one hook run before
	// the run is interrupted; default 256 MB, negative disables.
	MaxMemory     int64
	Logger        *logrus.Logger // default logrus.StandardLogger()
	ValidateToken func(token string) bool
	ServerInfo    func(name string) (ServerInfo, bool)
	// PoolSize is how many idle runtimes each hook keeps; default GOMAXPROCS.
	PoolSize int
}

// Client identifies who sent the request.
type Client struct {
	TokenName string `json:"tokenName"`
	SessionID string `json:"sessionId"`
}

// CallError is an upstream or routing failure as a post hook sees it.
type CallError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Changed flags say which parts of a Call a hook replaced.
type Changed uint8

const (
	ChangedArguments Changed = 1 << iota
	ChangedParams
	ChangedResponse
	ChangedError
	ChangedShared
)

// Call is one request as the hooks see it. Pre and Post read and update it
// in place; the gateway keeps the same Call from Pre to Post so that Shared
// carries over.
//
// Values a script changed come back as plain JSON data (map[string]any,
// []any, string, float64, bool, nil) and the matching Changed bit is set;
// values no script touched keep their original Go value. Arguments mirrors
// Params["arguments"]: after Pre the two agree.
type Call struct {
	RequestType string // CallTool, ListTools, ReadResource, …
	Method      string // tools/call, tools/list, …
	ServerName  string // the upstream's name; empty for aggregated lists
	ToolName    string // the upstream's own tool name
	Arguments   any
	Params      map[string]any
	Client      Client
	Shared      map[string]any
	Response    any        // post: the upstream result (any JSON-shaped value or json.RawMessage)
	Error       *CallError // post: the failure, if the call failed
	DurationMs  float64    // post: how long the upstream took
	Changed     Changed
}

// Block is a request refused by a hook.
type Block struct {
	Hook    string `json:"hook"`
	Phase   string `json:"phase"`
	Message string `json:"message"`
	Code    int    `json:"code,omitempty"` // from the script's error.code; 0 if none
}

func (b *Block) Error() string { return fmt.Sprintf("blocked by hook %q: %s", b.Hook, b.Message) }

// LogLine is one line of a hook's log: its console output and what the
// router says about its runs (errors, timeouts, ignored return values).
type LogLine struct {
	Time    time.Time `json:"time"`
	Level   string    `json:"level"` // log, info, warn, error, debug
	Message string    `json:"message"`
	Router  bool      `json:"router,omitempty"` // written by the router, not the script
}

// compiled is one enabled hook ready to run.
type compiled struct {
	hook    store.Hook
	prog    *goja.Program
	broken  error // did not compile; a fail-closed hook then blocks
	pool    chan *sandbox
	created atomic.Int64
}

type hookSet struct {
	pre, post []*compiled
	byName    map[string]*compiled
}

// Service runs hooks. It is safe for concurrent use.
type Service struct {
	repo store.HookRepo
	opts Options
	log  *logrus.Logger

	set      atomic.Pointer[hookSet]
	reloadMu sync.Mutex

	logMu sync.RWMutex
	logs  map[string]*ring
	subMu sync.RWMutex
	subs  map[int]func(string, LogLine)
	subID int
}

var regexpOnce sync.Once

// New makes a Service over the hook repository. Call Reload to load hooks.
func New(repo store.HookRepo, o Options) *Service {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxCallStack <= 0 {
		o.MaxCallStack = DefaultMaxCallStack
	}
	if o.MaxMemory == 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.PoolSize <= 0 {
		o.PoolSize = runtime.GOMAXPROCS(0)
	}
	// Regular expressions goja cannot hand to Go's linear-time engine
	// (backreferences, lookaround) run on regexp2, a backtracking engine
	// that does not see vm.Interrupt; its process-wide default timeout is
	// "forever". Bound it.
	regexpOnce.Do(func() {
		if regexp2.DefaultMatchTimeout > time.Second {
			regexp2.DefaultMatchTimeout = time.Second
		}
	})
	s := &Service{repo: repo, opts: o, log: o.Logger, logs: map[string]*ring{}, subs: map[int]func(string, LogLine){}}
	s.set.Store(&hookSet{byName: map[string]*compiled{}})
	return s
}

// Reload loads the enabled hooks from the database and compiles those whose
// script changed; unchanged hooks keep their warm runtimes. A hook that does
// not compile is logged and skipped, or, if fail-closed, blocks every call.
// Call it at start and whenever the database revision changes.
func (s *Service) Reload(ctx context.Context) error {
	rows, err := s.repo.List(ctx)
	if err != nil {
		return err
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	old := s.set.Load()
	next := &hookSet{byName: map[string]*compiled{}}
	names := map[string]bool{}
	for _, h := range rows {
		names[h.Name] = true
		if !h.Enabled {
			continue
		}
		c := old.byName[h.Name]
		if c == nil || c.hook.Script != h.Script || c.hook.ID != h.ID {
			c = s.compileHook(h)
		} else {
			// Same script: keep the runtimes, take the new settings.
			c = &compiled{hook: h, prog: c.prog, broken: c.broken, pool: c.pool}
		}
		next.byName[h.Name] = c
		switch h.HookType {
		case store.HookPre:
			next.pre = append(next.pre, c)
		case store.HookPost:
			next.post = append(next.post, c)
		case store.HookBoth:
			next.pre = append(next.pre, c)
			next.post = append(next.post, c)
		}
	}
	sortHooks(next.pre)
	sortHooks(next.post)
	s.set.Store(next)

	s.logMu.Lock()
	for n := range s.logs {
		if !names[n] {
			delete(s.logs, n)
		}
	}
	s.logMu.Unlock()
	return nil
}

func sortHooks(l []*compiled) {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].hook.ExecutionOrder != l[j].hook.ExecutionOrder {
			return l[i].hook.ExecutionOrder < l[j].hook.ExecutionOrder
		}
		return l[i].hook.Name < l[j].hook.Name
	})
}

func (s *Service) compileHook(h store.Hook) *compiled {
	c := &compiled{hook: h, pool: make(chan *sandbox, s.opts.PoolSize)}
	c.prog, c.broken = compile(h.Name, h.Script)
	if c.broken != nil {
		s.emit(h.Name, LogLine{Time: time.Now(), Level: "error", Router: true, Message: "does not compile: " + c.broken.Error()})
		return c
	}
	// A new runtime takes ~20 ms (the builtins are set up and frozen); make
	// the first one now so that the first request does not wait for it.
	go func() {
		if sb, err := s.newSandbox(c.prog); err == nil {
			c.created.Add(1)
			s.putSandbox(c, sb)
		}
	}()
	return c
}

// Active reports whether any hook is enabled; when false, Pre and Post are
// no-ops and the gateway can skip building a Call.
func (s *Service) Active() bool {
	set := s.set.Load()
	return len(set.pre) > 0 || len(set.post) > 0
}

// ActivePhase reports whether any hook runs in the phase (pre or post).
func (s *Service) ActivePhase(phase string) bool {
	set := s.set.Load()
	if phase == PhasePre {
		return len(set.pre) > 0
	}
	return len(set.post) > 0
}

// Pre runs the pre and both hooks in order, updating c in place. A non-nil
// Block means the request must be refused with Block.Error().
func (s *Service) Pre(ctx context.Context, c *Call) *Block {
	for _, h := range s.set.Load().pre {
		if b := s.runLive(ctx, h, c, PhasePre); b != nil {
			return b
		}
	}
	return nil
}

// Post runs the post and both hooks in order, updating c in place (a hook
// may replace c.Response or c.Error). A non-nil Block means the response is
// replaced by the error Block.Error().
func (s *Service) Post(ctx context.Context, c *Call) *Block {
	for _, h := range s.set.Load().post {
		if b := s.runLive(ctx, h, c, PhasePost); b != nil {
			return b
		}
	}
	return nil
}

func (s *Service) runLive(ctx context.Context, h *compiled, c *Call, phase string) *Block {
	out := s.runHook(ctx, h, c, phase, func(l LogLine) { s.emit(h.hook.Name, l) })
	return out.block
}

// outcome is what one run of one hook did.
type outcome struct {
	block *Block
	err   error // the script failed (threw, timed out, …)
}

// runHook runs one hook against c and applies its result.
func (s *Service) runHook(ctx context.Context, h *compiled, c *Call, phase string, sink func(LogLine)) outcome {
	name := h.hook.Name
	fail := func(err error) outcome {
		if h.hook.FailClosed {
			sink(LogLine{Time: time.Now(), Level: "error", Router: true, Message: phase + ": " + err.Error() + "; blocking the request (fail-closed)"})
			return outcome{block: &Block{Hook: name, Phase: phase, Message: "hook failed: " + err.Error()}, err: err}
		}
		sink(LogLine{Time: time.Now(), Level: "error", Router: true, Message: phase + ": " + err.Error() + "; the request goes on"})
		return outcome{err: err}
	}
	if h.broken != nil {
		return fail(h.broken)
	}
	sb, err := s.getSandbox(h)
	if err != nil {
		return fail(err)
	}
	inv := &invocation{call: c, phase: phase, hook: name, ctx: ctx, sink: sink,
		deadline: time.Now().Add(s.opts.Timeout)}
	res, runErr := sb.run(inv)
	var o outcome
	if runErr == nil {
		o, runErr = s.apply(sb, inv, res)
	}
	sb.finish()
	if p := inv.stopped.Load(); p != nil {
		runErr = *p // timeout, memory or cancel: say that, not goja's wording
	}
	if runErr != nil {
		var so *goja.StackOverflowError
		if errors.As(runErr, &so) {
			sb.broken = true
			runErr = errors.New("call stack exceeded (too deep recursion)")
		}
		s.putSandbox(h, sb)
		return fail(scriptErr(runErr))
	}
	s.putSandbox(h, sb)
	return o
}

// scriptErr gives a script failure a short message with the script position.
func scriptErr(err error) error {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		msg := ex.Value().String()
		for _, f := range ex.Stack() {
			p := f.Position()
			if p.Line > 0 && f.SrcName() != "prelude" {
				l, c := scriptPos(p.Line, p.Column)
				return fmt.Errorf("%s (line %d, column %d)", msg, l, c)
			}
		}
		return errors.New(msg)
	}
	return err
}

// apply interprets the return value (the seed's HookResult) and copies the
// context fields the script touched back into the Call.
func (s *Service) apply(sb *sandbox, inv *invocation, res goja.Value) (outcome, error) {
	warn := func(msg string) {
		inv.sink(LogLine{Time: time.Now(), Level: "warn", Router: true, Message: inv.phase + ": " + msg})
	}
	// An async function's promise has settled by now if it never waited on
	// anything outside; use its value.
	if o, ok := res.(*goja.Object); ok {
		if p, ok := o.Export().(*goja.Promise); ok {
			switch p.State() {
			case goja.PromiseStateFulfilled:
				res = p.Result()
			case goja.PromiseStateRejected:
				return outcome{}, fmt.Errorf("promise rejected: %s", sb.format(p.Result()))
			default:
				warn("the returned promise is still pending (hooks run synchronously); continuing")
				res = goja.Undefined()
			}
		}
	}
	cont := true
	var blockMsg string
	var blockCode int
	if res != nil && !goja.IsUndefined(res) && !goja.IsNull(res) {
		obj, isObj := res.(*goja.Object)
		if !isObj || obj.ClassName() == "Array" || obj.ClassName() == "Function" {
			warn(fmt.Sprintf("ignored return value %s: return nothing, {continue: true} or {continue: false, error: {message}}; continuing", short(sb.format(res))))
		} else {
			known := false
			if v := obj.Get("continue"); v != nil && !goja.IsUndefined(v) {
				known = true
				if b, ok := v.Export().(bool); ok {
					cont = b
				} else {
					warn(fmt.Sprintf("ignored continue: %s (want true or false); continuing", short(sb.format(v))))
				}
			}
			if !cont {
				blockMsg = "request blocked"
				if e, ok := obj.Get("error").(*goja.Object); ok {
					if m := e.Get("message"); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
						blockMsg = m.String()
					}
					if c, ok := prop(e, "code").Export().(int64); ok {
						blockCode = int(c)
					}
				} else {
					warn("blocked without error.message")
				}
			}
			if rc, ok := obj.Get("context").(*goja.Object); ok {
				known = true
				if rc != inv.obj {
					for i := 0; i < numLazy; i++ {
						if i == lzClient {
							continue
						}
						if v := rc.Get(lazyNames[i]); v != nil && !goja.IsUndefined(v) {
							inv.lazy[i] = lazyField{val: v, set: true}
						}
					}
				}
			}
			if v := obj.Get("error"); !known && v != nil && !goja.IsUndefined(v) {
				known = true
			}
			if !known {
				warn(fmt.Sprintf("ignored return value %s: it has no continue or context; continuing", short(sb.format(res))))
			}
		}
	}
	if !cont {
		return outcome{block: &Block{Hook: inv.hook, Phase: inv.phase, Message: blockMsg, Code: blockCode}}, nil
	}
	return outcome{}, s.writeBack(sb, inv, warn)
}

// writeBack copies the lazy fields the script read or assigned into the Call.
func (s *Service) writeBack(sb *sandbox, inv *invocation, warn func(string)) error {
	c := inv.call
	lz := &inv.lazy
	export := func(what string, v goja.Value) (any, bool, error) {
		out, err := sb.exportValue(v)
		if err != nil {
			if p := inv.stopped.Load(); p != nil {
				return nil, false, *p
			}
			var ie *goja.InterruptedError
			var so *goja.StackOverflowError
			if errors.As(err, &ie) || errors.As(err, &so) {
				return nil, false, err
			}
			warn(fmt.Sprintf("ignored the change to context.%s: %v", what, err))
			return nil, false, nil
		}
		return out, true, nil
	}
	var args any
	argsChanged := false
	if lz[lzArguments].val != nil || lz[lzRequest].val != nil {
		var src goja.Value = lz[lzArguments].val
		if !lz[lzArguments].set && lz[lzRequest].val != nil {
			// context.request.params.arguments wins unless context.arguments was assigned.
			if req, ok := lz[lzRequest].val.(*goja.Object); ok {
				if p, ok := req.Get("params").(*goja.Object); ok {
					src = p.Get("arguments")
				}
			}
		}
		v, ok, err := export("arguments", src)
		if err != nil {
			return err
		}
		if ok {
			args, argsChanged = v, true
		}
	}
	if lz[lzRequest].val != nil {
		var params map[string]any
		ok := false
		if req, isObj := lz[lzRequest].val.(*goja.Object); isObj {
			v, fine, err := export("request.params", req.Get("params"))
			if err != nil {
				return err
			}
			params, ok = v.(map[string]any)
			if fine && !ok && v != nil {
				warn("ignored context.request.params: not an object")
			}
		} else {
			warn("ignored context.request: not an object")
		}
		if ok {
			delete(params, "arguments")
			c.Params, c.Changed = params, c.Changed|ChangedParams
		}
	}
	if argsChanged {
		c.Arguments, c.Changed = args, c.Changed|ChangedArguments
		if c.Params == nil {
			c.Params = map[string]any{}
		} else if c.Changed&ChangedParams == 0 {
			c.Params = cloneMap(c.Params)
			c.Changed |= ChangedParams
		}
		if args != nil {
			c.Params["arguments"] = args
		} else {
			delete(c.Params, "arguments")
		}
	} else if c.Changed&ChangedParams != 0 && c.Arguments != nil {
		c.Params["arguments"] = c.Arguments
	}
	if lz[lzResponse].val != nil {
		v, ok, err := export("response", lz[lzResponse].val)
		if err != nil {
			return err
		}
		if ok {
			c.Response, c.Changed = v, c.Changed|ChangedResponse
		}
	}
	if lz[lzError].set {
		v, ok, err := export("error", lz[lzError].val)
		if err != nil {
			return err
		}
		if ok {
			switch e := v.(type) {
			case nil:
				c.Error = nil
				c.Changed |= ChangedError
			case map[string]any:
				ce := &CallError{Data: e["data"]}
				ce.Message, _ = e["message"].(string)
				if f, ok := e["code"].(float64); ok {
					ce.Code = int(f)
				}
				c.Error, c.Changed = ce, c.Changed|ChangedError
			default:
				warn("ignored context.error: not an object or null")
			}
		}
	}
	if lz[lzShared].val != nil {
		v, ok, err := export("shared", lz[lzShared].val)
		if err != nil {
			return err
		}
		if m, isMap := v.(map[string]any); ok && isMap {
			c.Shared, c.Changed = m, c.Changed|ChangedShared
		} else if ok {
			warn("ignored context.shared: not an object")
		}
	}
	return nil
}

// prop reads a property, undefined when missing.
func prop(o *goja.Object, k string) goja.Value {
	if v := o.Get(k); v != nil {
		return v
	}
	return goja.Undefined()
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}

func short(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func (s *Service) getSandbox(h *compiled) (*sandbox, error) {
	select {
	case sb := <-h.pool:
		return sb, nil
	default:
	}
	h.created.Add(1)
	return s.newSandbox(h.prog)
}

func (s *Service) putSandbox(h *compiled, sb *sandbox) {
	if sb.broken {
		return
	}
	sb.cur = nil
	select {
	case h.pool <- sb:
	default:
	}
}

// ---- validation and storage, for the CLI and the UI ----

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// ValidName checks a hook name: 1–64 letters, digits, '_', '.', '-', not
// starting with '.' or '-'.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%w: hook name %q: use 1-64 letters, digits, '_', '.' or '-' (not first)", store.ErrInvalid, name)
	}
	return nil
}

// Check validates a hook before it is stored: name, type and script.
func Check(h store.Hook) error {
	if err := ValidName(h.Name); err != nil {
		return err
	}
	switch h.HookType {
	case store.HookPre, store.HookPost, store.HookBoth:
	default:
		return fmt.Errorf("%w: hook type %q: want pre, post or both", store.ErrInvalid, h.HookType)
	}
	if err := Validate(h.Script); err != nil {
		return err
	}
	return nil
}

// List returns every stored hook in execution order.
func (s *Service) List(ctx context.Context) ([]store.Hook, error) { return s.repo.List(ctx) }

// Get returns the named hook (store.ErrNotFound if none).
func (s *Service) Get(ctx context.Context, name string) (store.Hook, error) {
	return s.repo.Get(ctx, name)
}

// Create validates and stores a new hook (store.ErrDuplicate if the name is
// taken). The running set changes on the next Reload.
func (s *Service) Create(ctx context.Context, h store.Hook) (store.Hook, error) {
	if err := Check(h); err != nil {
		return store.Hook{}, err
	}
	return s.repo.Create(ctx, h)
}

// Update validates and replaces the hook named h.Name.
func (s *Service) Update(ctx context.Context, h store.Hook) (store.Hook, error) {
	if err := Check(h); err != nil {
		return store.Hook{}, err
	}
	return s.repo.Update(ctx, h)
}

// SetEnabled turns a hook on or off.
func (s *Service) SetEnabled(ctx context.Context, name string, on bool) error {
	return s.repo.SetEnabled(ctx, name, on)
}

// Delete removes a hook.
func (s *Service) Delete(ctx context.Context, name string) error { return s.repo.Delete(ctx, name) }

// ---- logs ----

const ringSize = 500

type ring struct {
	mu    sync.Mutex
	lines [ringSize]LogLine
	next  int
	full  bool
}

func (r *ring) add(l LogLine) {
	r.mu.Lock()
	r.lines[r.next] = l
	r.next = (r.next + 1) % ringSize
	if r.next == 0 {
		r.full = true
	}
	r.mu.Unlock()
}

func (r *ring) snapshot() []LogLine {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]LogLine(nil), r.lines[:r.next]...)
	}
	out := make([]LogLine, 0, ringSize)
	out = append(out, r.lines[r.next:]...)
	return append(out, r.lines[:r.next]...)
}

// emit records a line in the hook's ring and the app log, and tells the
// subscribers.
func (s *Service) emit(hook string, l LogLine) {
	s.logMu.RLock()
	r := s.logs[hook]
	s.logMu.RUnlock()
	if r == nil {
		s.logMu.Lock()
		if r = s.logs[hook]; r == nil {
			r = &ring{}
			s.logs[hook] = r
		}
		s.logMu.Unlock()
	}
	r.add(l)
	e := s.log.WithField("hook", hook)
	msg := l.Message
	if !l.Router {
		msg = "console." + l.Level + ": " + msg
	}
	switch l.Level {
	case "error":
		e.Error(msg)
	case "warn":
		e.Warn(msg)
	case "debug":
		e.Debug(msg)
	default:
		e.Info(msg)
	}
	s.subMu.RLock()
	for _, fn := range s.subs {
		fn(hook, l)
	}
	s.subMu.RUnlock()
}

// Logs returns the last 500 lines of the named hook's log, oldest first.
func (s *Service) Logs(name string) []LogLine {
	s.logMu.RLock()
	r := s.logs[name]
	s.logMu.RUnlock()
	if r == nil {
		return []LogLine{}
	}
	return r.snapshot()
}

// Subscribe calls fn with every new log line of every hook until the
// returned function is called. fn runs on the hook's goroutine: it must be
// quick and must not call back into the Service.
func (s *Service) Subscribe(fn func(hook string, l LogLine)) (unsubscribe func()) {
	s.subMu.Lock()
	s.subID++
	id := s.subID
	s.subs[id] = fn
	s.subMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.subMu.Lock()
			delete(s.subs, id)
			s.subMu.Unlock()
		})
	}
}

// ---- dry runs ----

// TestResult is what one dry run of a hook did.
type TestResult struct {
	Hook       string         `json:"hook"`
	Phase      string         `json:"phase"`
	Continue   bool           `json:"continue"`
	Block      *Block         `json:"blocked,omitempty"`
	Error      string         `json:"error,omitempty"` // the script failed (the request would go on unless fail-closed)
	Context    map[string]any `json:"context"`         // the context after the hook
	Logs       []LogLine      `json:"logs"`
	DurationMs float64        `json:"durationMs"`
}

// Test runs the named hook once against sample (whether or not the hook is
// enabled) in the given phase, without touching its log. The script is
// compiled from the database, so Test works without Reload.
func (s *Service) Test(ctx context.Context, name string, sample Call, phase string) (TestResult, error) {
	if phase != PhasePre && phase != PhasePost {
		return TestResult{}, fmt.Errorf("%w: phase %q: want pre or post", store.ErrInvalid, phase)
	}
	h, err := s.repo.Get(ctx, name)
	if err != nil {
		return TestResult{}, err
	}
	c := &compiled{hook: h, pool: make(chan *sandbox, 1)}
	c.prog, c.broken = compile(h.Name, h.Script)
	res := TestResult{Hook: name, Phase: phase, Logs: []LogLine{}}
	start := time.Now()
	call := sample
	out := s.runHook(ctx, c, &call, phase, func(l LogLine) { res.Logs = append(res.Logs, l) })
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	res.Continue = out.block == nil
	res.Block = out.block
	if out.err != nil {
		res.Error = out.err.Error()
	}
	res.Context = call.ContextMap(phase)
	return res, nil
}

// ContextMap is the call as a script's context, as plain JSON data: the
// shape `hooks test --context` reads and prints.
func (c *Call) ContextMap(phase string) map[string]any {
	m := map[string]any{
		"phase":       phase,
		"requestType": c.RequestType,
		"method":      c.Method,
		"serverName":  c.ServerName,
		"toolName":    c.ToolName,
		"arguments":   c.Arguments,
		"request":     map[string]any{"method": c.Method, "params": nonNilMap(c.Params)},
		"client":      map[string]any{"tokenName": c.Client.TokenName, "sessionId": c.Client.SessionID},
		"shared":      nonNilMap(c.Shared),
	}
	if phase == PhasePost {
		m["response"] = c.Response
		m["duration"] = c.DurationMs
		if c.Error != nil {
			m["error"] = c.Error
		} else {
			m["error"] = nil
		}
	}
	return m
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// CallFromContext builds a Call from a context object as a script sees it
// (the JSON `hooks test --context FILE` reads). Unknown keys are refused so
// that a typo does not go unnoticed.
func CallFromContext(m map[string]any) (Call, error) {
	var c Call
	str := func(k string) (string, error) {
		v, ok := m[k]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%w: context.%s must be a string", store.ErrInvalid, k)
		}
		return s, nil
	}
	var err error
	for k := range m {
		switch k {
		case "phase", "requestType", "method", "serverName", "toolName", "arguments", "request",
			"client", "shared", "response", "error", "duration":
		default:
			return c, fmt.Errorf("%w: unknown context key %q", store.ErrInvalid, k)
		}
	}
	if c.RequestType, err = str("requestType"); err != nil {
		return c, err
	}
	if c.Method, err = str("method"); err != nil {
		return c, err
	}
	if c.ServerName, err = str("serverName"); err != nil {
		return c, err
	}
	if c.ToolName, err = str("toolName"); err != nil {
		return c, err
	}
	c.Arguments = m["arguments"]
	if r, ok := m["request"]; ok && r != nil {
		rm, ok := r.(map[string]any)
		if !ok {
			return c, fmt.Errorf("%w: context.request must be an object", store.ErrInvalid)
		}
		if meth, ok := rm["method"].(string); ok && c.Method == "" {
			c.Method = meth
		}
		if p, ok := rm["params"]; ok && p != nil {
			pm, ok := p.(map[string]any)
			if !ok {
				return c, fmt.Errorf("%w: context.request.params must be an object", store.ErrInvalid)
			}
			c.Params = pm
			if c.Arguments == nil {
				c.Arguments = pm["arguments"]
			}
		}
	}
	if c.Arguments != nil {
		if c.Params == nil {
			c.Params = map[string]any{}
		}
		c.Params["arguments"] = c.Arguments
	}
	if cl, ok := m["client"].(map[string]any); ok {
		c.Client.TokenName, _ = cl["tokenName"].(string)
		c.Client.SessionID, _ = cl["sessionId"].(string)
	}
	if sh, ok := m["shared"]; ok && sh != nil {
		shm, ok := sh.(map[string]any)
		if !ok {
			return c, fmt.Errorf("%w: context.shared must be an object", store.ErrInvalid)
		}
		c.Shared = shm
	}
	c.Response = m["response"]
	if e, ok := m["error"].(map[string]any); ok {
		c.Error = &CallError{Data: e["data"]}
		c.Error.Message, _ = e["message"].(string)
		if f, ok := e["code"].(float64); ok {
			c.Error.Code = int(f)
		}
	}
	if d, ok := m["duration"].(float64); ok {
		c.DurationMs = d
	}
	if c.RequestType == "" && c.Method != "" {
		c.RequestType = RequestTypeOf(c.Method)
	}
	return c, nil
}

// RequestTypeOf maps an MCP method to the requestType hooks see.
func RequestTypeOf(method string) string {
	switch method {
	case "tools/call":
		return "CallTool"
	case "tools/list":
		return "ListTools"
	case "resources/read":
		return "ReadResource"
	case "resources/list":
		return "ListResources"
	case "resources/templates/list":
		return "ListResourceTemplates"
	case "resources/subscribe":
		return "Subscribe"
	case "resources/unsubscribe":
		return "Unsubscribe"
	case "prompts/get":
		return "GetPrompt"
	case "prompts/list":
		return "ListPrompts"
	case "completion/complete":
		return "Complete"
	case "logging/setLevel":
		return "SetLevel"
	case "ping":
		return "Ping"
	}
	// Anything else: the method's words in CamelCase ("a/b_c" → "ABC").
	var b strings.Builder
	up := true
	for _, r := range method {
		if r == '/' || r == '_' || r == '-' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
