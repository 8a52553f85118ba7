// Package jsonscan walks JSON text that is already known to be valid
// (json.Valid, or a check held to it), to read the few fields a hot path
// needs without encoding/json's reflection and allocations. It checks only
// what decides between its reading and encoding/json's: a caller gives up
// and decodes with encoding/json whenever a method reports false (an
// escape or a non-ASCII byte in a string it must read, a shape it does not
// take). The walk is iterative: nesting is counted, never recursed into,
// and each step moves on at least one byte, so any input costs linear
// time. The gateway reads a POST's envelope with it, the upstream
// package a stdio server's answer lines; each holds its reader to
// json.Unmarshal with a fuzz target.
package jsonscan

import "bytes"

// Scanner is a position in valid JSON text B.
type Scanner struct {
	B   []byte
	Off int
}

// Space passes white space.
func (s *Scanner) Space() {
	for s.Off < len(s.B) {
		switch s.B[s.Off] {
		case ' ', '\t', '\n', '\r':
			s.Off++
		default:
			return
		}
	}
}

// Peek is the byte at the position, 0 at the end.
func (s *Scanner) Peek() byte {
	if s.Off < len(s.B) {
		return s.B[s.Off]
	}
	return 0
}

// Literal passes lit and the space after it, if the value is lit.
func (s *Scanner) Literal(lit string) bool {
	if bytes.HasPrefix(s.B[s.Off:], []byte(lit)) {
		s.Off += len(lit)
		s.Space()
		return true
	}
	return false
}

// PlainString reads a string with no escape and only ASCII, and the space
// after it, and returns its contents, or false.
func (s *Scanner) PlainString() ([]byte, bool) {
	if s.Peek() != '"' {
		return nil, false
	}
	start := s.Off + 1
	for i := start; i < len(s.B); i++ {
		switch c := s.B[i]; {
		case c == '"':
			s.Off = i + 1
			s.Space()
			return s.B[start:i], true
		case c == '\\' || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

// Object reads an object whose keys are plain strings, calling field for
// each key with the scanner at its value; field reads the value (and the
// space after it) or reports false.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	if s.Peek() != '{' {
		return false
	}
	s.Off++
	s.Space()
	if s.Peek() == '}' {
		s.Off++
		s.Space()
		return true
	}
	for {
		key, ok := s.PlainString()
		if !ok || s.Peek() != ':' {
			return false
		}
		s.Off++
		s.Space()
		if !field(key) {
			return false
		}
		switch s.Peek() {
		case ',':
			s.Off++
			s.Space()
		case '}':
			s.Off++
			s.Space()
			return true
		default:
			return false
		}
	}
}

// Raw passes one value and returns its bytes without the space after it,
// as json.RawMessage gets them (null included).
func (s *Scanner) Raw() ([]byte, bool) {
	start := s.Off
	if !s.Skip() {
		return nil, false
	}
	return bytes.TrimRight(s.B[start:s.Off], " \t\n\r"), true
}

// Skip passes one value and the space after it.
func (s *Scanner) Skip() bool {
	depth := 0
	for s.Off < len(s.B) {
		c := s.B[s.Off]
		switch c {
		case '"':
			i := s.Off + 1
			for ; i < len(s.B) && s.B[i] != '"'; i++ {
				if s.B[i] == '\\' {
					i++
				}
			}
			s.Off = min(i+1, len(s.B))
		case '{', '[':
			depth++
			s.Off++
		case '}', ']':
			if depth == 0 {
				s.Space()
				return true
			}
			depth--
			s.Off++
		case ',':
			if depth == 0 {
				s.Space()
				return true
			}
			s.Off++
		default:
			s.Off++
		}
		if depth == 0 {
			// A scalar ends at a delimiter or space; a string, object or
			// array just ended.
			if c == '"' || c == '}' || c == ']' {
				s.Space()
				return true
			}
			if n := s.Peek(); n == ',' || n == '}' || n == ']' || n == ' ' || n == '\t' || n == '\n' || n == '\r' || n == 0 {
				s.Space()
				return true
			}
		}
	}
	return depth == 0
}

// FoldsTo reports whether an ASCII key matches one of names
// case-insensitively: encoding/json would fill that field with its value.
func FoldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(key) == len(n) && bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}
