package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// Lazy servers' settings (spec.StartLazy, docs/settings.md).
const (
	KeyLazyIdleSeconds = "lazyIdleSeconds" // seconds a lazy server stays up without a call
)

// DefaultLazyIdleSeconds is the idle time of a lazy server.
const DefaultLazyIdleSeconds = 300

func init() {
	defs = append(defs,
		Def{Key: KeyLazyIdleSeconds, Default: strconv.Itoa(DefaultLazyIdleSeconds), Allowed: "a whole number of seconds from 1 to 86400",
			Help: "seconds a lazy server (start: lazy) stays up after its last call before it stops", check: intRange(1, 86400)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// LazyIdle is how long a lazy server stays up without a call.
func (s *Settings) LazyIdle(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyLazyIdleSeconds)) * time.Second
}
