package gateway

import (
	"encoding/json"

	"github.com/mcp-router/mcp-router/backend/jsonscan"
)

// decodeMessage reads a POST's body into m and reports whether
// encoding/json would have accepted it: it is json.Unmarshal(body, m) == nil,
// with m as json.Unmarshal leaves it. The usual shapes of a request take
// scanMessage, which allocates only the copies of the raw values it keeps
// (json.Unmarshal was about 5 % of the router's CPU per forwarded call,
// issue 29); anything it is not sure to read exactly as encoding/json
// does goes to json.Unmarshal itself.
func decodeMessage(body []byte, m *message) bool {
	if scanMessage(body, m) {
		return true
	}
	*m = message{}
	return json.Unmarshal(body, m) == nil
}

// scanMessage fills m from a body json.Valid accepts and reports true, or
// reports false (m then partly filled) for anything it leaves to
// encoding/json: a key or a string value with an escape or a non-ASCII
// byte (encoding/json unescapes them, replaces invalid UTF-8 and matches
// keys case-insensitively, with Unicode folding), a key that matches a
// field only case-insensitively, and any value of a type the field cannot
// take (encoding/json reports an error). Duplicate keys keep the last
// value and a null leaves a string or params unchanged, as in
// encoding/json. FuzzDecodeMessage holds it to json.Unmarshal.
func scanMessage(body []byte, m *message) bool {
	if !json.Valid(body) {
		return false
	}
	s := scanner{jsonscan.Scanner{B: body}}
	s.Space()
	if s.Literal("null") {
		return true
	}
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "jsonrpc":
			return s.stringField(&m.JSONRPC)
		case "method":
			return s.stringField(&m.Method)
		case "id":
			return s.rawField(&m.ID)
		case "result":
			return s.rawField(&m.Result)
		case "error":
			return s.rawField(&m.Error)
		case "params":
			if s.Literal("null") {
				return true
			}
			return s.Object(func(key []byte) bool {
				switch string(key) {
				case "name":
					return s.stringField(&m.Params.Name)
				case "arguments":
					return s.rawField(&m.Params.Arguments)
				case "_meta":
					return s.rawField(&m.Params.Meta)
				case "task":
					return s.rawField(&m.Params.Task)
				case "requestId":
					return s.rawField(&m.Params.RequestID)
				}
				return !jsonscan.FoldsTo(key, "name", "arguments", "_meta", "task", "requestId") && s.Skip()
			})
		}
		return !jsonscan.FoldsTo(key, "jsonrpc", "method", "id", "result", "error", "params") && s.Skip()
	})
}

// scanner is jsonscan's walk with the gateway's field readers.
type scanner struct{ jsonscan.Scanner }

// stringField sets *f to a plain string; null leaves it unchanged.
func (s *scanner) stringField(f *string) bool {
	if s.Literal("null") {
		return true
	}
	v, ok := s.PlainString()
	if !ok {
		return false
	}
	switch string(v) { // the usual values without an allocation
	case "2.0":
		*f = "2.0"
	case "tools/call":
		*f = "tools/call"
	default:
		*f = string(v)
	}
	return true
}

// rawField sets *f to a copy of the value's bytes (null included), as
// json.RawMessage does.
func (s *scanner) rawField(f *json.RawMessage) bool {
	v, ok := s.Raw()
	if !ok {
		return false
	}
	*f = append((*f)[:0:0], v...)
	return true
}
