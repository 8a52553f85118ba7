package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A 2026-07-28 client's tasks (the io.modelcontextprotocol/tasks
// extension), through the router to server-everything, whose tasks are the
// 2025-11-25 ones.

// modernTaskRPC posts one 2026-07-28 request as caller, declaring the tasks
// extension when declare is set, and returns the HTTP status and the body.
func modernTaskRPC(t *testing.T, url, caller, method string, params map[string]any, declare bool) (int, map[string]any) {
	t.Helper()
	caps := map[string]any{}
	if declare {
		caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
	}
	p := map[string]any{"_meta": map[string]any{
		mcp.MetaKeyProtocolVersion:    mcp.ProtocolVersion20260728,
		mcp.MetaKeyClientInfo:         map[string]any{"name": "modern-client", "version": "1"},
		mcp.MetaKeyClientCapabilities: caps,
	}}
	for k, v := range params {
		p[k] = v
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": p})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
	req.Header.Set(mcp.HeaderMethod, method)
	req.Header.Set("X-Caller", caller)
	if id, ok := params["taskId"].(string); ok {
		req.Header.Set(mcp.HeaderName, id)
	} else if name, ok := params["name"].(string); ok {
		req.Header.Set(mcp.HeaderName, name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: HTTP %d %s: %v", method, resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	return resp.StatusCode, out
}

func resultOf(t *testing.T, what string, out map[string]any) map[string]any {
	t.Helper()
	res, ok := out["result"].(map[string]any)
	if !ok {
		t.Fatalf("%s: %v", what, out)
	}
	return res
}

func TestModernClientFollowsATaskThroughTheRouter(t *testing.T) {
	r := taskRig(t, rigOptions{})
	research := func(caller, server, topic string, declare bool) map[string]any {
		_, out := modernTaskRPC(t, r.url, caller, "tools/call",
			map[string]any{"name": server + "__simulate-research-query", "arguments": map[string]any{"topic": topic}}, declare)
		return out
	}

	// server/discover names the extension.
	_, disc := modernTaskRPC(t, r.url, "alice", "server/discover", nil, false)
	ext, _ := resultOf(t, "server/discover", disc)["capabilities"].(map[string]any)["extensions"].(map[string]any)
	if _, ok := ext[TasksExtension]; !ok {
		t.Fatalf("server/discover: %v", disc)
	}

	// A task-only tool for a client without the extension: -32021.
	e := research("alice", "one", "alpha", false)["error"].(map[string]any)
	if e["code"] != float64(mcp.MISSING_REQUIRED_CLIENT_CAPABILITY) ||
		e["data"].(map[string]any)["requiredCapabilities"].(map[string]any)["extensions"].(map[string]any)[TasksExtension] == nil {
		t.Fatalf("undeclared: %v", e)
	}

	created := resultOf(t, "tools/call", research("alice", "one", "alpha", true))
	a, _ := created["taskId"].(string)
	if created["resultType"] != "task" || !strings.HasPrefix(a, "mcpr-task-") || created["status"] != "working" ||
		created["ttlMs"] != float64(60000*5) || created["pollIntervalMs"] != float64(1000) || created["task"] != nil {
		t.Fatalf("CreateTaskResult: %v", created)
	}
	b, _ := resultOf(t, "tools/call", research("alice", "two", "beta", true))["taskId"].(string)
	if b == a || r.routed(b).server != "two" {
		t.Fatalf("ids %s %s", a, b)
	}

	// Polling ends in completed, with the result inline.
	var done map[string]any
	testpeers.Eventually(t, 30*time.Second, "the task completed", func() bool {
		_, out := modernTaskRPC(t, r.url, "alice", "tasks/get", map[string]any{"taskId": a}, true)
		done = resultOf(t, "tasks/get", out)
		return done["status"] == "completed"
	})
	text := done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if done["resultType"] != "complete" || done["taskId"] != a || !strings.Contains(text, "# Research Report: alpha") {
		t.Fatalf("completed task: %v", done)
	}

	// Another credential, or no extension, reaches nothing.
	if _, out := modernTaskRPC(t, r.url, "bob", "tasks/get", map[string]any{"taskId": a}, true); out["error"].(map[string]any)["code"] != float64(mcp.INVALID_PARAMS) {
		t.Fatalf("bob's tasks/get: %v", out)
	}
	if _, out := modernTaskRPC(t, r.url, "bob", "tasks/cancel", map[string]any{"taskId": b}, true); out["error"] == nil {
		t.Fatalf("bob's tasks/cancel: %v", out)
	}
	if _, out := modernTaskRPC(t, r.url, "alice", "tasks/get", map[string]any{"taskId": a}, false); out["error"].(map[string]any)["code"] != float64(mcp.MISSING_REQUIRED_CLIENT_CAPABILITY) {
		t.Fatalf("undeclared tasks/get: %v", out)
	}

	// tasks/update is acknowledged; tasks/cancel reaches the upstream.
	if _, out := modernTaskRPC(t, r.url, "alice", "tasks/update", map[string]any{"taskId": b, "inputResponses": map[string]any{"x": map[string]any{"action": "decline"}}}, true); resultOf(t, "tasks/update", out)["resultType"] != "complete" {
		t.Fatalf("tasks/update: %v", out)
	}
	c, _ := resultOf(t, "tools/call", research("alice", "two", "gamma", true))["taskId"].(string)
	if _, out := modernTaskRPC(t, r.url, "alice", "tasks/cancel", map[string]any{"taskId": c}, true); resultOf(t, "tasks/cancel", out)["resultType"] != "complete" {
		t.Fatalf("tasks/cancel: %v", out)
	}
	raw, err := r.ups.Request(context.Background(), "two", "tasks/get", map[string]any{"taskId": r.routed(c).upstreamID})
	if err != nil || !strings.Contains(string(raw), `"status":"cancelled"`) {
		t.Fatalf("two's task after the cancel: %s %v", raw, err)
	}

	// Mcp-Name must name the task the body names.
	status, out := func() (int, map[string]any) {
		body := `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"` + a + `","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"m","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`
		req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(mcp.HeaderProtocolVersion, mcp.ProtocolVersion20260728)
		req.Header.Set(mcp.HeaderMethod, "tasks/get")
		req.Header.Set(mcp.HeaderName, "mcpr-task-other")
		req.Header.Set("X-Caller", "alice")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var o map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&o)
		return resp.StatusCode, o
	}()
	if status != http.StatusBadRequest || out["error"].(map[string]any)["code"] != float64(mcp.HEADER_MISMATCH) {
		t.Fatalf("mismatched Mcp-Name: %d %v", status, out)
	}
}
