package gateway

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// Malformed tasks/* requests from a client: each gets a JSON-RPC error
// naming what is wrong, no upstream sees it, and the router goes on serving
// the same session (a real task still reads back).
func TestMalformedTaskRequestsAreRefused(t *testing.T) {
	r := taskRig(t, rigOptions{})
	alice := newRawHTTPAs(t, r.url, asCaller("alice"))
	task := startResearch(t, alice, 1, "one", "alpha")
	huge := strings.Repeat("x", 1<<20)

	cases := []struct {
		method, params string
	}{
		{"tasks/get", `{}`},
		{"tasks/get", `{"taskId":5}`},
		{"tasks/get", `{"taskId":null}`},
		{"tasks/get", `{"taskId":{"id":"x"}}`},
		{"tasks/get", `[]`},
		{"tasks/get", `"mcpr-task-1"`},
		{"tasks/result", `{"taskId":""}`},
		{"tasks/result", `{"taskId":"` + huge + `"}`},
		{"tasks/cancel", `{"taskId":"mcpr-task-\u0000"}`},
		{"tasks/cancel", `{"taskId":["` + task + `"]}`},
		{"tasks/list", `{"cursor":5}`},
		{"tasks/list", `{"cursor":"page-2"}`},
		{"tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"a"},"task":"soon"}`},
		{"tools/call", `{"name":"one__simulate-research-query","arguments":{"topic":"a"},"task":{"ttl":"long"}}`},
		{"tools/call", `{"name":"one__simulate-research-query","arguments":"topic","task":{"ttl":1000}}`},
		{"tools/call", `{"name":"nobody__nothing","arguments":{},"task":{"ttl":1000}}`},
	}
	for i, c := range cases {
		status, _, body := alice.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, 100+i, c.method, c.params))
		what := c.method + " " + c.params[:min(len(c.params), 80)]
		if status != http.StatusOK && status != http.StatusBadRequest {
			t.Errorf("%s: HTTP %d: %.300s", what, status, body)
			continue
		}
		e := errorOf(t, body)
		if e.Code >= 0 || e.Message == "" {
			t.Errorf("%s: error %+v", what, e)
		}
		if len(body) > 4<<10 {
			t.Errorf("%s: a %d-byte error echoes the input", what, len(body))
		}
		if c.method == "tasks/list" && e.Data["reason"] != ReasonInvalidCursor {
			t.Errorf("%s: reason %v", what, e.Data["reason"])
		}
	}
	if n := r.tasksHeld(); n != 1 {
		t.Errorf("the router holds %d tasks after the malformed requests, want alice's one", n)
	}
	if get := readTask(t, alice.rpc(200, "tasks/get", fmt.Sprintf(`{"taskId":%q}`, task))); get.Error != nil || get.Result.TaskID != task {
		t.Fatalf("alice's task after the malformed requests: %+v", get)
	}
}
