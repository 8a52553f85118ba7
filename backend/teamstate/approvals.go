package teamstate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/approval"
)

// Keys and channel of the pending approvals.
const (
	ApprovalPrefix   = Prefix + "approval:"    // + id: a waiting call (JSON approval.Pending)
	ApprovalUIPrefix = Prefix + "approval-ui:" // + a broker's id: a UI is attached there
	ApprovalChannel  = Prefix + "approvals"    // approval.Message as JSON
)

// maxListed caps the approvals one list reads; maxMessage the size of a
// message taken from the channel.
const (
	maxListed  = 1000
	maxMessage = 64 << 10
)

// Approvals are the pending approvals of every replica in Redis
// (approval.Shared).
type Approvals struct {
	rdb *redis.Client
}

var _ approval.Shared = (*Approvals)(nil)

// NewApprovals keeps the approvals in rdb.
func NewApprovals(rdb *redis.Client) *Approvals { return &Approvals{rdb: rdb} }

// Put implements approval.Shared.
func (a *Approvals) Put(ctx context.Context, p approval.Pending, ttl time.Duration) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := a.rdb.Set(ctx, ApprovalPrefix+p.ID, raw, ttl).Err(); err != nil {
		return redisError("approvals", err)
	}
	return nil
}

// Renew implements approval.Shared.
func (a *Approvals) Renew(ctx context.Context, ids []string, ttl time.Duration) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	pipe := a.rdb.Pipeline()
	for _, id := range ids {
		pipe.PExpire(ctx, ApprovalPrefix+id, ttl) // XX by nature: a claimed one stays gone
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return redisError("approvals", err)
	}
	return nil
}

// Remove implements approval.Shared.
func (a *Approvals) Remove(ctx context.Context, id string) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := a.rdb.Del(ctx, ApprovalPrefix+id).Err(); err != nil {
		return redisError("approvals", err)
	}
	return nil
}

// Claim implements approval.Shared: GETDEL, so of two replicas deciding
// one call at once only one gets it.
func (a *Approvals) Claim(ctx context.Context, id string) (approval.Pending, bool, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	raw, err := a.rdb.GetDel(ctx, ApprovalPrefix+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return approval.Pending{}, false, nil
	}
	if err != nil {
		return approval.Pending{}, false, redisError("approvals", err)
	}
	var p approval.Pending
	if err := json.Unmarshal(raw, &p); err != nil {
		return approval.Pending{}, false, redisError("approvals", fmt.Errorf("the listing of %s: %w", id, err))
	}
	return p, true, nil
}

// scan is up to max keys matching pattern.
func (a *Approvals) scan(ctx context.Context, pattern string, max int) ([]string, error) {
	var keys []string
	var cursor uint64
	for {
		batch, next, err := a.rdb.Scan(ctx, cursor, pattern, 200).Result()
		if err != nil {
			return nil, err
		}
		keys = append(keys, batch...)
		if next == 0 || len(keys) >= max {
			break
		}
		cursor = next
	}
	if len(keys) > max {
		keys = keys[:max]
	}
	return keys, nil
}

// List implements approval.Shared: at most 1000 (maxListed).
func (a *Approvals) List(ctx context.Context) ([]approval.Pending, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	keys, err := a.scan(ctx, ApprovalPrefix+"*", maxListed)
	if err != nil {
		return nil, redisError("approvals", err)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	vals, err := a.rdb.MGet(ctx, keys...).Result()
	if err != nil {
		return nil, redisError("approvals", err)
	}
	out := make([]approval.Pending, 0, len(vals))
	for _, v := range vals {
		s, ok := v.(string)
		if !ok { // expired or decided between SCAN and MGET
			continue
		}
		var p approval.Pending
		if json.Unmarshal([]byte(s), &p) == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// Publish implements approval.Shared.
func (a *Approvals) Publish(ctx context.Context, m approval.Message) error {
	raw, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	if err := a.rdb.Publish(ctx, ApprovalChannel, raw).Err(); err != nil {
		return redisError("approvals", err)
	}
	return nil
}

// Listen implements approval.Shared. It returns once subscribed, so no
// message published after it is missed; go-redis subscribes again after a
// lost connection (messages published meanwhile are lost: a call whose
// decision was lost waits until its timeout).
func (a *Approvals) Listen(fn func(approval.Message)) (func(), error) {
	ps := a.rdb.Subscribe(context.Background())
	ctx, cancel := bounded(context.Background())
	defer cancel()
	if err := ps.Subscribe(ctx, ApprovalChannel); err != nil {
		_ = ps.Close()
		return nil, redisError("approvals", err)
	}
	if _, err := ps.Receive(ctx); err != nil {
		_ = ps.Close()
		return nil, redisError("approvals", err)
	}
	ch := ps.Channel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for msg := range ch {
			if len(msg.Payload) > maxMessage {
				continue
			}
			var m approval.Message
			if json.Unmarshal([]byte(msg.Payload), &m) == nil {
				fn(m)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			_ = ps.Close()
			wg.Wait()
		})
	}, nil
}

// SetUI implements approval.Shared.
func (a *Approvals) SetUI(ctx context.Context, owner string, attached bool, ttl time.Duration) error {
	ctx, cancel := bounded(ctx)
	defer cancel()
	var err error
	if attached {
		err = a.rdb.Set(ctx, ApprovalUIPrefix+owner, "1", ttl).Err()
	} else {
		err = a.rdb.Del(ctx, ApprovalUIPrefix+owner).Err()
	}
	if err != nil {
		return redisError("approvals", err)
	}
	return nil
}

// UIAttached implements approval.Shared.
func (a *Approvals) UIAttached(ctx context.Context) (bool, error) {
	ctx, cancel := bounded(ctx)
	defer cancel()
	keys, err := a.scan(ctx, ApprovalUIPrefix+"*", 1)
	if err != nil {
		return false, redisError("approvals", err)
	}
	return len(keys) > 0, nil
}
