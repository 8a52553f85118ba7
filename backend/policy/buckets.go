package policy

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// buckets are one rule's token buckets, one per key (limit.per).
type buckets struct {
	limit rate.Limit
	burst int
	mu    sync.Mutex
	m     map[string]*rate.Limiter
}

func newBuckets(limit rate.Limit, burst int) *buckets {
	return &buckets{limit: limit, burst: burst, m: map[string]*rate.Limiter{}}
}

// maxBuckets is how many keys a rule keeps before it sweeps out the full
// ones (clients with many JWT subjects would otherwise grow the map for
// ever). A full bucket is what a new key gets, so dropping one changes
// nothing.
const maxBuckets = 4096

func (b *buckets) get(key string, now time.Time) *rate.Limiter {
	b.mu.Lock()
	l := b.m[key]
	if l == nil {
		if len(b.m) >= maxBuckets {
			b.sweep(now)
		}
		l = rate.NewLimiter(b.limit, b.burst)
		b.m[key] = l
	}
	b.mu.Unlock()
	return l
}

// sweep drops the buckets that are full at now. Called with mu held.
func (b *buckets) sweep(now time.Time) {
	for k, l := range b.m {
		if l.TokensAt(now) >= float64(b.burst) {
			delete(b.m, k)
		}
	}
}

// size is the number of keys held.
func (b *buckets) size() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m)
}

// wait is how long until the bucket of key holds a token at now (0: it
// holds one).
func (b *buckets) wait(key string, now time.Time) time.Duration {
	tokens := b.get(key, now).TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / float64(b.limit) * float64(time.Second)))
}

// key is the bucket key of a call for the rule's per.
func bucketKey(per string, in *input) string {
	switch per {
	case PerClient:
		return in.client + "\x00" + in.subject
	case PerTool:
		return in.server + "\x00" + in.item
	case PerServer:
		return in.server
	}
	return in.client + "\x00" + in.subject + "\x00" + in.server + "\x00" + in.item
}
