package upstream

import (
	"bytes"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// A connection speaks the revision it negotiated, whatever its client
// speaks. A 2026-07-28 client states its revision and log level in every
// request's _meta; forwarded as they are into an upstream's 2025-11-25
// session, they make a request of the other era, which a stateful HTTP
// server refuses (-32022: the go-sdk server rejects any request carrying
// the protocol-version key), and the session's own level (logging/setLevel)
// governs its logging. These keys are dropped. The client's identity and
// declared capabilities stay: they say what the client at the end can
// answer, and a server that reads them per request (the go-sdk's does)
// refuses a call the client cannot serve with -32021 instead of asking it
// something it cannot answer.
var modernRequestMetaKeys = []string{
	mcp.MetaKeyProtocolVersion,
	mcp.MetaKeyLogLevel,
}

// modern reports whether the connection is on the 2026-07-28 revision or
// later (modern.go); the handshake's is pinned to 2025-11-25.
func (c *conn) modern() bool {
	return c.modernEra != nil || (c.init != nil && mcp.IsModernProtocol(c.init.ProtocolVersion))
}

// inOwnEra returns params as this connection's revision carries them: on a
// connection before 2026-07-28, without the per-request protocol keys of
// the newer revision in _meta (the caller's value is not changed; a copy
// is made only when there is something to drop).
func (c *conn) inOwnEra(params any) any {
	if c.modern() {
		return params
	}
	return withoutModernMeta(params)
}

func withoutModernMeta(params any) any {
	switch p := params.(type) {
	case map[string]any:
		meta, ok := p["_meta"].(map[string]any)
		if !ok || !hasModernKey(meta) {
			return params
		}
		out := make(map[string]any, len(p))
		for k, v := range p {
			out[k] = v
		}
		if m := dropModernKeys(meta); len(m) > 0 {
			out["_meta"] = m
		} else {
			delete(out, "_meta")
		}
		return out
	case json.RawMessage:
		// Raw params (the router's own encoding of a call) carry a _meta
		// only when it was forwarded: decode them only then.
		if !bytes.Contains(p, []byte("io.modelcontextprotocol/")) {
			return params
		}
		var m map[string]any
		if err := json.Unmarshal(p, &m); err != nil {
			return params
		}
		if out, ok := withoutModernMeta(m).(map[string]any); ok {
			if b, err := json.Marshal(out); err == nil {
				return json.RawMessage(b)
			}
		}
	}
	return params
}

func hasModernKey(meta map[string]any) bool {
	for _, k := range modernRequestMetaKeys {
		if _, ok := meta[k]; ok {
			return true
		}
	}
	return false
}

func dropModernKeys(meta map[string]any) map[string]any {
	out := make(map[string]any, len(meta))
	for k, v := range meta {
		out[k] = v
	}
	for _, k := range modernRequestMetaKeys {
		delete(out, k)
	}
	return out
}
