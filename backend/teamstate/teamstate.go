// Package teamstate keeps the runtime state replicas of one router share
// in Redis (team mode, docs/team.md "Redis"): the policy's rate-limit
// buckets (buckets.go), the pending human approvals (approvals.go) and the
// activate gate's unlocks (unlocks.go). The consuming packages define what
// they need (policy.SharedBuckets, approval.Shared, gate.SharedUnlocks)
// with an in-process default; this package is the Redis side, wired by
// core when --redis is given.
//
// Every key starts with Prefix, and every part of a key a client could
// choose is hashed first, so a key's length is bounded whatever a client
// sends.
package teamstate

import (
	"context"
	"fmt"
	"time"
)

// Prefix starts every key the router writes in Redis.
const Prefix = "mcpr:"

// OpTimeout bounds one round trip to Redis: a Redis that stopped answering
// costs a call this long at most, then the call is refused naming Redis.
const OpTimeout = 2 * time.Second

// redisError names Redis in an error, so a refused call says what failed.
func redisError(what string, err error) error {
	return fmt.Errorf("redis (team mode shared state) %s: %w", what, err)
}

// bounded is ctx with OpTimeout at most.
func bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, OpTimeout)
}
