package upstream

import (
	"bytes"
)

// scanServerMessage reads line as json.Unmarshal(line, m) would into a zero
// m and reports true, or reports false for anything it leaves to
// encoding/json (m then partly filled): a key with an escape or a non-ASCII
// byte, or one that matches a field only case-insensitively (encoding/json
// folds keys, with Unicode folding), a method with an escape or a non-ASCII
// byte, a method that is not a string, an error that is not null (its
// fields are typed), and a line that is not an object or null. Unlike
// json.Unmarshal, m.ID and m.Result are slices of line, not copies: the
// caller copies what it keeps past line's reuse. The answer to a request,
// the line the pipe reads most, costs no allocation here; json.Unmarshal
// took ten and was ≈ 1.4 µs of the router's CPU per forwarded call (issue
// 29). FuzzScanServerMessage holds it to json.Unmarshal. validJSON
// (json.Valid's equal) checks the line first; the walk after it is
// iterative and linear, whatever the nesting.
func scanServerMessage(line []byte, m *serverMessage) bool {
	if !validJSON(line) {
		return false
	}
	s := msgScanner{b: line}
	s.space()
	if s.literal("null") {
		return true
	}
	if s.peek() != '{' {
		return false // encoding/json: cannot unmarshal into serverMessage
	}
	s.off++
	s.space()
	if s.peek() == '}' {
		return true
	}
	for {
		key, ok := s.plainString()
		if !ok || s.peek() != ':' {
			return false
		}
		s.off++
		s.space()
		switch string(key) {
		case "id":
			m.ID = s.raw()
		case "result":
			m.Result = s.raw()
		case "method":
			if !s.literal("null") { // null leaves a string as it was
				v, ok := s.plainString()
				if !ok {
					return false
				}
				m.Method = string(v)
			}
		case "error":
			if !s.literal("null") {
				return false
			}
			m.Error = nil
		default:
			if foldsToField(key) {
				return false
			}
			s.skip()
		}
		switch s.peek() {
		case ',':
			s.off++
			s.space()
		case '}':
			return true
		default:
			return false
		}
	}
}

// foldsToField reports whether an ASCII key that is not one of
// serverMessage's names matches one case-insensitively (encoding/json
// would fill that field).
func foldsToField(key []byte) bool {
	for _, n := range [...]string{"id", "method", "result", "error"} {
		if len(key) == len(n) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// msgScanner walks a line validJSON accepted, so it checks only what
// decides between its answer and encoding/json's.
type msgScanner struct {
	b   []byte
	off int
}

func (s *msgScanner) space() {
	for s.off < len(s.b) {
		switch s.b[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

func (s *msgScanner) peek() byte {
	if s.off < len(s.b) {
		return s.b[s.off]
	}
	return 0
}

// literal passes lit and the space after it, if the value is lit.
func (s *msgScanner) literal(lit string) bool {
	if bytes.HasPrefix(s.b[s.off:], []byte(lit)) {
		s.off += len(lit)
		s.space()
		return true
	}
	return false
}

// plainString reads a string with no escape and only ASCII, and the space
// after it, and returns its contents, or false.
func (s *msgScanner) plainString() ([]byte, bool) {
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

// raw passes one value and returns its bytes, as json.RawMessage gets
// them (null included).
func (s *msgScanner) raw() []byte {
	start := s.off
	s.skip()
	return bytes.TrimRight(s.b[start:s.off], " \t\n\r")
}

// skip passes one valid value and the space after it: one pass, nesting
// counted, not recursed into; each step moves on at least one byte.
func (s *msgScanner) skip() {
	depth := 0
	for s.off < len(s.b) {
		switch s.b[s.off] {
		case '"':
			i := s.off + 1
			for ; i < len(s.b) && s.b[i] != '"'; i++ {
				if s.b[i] == '\\' {
					i++
				}
			}
			s.off = min(i+1, len(s.b))
		case '{', '[':
			depth++
			s.off++
		case '}', ']':
			depth--
			s.off++
		default:
			if depth > 0 {
				s.off++ // a delimiter, space or part of a scalar
				continue
			}
			// A number or a literal: up to a delimiter or space.
			for s.off < len(s.b) && !endsScalar(s.b[s.off]) {
				s.off++
			}
		}
		if depth == 0 {
			s.space()
			return
		}
	}
}

func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
