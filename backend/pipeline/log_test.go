package pipeline

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// The request log's text of a request, exactly: the Logs page shows it and
// both paths of /mcp must write the same (gateway's tests compare them).
func TestRequestText(t *testing.T) {
	for _, c := range []struct {
		r    Request
		args string
		want string
	}{
		{Request{Method: MethodToolsCall, Target: "s__t"}, `{"a":1}`,
			`{"method":"tools/call","params":{"name":"s__t","arguments":{"a":1}}}`},
		{Request{Method: MethodToolsCall, Target: "s__t"}, ` null `,
			`{"method":"tools/call","params":{"name":"s__t"}}`},
		{Request{Method: MethodToolsCall, Target: `a"<b>&é`}, ``,
			`{"method":"tools/call","params":{"name":"a\"\u003cb\u003e\u0026é"}}`},
		{Request{Method: MethodPromptsGet, Target: "p", Meta: &mcp.Meta{ProgressToken: 7}}, ` {"x":"y"} `,
			`{"method":"prompts/get","params":{"name":"p","arguments":{"x":"y"},"_meta":{"progressToken":7}}}`},
		{Request{Method: MethodResourcesRead, Params: map[string]any{"uri": "file:///a", "b<": 1, "a": []int{1}}}, ``,
			`{"method":"resources/read","params":{"a":[1],"b\u003c":1,"uri":"file:///a"}}`},
		{Request{Method: MethodResourcesRead, Params: map[string]any{"bad": func() {}}}, ``,
			`{"method":"resources/read","params":{"bad":"(unencodable: json: unsupported type: func())"}}`},
		{Request{Method: MethodToolsList}, ``, `{"method":"tools/list","params":{}}`},
	} {
		if got := requestText(&c.r, json.RawMessage(c.args), c.r.Params); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

// A tools/call's text is one allocation: the log writes one per request.
func TestRequestTextAllocations(t *testing.T) {
	r := &Request{Method: MethodToolsCall, Target: "server__tool"}
	args := json.RawMessage(`{"message":"hello"}`)
	if n := testing.AllocsPerRun(100, func() { _ = requestText(r, args, nil) }); n > 1 {
		t.Errorf("%v allocations per tools/call text, want 1", n)
	}
}

func BenchmarkRequestText(b *testing.B) {
	r := &Request{Method: MethodToolsCall, Target: "everything__echo"}
	args := json.RawMessage(`{"message":"hello"}`)
	b.ReportAllocs()
	for b.Loop() {
		_ = requestText(r, args, nil)
	}
}
