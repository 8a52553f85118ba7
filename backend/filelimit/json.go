package filelimit

import "bytes"

// CheckJSON refuses JSON over MaxBytes or nested deeper than MaxDepth
// before a parser sees it, with the line and column of the bracket that
// passes the cap. Comments (// and /* */, as VS Code's JSON with comments
// has them) are skipped as a JSONC parser skips them, so a bracket in a
// comment or a string does not count. It is one pass over the bytes and
// allocates nothing; what is not JSON is left for the parser to report.
func (l Limits) CheckJSON(data []byte) error {
	l = l.WithDefaults()
	if err := l.CheckSize(len(data)); err != nil {
		return err
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			i = stringEnd(data, i)
		case '/':
			if i+1 < len(data) && data[i+1] == '/' {
				if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
					i += j
				} else {
					i = len(data)
				}
			} else if i+1 < len(data) && data[i+1] == '*' {
				if j := bytes.Index(data[i+2:], []byte("*/")); j >= 0 {
					i += 2 + j + 1
				} else {
					i = len(data)
				}
			}
		case '[', '{':
			depth++
			if depth > l.MaxDepth {
				line, col := lineCol(data, i)
				return refuse(ErrTooDeep, line, col, "nested more than %d levels deep, the depth cap of a %s", l.MaxDepth, l.What)
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return nil
}

// stringEnd is the index of the quote that closes the string opened at
// data[open] (len(data) if it is not closed).
func stringEnd(data []byte, open int) int {
	for i := open + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data)
}

// lineCol is the 1-based line and column (in bytes) of data[off].
func lineCol(data []byte, off int) (int, int) {
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	return line, off - bytes.LastIndexByte(data[:off], '\n')
}
