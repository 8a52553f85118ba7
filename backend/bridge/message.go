package bridge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// JSON-RPC error codes the bridge answers with itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeUnreachable    = -32000 // the router could not be reached
	codeUnauthorized   = -32001 // the router rejected the token
	codeRouterError    = -32002 // the router answered with something other than JSON-RPC
)

// envelope is what the bridge needs to know about a message to route it.
// Everything else stays in the raw bytes, which are what get forwarded.
type envelope struct {
	ID     json.RawMessage `json:"id"` // nil when absent, "null" when null
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

func (e envelope) hasID() bool      { return len(e.ID) > 0 }
func (e envelope) isRequest() bool  { return e.Method != "" && e.hasID() }
func (e envelope) isResponse() bool { return e.Method == "" && (e.Result != nil || e.Error != nil) }

// parse reads the routing fields of one message. The message must be a JSON
// object.
func parse(raw []byte) (envelope, error) {
	var env envelope
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		if !json.Valid(trimmed) {
			return env, fmt.Errorf("not valid JSON")
		}
		return env, errNotObject
	}
	if err := json.Unmarshal(trimmed, &env); err != nil {
		if !json.Valid(trimmed) {
			return env, fmt.Errorf("not valid JSON")
		}
		return env, fmt.Errorf("not a JSON-RPC message: %v", err)
	}
	return env, nil
}

var errNotObject = fmt.Errorf("a message must be a JSON object (batches are not supported)")

// setID returns raw with its "id" member replaced by id. Every other member
// keeps its exact bytes; only the order of members may change.
func setID(raw []byte, id json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	m["id"] = id
	return json.Marshal(m)
}

// setParam returns raw with params.<key> replaced by value.
func setParam(raw []byte, key string, value json.RawMessage) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	var params map[string]json.RawMessage
	if err := json.Unmarshal(m["params"], &params); err != nil {
		return nil, err
	}
	params[key] = value
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	m["params"] = p
	return json.Marshal(m)
}

// idKey identifies a JSON-RPC id independently of how it was spelled
// (1 and 1.0 are the same id; "1" is not).
func idKey(id json.RawMessage) string {
	var v any
	if err := json.Unmarshal(id, &v); err != nil {
		return string(id)
	}
	switch x := v.(type) {
	case string:
		return "s:" + x
	case float64:
		return fmt.Sprintf("n:%v", x)
	default:
		return "o:" + string(id)
	}
}

// rpcError builds a JSON-RPC error response.
func rpcError(id json.RawMessage, code int, msg string, data any) json.RawMessage {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errObj          `json:"error"`
	}{"2.0", id, errObj{code, msg, data}})
	if err != nil { // only a malformed id can get here
		b, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": errObj{code, msg, data}})
	}
	return b
}

func notification(method string) json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","method":"` + method + `"}`)
}

// protocolVersionMeta returns params._meta["io.modelcontextprotocol/protocolVersion"]
// of a message (protocol revision 2026-07-28 carries it in every request), or "".
func protocolVersionMeta(raw []byte) string {
	var m struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(m.Params.Meta[metaProtocolVersion], &v) != nil {
		return ""
	}
	return v
}

const metaProtocolVersion = "io.modelcontextprotocol/protocolVersion"

// lineWriter writes one message per line; concurrent writers never
// interleave. A message is compacted (whitespace only, never re-encoded) so
// that it fits on one line.
type lineWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (l *lineWriter) write(msg []byte) error {
	var buf bytes.Buffer
	if err := json.Compact(&buf, msg); err != nil {
		return fmt.Errorf("not writing a malformed message: %w", err)
	}
	buf.WriteByte('\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	if _, err := l.w.Write(buf.Bytes()); err != nil {
		l.err = err
		return err
	}
	return nil
}

// clip shortens an HTTP body for an error message and keeps it on one line.
// errorText is the message of the router's JSON error body
// ({"error": "..."}, as backend/auth and the profile endpoints write it),
// so the client reads the reason unescaped; any other body is kept.
func errorText(body []byte) []byte {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return []byte(e.Error)
	}
	return body
}

func clip(body []byte) string {
	s := strings.Join(strings.Fields(string(body)), " ")
	const limit = 500
	if len(s) > limit {
		s = s[:limit] + "…"
	}
	if s == "" {
		s = "(empty body)"
	}
	return s
}
