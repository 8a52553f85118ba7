package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// The router answers initialize before its upstreams are up (an `npx -y`
// server can take a minute to download) and lists tools as they arrive.
// A client that already knows a tool's name — one it remembers from an
// earlier session, or a script that calls right after initialize — would
// then be told "tool not found" for a tool that is seconds away. So a call
// to a name the catalog does not have waits while any server is still
// starting, and is answered as soon as the name appears or the last start
// has ended (then with the usual unknown-tool error). Nothing waits when no
// server is starting: an unknown name costs what it always did.

// startupWaitLimit bounds the wait whatever the servers do; a server's own
// start timeout normally ends it sooner.
const startupWaitLimit = 2 * time.Minute

// startup follows which servers are starting and how far the catalog has
// been rebuilt, for the calls that wait.
type startup struct {
	mu       sync.Mutex
	holding  bool // the servers are not loaded yet (HoldForServers)
	starting map[string]bool
	begun    uint64        // rebuilds begun
	ended    uint64        // rebuilds ended
	changed  chan struct{} // closed and replaced when either above moves
}

func newStartup() *startup {
	return &startup{starting: map[string]bool{}, changed: make(chan struct{})}
}

// broadcast wakes the waiters; callers hold mu.
func (s *startup) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// follow records a server's state from an upstream event or a status read.
func (s *startup) follow(st upstream.Status) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := st.Enabled && st.State == upstream.StateStarting
	if s.starting[st.Name] == now {
		return
	}
	if now {
		s.starting[st.Name] = true
	} else {
		delete(s.starting, st.Name)
	}
	s.broadcast()
}

// rebuildBegins and rebuildEnds bracket every catalog rebuild.
func (s *startup) rebuildBegins() {
	s.mu.Lock()
	s.begun++
	s.mu.Unlock()
}

func (s *startup) rebuildEnds() {
	s.mu.Lock()
	s.ended++
	s.broadcast()
	s.mu.Unlock()
}

// anyStarting reports whether a server is starting now, or the servers
// are yet to be loaded.
func (s *startup) anyStarting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.holding || len(s.starting) > 0
}

// HoldForServers makes calls to unknown names wait as if servers were
// starting, for a router that publishes its endpoint before it has loaded
// its servers (the desktop app reads the login shell's PATH first); call
// ServersLoaded once they are synced, whether that worked or not.
func (g *Gateway) HoldForServers() {
	g.startup.mu.Lock()
	g.startup.holding = true
	g.startup.broadcast()
	g.startup.mu.Unlock()
}

// ServersLoaded ends HoldForServers.
func (g *Gateway) ServersLoaded() {
	g.startup.mu.Lock()
	g.startup.holding = false
	g.startup.broadcast()
	g.startup.mu.Unlock()
}

// awaitName waits, while servers are starting, until known reports true or
// no server is starting any more and a catalog rebuilt after that has been
// published. It returns at once when no server is starting.
func (g *Gateway) awaitName(ctx context.Context, known func() bool) {
	if known() || !g.startup.anyStarting() {
		return
	}
	limit := time.NewTimer(startupWaitLimit)
	defer limit.Stop()
	var settleAfter uint64 // a rebuild begun after the last start ended; 0: none asked yet
	for {
		s := g.startup
		s.mu.Lock()
		starting, ended, changed := s.holding || len(s.starting) > 0, s.ended, s.changed
		if !starting && settleAfter == 0 {
			// The last start ended: the rebuild its event asked for may not
			// have begun yet, so ask for one and wait until it is published.
			settleAfter = s.begun + 1
			s.mu.Unlock()
			g.Refresh()
		} else {
			if starting {
				settleAfter = 0 // another server began starting
			}
			s.mu.Unlock()
		}
		if known() {
			// g.tools changes before mcp-go's own table (SetTools): let a
			// rebuild under way finish, so mcp-go knows the name too.
			g.rebuildMu.Lock()
			g.rebuildMu.Unlock() //nolint:staticcheck // an empty critical section is the point
			return
		}
		if settleAfter != 0 && ended >= settleAfter {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-limit.C:
			return
		}
	}
}

// hasTool and hasPrompt read the published catalog.
func (g *Gateway) hasTool(name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	_, ok := g.tools[name]
	return ok
}

func (g *Gateway) hasPrompt(name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	_, ok := g.prompts[name]
	return ok
}

var (
	toolsCallMarker  = []byte(pipeline.MethodToolsCall)
	promptsGetMarker = []byte(pipeline.MethodPromptsGet)
)

// awaitStartingFor is beforeDispatch's part for tools/call and prompts/get
// on mcp-go's path (the fast path hands unknown tools to it).
func (g *Gateway) awaitStartingFor(ctx context.Context, raw json.RawMessage) {
	if !g.startup.anyStarting() ||
		(!bytes.Contains(raw, toolsCallMarker) && !bytes.Contains(raw, promptsGetMarker)) {
		return
	}
	var req struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &req) != nil || req.Params.Name == "" {
		return
	}
	switch req.Method {
	case pipeline.MethodToolsCall:
		g.awaitName(ctx, func() bool { return g.hasTool(req.Params.Name) })
	case pipeline.MethodPromptsGet:
		g.awaitName(ctx, func() bool { return g.hasPrompt(req.Params.Name) })
	}
}
