package upstream

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// serverMessageSeeds are lines scanServerMessage must read exactly as
// json.Unmarshal does, or leave to it: the usual answers, notifications
// and requests, and the shapes a server could use to make the two readers
// disagree (duplicate keys, case-folded keys, Unicode folding, escapes,
// nulls, wrong types, deep nesting, trailing bytes).
var serverMessageSeeds = []string{
	`{"result":{"content":[{"type":"text","text":"Echo: hello"}]},"jsonrpc":"2.0","id":"mcpr-7"}`,
	`{"jsonrpc":"2.0","id":"mcpr-1","result":{"content":[{"type":"text","text":"a \u003c b"}]}}`,
	` { "jsonrpc" : "2.0" , "id" : 12 , "result" : { "a" : [ 1 , 2 , -0.5e+3 , true , false , null ] } } `,
	"{\"id\"\t:\n1\r,\"result\":\"x\"\n}\n",
	`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":{"k":1}}}`,
	`{"jsonrpc":"2.0","id":2,"error":null,"result":{}}`,
	`{"jsonrpc":"2.0","id":2,"error":{"code":1.5,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":2,"error":"x"}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`,
	`{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"id":null,"result":1}`, `{"result":null,"id":"a"}`,
	`null`, ` null `, `{}`, `[]`, `"x"`, `1`, `true`, ``, `{`, `{"id":}`, `{"id":1}x`, `{"id":1}{}`,
	`{"id":1,}`, `{"id" 1}`, `{,"id":1}`,
	`{"method":"a","method":"b"}`, `{"method":"a","method":null}`, `{"method":null}`,
	`{"id":1,"id":"two"}`, `{"result":1,"result":[2]}`,
	`{"ID":1,"result":2}`, `{"Id":"x"}`, `{"RESULT":1}`, `{"Method":"m"}`, `{"ERROR":null}`, `{"eRRor":{"code":1}}`,
	`{"id":1,"Id":2}`, `{"Id":2,"id":1}`,
	"{\"\u212ad\":1}",                     // Kelvin sign: not a fold of i
	"{\"re\u017fult\":1}",                 // long s folds to s
	"{\"re\xc5\xbfult\":1}",               // the same, as UTF-8 bytes
	"{\"\\u0069d\":1}", `{"i\u0064":"x"}`, // escaped keys
	`{"method":"tools\/call"}`, `{"method":"\u00e9"}`, "{\"method\":\"\xff\"}", "{\"method\":\"日本\"}",
	`{"method":1}`, `{"method":["x"]}`, `{"method":{}}`, `{"method":true}`,
	`{"id":"a\"b}","result":{"s":"a\"b}","t":[{"u":"]"}]}}`,
	`{"id":"\\","result":"\\\\"}`,
	`{"id":1.5e3,"x":true,"y":false,"z":null,"w":-0,"result":0}`,
	`{"id":"x","extra":{"nested":[1,{"a":"}"}]},"method":"m"}`,
	`{"id":1,"result":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}`,
	`{"id":1,"result":{"a":{"b":{"c":{"d":{}}}}},"tail":[{},[],""]}`,
	`{"id":[1,2],"result":{}}`, `{"id":{"a":1}}`, `{"id":true}`, `{"id":"mcpr-1" }`,
}

func checkScanServerMessage(t *testing.T, line []byte) {
	var want serverMessage
	wantOK := json.Unmarshal(line, &want) == nil
	var got serverMessage
	if !scanServerMessage(line, &got) {
		return // left to json.Unmarshal
	}
	if !wantOK {
		t.Fatalf("%q: scanned, but json.Unmarshal refuses it", line)
	}
	if !bytes.Equal(got.ID, want.ID) || (got.ID == nil) != (want.ID == nil) ||
		!bytes.Equal(got.Result, want.Result) || (got.Result == nil) != (want.Result == nil) ||
		got.Method != want.Method || !reflect.DeepEqual(got.Error, want.Error) {
		t.Fatalf("%q:\n got  id=%q method=%q result=%q error=%+v\n want id=%q method=%q result=%q error=%+v",
			line, got.ID, got.Method, got.Result, got.Error, want.ID, want.Method, want.Result, want.Error)
	}
}

func TestScanServerMessageReadsAsEncodingJSON(t *testing.T) {
	for _, s := range serverMessageSeeds {
		checkScanServerMessage(t, []byte(s))
	}
}

// FuzzScanServerMessage: go test -run '^$' -fuzz FuzzScanServerMessage -fuzztime 60s ./backend/upstream/
func FuzzScanServerMessage(f *testing.F) {
	for _, s := range serverMessageSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkScanServerMessage)
}

// The usual answer, a notification and a request without an escape are
// read by the scanner, not left to json.Unmarshal, and an answer costs no
// allocation (json.Unmarshal took ten for it).
func TestScanServerMessageTakesTheUsualLines(t *testing.T) {
	for _, s := range serverMessageSeeds[:3] {
		var m serverMessage
		if !scanServerMessage([]byte(s), &m) || !m.hasID() || m.Result == nil {
			t.Errorf("%s: left to json.Unmarshal", s)
		}
	}
	for _, s := range []string{serverMessageSeeds[5], serverMessageSeeds[8], serverMessageSeeds[9]} {
		var m serverMessage
		if !scanServerMessage([]byte(s), &m) {
			t.Errorf("%s: left to json.Unmarshal", s)
		}
	}
	if raceDetector {
		return
	}
	line := []byte(serverMessageSeeds[0])
	allocs := testing.AllocsPerRun(100, func() {
		var m serverMessage
		if !scanServerMessage(line, &m) {
			t.Fatal("not scanned")
		}
	})
	if allocs != 0 {
		t.Fatalf("scanServerMessage: %.0f allocations for an answer, want none", allocs)
	}
}

// Deep nesting is walked, not recursed into: as deep as json.Valid takes
// (10,000 levels) it is read; deeper, json.Valid refuses the line, as
// json.Unmarshal does.
func TestScanServerMessageDeepNesting(t *testing.T) {
	nested := func(depth int) []byte {
		return []byte(`{"id":1,"result":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
	}
	var m serverMessage
	if !scanServerMessage(nested(9000), &m) || string(m.ID) != "1" || len(m.Result) != 2*9000 {
		t.Fatalf("deep result: scanned id %q, %d bytes of result", m.ID, len(m.Result))
	}
	line := nested(20000)
	if scanServerMessage(line, &serverMessage{}) || json.Unmarshal(line, &serverMessage{}) == nil {
		t.Fatal("a line nested past encoding/json's limit was scanned")
	}
}
