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
	"runtime"
	"runtime/debug"
	"sort"
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
	DefaultMaxMemory    = 64 << 20
)

// ServerInfo is what getServerInfo(name) returns to a script.
type ServerInfo struct {
	Name      string   `json:"name"`
	Transport string   `json:"transport"`
	Status    string   `json:"status"`
	Tools     []string `json:"tools"`
}

// Limits are the limits of one hook run that may change while the router
// runs (the settings hookTimeout and hookMemoryMB).
type Limits struct {
	// Timeout is how long one run may take, including reading what the
	// script returned or threw; 0 means Options.Timeout.
	Timeout time.Duration
	// MaxMemory is how far the Go heap may grow (after garbage is
	// collected) during one run before it is stopped; 0 means
	// Options.MaxMemory, negative disables.
	MaxMemory int64
}

// Options configure a Service. Zero values take the defaults.
type Options struct {
	Timeout      time.Duration // per hook run; default 5s
	MaxCallStack int           // JS call depth; default 1000
	// MaxMemory is how far the Go heap may grow during one hook run before
	// the run is interrupted; default 64 MB, negative disables.
	MaxMemory int64
	// Limits, when set, is asked at the start of every Pre, Post and test
	// run: its non-zero fields override Timeout and MaxMemory, so that a
	// changed setting applies to the next request without a restart.
	Limits        func() Limits
	Logger        *logrus.Logger // default logrus.StandardLogger()
	ValidateToken func(token string) bool
	ServerInfo    func(name string) (ServerInfo, bool)
	// PoolSize is how many idle runtimes each hook keeps; default GOMAXPROCS.
	PoolSize int
	// Observe, when set, is told how long each live run of a hook took
	// (phase pre or post), for the metrics; test runs are not counted.
	Observe func(phase string, d time.Duration)
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
	pool    *runtimePool
	created atomic.Int64
}

// runtimePool holds a hook's idle runtimes. It outlives changes to the
// hook's settings (order, type, fail-closed) and is retired when the hook
// is removed, disabled or its script changes: its runtimes are dropped, and
// one still running is dropped when it comes back.
type runtimePool struct {
	ch      chan *sandbox
	retired atomic.Bool
}

func newPool(size int) *runtimePool { return &runtimePool{ch: make(chan *sandbox, size)} }

// retire drops the idle runtimes; putSandbox drops the busy ones.
func (p *runtimePool) retire() {
	p.retired.Store(true)
	for {
		select {
		case <-p.ch:
		default:
			return
		}
	}
}

type hookSet struct {
	pre, post []*compiled
	byName    map[string]*compiled
}

// hookStore is what the service needs of store.HookRepo.
type hookStore interface {
	List(ctx context.Context) ([]store.Hook, error)
	Get(ctx context.Context, name string) (store.Hook, error)
	Create(ctx context.Context, h store.Hook) (store.Hook, error)
	Update(ctx context.Context, h store.Hook) (store.Hook, error)
	SetEnabled(ctx context.Context, name string, enabled bool) error
	Delete(ctx context.Context, name string) error
}

var _ hookStore = store.HookRepo{}

// Service runs hooks. It is safe for concurrent use.
type Service struct {
	repo hookStore
	opts Options
	log  *logrus.Logger

	set      atomic.Pointer[hookSet]
	reloadMu sync.Mutex

	releasing atomic.Bool // a release of memory to the OS is scheduled
	released  atomic.Int64
	heapDirty atomic.Bool // a heavy run ended: see sandbox.overBudget

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
	// The read is under the lock too: two reloads that overlapped could
	// otherwise read in one order and store in the other, leaving the older
	// set of hooks in place until the next database change.
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	rows, err := s.repo.List(ctx)
	if err != nil {
		return err
	}
	old := s.set.Load()
	next := &hookSet{byName: map[string]*compiled{}}
	names := map[string]bool{}
	for _, h := range rows {
		names[h.Name] = true
		if !h.Enabled {
			continue
		}
		c := old.byName[h.Name]
		if c == nil || c.hook.Script != h.Script || c.hook.ID != h.ID || c.hook.LoadError != h.LoadError {
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

	// Hooks removed, disabled or recompiled: drop their runtimes, and hand
	// the memory they and their last runs held back to the OS.
	kept := map[*runtimePool]bool{}
	for _, c := range next.byName {
		kept[c.pool] = true
	}
	retired := false
	for _, c := range old.byName {
		if !kept[c.pool] {
			c.pool.retire()
			retired = true
		}
	}
	if retired {
		s.releaseMemory()
	}

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
	c := &compiled{hook: h, pool: newPool(s.opts.PoolSize)}
	if h.LoadError != "" {
		// A row the store could not read: reported, never run.
		c.broken = errors.New(h.LoadError)
	} else {
		c.prog, c.broken = compile(h.Name, h.Script)
	}
	if c.broken != nil {
		what := "does not compile: "
		if h.LoadError != "" {
			what = "cannot be loaded: "
		}
		s.emit(h.Name, LogLine{Time: time.Now(), Level: "error", Router: true, Message: what + c.broken.Error()})
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
	set := s.set.Load()
	if len(set.pre) == 0 {
		return nil
	}
	lim := s.limits()
	for _, h := range set.pre {
		if b := s.runLive(ctx, h, c, PhasePre, lim); b != nil {
			return b
		}
	}
	return nil
}

// Post runs the post and both hooks in order, updating c in place (a hook
// may replace c.Response or c.Error). A non-nil Block means the response is
// replaced by the error Block.Error().
func (s *Service) Post(ctx context.Context, c *Call) *Block {
	set := s.set.Load()
	if len(set.post) == 0 {
		return nil
	}
	lim := s.limits()
	for _, h := range set.post {
		if b := s.runLive(ctx, h, c, PhasePost, lim); b != nil {
			return b
		}
	}
	return nil
}

// limits are the limits of the runs about to start.
func (s *Service) limits() Limits {
	l := Limits{Timeout: s.opts.Timeout, MaxMemory: s.opts.MaxMemory}
	if s.opts.Limits != nil {
		o := s.opts.Limits()
		if o.Timeout > 0 {
			l.Timeout = o.Timeout
		}
		if o.MaxMemory != 0 {
			l.MaxMemory = o.MaxMemory
		}
	}
	return l
}

// releaseDelay lets the run that asked for a release drop its runtime
// first, and folds several requests into one.
const releaseDelay = 100 * time.Millisecond

// releaseMemory collects garbage and returns the free heap to the OS soon,
// once for any number of calls in releaseDelay. It is called after a hook
// is removed or recompiled and after a run stopped for its memory budget:
// otherwise the heap such a run grew stays mapped (the process's RSS stays
// high) until the next garbage collection, which an idle router may not
// need for minutes, and the OS gets the pages back only slowly after it.
func (s *Service) releaseMemory() {
	if !s.releasing.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(releaseDelay, func() {
		s.releasing.Store(false)
		debug.FreeOSMemory()
		s.released.Add(1)
	})
}
