package gateway

import (
	"encoding/json"
	"reflect"
	"testing"
)

// envelopeSeeds are bodies decodeMessage must read exactly as
// json.Unmarshal does: the usual requests and answers, and the shapes a
// client could use to make the two readers disagree (duplicate keys,
// case-folded keys, Unicode folding, escapes, nulls, wrong types).
var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"everything__echo","arguments":{"message":"mcpr-bench"}}}`,
	` { "jsonrpc" : "2.0" , "id" : "a-1" , "method" : "tools/call" , "params" : { "name" : "x" , "arguments" : [ 1 , 2 ] , "_meta" : { } } } `,
	`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}`,
	`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"x"}}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`null`, `{}`, `[]`, `"x"`, `1`, ``, `{`, `{"id":}`, `{"id":1}x`,
	`{"method":"tools/call","method":"other"}`,
	`{"method":"tools/call","method":null}`,
	`{"params":{"name":"a"},"params":{"arguments":{}}}`,
	`{"params":{"name":"a"},"params":null}`,
	`{"Method":"tools/call"}`, `{"METHOD":"x","method":"y"}`, `{"method":"y","METHOD":"x"}`,
	`{"params":{"Name":"a"}}`, `{"params":{"ARGUMENTS":1}}`,
	"{\"params\":{\"tas\u212a\":{\"ttl\":1}}}",   // Kelvin sign folds to k
	"{\"params\":{\"_meta\":{},\"_meta\":null}}", // raw null kept
	"{\"para\u017fms\":{\"name\":\"a\"}}",        // long s folds to s
	`{"method":"tools\/call"}`, `{"me\u0074hod":"tools/call"}`, `{"method":"\u0074ools/call"}`,
	"{\"params\":{\"name\":\"\xff\xfe\"}}", "{\"params\":{\"name\":\"日本\"}}",
	`{"params":{"arguments":{"s":"a\"b}","t":[{"u":"]"}]}}}`,
	`{"jsonrpc":2,"method":"x"}`, `{"method":["x"]}`, `{"params":[]}`, `{"params":"x"}`, `{"params":{"name":1}}`,
	`{"id":1.5e3,"x":true,"y":false,"z":null,"w":-0}`,
	`{"id":"x","extra":{"nested":[1,{"a":"}"}]},"method":"m"}`,
	"{\"id\"\t:\n1\r,\"method\":\"m\"}",
}

func checkDecodeMessage(t *testing.T, body []byte) {
	var want message
	wantOK := json.Unmarshal(body, &want) == nil
	var got message
	gotOK := decodeMessage(body, &got)
	if gotOK != wantOK {
		t.Fatalf("%q: decodeMessage ok=%v, json.Unmarshal ok=%v", body, gotOK, wantOK)
	}
	if wantOK && !reflect.DeepEqual(normRaw(got), normRaw(want)) {
		t.Fatalf("%q:\n got  %+v\n want %+v", body, got, want)
	}
}

// normRaw makes an empty and a nil raw value equal (neither is set).
func normRaw(m message) message {
	for _, r := range []*json.RawMessage{&m.ID, &m.Result, &m.Error, &m.Params.Arguments, &m.Params.Meta, &m.Params.Task, &m.Params.RequestID} {
		if len(*r) == 0 {
			*r = nil
		}
	}
	return m
}

func TestDecodeMessageReadsAsEncodingJSON(t *testing.T) {
	for _, s := range envelopeSeeds {
		checkDecodeMessage(t, []byte(s))
	}
}

// FuzzDecodeMessage: go test -run '^$' -fuzz FuzzDecodeMessage -fuzztime 60s ./backend/gateway/
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecodeMessage)
}

// TestScanMessageTakesTheUsualCall: a plain tools/call is read by the
// scanner (not json.Unmarshal) and costs only the copies of its id and
// arguments; json.Unmarshal took 18 allocations for it.
func TestScanMessageTakesTheUsualCall(t *testing.T) {
	body := []byte(envelopeSeeds[0])
	var m message
	if !scanMessage(body, &m) {
		t.Fatal("scanMessage left the usual tools/call to json.Unmarshal")
	}
	if raceDetector {
		return
	}
	allocs := testing.AllocsPerRun(100, func() {
		m = message{}
		if !decodeMessage(body, &m) {
			t.Fatal("not decoded")
		}
	})
	// id, arguments, and the tool's name.
	if allocs > 3 {
		t.Fatalf("decodeMessage: %.0f allocations for a plain tools/call, want at most 3", allocs)
	}
}
