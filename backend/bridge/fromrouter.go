// Messages the router sends on its own: notifications and requests for the
// client, with ids the client cannot confuse with its own.

package bridge

import (
	"encoding/json"
	"strconv"
	"strings"
)

// fromRouter passes a request or notification from the router on session
// s to the client.
func (b *bridge) fromRouter(s *session, env envelope, raw []byte) {
	if env.isRequest() {
		local := serverIDPrefix + strconv.FormatInt(b.nextID.Add(1), 10)
		localID := json.RawMessage(strconv.Quote(local))
		msg, err := setID(raw, localID)
		if err != nil {
			b.log.Debugf("ignoring a malformed request from the router: %v", err)
			return
		}
		b.mu.Lock()
		b.pending[local] = pendingCall{sess: s, id: append(json.RawMessage(nil), env.ID...)}
		if b.byOrig[s] == nil {
			b.byOrig[s] = map[string]string{}
		}
		b.byOrig[s][idKey(env.ID)] = local
		b.mu.Unlock()
		b.emit(msg)
		return
	}
	if env.Method == "notifications/cancelled" {
		// The router gave up on one of its requests: name it by the id
		// the client knows.
		var p struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &p) == nil && len(p.Params.RequestID) > 0 {
			b.mu.Lock()
			local, ok := b.byOrig[s][idKey(p.Params.RequestID)]
			b.mu.Unlock()
			if ok {
				if msg, err := setParam(raw, "requestId", json.RawMessage(strconv.Quote(local))); err == nil {
					raw = msg
				}
			}
		}
	}
	b.emit(raw)
}

// answerRouter sends the client's answer to a request from the router back
// to the session it came from, under the router's id.
func (b *bridge) answerRouter(id json.RawMessage, raw json.RawMessage) {
	var local string
	if json.Unmarshal(id, &local) != nil || !strings.HasPrefix(local, serverIDPrefix) {
		b.log.Warnf("mcp-router connect: dropping a response with id %s: the router asked nothing under that id", id)
		return
	}
	b.mu.Lock()
	p, ok := b.pending[local]
	if ok {
		delete(b.pending, local)
		delete(b.byOrig[p.sess], idKey(p.id))
	}
	b.mu.Unlock()
	if !ok {
		b.log.Warnf("mcp-router connect: dropping a response with id %s: no such request is waiting", id)
		return
	}
	msg, err := setID(raw, p.id)
	if err != nil {
		return
	}
	r, err := b.post(b.ctx, p.sess, msg)
	switch {
	case err != nil:
		b.log.Warnf("mcp-router connect: the answer to the router's request %s is lost: %v", p.id, err)
	case r.status >= 300:
		b.log.Warnf("mcp-router connect: the router did not take the answer to its request %s (HTTP %d): %s", p.id, r.status, clip(r.body))
	}
}
