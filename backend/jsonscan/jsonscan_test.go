package jsonscan

import (
	"encoding/json"
	"testing"
)

// Skip and Raw pass exactly one value of any shape, whatever follows it.
func TestSkipAndRawPassOneValue(t *testing.T) {
	for _, v := range []string{`null`, `true`, `-1.5e+3`, `"a\"b\\"`, `""`, `{}`, `[]`, `{"a":[1,{"b":"}"}],"c":null}`,
		`[[[[["x"]]]]]`, `"é"`, `{"k" : "v" }`} {
		for _, after := range []string{``, `,`, `}`, `]`, " \n,"} {
			s := Scanner{B: []byte(v + " " + after)}
			raw, ok := s.Raw()
			if !ok || string(raw) != v {
				t.Errorf("Raw of %q: %q %v", v+" "+after, raw, ok)
			}
			if rest := string(s.B[s.Off:]); rest != trimLeft(after) {
				t.Errorf("after Raw of %q the rest is %q, want %q", v+" "+after, rest, trimLeft(after))
			}
			var any json.RawMessage
			if err := json.Unmarshal([]byte(v), &any); err != nil {
				t.Fatalf("the case %q is not JSON: %v", v, err)
			}
		}
	}
}

func trimLeft(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\n') {
		s = s[1:]
	}
	return s
}

// Object hands each plain key to field, and refuses keys it cannot read
// plainly (an escape, a non-ASCII byte).
func TestObjectReadsPlainKeysOnly(t *testing.T) {
	s := Scanner{B: []byte(`{"a": 1, "bb" :"x", "c":{"d":[]}}`)}
	var keys []string
	ok := s.Object(func(key []byte) bool {
		keys = append(keys, string(key))
		return s.Skip()
	})
	if !ok || len(keys) != 3 || keys[0] != "a" || keys[1] != "bb" || keys[2] != "c" || s.Off != len(s.B) {
		t.Fatalf("Object: %v %v at %d", keys, ok, s.Off)
	}
	for _, b := range []string{`{"\u0061":1}`, `{"é":1}`, `[1]`} {
		s := Scanner{B: []byte(b)}
		if s.Object(func([]byte) bool { return s.Skip() }) {
			t.Errorf("Object took %s", b)
		}
	}
}

func TestFoldsTo(t *testing.T) {
	if !FoldsTo([]byte("ID"), "method", "id") || FoldsTo([]byte("idx"), "id") || FoldsTo([]byte("id"), "method") {
		t.Fatal("FoldsTo")
	}
}
