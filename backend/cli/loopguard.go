package cli

import (
	"context"
	"os"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/loopguard"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// loopGuard describes the router of this data dir for loopguard.Check: its
// data dir, the listen and port settings and this binary. Every command
// that writes a server definition checks it (docs/endpoint.md, "No router
// behind itself").
func (e *env) loopGuard(ctx context.Context, st *store.Store) (loopguard.Self, error) {
	dir, err := e.resolveDataDir()
	if err != nil {
		return loopguard.Self{}, err
	}
	return loopguard.Self{DataDir: dir, Listen: []string{settings.New(st).ListenAddr(ctx)}}, nil
}

// identity is the instance id of this data dir's router and the chain of
// routers this process runs under, for a one-off connection (servers test).
func (e *env) identity() (string, []string, error) {
	dir, err := e.resolveDataDir()
	if err != nil {
		return "", nil, err
	}
	id, err := config.InstanceID(dir)
	if err != nil {
		return "", nil, err
	}
	return id, upstream.ParseChain(os.Getenv(upstream.EnvRouterChain)), nil
}
