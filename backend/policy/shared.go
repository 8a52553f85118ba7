package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// SharedBuckets keeps the rate-limit buckets outside the process, so that
// replicas of one router spend from the same allowance (team mode: Redis,
// backend/teamstate). Without it each process keeps its own buckets, as
// the desktop app does.
type SharedBuckets interface {
	// Take takes one token from each bucket, all or none. take false only
	// looks: nothing is spent. refused is the index in buckets of the
	// bucket that had no token (-1: every one had), wait how long until
	// it holds one. An error means the buckets could not be read: the
	// caller refuses the call (fail closed, never let past a limit).
	Take(ctx context.Context, buckets []SharedBucket, take bool) (refused int, wait time.Duration, err error)
}

// SharedBucket is one rule's bucket for one key in a SharedBuckets.
type SharedBucket struct {
	// ID names the bucket: a hash of the rule's limit and of the key, so
	// its length is fixed whatever a client's name or a tool's name is,
	// and a reload that keeps the limit keeps the bucket.
	ID        string
	PerMinute int
}

// ErrSharedBuckets wraps a failure to reach the shared buckets.
var ErrSharedBuckets = errors.New("the shared rate-limit buckets did not answer")

// sharedBucketID is the ID of ru's bucket for the call in.
func sharedBucketID(ru *rule, in *input) string {
	h := sha256.New()
	h.Write([]byte(ru.fingerprint))
	h.Write([]byte{0})
	h.Write([]byte(bucketKey(ru.per, in)))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func sharedBuckets(limited []*rule, in *input) []SharedBucket {
	out := make([]SharedBucket, len(limited))
	for i, ru := range limited {
		out[i] = SharedBucket{ID: sharedBucketID(ru, in), PerMinute: ru.Limit.RequestsPerMinute}
	}
	return out
}

// sharedCheck refuses a call when one of the shared buckets is empty.
func (p *Policy) sharedCheck(ctx context.Context, r *pipeline.Request, limited []*rule, in *input, take bool) *pipeline.RouteError {
	refused, wait, err := p.shared.Take(ctx, sharedBuckets(limited, in), take)
	if err != nil {
		p.log.Errorf("policy: %s for %q refused: the rate limit of policy %q could not be checked: %v", r.Target, r.Caller.Name, limited[0].Name, err)
		return sharedUnavailable(r, limited[0], err)
	}
	if refused >= 0 && refused < len(limited) {
		return rateLimited(r, limited[refused], wait)
	}
	return nil
}

// sharedUnavailable is the refusal of a limited call whose shared buckets
// did not answer: refused rather than let past the limit unchecked.
func sharedUnavailable(r *pipeline.Request, ru *rule, err error) *pipeline.RouteError {
	return &pipeline.RouteError{Server: r.Server, Reason: pipeline.ReasonRateLimited, Code: pipeline.CodeRateLimited,
		What:  fmt.Sprintf("rate limited by policy %q: its limit could not be checked, so the call is refused (%v)", ru.Name, err),
		Extra: map[string]any{"policy": ru.Name, "retryAfterMs": int64(1000)}, Err: err}
}
