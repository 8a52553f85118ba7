package upstream

import "github.com/mcp-router/mcp-router/backend/jsonscan"

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
	s := jsonscan.Scanner{B: line}
	s.Space()
	if s.Literal("null") {
		return true
	}
	if s.Peek() != '{' {
		return false // encoding/json: cannot unmarshal into serverMessage
	}
	return s.Object(func(key []byte) bool {
		switch string(key) {
		case "id", "result":
			v, ok := s.Raw()
			if !ok {
				return false
			}
			if string(key) == "id" {
				m.ID = v
			} else {
				m.Result = v
			}
		case "method":
			if !s.Literal("null") { // null leaves a string as it was
				v, ok := s.PlainString()
				if !ok {
					return false
				}
				m.Method = string(v)
			}
		case "error":
			if !s.Literal("null") {
				return false
			}
			m.Error = nil
		default:
			return !jsonscan.FoldsTo(key, "id", "method", "result", "error") && s.Skip()
		}
		return true
	})
}
