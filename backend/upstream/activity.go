package upstream

import (
	"context"
	"fmt"
	"sync"
	"time"
)

type activityKey struct{}

// activity lets a caller keep a request alive: each touch restarts the
// server's timeout, as MCP asks for requests that report progress.
type activity struct{ touched chan struct{} }

// WithActivity returns a context whose requests time out only after the
// server's timeout passes without a touch, and the touch function.
func WithActivity(ctx context.Context) (context.Context, func()) {
	a := &activity{touched: make(chan struct{}, 1)}
	return context.WithValue(ctx, activityKey{}, a), func() {
		select {
		case a.touched <- struct{}{}:
		default:
		}
	}
}

// ErrTimeout is the cause of a request that got no answer in time.
var ErrTimeout = fmt.Errorf("timed out")

// maxTimeoutCauses bounds timeoutCauses: servers share a handful of
// timeouts, but each server may set its own and the setting may change.
const maxTimeoutCauses = 32

// timeoutCauses are the causes of requests that timed out, by timeout,
// worded once each (a request with a timer context needs its cause before
// it starts). At most maxTimeoutCauses are kept: one more empties it.
var timeoutCauses struct {
	byTimeout sync.Map // time.Duration → error; read without the lock
	mu        sync.Mutex
	n         int // entries stored since the last clear, under mu
}

func timeoutCause(d time.Duration) error {
	if e, ok := timeoutCauses.byTimeout.Load(d); ok {
		return e.(error)
	}
	timeoutCauses.mu.Lock()
	defer timeoutCauses.mu.Unlock()
	if e, ok := timeoutCauses.byTimeout.Load(d); ok {
		return e.(error)
	}
	if timeoutCauses.n >= maxTimeoutCauses {
		timeoutCauses.byTimeout.Clear()
		timeoutCauses.n = 0
	}
	e := fmt.Errorf("%w: no answer within %s", ErrTimeout, d)
	timeoutCauses.byTimeout.Store(d, e)
	timeoutCauses.n++
	return e
}

// pipeWithin: a request on c with ctx may leave its timeout to the pipe
// (requestWithin): a stdio connection, and a plain deadline (an activity's
// idle timer needs withRequestTimeout's goroutine).
func (c *conn) pipeWithin(ctx context.Context) bool {
	if _, ok := c.tr.(*pipeTransport); !ok {
		return false
	}
	_, ok := ctx.Value(activityKey{}).(*activity)
	return !ok
}

// withRequestTimeout bounds ctx by d: a plain deadline, or an idle timer
// reset by touches when the context carries an activity.
func withRequestTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	a, ok := ctx.Value(activityKey{}).(*activity)
	if !ok {
		// One timer context per request, its cause worded once per
		// timeout (servers share a handful): this runs for every request.
		return context.WithTimeoutCause(ctx, d, timeoutCause(d))
	}
	ctx, cancel := context.WithCancelCause(ctx)
	go func() {
		t := time.NewTimer(d)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-a.touched:
				if !t.Stop() {
					<-t.C
				}
				t.Reset(d)
			case <-t.C:
				cancel(fmt.Errorf("%w: no answer or progress within %s", ErrTimeout, d))
				return
			}
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}
