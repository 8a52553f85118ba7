package catalog

import (
	"math"
	"time"
)

// A persisted list is stale once the ttlMs its server gave with it has
// passed since it was fetched; ttlMs 0 (what the go-sdk sends unless a
// server chooses otherwise) is stale at once. A list without a ttlMs never
// goes stale. What stale changes (docs/profiles.md, "Stale lists"): the
// list is reported stale (Lists.Stale), so nobody takes it for the
// server's current word; it is still what clients
// of a stopped server see and search (the router has nothing newer), and
// the server's next start — a call, an activation, add_tools, a restart —
// fetches every list anew before its first request is answered. Staleness
// never starts a server by itself: with ttlMs 0 that would make every
// lazy go-sdk server eager.

// ttlDuration is ttlMs as a duration; ok false when it does not fit one
// (an upstream's 9e18 ms means "for ever", not an overflow into the past).
func ttlDuration(ms int64) (time.Duration, bool) {
	if ms < 0 || ms > math.MaxInt64/int64(time.Millisecond) {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// IsStale reports whether the persisted list (ListTools, …) is past its
// ttlMs at now.
func (l Lists) IsStale(list string, now time.Time) bool {
	ms, hasTTL := l.TTLs[list]
	seen, fetched := l.SeenAt[list]
	if !hasTTL || !fetched {
		return false
	}
	ttl, ok := ttlDuration(ms)
	return ok && !now.Before(seen.Add(ttl))
}

// staleLists names the stale lists of l at now.
func (l Lists) staleLists(now time.Time) []string {
	var out []string
	for _, list := range []string{ListTools, ListResources, ListResourceTemplates, ListPrompts} {
		if l.IsStale(list, now) {
			out = append(out, list)
		}
	}
	return out
}
