package settings

import (
	"context"
	"sort"
	"strconv"
)

// The cap of one message from an upstream server (docs/limits.md,
// "Upstream messages"). The name matches upstream.SettingMaxMessage, which
// its errors quote.
const KeyUpstreamMaxMessageMB = "upstreamMaxMessageMB"

// DefaultUpstreamMaxMessageMB is upstream.DefaultMaxMessage in MiB.
const DefaultUpstreamMaxMessageMB = 32

func init() {
	defs = append(defs,
		Def{Key: KeyUpstreamMaxMessageMB, Default: strconv.Itoa(DefaultUpstreamMaxMessageMB), Allowed: "a whole number of MiB from 1 to 1024",
			Help:  "the largest message (an answer, a notification, a request) the router reads from an upstream server; a larger one is dropped and its request fails naming this setting. Applies to connections made after the change",
			check: intRange(1, 1024)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// UpstreamMaxMessage is the cap of one upstream message, in bytes.
func (s *Settings) UpstreamMaxMessage(ctx context.Context) int {
	return s.validInt(ctx, KeyUpstreamMaxMessageMB) << 20
}
