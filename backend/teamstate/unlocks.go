package teamstate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/gate"
)

// GatePrefix starts the keys of the activate gate's unlocks: one hash per
// client (its gate key, hashed), a field per server it activated.
const GatePrefix = Prefix + "gate:"

// UnlockTTL is how long a client's unlocks stay shared after its last
// activation; a replica that adopted one keeps it for its own run.
const UnlockTTL = 24 * time.Hour

// Unlocks are the gate's unlocks in Redis (gate.SharedUnlocks).
type Unlocks struct {
	rdb *redis.Client
}

var _ gate.SharedUnlocks = (*Unlocks)(nil)

// NewUnlocks keeps the unlocks in rdb.
func NewUnlocks(rdb *redis.Client) *Unlocks { return &Unlocks{rdb: rdb} }

// gateKey is the Redis key of a client's gate key (its token name, the
// client name and version it declares, or its session id: all hashed).
func gateKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return GatePrefix + hex.EncodeToString(sum[:16])
}

// serverField bounds the field of a server's name (config names, but
// hashed past 128 bytes all the same).
func serverField(server string) string {
	if len(server) <= 128 {
		return server
	}
	sum := sha256.Sum256([]byte(server))
	return "#" + hex.EncodeToString(sum[:16])
}

// Unlock implements gate.SharedUnlocks.
func (u *Unlocks) Unlock(ctx context.Context, key, server string) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	k := gateKey(key)
	pipe := u.rdb.TxPipeline()
	pipe.HSet(ctx, k, serverField(server), "1")
	pipe.Expire(ctx, k, UnlockTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return redisError("gate unlocks", err)
	}
	return nil
}

// Unlocked implements gate.SharedUnlocks.
func (u *Unlocks) Unlocked(ctx context.Context, key, server string) (bool, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	ok, err := u.rdb.HExists(ctx, gateKey(key), serverField(server)).Result()
	if err != nil {
		return false, redisError("gate unlocks", err)
	}
	return ok, nil
}

// Forget implements gate.SharedUnlocks.
func (u *Unlocks) Forget(ctx context.Context, key string) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := u.rdb.Del(ctx, gateKey(key)).Err(); err != nil {
		return redisError("gate unlocks", err)
	}
	return nil
}
