package gate

import (
	"context"
	"time"
)

// SharedUnlocks keeps which clients activated which gated servers outside
// the process (team mode: Redis, backend/teamstate), so that a client's
// request landing on another replica (a 2026-07-28 client has no session to
// pin it) finds the server unlocked there too. Without it each replica
// keeps its own unlocks.
type SharedUnlocks interface {
	// Unlock records key (Key) as having activated server.
	Unlock(ctx context.Context, key, server string) error
	// Unlocked reports whether key activated server on some replica.
	Unlocked(ctx context.Context, key, server string) (bool, error)
	// Forget drops what key unlocked (its session closed).
	Forget(ctx context.Context, key string) error
}

// sharedTimeout bounds one exchange with the shared unlocks.
const sharedTimeout = 3 * time.Second

// shareUnlock records an activation for the other replicas; a failure
// leaves the client unlocked here only (the others ask it to activate).
func (g *Gate) shareUnlock(key, serverName string) {
	if g.o.Shared == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), sharedTimeout)
	defer cancel()
	if err := g.o.Shared.Unlock(ctx, key, serverName); err != nil {
		g.o.Logger.Warnf("gate: the activation of %s is not shared with the other replicas: %v", serverName, err)
	}
}

// unlockedElsewhere reports whether key activated serverName on another
// replica. A shared store that does not answer counts as no (the client is
// asked to activate here: fail closed).
func (g *Gate) unlockedElsewhere(ctx context.Context, key, serverName string) bool {
	if g.o.Shared == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, sharedTimeout)
	defer cancel()
	ok, err := g.o.Shared.Unlocked(ctx, key, serverName)
	if err != nil {
		g.o.Logger.Warnf("gate: could not read the other replicas' activations of %s (the client is treated as locked): %v", serverName, err)
		return false
	}
	return ok
}

// adopt makes a client that activated serverName on another replica
// unlocked here: this replica runs (or joins) its own activation of the
// server, as for any client, and records the caller on its connection. It
// reports whether the caller is now unlocked here.
func (g *Gate) adopt(ctx context.Context, key, serverName string) bool {
	if !g.unlockedElsewhere(ctx, key, serverName) {
		return false
	}
	a, err := g.activateServer(ctx, serverName)
	if err != nil || a.err != nil {
		return false
	}
	g.unlock(key, serverName, a.connection)
	return true
}
