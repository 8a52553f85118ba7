package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// The HTTP endpoint's session limits (docs/limits.md, "Sessions").
const (
	KeySessionsPerCredential = "sessionsPerCredential" // sessions one token (or JWT subject, or anonymous) may hold
	KeySessionsTotal         = "sessionsTotal"         // sessions all clients together may hold
	KeySessionIdleTimeout    = "sessionIdleTimeout"    // seconds a session with no request and no open stream is kept
)

// Defaults of the session settings: the gateway's own
// (gateway.DefaultSessionsPerCredential, …; core's tests hold them equal).
const (
	DefaultSessionsPerCredential = 100
	DefaultSessionsTotal         = 1000
	DefaultSessionIdleTimeout    = 600 // seconds
)

func init() {
	defs = append(defs,
		Def{Key: KeySessionsPerCredential, Default: strconv.Itoa(DefaultSessionsPerCredential), Allowed: "a whole number from 1 to 100000",
			Help:  "HTTP sessions one credential (token, JWT subject, or anonymous) may hold at once; past it a new session is refused",
			check: intRange(1, 100000)},
		Def{Key: KeySessionsTotal, Default: strconv.Itoa(DefaultSessionsTotal), Allowed: "a whole number from 1 to 100000",
			Help: "HTTP sessions all clients together may hold at once; past it a new session is refused", check: intRange(1, 100000)},
		Def{Key: KeySessionIdleTimeout, Default: strconv.Itoa(DefaultSessionIdleTimeout), Allowed: "a whole number of seconds from 60 to 86400",
			Help: "seconds an HTTP session with no request and no open stream is kept before the router ends it", check: intRange(60, 86400)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// SessionsPerCredential is how many HTTP sessions one credential may hold.
func (s *Settings) SessionsPerCredential(ctx context.Context) int {
	return s.validInt(ctx, KeySessionsPerCredential)
}

// SessionsTotal is how many HTTP sessions all clients together may hold.
func (s *Settings) SessionsTotal(ctx context.Context) int { return s.validInt(ctx, KeySessionsTotal) }

// SessionIdleTimeout is how long an HTTP session with no request and no
// open stream is kept.
func (s *Settings) SessionIdleTimeout(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeySessionIdleTimeout)) * time.Second
}
