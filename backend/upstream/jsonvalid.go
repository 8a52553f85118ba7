package upstream

// maxJSONDepth is encoding/json's nesting limit, which json.Valid holds
// to: a container opened deeper makes the text invalid.
const maxJSONDepth = 10000

// validJSON is json.Valid(b), in one pass without its step function per
// byte (json.Valid was most of what reading an answer line cost once the
// line was scanned, not decoded). Iterative: the containers open are a
// stack of bytes, on the stack up to 64 deep. FuzzValidJSON holds it to
// json.Valid.
func validJSON(b []byte) bool {
	valid, _ := scanJSON(b)
	return valid
}

// compactJSON reports whether b is valid JSON with no space to elide
// (json.Compact would copy it as it is).
func compactJSON(b []byte) bool {
	valid, spaced := scanJSON(b)
	return valid && !spaced
}

// scanJSON is validJSON, and whether b has space outside its strings.
func scanJSON(b []byte) (valid, spaced bool) {
	var kinds [64]byte // the open containers: '{' or '['
	open := kinds[:0]
	n := 0 // bytes of space outside strings
	i := jsonSpace(b, 0, &n)
	for {
		// A value starts at i.
		if i >= len(b) {
			return false, false
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(open) >= maxJSONDepth {
				return false, false
			}
			end := byte('}')
			if c == '[' {
				end = ']'
			}
			i = jsonSpace(b, i+1, &n)
			if i < len(b) && b[i] == end {
				i++
				break // an empty container is a value that ended
			}
			open = append(open, c)
			if c == '{' {
				if i = jsonKey(b, i, &n); i < 0 {
					return false, false
				}
			}
			continue // its first value
		case '"':
			if i = jsonString(b, i); i < 0 {
				return false, false
			}
		case 't':
			if i = jsonLiteral(b, i, "true"); i < 0 {
				return false, false
			}
		case 'f':
			if i = jsonLiteral(b, i, "false"); i < 0 {
				return false, false
			}
		case 'n':
			if i = jsonLiteral(b, i, "null"); i < 0 {
				return false, false
			}
		default:
			if i = jsonNumber(b, i); i < 0 {
				return false, false
			}
		}
		// A value ended before i: what follows it closes containers, or
		// leads to the next value.
		for {
			i = jsonSpace(b, i, &n)
			if len(open) == 0 {
				return i == len(b), n != 0
			}
			if i >= len(b) {
				return false, false
			}
			top := open[len(open)-1]
			c := b[i]
			if c == ',' {
				i = jsonSpace(b, i+1, &n)
				if top == '{' {
					if i = jsonKey(b, i, &n); i < 0 {
						return false, false
					}
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				open = open[:len(open)-1]
				i++
				continue
			}
			return false, false
		}
	}
}

// jsonSpace passes the space at i, counting it in *n.
func jsonSpace(b []byte, i int, n *int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
			*n++
		default:
			return i
		}
	}
	return i
}

// jsonKey reads a key, its colon and the space around them, and returns
// where its value starts, or -1.
func jsonKey(b []byte, i int, n *int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = jsonString(b, i); i < 0 {
		return -1
	}
	i = jsonSpace(b, i, n)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return jsonSpace(b, i+1, n)
}

// jsonString reads the string that starts at i and returns where it ends,
// or -1. As in encoding/json, a byte below 0x20 is refused and any other,
// invalid UTF-8 included, is taken; an escape is one of \" \\ \/ \b \f
// \n \r \t or \u and four hex digits.
func jsonString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			i++
			if i >= len(b) {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		}
	}
	return -1
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func jsonLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// jsonNumber reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? at i and
// returns where it ends, or -1.
func jsonNumber(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = jsonDigits(b, i)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		if i+1 >= len(b) || !isDigit(b[i+1]) {
			return -1
		}
		i = jsonDigits(b, i+1)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = jsonDigits(b, i)
	}
	return i
}

func jsonDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
