package upstream

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// validJSONSeeds: every JSON shape and the ways out of it that json.Valid
// tells apart.
var validJSONSeeds = []string{
	``, ` `, `{}`, `[]`, `""`, `0`, `-0`, `1`, `-`, `01`, `-01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-5`, `1e`, `1e+`, `1.5e3x`,
	`true`, `false`, `null`, `tru`, `nul`, `truex`, `True`, `NaN`, `Infinity`, `+1`, `0x10`,
	`"a"`, `"a`, `"\""`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\u00e9"`, `"\u00E9"`, `"\u00g9"`, `"\u00e"`, `"\x"`, `"\'"`,
	"\"\x01\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"日本\"", "\"\t\"",
	`{"a":1}`, `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{,}`, `{"a":1 "b":2}`, `{1:2}`, `{"a":1}}`, `{"a":1]`, `[1,]`, `[,1]`, `[1 2]`, `[1]]`, `[1}`,
	`{"a":"b c"}`, `{"a":"\t"}`, `[1, 2]`, `{"a" :1}`, ` 1`, `1 `,
	` { "a" : [ 1 , { } , [ ] , "x" , null ] } `, "\t\n\r[\t1\n,\r2 ]\n", `[[[]]]`, `[[[]]`, `{"a":{"b":{"c":[]}}}`,
	`1 2`, `"a" "b"`, `{} {}`, `[] x`, "\x00", `{"a":"\u0000"}`,
	`{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":"mcpr-7"}`,
}

func checkValidJSON(t *testing.T, b []byte) {
	if got, want := validJSON(b), json.Valid(b); got != want {
		t.Fatalf("%q: validJSON %v, json.Valid %v", b, got, want)
	}
	var c bytes.Buffer
	asIs := json.Compact(&c, b) == nil && bytes.Equal(c.Bytes(), b)
	if got := compactJSON(b); got != asIs {
		t.Fatalf("%q: compactJSON %v, json.Compact leaves it as it is: %v", b, got, asIs)
	}
}

func TestValidJSONIsJSONValid(t *testing.T) {
	for _, s := range append(validJSONSeeds, serverMessageSeeds...) {
		checkValidJSON(t, []byte(s))
	}
	// encoding/json's nesting limit, with and without an empty innermost
	// container, in arrays and objects, around the 64 levels kept on the
	// stack.
	for _, depth := range []int{63, 64, 65, 200, maxJSONDepth - 1, maxJSONDepth, maxJSONDepth + 1} {
		for _, inner := range []string{"", "1", "[]", "{}"} {
			checkValidJSON(t, []byte(strings.Repeat("[", depth)+inner+strings.Repeat("]", depth)))
			checkValidJSON(t, []byte(strings.Repeat(`{"a":`, depth)+inner+strings.Repeat("}", depth)))
		}
	}
}

// FuzzValidJSON: go test -run '^$' -fuzz FuzzValidJSON -fuzztime 60s ./backend/upstream/
func FuzzValidJSON(f *testing.F) {
	for _, s := range append(validJSONSeeds, serverMessageSeeds...) {
		f.Add([]byte(s))
	}
	f.Fuzz(checkValidJSON)
}

func BenchmarkValidJSON(b *testing.B) {
	line := []byte(serverMessageSeeds[0])
	b.Run("validJSON", func(b *testing.B) {
		for b.Loop() {
			validJSON(line)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(line)
		}
	})
}
