package gateway

import (
	"bytes"
	"encoding/json"
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
	s := scanner{b: body}
	s.space()
	if s.literal("null") {
		return true
	}
	return s.object(func(key []byte) bool {
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
			if s.literal("null") {
				return true
			}
			return s.object(func(key []byte) bool {
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
				return !foldsTo(key, "name", "arguments", "_meta", "task", "requestId") && s.skip()
			})
		}
		return !foldsTo(key, "jsonrpc", "method", "id", "result", "error", "params") && s.skip()
	})
}

// foldsTo reports whether an ASCII key matches one of names only
// case-insensitively (encoding/json would fill that field).
func foldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// scanner walks a body json.Valid accepted, so it checks only what
// decides between its answer and a fallback.
type scanner struct {
	b   []byte
	off int
}

func (s *scanner) space() {
	for s.off < len(s.b) {
		switch s.b[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.off < len(s.b) {
		return s.b[s.off]
	}
	return 0
}

func (s *scanner) literal(lit string) bool {
	if bytes.HasPrefix(s.b[s.off:], []byte(lit)) {
		s.off += len(lit)
		s.space()
		return true
	}
	return false
}

// plainString reads a string with no escape and only ASCII and returns
// its contents, or false.
func (s *scanner) plainString() ([]byte, bool) {
	if s.peek() != '"' {
		return nil, false
	}
	start := s.off + 1
	for i := start; i < len(s.b); i++ {
		switch c := s.b[i]; {
		case c == '"':
			s.off = i + 1
			s.space()
			return s.b[start:i], true
		case c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// object reads an object, calling field for each key with the scanner at
// its value; field reads the value or reports false.
func (s *scanner) object(field func(key []byte) bool) bool {
	if s.peek() != '{' {
		return false
	}
	s.off++
	s.space()
	if s.peek() == '}' {
		s.off++
		s.space()
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok || s.peek() != ':' {
			return false
		}
		s.off++
		s.space()
		if !field(key) {
			return false
		}
		switch s.peek() {
		case ',':
			s.off++
			s.space()
		case '}':
			s.off++
			s.space()
			return true
		default:
			return false
		}
	}
}

// stringField sets *f to a plain string; null leaves it unchanged.
func (s *scanner) stringField(f *string) bool {
	if s.literal("null") {
		return true
	}
	v, ok := s.plainString()
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
	start := s.off
	if !s.skip() {
		return false
	}
	v := bytes.TrimRight(s.b[start:s.off], " \t\n\r")
	*f = append((*f)[:0:0], v...)
	return true
}

// skip passes one value and the space after it.
func (s *scanner) skip() bool {
	depth := 0
	for s.off < len(s.b) {
		c := s.b[s.off]
		switch c {
		case '"':
			i := s.off + 1
			for ; i < len(s.b) && s.b[i] != '"'; i++ {
				if s.b[i] == '\\' {
					i++
				}
			}
			s.off = i + 1
		case '{', '[':
			depth++
			s.off++
		case '}', ']':
			if depth == 0 {
				s.space()
				return true
			}
			depth--
			s.off++
		case ',':
			if depth == 0 {
				s.space()
				return true
			}
			s.off++
		default:
			s.off++
		}
		if depth == 0 {
			// A scalar ends at a delimiter or space; a string, object or
			// array just ended.
			if c == '"' || c == '}' || c == ']' {
				s.space()
				return true
			}
			if n := s.peek(); n == ',' || n == '}' || n == ']' || n == ' ' || n == '\t' || n == '\n' || n == '\r' || n == 0 {
				s.space()
				return true
			}
		}
	}
	return depth == 0
}
