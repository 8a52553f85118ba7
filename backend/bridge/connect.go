// Connecting to the router, and reconnecting when it goes away: one shared
// attempt at a time, backoff, and the client's initialize replayed.

package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// lost reports that session s no longer works; unless a newer session or
// a reconnect is already there, a reconnect starts.
func (b *bridge) lost(s *session, cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.conn
	if c != nil && (!c.finished() || c.sess != s) {
		return
	}
	if b.ctx.Err() != nil {
		return
	}
	b.log.Warnf("mcp-router connect: lost the router at %s (%v); reconnecting", b.url, cause)
	b.startLocked(true).setLast(cause)
}

// startLocked starts a connect loop, unless one is running already (the
// client initializes while the bridge reconnects): that one reads b.initReq
// afresh on every attempt. b.mu is held.
func (b *bridge) startLocked(reconnect bool) *connAttempt {
	if c := b.conn; c != nil && !c.finished() {
		return c
	}
	if c := b.conn; c != nil && c.sess != nil {
		c.sess.stop()
		old := c.sess
		if !reconnect {
			b.background(func() { // the client starts over: end its old session
				ctx, cancel := context.WithTimeout(b.ctx, time.Second)
				defer cancel()
				b.deleteSession(ctx, old)
			})
		}
	}
	c := &connAttempt{done: make(chan struct{}), reconnect: reconnect}
	b.conn = c
	b.background(func() { b.connect(c) })
	return c
}

// connect establishes a session, retrying with backoff until it succeeds,
// the router refuses for good (401, a 4xx, a JSON-RPC error to initialize)
// or the bridge ends.
func (b *bridge) connect(c *connAttempt) {
	delay := b.o.BackoffBase
	for attempt := 1; ; attempt++ {
		s, resp, err, retry := b.establish()
		if retry && b.ctx.Err() == nil {
			c.setLast(err)
			b.log.Debugf("mcp-router connect: attempt %d to reach %s: %v", attempt, b.url, err)
			if attempt == 1 && !c.reconnect {
				b.log.Warnf("mcp-router connect: cannot reach the router at %s (%v); retrying", b.url, err)
			}
			if sleep(b.ctx, delay) {
				delay = min(2*delay, b.o.BackoffMax)
				continue
			}
		}
		if b.ctx.Err() != nil && err == nil && s == nil && resp == nil {
			err = b.ctx.Err()
		}
		var lctx context.Context
		if s != nil {
			lctx, s.stop = context.WithCancel(b.ctx)
			if c.reconnect {
				b.replayInitialized(s)
			}
		}
		b.mu.Lock()
		c.sess, c.resp, c.err = s, resp, err
		if err != nil {
			c.setLast(err)
		}
		close(c.done)
		b.mu.Unlock()
		if s == nil {
			if err != nil && b.ctx.Err() == nil {
				b.log.Errorf("mcp-router connect: %v", err)
			}
			return
		}
		b.background(func() { b.listen(lctx, s) })
		if c.reconnect {
			b.log.Infof("mcp-router connect: reconnected to %s (session %s)", b.url, s.id)
			// The catalog may differ on the new session.
			for _, kind := range []string{"tools", "prompts", "resources"} {
				if _, ok := s.caps[kind]; ok || s.caps == nil {
					b.emit(notification("notifications/" + kind + "/list_changed"))
				}
			}
		}
		return
	}
}

// establish makes one attempt to open a session: it sends the client's
// initialize (under a bridge id) or, for a client that never sent one,
// just checks that the router answers. retry tells whether a failure is
// worth another attempt.
func (b *bridge) establish() (s *session, resp json.RawMessage, err error, retry bool) {
	b.mu.Lock()
	init := b.initReq
	b.mu.Unlock()
	if init == nil {
		r, err := b.probe()
		if err != nil {
			return nil, nil, err, true
		}
		if refusesToken(r.status) {
			return nil, nil, b.authError(r), false
		}
		return nil, nil, nil, false
	}
	id := json.RawMessage(strconv.Quote(serverIDPrefix + "initialize-" + strconv.FormatInt(b.nextID.Add(1), 10)))
	msg, err := setID(init, id)
	if err != nil {
		return nil, nil, err, false
	}
	r, err := b.post(b.ctx, nil, msg)
	if err != nil {
		return nil, nil, err, true
	}
	switch {
	case refusesToken(r.status):
		return nil, nil, b.authError(r), false
	case r.status >= 500:
		return nil, nil, fmt.Errorf("the router answered HTTP %d: %s", r.status, clip(r.body)), true
	case r.msg == nil:
		return nil, nil, fmt.Errorf("the router answered initialize with HTTP %d: %s", r.status, clip(r.body)), false
	}
	var answer struct {
		Result *struct {
			ProtocolVersion string                     `json:"protocolVersion"`
			Capabilities    map[string]json.RawMessage `json:"capabilities"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.msg, &answer); err != nil || answer.Result == nil {
		why := "no result"
		if answer.Error != nil {
			why = answer.Error.Message
		}
		return nil, r.msg, fmt.Errorf("the router refused initialize: %s", why), false
	}
	s = &session{id: r.header.Get(headerSession), version: answer.Result.ProtocolVersion, caps: answer.Result.Capabilities}
	return s, r.msg, nil, false
}

// probe checks that the router answers HTTP at all.
func (b *bridge) probe() (reply, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	req, err := b.newRequest(ctx, http.MethodGet, nil, nil)
	if err != nil {
		return reply{}, err
	}
	resp, err := b.hc.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	// A GET without a session is refused, which is fine: the router is up.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return reply{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// replayInitialized sends notifications/initialized on a session the
// bridge opened for the client after a reconnect.
func (b *bridge) replayInitialized(s *session) {
	r, err := b.post(b.ctx, s, notification("notifications/initialized"))
	if err != nil {
		b.log.Warnf("mcp-router connect: replaying notifications/initialized: %v", err)
	} else if r.status != http.StatusAccepted && r.status != http.StatusOK {
		b.log.Warnf("mcp-router connect: replaying notifications/initialized: HTTP %d: %s", r.status, clip(r.body))
	}
}

// sendNotifications sends the client's notifications in order.
func (b *bridge) sendNotifications() {
	for {
		select {
		case <-b.ctx.Done():
			return
		case raw := <-b.notes:
			b.sendNotification(raw)
			b.inflight.Done()
		}
	}
}
