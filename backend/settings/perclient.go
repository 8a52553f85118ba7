package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// Per-client servers' limits (docs/limits.md, "Per-client servers"). The
// names match upstream.SettingPerClientMaxInstances and SettingPerClientIdle,
// which its errors quote.
const (
	KeyPerClientMaxInstances = "perClientMaxInstances" // instances one per-client server may run at once
	KeyPerClientIdleSeconds  = "perClientIdleSeconds"  // seconds an instance with no call is kept
)

// Defaults of the per-client settings: upstream's own
// (upstream.DefaultPerClientMaxInstances, DefaultPerClientIdle).
const (
	DefaultPerClientMaxInstances = 16
	DefaultPerClientIdleSeconds  = 600
)

func init() {
	defs = append(defs,
		Def{Key: KeyPerClientMaxInstances, Default: strconv.Itoa(DefaultPerClientMaxInstances), Allowed: "a whole number from 1 to 1000",
			Help:  "instances (processes or HTTP sessions) one per-client server may run at once, one per client; past it a new client's call is refused",
			check: intRange(1, 1000)},
		Def{Key: KeyPerClientIdleSeconds, Default: strconv.Itoa(DefaultPerClientIdleSeconds), Allowed: "a whole number of seconds from 10 to 86400",
			Help: "seconds a per-client server's instance with no call is kept before the router stops it", check: intRange(10, 86400)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// PerClientMaxInstances is how many instances one per-client server may run.
func (s *Settings) PerClientMaxInstances(ctx context.Context) int {
	return s.validInt(ctx, KeyPerClientMaxInstances)
}

// PerClientIdle is how long a per-client instance with no call is kept.
func (s *Settings) PerClientIdle(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyPerClientIdleSeconds)) * time.Second
}
